"""unokit's game server: ``unokit serve`` (docs/server.md, docs/protocol.md).

- :mod:`unokit.server.protocol`: the WebSocket messages (msgspec models).
- :mod:`unokit.server.room`: a room, one task that owns one game.
- :mod:`unokit.server.rooms`: every room of the process.
- :mod:`unokit.server.fanout`: how messages reach connections.
- :mod:`unokit.server.app`: the HTTP API (Starlette).
- :mod:`unokit.server.game_socket`: the game's WebSocket, one client's connection.
- :mod:`unokit.server.slim_socket`: a welcomed connection's own small protocol.
- :mod:`unokit.server.serve`: uvicorn, logs, graceful shutdown.
- :mod:`unokit.server.settings`: flags and ``UNOKIT_*`` variables.

Nothing is imported here, so that ``unokit --help`` works without the ``server`` extra.
"""
