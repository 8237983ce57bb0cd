"""A finished match step by step, for the web client's replay viewer
(``GET /api/rooms/CODE/replay?seat=N|all``, docs/server.md).

The replay is built from the match's record alone (:func:`replay_steps`), once the
match is over. One *view* is chosen:

- a seat (``0``, ``1``, ...): what that seat saw. Every event goes through
  :func:`unokit.engine.events.redact`, the same function that redacts the live room's
  events for that seat, and the table after each step is the seat's
  :class:`~unokit.engine.observation.Observation` (its own hand, a partner's under
  ``partner_hands_visible``, and only the number of cards in every other hand);
- ``all``: every hand, every card (the record holds them, and a finished match hides
  nothing any more).

A step is ``{"action", "round", "events", "table"}``: the action's text (``None`` for
the set-up), the round it was played in, the events it caused as the view sees them,
and the table after it. The answer is ``{"view", "players", "rules", "rounds",
"steps"}`` (the server adds the room's ``code``), where ``rounds`` maps each round to
the index of its first step.

It is CPU work (a replay of the whole match): the server builds it in a worker thread,
once per match and view, and keeps the last :data:`KEPT` asked for
(:class:`unokit.server.published.Published`).

>>> from unokit import Game, Rules
>>> from unokit.bots import make_bot, play
>>> from unokit.formats.record import Record
>>> game = Game(Rules.preset("official", players=2, rounds=1), seed=3)
>>> for _ in play(game, [make_bot("playfirst", seat) for seat in range(2)]):
...     pass
>>> record = Record.from_game(game, ["Ann", "Ben"])
>>> mine = replay_view(record, 0)
>>> first = mine["steps"][0]["table"]
>>> len(first["hand"]), first["hand_sizes"], "hands" in first
(7, [7, 7], False)
>>> [len(e.get("cards", ())) for e in mine["steps"][0]["events"] if e["kind"] == "dealt"]
[7, 0]
>>> every = replay_view(record, None)
>>> [len(hand) for hand in every["steps"][0]["table"]["hands"]]
[7, 7]
>>> parse_view("all"), parse_view("1"), parse_view("x")
(None, 1, Ellipsis)
"""

from __future__ import annotations

from types import EllipsisType
from typing import Any

from unokit.engine.cards import CODES
from unokit.engine.events import redact
from unokit.formats.record import Record, replay_steps

SEAT_DETAILS = ("hand", "partner_hand", "drawn_card")
"""The parts of an observation that belong to its seat alone (left out of ``all``)."""

KEPT = 16
"""Replays (one match's one view each) kept in memory: each is about 600 bytes per
action of its match."""

MAX_SEATS = 10
"""The most seats a room has (a view names one of them)."""


def parse_view(text: str) -> int | EllipsisType | None:
    """The view a query asks for: a seat number, ``None`` for ``all`` (every hand), or
    ``...`` for text that is neither."""
    if text == "all":
        return None
    if text.isascii() and text.isdigit() and len(text) <= 2 and int(text) < MAX_SEATS:
        return int(text)
    return ...


def _table(game: Any, seat: int | None) -> dict[str, Any]:
    """The table after a step as ``seat`` sees it (``None``: with every hand)."""
    view: dict[str, Any] = game.observation(0 if seat is None else seat).to_dict()
    del view["discard"]  # public, and long: the top card is in "top"
    if seat is None:
        for key in SEAT_DETAILS:
            del view[key]
        view["seat"] = None
        view["hands"] = [[CODES[card] for card in hand] for hand in game.hands]
    return view


def replay_view(record: Record, seat: int | None) -> dict[str, Any]:
    """The match of ``record`` step by step, as ``seat`` saw it (``None``: every hand).

    Raises:
        RecordError: the record does not replay.
        ValueError: ``seat`` is not a seat of the match.
    """
    players = len(record.players)
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"no seat {seat} in a match of {players}")
    steps: list[dict[str, Any]] = []
    rounds: dict[str, int] = {}
    for step in replay_steps(record):
        game = step.game
        events = [(event if seat is None else redact(event, seat)).to_dict()
                  for event in step.events]
        rounds.setdefault(str(game.round_no), len(steps))
        steps.append({"action": None if step.action is None else record.actions[len(steps) - 1],
                      "round": game.round_no, "events": events, "table": _table(game, seat)})
    return {"view": "all" if seat is None else seat, "players": list(record.players),
            "rules": record.rules, "rounds": rounds, "steps": steps}
