"""The setup screen of ``unokit play``: preset, rule overrides, players, bot levels,
seed and name. The rule set is checked as it is typed; errors name the keys."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult, RenderResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from unokit.engine.errors import RulesError
from unokit.engine.rules import PRESET_MEANINGS, PRESETS, Rules, format_value
from unokit.i18n import LANGUAGES, N_, _, translate_in
from unokit.tui.preset_names import preset_name
from unokit.tui.session import (
    DEFAULT_NAME,
    MAX_SEED,
    NAMES,
    PlayConfig,
    bot_levels,
    default_level,
    random_seed,
    shown_name,
)

MAX_OPPONENTS = 9

PRESET_WORDS = (
    N_("the classic game and match (Mattel's printed rules)"),
    N_("the Russian table rules: number start card, no drawing while able to play, "
       "deflecting Draw Twos, skip on skip, guilty Wild Draw Four taken back"),
    N_("Draw Twos and Wild Draw Fours add up until someone draws"),
    N_("a 7 swaps hands, a 0 rotates all hands"),
    N_("an identical card may be played out of turn"),
    N_("both stacks, Wild Draw Four on Draw Two, seven-o, jump-in, draw until playable"),
    N_("UNO Attack: the card launcher instead of a draw pile"),
    N_("UNO H2O: Wild Downpour cards added"),
    N_("four players in two teams of partners"),
    N_("the online game: two pairs, Draw Twos stack, the first pair to 100 points wins"),
)
"""The meanings of the presets (:data:`unokit.engine.rules.PRESET_MEANINGS`, which the
engine keeps in English) for the catalogue; tests/test_i18n_tui.py checks that they
are the engine's."""


def entered_name(text: str) -> str:
    """The name typed in the setup screen: the default name (as any language says it,
    or nothing) is ``You``, which each language then shows its own way.

    >>> entered_name("  Ana "), entered_name(""), entered_name("You")
    ('Ana', 'You', 'You')
    """
    name = text.strip()
    defaults = {translate_in(lang, "the player's default name", DEFAULT_NAME)
                for lang in LANGUAGES}
    return DEFAULT_NAME if not name or name in defaults else name


def preset_text(name: str) -> Text:
    """What a preset means and which keys it changes."""
    text = Text()
    text.append(_(PRESET_MEANINGS.get(name, "")) + "\n", style="bold")
    changes = PRESETS.get(name, {})
    if not changes:
        text.append(_("No changes: the official rules."), style="dim")
    for key, value in changes.items():
        text.append(f"  {key} = {format_value(value)}\n", style="#5fafff")
    text.rstrip()
    return text


def rules_for(preset: str, overrides: str, players: int) -> Rules:
    """The rule set of the setup fields; ``players`` applies unless the overrides set it.

    >>> rules_for("official", "rounds=1", 3).to_string()
    'official,players=3,rounds=1'
    >>> rules_for("official", "rounds=zero", 2)
    Traceback (most recent call last):
    ...
    unokit.engine.errors.RulesError: invalid rule set: rounds: ...
    """
    text = preset + ("," + overrides if overrides.strip() else "")
    rules = Rules.from_string(text)
    given = {item.partition("=")[0].strip() for item in overrides.split(",")}
    if "players" not in given and rules.players != players:
        rules = rules.with_(players=players)
    return rules


