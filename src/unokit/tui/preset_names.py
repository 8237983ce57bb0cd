"""The presets' names as a player reads them, and a rule string in words.

The engine names the presets by key (``classic_ru``, ``seven_o``); the table shows
their names, translated, as the web client does (``web/static/rules.js``
``presetName``).

>>> preset_name("seven_o"), preset_name("house")
('Seven-O', 'house')
>>> rules_label("official"), rules_label("classic_ru,jump_in=true,players=3")
('Official', 'Russian table (+2 changes)')
"""

from __future__ import annotations

from unokit.i18n import N_, _, ngettext

PRESET_NAMES: dict[str, str] = {
    "official": N_("Official"),
    "classic_ru": N_("Russian table"),
    "stacking": N_("Stacking"),
    "seven_o": N_("Seven-O"),
    "jump_in": N_("Jump-in"),
    "party": N_("Party"),
    "attack": N_("UNO Attack"),
    "h2o": N_("UNO H2O"),
    "pairs": N_("Pairs"),
    "online": N_("Online game"),
}
"""Preset key -> its name, in English (translated where shown)."""


def preset_name(key: str) -> str:
    """A preset's name in the current language (an unknown key as it is)."""
    name = PRESET_NAMES.get(key)
    return _(name) if name else key


def rules_label(text: str) -> str:
    """A rule string (``preset,key=value,...``) in words: the preset's name and how many
    rules the string changes."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    preset = items.pop(0) if items and "=" not in items[0] else "official"
    name = preset_name(preset)
    if not items:
        return name
    return name + " " + ngettext("(+{n} change)", "(+{n} changes)", len(items))
