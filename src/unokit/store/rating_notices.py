"""Telling a player that a match did not count for their rating, or counted only in
part, and why, in words (docs/accounts.md, "Anti-farming").

A rated match (:mod:`unokit.store.match_play`: a rated room, accounts only) gives a
person one of these notices, or none when it counted in full:

``voided``
    the anti-farming checks voided the player's own rating change; ``reasons`` are
    the checks' names, each said in words (:data:`REASON_WORDS`);
``none_counted``
    the checks left the player alone but voided others, and what was left was too
    little to rate (no person, or a single team): nobody's rating moved;
``partial``
    the checks voided others: the player was rated over the rest only.

The words say what the checks saw of the match or of the player, never who else was
flagged, why, or where the checks' thresholds lie. The match end shows the notice to
the player's own seat only, and ``/api/me`` in the player's own match history only: a
public profile never shows it.

>>> notice_for(("sitting",), voided_any=True, rated_any=True)
RatingNotice(kind='voided', reasons=('sitting',))
>>> notice_for((), voided_any=True, rated_any=False).kind
'none_counted'
>>> notice_for((), voided_any=True, rated_any=True).kind, notice_for((), False, True)
('partial', None)
>>> notice_for(("repeat_deal",), True, True).as_dict("en")["text"]
'This match did not count for your rating. You had played this same deal before.'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from unokit.i18n import N_, localize
from unokit.store import farming
from unokit.store.models import MatchPlayRow, MatchPlaySeatRow
from unokit.store.rating_model import MU, SIGMA

KIND_WORDS = {
    "voided": N_("This match did not count for your rating."),
    "none_counted": N_("This match did not count for anyone's rating: too few results "
                       "at the table counted."),
    "partial": N_("Some results at this table did not count: your rating moved only "
                  "against the other players."),
}
"""Each notice in words (the player is always "you")."""

REASON_WORDS = {
    "thrown": N_("The play at the table looked like a match lost on purpose."),
    "thrown_pattern": N_("Your recent opponents often drew instead of playing a card "
                         "they had."),
    "sitting": N_("Most of your moves were played for you (turn timeouts or "
                  "autoplay)."),
    "repeat_deal": N_("You had played this same deal before."),
    "fresh_account": N_("A new account and a player on the same network do not rate "
                        "each other at first."),
    "lopsided_pair": N_("You have met one opponent often lately, nearly always with the "
                        "same winner."),
}
"""Each check of :mod:`unokit.store.farming` in words, as its player is told it."""


@dataclass(frozen=True)
class RatingNotice:
    """Why a rated match did not count (or counted in part) for one player."""

    kind: str
    """``voided``, ``none_counted`` or ``partial`` (see the module)."""
    reasons: tuple[str, ...] = ()
    """The checks that voided the player's own rating (``voided`` only)."""

    @property
    def counted(self) -> bool:
        """Whether the player's rating moved in the match at all."""
        return self.kind == "partial"

    def text(self, lang: str) -> str:
        """The notice in words, in ``lang``."""
        words = [localize(lang, KIND_WORDS[self.kind])]
        words += [localize(lang, REASON_WORDS[r]) for r in self.reasons if r in REASON_WORDS]
        return " ".join(words)

    def as_dict(self, lang: str) -> dict[str, Any]:
        """The notice as ``/api/me`` gives it: ``{"kind", "reasons", "text"}``."""
        return {"kind": self.kind, "reasons": list(self.reasons), "text": self.text(lang)}


def notice_for(mine: Sequence[str], voided_any: bool, rated_any: bool
               ) -> RatingNotice | None:
    """The notice of one person of a rated match: ``mine``, the checks' reasons on
    their own seat; ``voided_any``, whether the checks voided anyone; ``rated_any``,
    whether anyone was rated after them. ``None``: it counted in full."""
    if mine:
        return RatingNotice("voided", tuple(dict.fromkeys(mine)))
    if not voided_any:
        return None
    return RatingNotice("partial" if rated_any else "none_counted")


PLAY = MatchPlayRow.__table__
PLAY_SEATS = MatchPlaySeatRow.__table__


def match_notices(connection: Connection, player_id: int,
                  matches: Sequence[int]) -> dict[int, RatingNotice]:
    """The notices of ``player_id`` for some of their matches (matches that counted in
    full, were not to be rated or were finished before the checks stored anything are
    left out), from the stored participants and verdicts."""
    out: dict[int, RatingNotice] = {}
    for match, told in seat_notices(connection, matches).items():
        mine = [notice for part, notice in told if part.player == player_id]
        reasons = [r for notice in mine for r in notice.reasons]
        if reasons:  # voided on any of the player's seats: every reason, once
            out[match] = RatingNotice("voided", tuple(dict.fromkeys(reasons)))
        elif mine:
            out[match] = mine[0]
    return out


def seat_notices(connection: Connection, matches: Sequence[int]
                 ) -> dict[int, list[tuple[farming.Participant, RatingNotice]]]:
    """Each person's notice in some matches (a rated match that the checks flagged),
    with their participant (seat, player, whether they left), by match: what the match
    end told each seat, from the stored participants and verdicts. Matches that counted
    in full are left out."""
    rated = sorted(set(connection.execute(select(PLAY.c.match_id).where(
        PLAY.c.match_id.in_(sorted(set(matches))), PLAY.c.rated.is_(True),
        PLAY.c.flagged.is_(True))).scalars()))
    if not rated:
        return {}
    parts: dict[int, list[farming.Participant]] = {m: [] for m in rated}
    reasons: dict[int, dict[int, tuple[str, ...]]] = {m: {} for m in rated}
    for row in connection.execute(select(PLAY_SEATS).where(
            PLAY_SEATS.c.match_id.in_(rated)).order_by(PLAY_SEATS.c.match_id,
                                                       PLAY_SEATS.c.slot)):
        index = len(parts[row.match_id])
        parts[row.match_id].append(farming.Participant(
            row.seat, row.player_id, row.bot, row.team, row.rank, left=row.left))
        if row.reasons:
            reasons[row.match_id][index] = tuple(row.reasons.split(","))
    out: dict[int, list[tuple[farming.Participant, RatingNotice]]] = {}
    for match in rated:
        rated_any = bool(farming.rated_entrants(parts[match], reasons[match],
                                                lambda p: (MU, SIGMA)))
        for index, part in enumerate(parts[match]):
            if part.player is None:
                continue
            notice = notice_for(reasons[match].get(index, ()), bool(reasons[match]),
                                rated_any)
            if notice is not None:
                out.setdefault(match, []).append((part, notice))
    return out