class Cycler(Widget, can_focus=True):
    """A value chosen with ←/→ (or space, or a click)."""

    DEFAULT_CSS = """
    Cycler {
        height: 1;
        width: auto;
        padding: 0 1;
    }
    Cycler:focus {
        background: $accent 40%;
        text-style: bold;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", _("Previous"), show=False),
        Binding("right,space", "step(1)", _("Next"), show=False),
    ]

    class Changed(Message):
        """The value changed."""

        def __init__(self, cycler: Cycler, value: str) -> None:
            self.cycler = cycler
            self.value = value
            super().__init__()

    def __init__(self, label: str, values: Sequence[str], value: str, *,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.label = label
        self.values = list(values)
        self.value = value if value in self.values else self.values[0]

    def render(self) -> RenderResult:
        text = Text(f"{self.label} " if self.label else "")
        text.append(f"◂ {_(self.value)} ▸", style="bold")
        return text

    def set_value(self, value: str) -> None:
        """Show ``value`` (if it is one of the values)."""
        if value in self.values and value != self.value:
            self.value = value
            self.refresh(layout=True)
            self.post_message(self.Changed(self, value))

    def action_step(self, step: int) -> None:
        index = self.values.index(self.value)
        self.set_value(self.values[(index + step) % len(self.values)])

    def on_click(self, event: events.Click) -> None:
        self.action_step(1)


class SetupScreen(Screen[None]):
    """Choose the match; ``ctrl+s`` (or enter in a field) starts it."""

    DEFAULT_CSS = """
    SetupScreen {
        layout: vertical;
        padding: 0 1;
    }
    SetupScreen #setup-title {
        height: 1;
        text-style: bold;
        background: $primary-darken-2;
    }
    SetupScreen #top {
        height: 11;
    }
    SetupScreen #presets {
        width: 26;
        height: 11;
        border: round $panel;
    }
    SetupScreen #presets:focus {
        border: round $accent;
    }
    SetupScreen #preset-info {
        width: 1fr;
        height: 11;
        border: round $panel;
        padding: 0 1;
    }
    SetupScreen .row {
        height: 1;
    }
    SetupScreen #players-row {
        margin-top: 1;
    }
    SetupScreen .label {
        width: auto;
        padding: 0 1 0 0;
    }
    SetupScreen Input {
        height: 1;
    }
    SetupScreen #overrides {
        width: 1fr;
    }
    SetupScreen #seed, SetupScreen #name {
        width: 14;
        margin-right: 2;
    }
    SetupScreen #rules-check {
        height: auto;
        max-height: 3;
    }
    SetupScreen #players {
        margin-right: 2;
    }
    SetupScreen #opponents {
        grid-size: 3;
        grid-gutter: 0 1;
        height: auto;
    }
    SetupScreen #setup-buttons {
        height: 1;
        margin-top: 1;
    }
    SetupScreen #setup-buttons Button {
        margin-right: 2;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", _("Start")),
        Binding("escape", "quit", _("Quit")),
    ]

    def __init__(self, *, name: str = "You", seed: int | None = None,
                 preset: str = "official", overrides: str = "") -> None:
        super().__init__()
        self.player_name = name
        self.seed = random_seed() if seed is None else seed
        self.preset = preset if preset in PRESETS else "official"
        self.overrides = overrides
        self.config: PlayConfig | None = None

    def compose(self) -> ComposeResult:
        yield Static(_("unokit · new match: choose the rules and your opponents"),
                     id="setup-title")
        with Horizontal(id="top"):
            options = [Option(preset_name(name), id=name) for name in PRESETS]
            presets = OptionList(*options, id="presets")
            presets.border_title = _("Preset")
            yield presets
            info = Static(preset_text(self.preset), id="preset-info")
            info.border_title = _("{preset}: what it changes",
                                  preset=preset_name(self.preset))
            yield info
        with Horizontal(classes="row"):
            yield Static(_("Overrides"), classes="label")
            yield Input(self.overrides, id="overrides", compact=True,
                        placeholder=_("e.g. rounds=1,jump_in=true,target_score=200"))
        yield Static("", id="rules-check")
        players = Rules.from_string(self.preset).players
        with Horizontal(classes="row", id="players-row"):
            yield Cycler(_("Players"), [str(n) for n in range(2, 11)], str(players),
                         id="players")
            yield Static(_("Seed"), classes="label")
            yield Input(str(self.seed), id="seed", compact=True, type="integer")
            yield Static(_("Name"), classes="label")
            yield Input(shown_name(self.player_name), id="name", compact=True, max_length=16)
        yield Static(_("Opponents (←/→ or click: the bot level)"), classes="row")
        levels = bot_levels()
        with Grid(id="opponents"):
            for seat in range(1, MAX_OPPONENTS + 1):
                yield Cycler(f"{NAMES[seat]:<5}", levels, default_level(), id=f"level-{seat}")
        with Horizontal(id="setup-buttons"):
            yield Button(_("Start (ctrl+s)"), id="start", variant="primary", compact=True,
                         action="screen.start")
            yield Button(_("Quit (esc)"), id="quit", compact=True, action="screen.quit")

    def on_mount(self) -> None:
        presets = self.query_one("#presets", OptionList)
        presets.highlighted = list(PRESETS).index(self.preset)
        presets.focus()
        self._check()

    async def reword(self) -> None:
        """Show the screen again in the current language, keeping what was entered."""
        self.overrides = self.query_one("#overrides", Input).value
        self.player_name = entered_name(self.query_one("#name", Input).value)
        seed = self.query_one("#seed", Input).value.strip()
        self.seed = int(seed) if seed.isdigit() else self.seed
        players = self.query_one("#players", Cycler).value
        levels = {seat: self.query_one(f"#level-{seat}", Cycler).value
                  for seat in range(1, MAX_OPPONENTS + 1)}
        await self.recompose()
        self.query_one("#players", Cycler).set_value(players)
        for seat, level in levels.items():
            self.query_one(f"#level-{seat}", Cycler).set_value(level)
        self.on_mount()

    # ------------------------------------------------------------------ events
    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        name = event.option.id or "official"
        if name == self.preset:
            return
        self.preset = name
        info = self.query_one("#preset-info", Static)
        info.update(preset_text(name))
        info.border_title = _("{preset}: what it changes", preset=preset_name(name))
        try:
            players = Rules.from_string(name).players
        except RulesError:
            players = 4
        self.query_one("#players", Cycler).set_value(str(players))
        self._check()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.query_one("#overrides", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._check()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def on_cycler_changed(self, event: Cycler.Changed) -> None:
        self._check()

    # ------------------------------------------------------------------ checking
    def _check(self) -> PlayConfig | None:
        """Build the configuration from the fields; show what is wrong, if anything."""
        check = self.query_one("#rules-check", Static)
        overrides = self.query_one("#overrides", Input).value
        players = int(self.query_one("#players", Cycler).value)
        self.config = None
        try:
            rules = rules_for(self.preset, overrides, players)
        except RulesError as exc:
            problems = "; ".join(f"{key}: {why}" for key, why in exc.problems.items())
            text = Text("✗ ", style="bold #ff5f5f")
            text.append(f"{', '.join(exc.keys)}", style="bold #ff5f5f")
            text.append(f" ({problems})")
            check.update(text)
            self._show_opponents(players)
            return None
        self.query_one("#players", Cycler).set_value(str(rules.players))
        self._show_opponents(rules.players)
        seed_text = self.query_one("#seed", Input).value.strip()
        if not seed_text.isdigit() or int(seed_text) > MAX_SEED:
            check.update(Text("✗ " + _("seed: a whole number 0..{limit}", limit=MAX_SEED),
                              style="bold #ff5f5f"))
            return None
        levels = tuple(self.query_one(f"#level-{seat}", Cycler).value
                       for seat in range(1, rules.players))
        name = entered_name(self.query_one("#name", Input).value)
        self.config = PlayConfig(rules, int(seed_text), levels, name)
        ok = Text("✓ ", style="bold #5fd75f")
        ok.append(rules.to_string())
        check.update(ok)
        return self.config

    def _show_opponents(self, players: int) -> None:
        for seat in range(1, MAX_OPPONENTS + 1):
            self.query_one(f"#level-{seat}", Cycler).display = seat < players

    # ------------------------------------------------------------------ actions
    def action_start(self) -> None:
        config = self._check()
        if config is None:
            return
        starter = getattr(self.app, "start_match", None)
        if callable(starter):
            starter(config)

    def action_quit(self) -> None:
        self.app.exit()


__all__ = ["Cycler", "SetupScreen", "preset_text", "rules_for"]
