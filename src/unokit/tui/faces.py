"""How cards, colours and actions look in the terminal game.

Every colour has a letter *and* a symbol, so that the cards read the same without
colour: red ``♥``, yellow ``★``, green ``♣``, blue ``♦``; wild cards carry ``✦``.

>>> from unokit.engine.cards import parse_card
>>> face(parse_card("R5")), face(parse_card("B+2")), face(parse_card("W+4"))
('♥R5', '♦B+2', '✦W+4')
>>> color_label(2)
'♣ green'
>>> from unokit.engine import actions as A
>>> action_label(A.play(0, parse_card("W"), color=3, uno=True), ["You", "Bob"])
'Play ✦W, name ♦ blue, with UNO!'
>>> action_label(A.play(0, parse_card("G5"), target=1, give=parse_card("R1")), ["You", "Bob"])
'Play ♣G5, give ♥R1 to Bob'
>>> action_label(A.catch(0, 1), ["You", "Bob"])
'Catch Bob (missed UNO call)'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.markup import escape
from rich.text import Text

from unokit.engine import actions as A
from unokit.engine.cards import (
    CODES,
    COLOR_OF,
    NO_COLOR,
    RANK_OF,
    TRADE_HANDS,
    WILD,
    WILD_SWAP_HANDS,
)
from unokit.i18n import N_, _

SYMBOLS = ("♥", "★", "♣", "♦")
"""The symbol of each colour (R, Y, G, B)."""
WILD_SYMBOL = "✦"
COLOR_WORDS = (N_("red"), N_("yellow"), N_("green"), N_("blue"))

FACE_WIDTH = 6
"""Cells one card takes in the hand (a face of up to 4 characters, padded)."""

# Foreground styles (log, labels) and the card faces: bright for cards that may be
# played now, dark for the others; text colours are chosen for contrast.
_FG = ("bold #ff5f5f", "bold #ffd75f", "bold #5fd75f", "bold #5fafff")
_WILD_FG = "bold #d787ff"
_BRIGHT = ("bold #ffffff on #c0392b", "bold #000000 on #f1c40f", "bold #000000 on #27ae60",
           "bold #ffffff on #2e6fd8")
_WILD_BRIGHT = "bold #ffffff on #7d3c98"
_DARK = ("#e8b4b4 on #4a1c1c", "#e8dca0 on #4a4010", "#b4e0b4 on #1c3f24",
         "#b4c8f0 on #1c2a4f")
_WILD_DARK = "#d8c0e8 on #35253f"


def face(card: int) -> str:
    """The text of a card: colour symbol and card code (``♥R5``, ``✦W+4``)."""
    color = COLOR_OF[card] if 0 <= card < len(COLOR_OF) else NO_COLOR
    code = CODES[card] if 0 <= card < len(CODES) else "?"
    return (WILD_SYMBOL if color == NO_COLOR else SYMBOLS[color]) + code


def fg_style(color: int) -> str:
    """The foreground style of a colour (``-1``: wild)."""
    return _FG[color] if 0 <= color < 4 else _WILD_FG


def face_style(card: int, bright: bool = True) -> str:
    """The style of a card face: bright when it may be played, dark otherwise."""
    color = COLOR_OF[card]
    if color == NO_COLOR:
        return _WILD_BRIGHT if bright else _WILD_DARK
    return (_BRIGHT if bright else _DARK)[color]


def card_text(card: int, bright: bool = True, pad: bool = False) -> Text:
    """A card as styled text; ``pad`` centres it in :data:`FACE_WIDTH` cells."""
    label = face(card)
    if pad:
        label = label.center(FACE_WIDTH)
    return Text(label, style=face_style(card, bright))


def cards_text(cards: Sequence[int], bright: bool = True) -> Text:
    """Several cards, separated by spaces."""
    out = Text()
    for index, card in enumerate(cards):
        if index:
            out.append(" ")
        out.append_text(card_text(card, bright))
    return out


def color_label(color: int) -> str:
    """A colour in words with its symbol (``♦ blue``)."""
    if not 0 <= color < 4:
        return _("no colour")
    return f"{SYMBOLS[color]} {_(COLOR_WORDS[color])}"


def color_text(color: int) -> Text:
    """:func:`color_label`, styled."""
    return Text(color_label(color), style=fg_style(color) if 0 <= color < 4 else "")


def _who(seat: int | None, names: Sequence[str]) -> str:
    if seat is None:
        return "?"
    return names[seat] if 0 <= seat < len(names) else _("Seat {seat}", seat=seat)


def _target_words(card: int, who: str) -> str:
    if card == WILD_SWAP_HANDS or (card < WILD and RANK_OF[card] == 7):
        return _("swap hands with {who}", who=who)
    if card < WILD and RANK_OF[card] == TRADE_HANDS:
        return _("trade hands with {who}", who=who)
    return _("choose {who}", who=who)


def action_label(action: int, names: Sequence[str]) -> str:
    """An action in words, for buttons and lists."""
    parts = A.describe(action)
    kind = parts.type
    if kind == "play" and parts.card is not None:
        text = _("Play {cards}", cards=", ".join(face(c) for c in (parts.card, *parts.extra)))
        if parts.color is not None:
            text += _(", name {color}", color=color_label(parts.color))
        if parts.give is not None:
            text += _(", give {card} to {who}", card=face(parts.give),
                      who=_who(parts.target, names))
        elif parts.target is not None:
            text += ", " + _target_words(parts.card, _who(parts.target, names))
        return text + (_(", with UNO!") if parts.uno else "")
    simple = {
        "draw": N_("Draw (or accept the penalty, or press the launcher)"),
        "pass": N_("Keep the drawn card (pass)"),
        "challenge": N_("Challenge the Wild Draw Four"),
        "uno": N_("Call UNO!"),
        "next": N_("Start the next round"),
        "slap": N_("Slap the table"),
        "say": N_("Say something"),
    }
    if kind in simple:
        return _(simple[kind])
    if kind == "catch":
        return _("Catch {who} (missed UNO call)", who=_who(parts.target, names))
    if kind == "color" and parts.color is not None:
        return _("Name {color}", color=color_label(parts.color))
    if kind == "give" and parts.card is not None:
        return _("Give back {card}", card=face(parts.card))
    return A.format_action(action)


_CARD_MARKUP = re.compile(r"(?<!\\)\[bold (red|yellow|green|blue|magenta)\]([^\[\]]*)\[/\]")
_WORD_COLOR = {"red": 0, "yellow": 1, "green": 2, "blue": 3}


def decorate(markup: str) -> Text:
    """A transcript line written with ``markup=True`` (see :mod:`unokit.text.transcript`) as
    styled text, every card code and colour word given its symbol (emoji codes such as
    ``:smile:`` stay as written).

    >>> decorate("Bob plays [bold blue]B7[/] and names [bold red]red[/].").plain
    'Bob plays ♦B7 and names ♥ red.'
    >>> decorate("Eve plays [bold magenta]W+4[/].").plain
    'Eve plays ✦W+4.'
    """

    def swap(match: re.Match[str]) -> str:
        word, text = match.group(1), match.group(2)
        if word == "magenta":
            return f"[{_WILD_FG}]{WILD_SYMBOL}{text}[/]"
        color = _WORD_COLOR[word]
        if text in COLOR_WORDS or text in [_(word) for word in COLOR_WORDS]:
            return f"[{_FG[color]}]{escape(color_label(color))}[/]"
        return f"[{_FG[color]}]{SYMBOLS[color]}{text}[/]"

    return Text.from_markup(_CARD_MARKUP.sub(swap, markup), emoji=False)


__all__ = [
    "COLOR_WORDS",
    "FACE_WIDTH",
    "SYMBOLS",
    "WILD_SYMBOL",
    "action_label",
    "card_text",
    "cards_text",
    "color_label",
    "color_text",
    "decorate",
    "face",
    "face_style",
    "fg_style",
]
