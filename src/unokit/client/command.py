"""``unokit bot``: a unokit bot as a remote player in a server's room."""

from __future__ import annotations

from typing import Annotated

import typer

from unokit._extras import missing
from unokit.i18n import N_, _


def bot_command(
    server: Annotated[str, typer.Option("--server", help=N_("the server, e.g. "
                                        "http://127.0.0.1:8000"))],
    room: Annotated[str, typer.Option("--room", help=N_("the room code"))],
    bot: Annotated[str, typer.Option("--bot", help=N_("a bot spec: easy, normal, hard, "
                                     "random, playfirst, search, ..."))] = "normal",
    name: Annotated[str, typer.Option("--name", help=N_("the seat's name"))] = "",
    token: Annotated[str | None, typer.Option(
        "--token", help=N_("take back a seat with its token"))] = None,
    seed: Annotated[int, typer.Option("--seed", help=N_("the bot's own random seed"))] = 0,
    api_token: Annotated[str | None, typer.Option(
        "--api-token", envvar="UNOKIT_API_TOKEN",
        help=N_("an account's API token: the seat is the account's"))] = None,
) -> None:
    """Seat a unokit bot in a room of a unokit server as a remote player, and play until
    the match ends."""
    need = missing("server", "bot")
    if need is not None:
        raise typer.BadParameter(need)
    import asyncio

    from unokit.bots import BotSpecError, make_bot
    from unokit.client.client import ClientError
    from unokit.client.remote_bot import run_bot
    try:
        make_bot(bot, seed)
    except BotSpecError as exc:
        raise typer.BadParameter(str(exc)) from None
    try:
        client = asyncio.run(run_bot(server, room, bot, name=name, token=token, seed=seed,
                                     api_token=api_token))
    except ClientError as exc:
        typer.echo(_("error: {message}", message=exc), err=True)
        raise typer.Exit(2) from None
    typer.echo(_("match over in room {room}; seat {seat}; last event {seq}", room=room,
                 seat=client.seat, seq=client.last_seq))
