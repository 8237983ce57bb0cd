"""An idle game WebSocket holds little: it reaches its endpoint in front of Starlette's
middleware and router (:mod:`unokit.server.socket_front`), each of which would keep a
frame for the connection's whole life, and it has no writer task until a message has
to wait (``benchmarks/idle_connections.py`` measures the memory)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from asgi_driver import Socket, opened_app
from polling import until
from server_harness import server_settings
from unokit.server.socket_front import route_code

MIDDLEWARE = ("ServerErrorMiddleware", "ExceptionMiddleware", "Router", "Mount", "KeepSend",
              "Observe", "WebSocketRoute", "wrap_app_handling_exceptions")


def awaiting(task: asyncio.Task[Any]) -> list[str]:
    """The names of the coroutines ``task`` is inside, outermost first."""
    names = []
    coro: Any = task.get_coro()
    while coro is not None and hasattr(coro, "cr_code"):
        names.append(coro.cr_code.co_qualname)
        coro = coro.cr_await
    return names


@pytest.mark.parametrize("path, base, code", [
    ("/ws", "", ""), ("/ws/AB12", "", "AB12"), ("/uno/ws", "/uno", ""),
    ("/uno/ws/AB12", "/uno", "AB12"), ("/ws", "/uno", None), ("/ws/", "", None),
    ("/ws/a/b", "", None), ("/wsx", "", None), ("/api/rooms", "", None),
    ("/unows", "/uno", None)])
def test_the_game_s_paths_and_no_other(path: str, base: str, code: str | None) -> None:
    assert route_code(path, base) == code


@pytest.mark.asyncio
async def test_an_idle_game_socket_skips_the_middleware_and_has_no_writer_task() -> None:
    async with opened_app(server_settings("sqlite://")) as (app, _rooms):
        socket = Socket(app)
        socket.start()
        assert (await socket.next())["type"] == "websocket.accept"
        assert socket.task is not None
        await until(lambda: "Connection.serve" in awaiting(socket.task),
                    "the socket waiting for a hello")
        chain = awaiting(socket.task)
        assert chain[:3] == ["Starlette.__call__", "SocketFront.__call__", "game_socket"], chain
        assert not [name for name in chain if name.split(".")[0] in MIDDLEWARE], chain
        writers = [t for t in asyncio.all_tasks()
                   if "write_then_close" in t.get_coro().__qualname__]  # type: ignore[union-attr]
        assert not writers, "a writer task for a connection with nothing waiting"
        await socket.close()


@pytest.mark.asyncio
async def test_another_websocket_path_goes_on_through_starlette() -> None:
    async with opened_app(server_settings("sqlite://")) as (app, _rooms):
        socket = Socket(app, path="/ws/a/b")
        socket.start()
        assert (await socket.next())["type"] == "websocket.close"  # no such route
        assert socket.task is not None
        await asyncio.wait_for(socket.task, 10)
