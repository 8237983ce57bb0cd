"""The table: the human plays at seat 0, the bots at the other seats.

Everything the human may do comes from ``game.legal_actions(0)``: cards that may be
played (in turn or, with jump-in, out of turn) are bright, the buttons show what is
legal, and the ``a`` key lists every legal action, so that nothing is ever out of
reach. An illegal key or click changes nothing and shows the engine's reason. Bots act
after a short delay, on Textual timers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import RichLog, Static

from unokit.engine import actions as A
from unokit.engine.cards import RANK_OF, TRADE_HANDS, WILD, WILD_DRAW_FOUR
from unokit.engine.errors import IllegalActionError, UnoError
from unokit.engine.events import EventKind
from unokit.engine.game import Phase
from unokit.engine.scoring import partner
from unokit.i18n import _, current_language, localize, ngettext, pgettext
from unokit.tui.faces import action_label, card_text, color_label, face
from unokit.tui.preset_names import rules_label
from unokit.tui.screens import (
    ChallengePrompt,
    ChoiceScreen,
    ColorPicker,
    ConfirmQuit,
    Decision,
    EndScreen,
    HelpScreen,
    RoundSummary,
    SeatResult,
)
from unokit.tui.session import (
    HUMAN,
    Move,
    Offer,
    Session,
    as_you,
    multi_plays,
    single_plays,
    with_uno,
)
from unokit.tui.widgets import (
    KEY_LABELS,
    HandView,
    KeyButton,
    OpponentList,
    OpponentRow,
    opponent_text,
    table_text,
)

MAX_INSTANT_STEPS = 100_000
"""Bot actions applied at once (with no delay) before the screen shows them anyway."""

_SEAT_WORD = re.compile(r"\bseat (\d)\b")


class HandBox(VerticalScroll, can_focus=False):
    """The scrolling box around the hand."""


class QuietLog(RichLog, can_focus=False):
    """The event log; it never takes the focus."""


class TableScreen(Screen[None]):
    """The table; see the module docstring."""

    DEFAULT_CSS = """
    TableScreen {
        layout: vertical;
    }
    TableScreen #title {
        height: 1;
        background: $primary-darken-2;
        color: $text;
        padding: 0 1;
    }
    TableScreen #main {
        height: 1fr;
    }
    TableScreen #left {
        width: 2fr;
        min-width: 42;
        max-width: 64;
        height: 1fr;
        padding: 0 1;
    }
    TableScreen #opponents {
        margin-bottom: 1;
    }
    TableScreen #table {
        height: auto;
        margin-bottom: 1;
    }
    TableScreen #status {
        height: auto;
    }
    TableScreen #log {
        width: 3fr;
        height: 1fr;
        border: round $panel;
        border-title-color: $text-muted;
        scrollbar-size-vertical: 1;
    }
    TableScreen #hand-box {
        height: auto;
        max-height: 12;
        border-top: solid $accent;
        border-title-align: left;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    TableScreen #bar {
        height: 1;
        padding: 0 1;
    }
    TableScreen #bar KeyButton.-hidden {
        display: none;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", _("Left"), show=False),
        Binding("right", "move(1)", _("Right"), show=False),
        Binding("up", "row(-1)", _("Up"), show=False),
        Binding("down", "row(1)", _("Down"), show=False),
        # TRANSLATORS: the table's key bindings: each a verb, the button's action
        Binding("enter", "play", _("Play")),
        Binding("space", "select", _("Select"), show=False),
        *(Binding(key, f"play_index({index})", show=False)
          for index, key in enumerate(KEY_LABELS)),
        Binding("d", "draw", pgettext("verb: the button that draws a card", "Draw")),
        # TRANSLATORS: Pass: keep the drawn card and end the turn
        Binding("p", "pass_turn", _("Pass")),
        Binding("u", "uno", _("UNO")),
        Binding("c", "catch(-1)", _("Catch")),
        Binding("x", "challenge", _("Challenge")),
        Binding("s", "slap", _("Slap")),
        # TRANSLATORS: Say: speak at the table (the silence rule punishes it)
        Binding("y", "say", _("Say")),
        Binding("a", "all_actions", pgettext("the list of every legal move", "Actions")),
        Binding("question_mark,f1", "help",
                pgettext("the keyboard keys: the help screen's title", "Keys")),
        Binding("q", "quit_match", _("Quit")),
    ]

    def __init__(self, session: Session, delay: float = 0.6) -> None:
        super().__init__()
        self.session = session
        self.delay = delay
        self.uno_armed = False
        self.error = ""
        self._timer: Timer | None = None
        self._waiting_for: Move | None = None
        self._written = 0
        self._problems_shown = 0
        self._shown_end: tuple[int, str] | None = None
        self._prompted = -1

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        seats = range(1, self.session.game.n)
        yield Static("", id="title")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield OpponentList(seats, id="opponents")
                yield Static("", id="table")
                yield Static("", id="status")
            log = QuietLog(id="log", wrap=True, min_width=20, max_lines=2000)
            log.border_title = _("Log")
            yield log
        with HandBox(id="hand-box"):
            yield HandView(id="hand")
        with Horizontal(id="bar"):
            # TRANSLATORS: a button: draw a card (a verb), then its key; it sits beside
            # "Actions a" (the list of every legal move): the two must read differently.
            yield KeyButton(_("Draw d"), "screen.draw", id="btn-draw", variant="primary")
            yield KeyButton(_("Pass p"), "screen.pass_turn", id="btn-pass")
            yield KeyButton(_("UNO u"), "screen.uno", id="btn-uno", variant="warning")
            yield KeyButton(_("Challenge x"), "screen.challenge", id="btn-challenge")
            yield KeyButton(_("Slap s"), "screen.slap", id="btn-slap", variant="error")
            yield KeyButton(_("Say y"), "screen.say", id="btn-say")
            yield KeyButton(_("Play selected ⏎"), "screen.play", id="btn-multi")
            # TRANSLATORS: a button: the list of every legal move, then its key.
            yield KeyButton(_("Actions a"), "screen.all_actions", id="btn-actions")
            # TRANSLATORS: a button: the keyboard keys (the help screen), then its key.
            yield KeyButton(_("Keys ?"), "screen.help", id="btn-help")
            yield KeyButton(_("Quit q"), "screen.quit_match", id="btn-quit")

    def on_mount(self) -> None:
        self._after_change()

    async def reword(self) -> None:
        """Say the table, its buttons and the whole log again in the current language."""
        self.session.reword()
        self._written = 0
        await self.recompose()
        self._refresh()

    @property
    def hand(self) -> HandView:
        """The hand widget."""
        return self.query_one("#hand", HandView)

    # ------------------------------------------------------------------ flow
    def _after_change(self) -> None:
        """The state changed: close dialogs about the old position, let the bots act
        (at once or on a timer), show the table and ask the human what is needed."""
        self._cancel_timer()
        self._close_stale()
        self._advance()
        self._refresh()
        drawn = self.session.observation().drawn_card
        if drawn is not None and drawn in self.hand.cards:
            self.hand.cursor = self.hand.cards.index(drawn)  # the card to play or keep
            self.hand.refresh()
        self._ask_human()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._waiting_for = None

    def _close_stale(self) -> None:
        while isinstance(self.app.screen, Decision):
            self.app.pop_screen()

    def _advance(self) -> None:
        session = self.session
        for _step in range(MAX_INSTANT_STEPS):
            move = session.next_move()
            if move is None:
                return
            wait = session.wait_for(move, self.delay)
            if wait > 0:
                self._waiting_for = move
                self._timer = self.set_timer(wait, self._on_timer)
                return
            if not self._apply_move(move):
                return  # asking again would give the same answer

    def _on_timer(self) -> None:
        move = self._waiting_for
        self._timer = None
        self._waiting_for = None
        if move is None or move.version != self.session.version:
            return
        self._apply_move(move)
        self._after_change()

    def _apply_move(self, move: Move) -> bool:
        try:
            self.session.apply(move.action)
        except IllegalActionError as exc:  # the bot was asked about this very state
            self.session.problems.append(f"{self.session.name(move.seat)}: {exc.reason}")
            return False
        except UnoError as exc:
            self.session.problems.append(f"{self.session.name(move.seat)}: {exc}")
            return False
        return True

    def human(self, action: int) -> bool:
        """Apply the human's action; an illegal one only shows the engine's reason."""
        try:
            self.session.apply(action)
        except IllegalActionError as exc:
            self.error = self._named(exc)
            self._refresh()
            return False
        except UnoError as exc:
            self.error = str(exc)
            self._refresh()
            return False
        self.error = ""
        self.uno_armed = False
        self._problems_shown = len(self.session.problems)
        self._after_change()
        return True

    def _named(self, error: IllegalActionError) -> str:
        """The engine's reason in the current language; in English with the seats'
        names for ``seat N``."""
        if current_language() != "en":
            return localize(current_language(), error)
        return _SEAT_WORD.sub(lambda m: self.session.name(int(m.group(1))), error.reason)

    def _ask_human(self) -> None:
        """Open the dialog the position asks for, once per position."""
        game = self.session.game
        phase = game.phase
        if phase in (Phase.ROUND_OVER, Phase.MATCH_OVER):
            key = (game.round_no, phase.value)
            if self._shown_end != key:
                self._shown_end = key
                self.app.push_screen(EndScreen(self.round_summary()), self._end_chosen)
            return
        if game.current_player != HUMAN or self._prompted == self.session.version:
            return
        offer = self.session.offer()
        if offer.challenge is not None:
            self._prompted = self.session.version
            self._challenge_prompt(offer)
        elif offer.colors:
            self._prompted = self.session.version
            self._pick_color(offer)

    # ------------------------------------------------------------------ view
    def _refresh(self) -> None:
        session = self.session
        game = session.game
        obs = session.observation()
        offer = session.offer()
        rules = game.rules
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append("unokit", style="bold")
        title.append(" · " + _("round {n}", n=obs.round) + " · " + rules_label(session.rules_text)
                     + " · " + _("seed {seed}", seed=session.seed))
        self.query_one("#title", Static).update(title)
        mate = partner(rules, HUMAN)
        for row in self.query(OpponentRow):
            seat = row.seat
            place = obs.finish_order.index(seat) + 1 if seat in obs.finish_order else 0
            row.show(opponent_text(
                name=session.name(seat), level=session.levels[seat],
                cards=obs.hand_sizes[seat], score=obs.scores[seat],
                turn=obs.current_player == seat, uno_open=obs.uno_open == seat,
                active=obs.active[seat], in_match=obs.in_match[seat], partner=seat == mate,
                place=place, catchable=seat in offer.catches), seat in offer.catches)
        victim = obs.current_player if obs.current_player is not None else -1
        self.query_one("#table", Static).update(table_text(
            top=obs.top, color=obs.color, direction=obs.direction, pile=obs.draw_pile_size,
            pile_word=_("Launcher") if rules.deck == "attack" else _("Draw pile"),
            round_no=obs.round, dealer=session.name(obs.dealer), pending=obs.pending_draw,
            pending_for="" if victim == HUMAN else session.name(victim),
            partner=session.name(mate) if mate >= 0 else "", partner_hand=obs.partner_hand))
        self.query_one("#status", Static).update(self._status(offer))
        self.hand.set_hand(obs.hand, offer.hand_cards)
        box = self.query_one("#hand-box", HandBox)
        you = f"{session.name(HUMAN)} · " + ngettext("{n} card", "{n} cards", len(obs.hand))
        box.border_title = Text(f"{you} · " + ngettext("{n} pt", "{n} pts", obs.scores[HUMAN]) + (
            " · " + _("your turn") if obs.current_player == HUMAN else ""))
        self._refresh_buttons(offer)
        new_lines = session.lines[self._written:]
        if new_lines:
            log = self.query_one("#log", QuietLog)
            for line in new_lines:
                log.write(line)
            self._written = len(session.lines)
            self.call_after_refresh(log.scroll_end, animate=False)

    def _refresh_buttons(self, offer: Offer) -> None:
        rules = self.session.game.rules
        phase = self.session.game.phase

        def set_button(name: str, *, shown: bool = True, enabled: bool = True,
                       label: str | None = None) -> None:
            button = self.query_one(f"#btn-{name}", KeyButton)
            button.set_class(not shown, "-hidden")
            button.disabled = not enabled
            if label is not None:
                button.label = label

        pending = self.session.game.pending
        if phase in (Phase.CHALLENGE, Phase.RESPOND):
            draw_label = _("Accept +{n} d", n=pending or 4)
        elif rules.deck == "attack":
            draw_label = _("Press d")
        else:
            draw_label = _("Draw d")
        set_button("draw", enabled=offer.draw is not None, label=draw_label)
        set_button("pass", shown=offer.pass_turn is not None)
        set_button("uno", enabled=offer.uno is not None or offer.uno_plays,
                   label=_("UNO ✓ u") if self.uno_armed else _("UNO u"))
        set_button("challenge", shown=offer.challenge is not None)
        set_button("slap", shown=rules.uno_slap, enabled=offer.slap is not None)
        set_button("say", shown=rules.silence != "off", enabled=offer.say is not None)
        set_button("multi", shown=rules.multi_play != "off" and bool(self.hand.selected))

    def _status(self, offer: Offer) -> Text:
        session = self.session
        game = session.game
        obs = session.observation()
        phase = game.phase
        current = obs.current_player
        text = Text()
        if phase is Phase.SLAP:
            if HUMAN in obs.slap_left:
                text.append(_("SLAP! Press s: the last to slap draws."), style="bold #ff5f5f")
            else:
                text.append(_("Everyone slaps…"))
        elif current == HUMAN:
            text.append(_("Your turn: "), style="bold #ffd75f")
            text.append(self._your_turn(offer))
        elif current is None:
            text.append(_("The round is over.") if phase is Phase.ROUND_OVER
                        else _("The match is over."))
        else:
            text.append(_("{who}'s turn", who=session.name(current)), style="bold")
            text.append(_(" (thinking…)") if self._waiting_for is not None else "")
            if offer.play_cards or offer.multi_cards:
                text.append("\n" + _("You may jump in with a bright card!"),
                            style="bold #5fd75f")
        if offer.catches:
            names = ", ".join(session.name(t) for t in sorted(offer.catches))
            text.append("\n" + _("Catch {names} (c)!", names=names), style="bold #ff5f5f")
        if offer.uno is not None:
            text.append("\n" + _("Call UNO now (u)!"), style="bold #ffd75f")
        elif self.uno_armed:
            text.append("\n" + _("UNO will be called with your play."), style="bold #ffd75f")
        if self.error:
            text.append("\n✗ " + self.error, style="bold #ff5f5f")
        problems = session.problems[self._problems_shown:]
        if problems:
            # A bot failing on its turn and again out of turn says so once.
            text.append("\n" + "; ".join(dict.fromkeys(problems)), style="dim")
        return text

    def _your_turn(self, offer: Offer) -> str:
        game = self.session.game
        phase = game.phase
        obs = self.session.observation()
        draw = _("press the launcher") if game.rules.deck == "attack" else _("draw")
        if phase is Phase.PLAY:
            if offer.play_cards or offer.multi_cards:
                return _("play a bright card (enter, 1-9, click) or {draw} (d).", draw=draw)
            return _("no card fits: {draw} (d).", draw=draw)
        if phase is Phase.DRAWN:
            drawn = (face(obs.drawn_card) if obs.drawn_card is not None
                     else pgettext("what you drew, when its face is not shown", "a card"))
            if offer.play_cards:
                return _("you drew {card}: play it (enter) or keep it (p).", card=drawn)
            return _("you drew {card}: keep it (p).", card=drawn)
        if phase is Phase.CHALLENGE:
            return _("Wild Draw Four: challenge (x) or accept (d).")
        if phase is Phase.RESPOND:
            return _("+{n} for you: answer with a bright card or accept (d).",
                     n=obs.pending_draw)
        if phase is Phase.CHOOSE_COLOR:
            return _("name the colour of the start card (enter).")
        if phase is Phase.EXCHANGE:
            return _("give {who} a card back: pick it in your hand.",
                     who=self.session.name(game.exchange_from))
        return _("phase {phase} (a: every legal action).", phase=phase.value)

    # ------------------------------------------------------------------ dialogs
    def _challenge_prompt(self, offer: Offer) -> None:
        game = self.session.game
        rules = game.rules
        who = self.session.name(game.wd4_by)
        about = Text()
        about.append(_("{who} played ", who=who))
        about.append_text(card_text(WILD_DRAW_FOUR))
        about.append(_(" and named {color}.", color=color_label(game.color)) + "\n")
        guilty = rules.challenge_guilty_draw
        innocent = rules.challenge_innocent_draw + max(0, game.pending - 4)
        if 0 <= game.wd4_color < 4:
            about.append(_("Challenge: if {who} held a card of the colour {color}, {who} draws "
                           "{guilty}; if not, you draw {innocent}.", who=who,
                           color=color_label(game.wd4_color), guilty=guilty,
                           innocent=innocent) + "\n")
        else:
            about.append(_("Challenge: if {who} held a card of the colour before it, {who} "
                           "draws {guilty}; if not, you draw {innocent}.", who=who,
                           guilty=guilty, innocent=innocent) + "\n")
        about.append(_("Accept: you draw {n}.", n=game.pending or 4))
        can_answer = bool(offer.plays)
        if can_answer:
            about.append("\n" + _("Or answer it with a bright card."))

        def done(answer: object) -> None:
            latest = self.session.offer()
            if answer == "challenge" and latest.challenge is not None:
                self.human(latest.challenge)
            elif answer == "accept" and latest.draw is not None:
                self.human(latest.draw)

        self.app.push_screen(ChallengePrompt(about, _("Accept: draw {n}", n=game.pending or 4),
                                             can_answer), done)

    def _pick_color(self, offer: Offer) -> None:
        def done(color: object) -> None:
            action = self.session.offer().colors.get(color) if isinstance(color, int) else None
            if action is not None:
                self.human(action)

        self.app.push_screen(ColorPicker(sorted(offer.colors), _("Name the colour")), done)

    def _choose(self, title: str, options: Sequence[tuple[Text | str, int]],
                then: Callable[[int], object]) -> None:
        def done(value: object) -> None:
            if isinstance(value, int):
                then(value)

        self.app.push_screen(ChoiceScreen(title, options), done)

    def _resolve(self, candidates: list[int]) -> None:
        """Narrow the ways of one play down to one action, asking for what differs:
        the colour, the player it names, the card it gives; the UNO call follows the
        UNO button. Then apply it."""
        if not candidates:
            return
        first = candidates[0]
        card = A.action_card(first)
        colors = sorted({A.action_color(a) for a in candidates})
        if len(colors) > 1:
            def colored(color: object) -> None:
                if isinstance(color, int):
                    self._resolve([a for a in candidates if A.action_color(a) == color])

            title = _("Name a colour for {card}", card=face(card))
            self.app.push_screen(ColorPicker([c for c in colors if c < 4], title), colored)
            return
        targets = sorted({A.action_target(a) for a in candidates})
        if len(targets) > 1:
            self._choose(self._target_title(card), [self._target_option(t) for t in targets],
                         lambda t: self._resolve([a for a in candidates
                                                  if A.action_target(a) == t]))
            return
        gives = sorted({A.action_give(a) for a in candidates})
        if len(gives) > 1:
            options: list[tuple[Text | str, int]] = [
                (card_text(g) if g >= 0 else _("nothing"), g) for g in gives]
            self._choose(_("Give {who} which card?", who=self.session.name(targets[0])), options,
                         lambda g: self._resolve([a for a in candidates
                                                  if A.action_give(a) == g]))
            return
        candidates = with_uno(candidates, self.uno_armed)
        if len(candidates) > 1:
            names = self.session.shown_names()
            self._choose(_("Which play?"), [(action_label(a, names), a) for a in candidates],
                         lambda a: self.human(a))
            return
        self.human(candidates[0])

    def _target_title(self, card: int) -> str:
        if card < WILD and RANK_OF[card] == 5 and self.session.game.rules.five_exchange:
            return _("{card}: exchange a card with whom?", card=face(card))
        if card < WILD and RANK_OF[card] == TRADE_HANDS:
            return _("{card}: trade hands with whom?", card=face(card))
        return _("{card}: swap hands with whom?", card=face(card))

    def _target_option(self, target: int) -> tuple[Text | str, int]:
        if target == 15:
            return (_("nobody (no exchange)"), target)
        size = len(self.session.game.hands[target])
        return (f"{self.session.name(target)} · " + ngettext("{n} card", "{n} cards", size),
                target)

    # ------------------------------------------------------------------ cards
    def play_card(self, card: int) -> None:
        """Play (or give back) one card, asking for what the play needs."""
        offer = self.session.offer()
        if card in offer.gives:
            self.human(offer.gives[card])
            return
        candidates = single_plays(offer.legal, card)
        if not candidates:
            # Not legal in any way: the engine says why.
            self.human(A.play(HUMAN, card, color=0 if card >= WILD else None))
            return
        self._resolve(candidates)

    def play_cards(self, cards: Sequence[int]) -> None:
        """Play several cards at once (multi-play), in the order selected."""
        candidates = multi_plays(self.session.legal(), cards)
        if not candidates:
            self.error = _("these cards cannot be played together now")
            self._refresh()
            return
        orders = {(A.action_card(a), A.action_extra(a)) for a in candidates}
        if len(orders) > 1:
            options: list[tuple[Text | str, int]] = []
            for first, extra in sorted(orders):
                label = Text(_(" then ").join(face(c) for c in (first, *extra)))
                options.append((label, len(options)))
            ordered = sorted(orders)

            def chosen(index: int) -> None:
                first, extra = ordered[index]
                self._resolve([a for a in candidates if A.action_card(a) == first
                               and A.action_extra(a) == extra])

            self._choose(_("Which order (the last card sets the colour)?"), options, chosen)
            return
        self._resolve(candidates)

    # ------------------------------------------------------------------ actions
    def action_move(self, step: int) -> None:
        self.hand.move(step)

    def action_row(self, step: int) -> None:
        self.hand.move_row(step)

    def action_play(self) -> None:
        offer = self.session.offer()
        if offer.colors:
            self._pick_color(offer)
            return
        hand = self.hand
        selected = hand.selected_cards()
        if len(selected) >= 2:
            self.play_cards(selected)
            return
        card = selected[0] if selected else hand.card_at_cursor()
        if card is None:
            self.error = _("you hold no card")
            self._refresh()
            return
        self.play_card(card)

    def action_play_index(self, index: int) -> None:
        hand = self.hand
        if index >= len(hand.cards):
            self.error = ngettext("you hold {n} card", "you hold {n} cards", len(hand.cards))
            self._refresh()
            return
        hand.cursor = index
        hand.selected = []
        self.play_card(hand.cards[index])

    def on_hand_view_clicked(self, message: HandView.Clicked) -> None:
        if self.hand.selected and self.session.game.rules.multi_play != "off":
            self.hand.toggle(message.index)
            self._refresh()
            return
        self.hand.selected = []
        self.play_card(self.hand.cards[message.index])

    def action_select(self) -> None:
        if self.session.game.rules.multi_play == "off":
            self.error = _("multi-play is off (multi_play = off): play one card at a time")
        else:
            self.hand.toggle(self.hand.cursor)
            self.error = ""
        self._refresh()

    def _do(self, action: int | None, fallback: int) -> None:
        """Apply ``action`` if legal, otherwise try ``fallback`` to show the reason."""
        self.human(action if action is not None else fallback)

    def action_draw(self) -> None:
        self._do(self.session.offer().draw, A.draw(HUMAN))

    def action_pass_turn(self) -> None:
        self._do(self.session.offer().pass_turn, A.pass_turn(HUMAN))

    def action_challenge(self) -> None:
        self._do(self.session.offer().challenge, A.challenge(HUMAN))

    def action_slap(self) -> None:
        self._do(self.session.offer().slap, A.slap(HUMAN))

    def action_say(self) -> None:
        self._do(self.session.offer().say, A.say(HUMAN))

    def action_uno(self) -> None:
        offer = self.session.offer()
        if offer.uno is not None:
            self.human(offer.uno)
        elif offer.uno_plays:
            self.uno_armed = not self.uno_armed
            self.error = ""
            self._refresh()
        else:
            self.human(A.call_uno(HUMAN))

    def action_catch(self, seat: int = -1) -> None:
        offer = self.session.offer()
        if seat >= 0:
            self._do(offer.catches.get(seat), A.catch(HUMAN, seat))
        elif len(offer.catches) == 1:
            self.human(next(iter(offer.catches.values())))
        elif offer.catches:
            options: list[tuple[Text | str, int]] = [
                (_("Catch {who}", who=self.session.name(t)), action)
                for t, action in sorted(offer.catches.items())]
            self._choose(_("Catch whom?"), options, self.human)
        else:
            obs = self.session.observation()
            target = obs.uno_open if obs.uno_open not in (None, HUMAN) else 1
            self.human(A.catch(HUMAN, target % self.session.game.n))

    def action_all_actions(self) -> None:
        offer = self.session.offer()
        if not offer.legal:
            self.error = _("there is nothing you may do right now")
            self._refresh()
            return
        names = self.session.shown_names()
        self._choose(_("Every legal action"), [(action_label(a, names), a) for a in offer.legal],
                     self.human)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_quit_match(self) -> None:
        def done(quit_now: object) -> None:
            if quit_now is True:
                self.app.exit()

        self.app.push_screen(ConfirmQuit(), done)

    # ------------------------------------------------------------------ round end
    def round_summary(self) -> RoundSummary:
        """The last round's result, as the end screens show it."""
        session = self.session
        game = session.game
        ended = next((e for e in reversed(game.log) if e.kind is EventKind.ROUND_ENDED), None)
        data = ended.data if ended is not None and isinstance(ended.data, dict) else {}
        points = list(data.get("points", game.round_points))
        scores = list(data.get("scores", game.scores))
        hands = data.get("hands", [[] for _seat in range(game.n)])
        winner = ended.player if ended is not None else game.round_winner
        mate = partner(game.rules, HUMAN)
        rows = []
        for seat in range(game.n):
            note = _("went out") if seat in game.finish_order else ""
            if not game.in_match[seat]:
                note = _("eliminated")
            rows.append(SeatResult(session.name(seat), session.levels[seat],
                                   tuple(hands[seat]), points[seat], scores[seat], note,
                                   partner=seat == mate))
        headline = as_you(_("{who} wins the round", who=session.name(winner)))
        if data.get("blocked"):
            headline = as_you(_("blocked; {who} has the lowest hand and wins",
                                who=session.name(winner)))
        if mate >= 0 and winner >= 0:
            headline += " · " + (_("your team scores") if winner in (HUMAN, mate)
                                 else _("the other team scores"))
        match_line = ""
        if game.is_over():
            match_line = as_you(ngettext("{who} wins the match after {n} round.",
                                         "{who} wins the match after {n} rounds.",
                                         game.round_no, who=session.name(game.match_winner)))
            if mate >= 0:
                match_line = (_("Your team wins the match with {who}.",
                                who=session.name(mate)) if game.match_winner in (HUMAN, mate)
                              else _("Your team loses the match.")) + " " + match_line
        return RoundSummary(game.round_no, headline, tuple(rows), game.is_over(), match_line)

    def _end_chosen(self, what: object) -> None:
        if what == "next":
            offer = self.session.offer()
            self._do(offer.next_round, A.next_round(HUMAN))
        elif what == "new":
            starter = getattr(self.app, "new_match", None)
            if callable(starter):
                starter()
        elif what == "quit":
            self.app.exit()


__all__ = ["TableScreen"]
