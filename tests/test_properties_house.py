"""Property tests over the house rules: hypothesis playouts under random rule sets drawn
from every key of RULES.md sections 1-5 (house rules and UNO H2O; not UNO Attack).

The rule set is drawn by :func:`unokit.testing.soak.random_rule_dict` with hypothesis as the
source of its random choices (so that a failing rule set shrinks), and each match is
played and checked by :func:`unokit.testing.soak.soak_game`, with the soak's invariants: card
conservation, a legal action for whoever must act, listed actions apply, illegal
actions are rejected and change nothing, observations and legal actions do not depend
on hidden cards, the history replays to an equal state with the same events, and the
match ends within the step cap. Here the illegal-action and privacy
checks run after a quarter of the actions (the soak: one in twenty).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from test_soak import unexpected
from unokit.engine.rules import KEYS, Rules
from unokit.testing.soak import RandomPicker, random_rule_dict, soak_game

MAX_STEPS = 100_000
"""Actions within which every match must end: about six times the longest measured. Of
7,249 soak rule sets without UNO Attack (seeds 200000-207248, the soak's actor) every
match ended, the longest after 16,797 actions, 99 in 100 within 2,716 (docs/rules.md,
"Long random matches")."""
CHECK_RATE = 0.25
"""Share of actions after which an illegal action and a hidden-card permutation are tried."""

_BASE = settings().max_examples
PLAYOUTS = settings(max_examples=max(8, _BASE // 2), deadline=None)
"""Half the profile's examples (30 under the default ``ci`` profile)."""

HOUSE_KEYS = [spec.name for spec in KEYS if spec.section == 4]


@st.composite
def house_rule_sets(draw: st.DrawFn) -> Rules:
    """Valid rule sets over every key of sections 1-5, with small targets and rounds.

    The choices come from a hypothesis-controlled ``random.Random``: values spread as
    evenly as in the soak, and a failing rule set still shrinks (towards the first
    choices: the preset's values, small numbers)."""
    rng = draw(st.randoms(use_true_random=False))
    return Rules.from_dict(random_rule_dict(RandomPicker(rng), attack=False), drop_inert=True)


seeds = st.integers(min_value=0, max_value=2**64 - 1)


def failures_of(rules: Rules, seed: int) -> list[str]:
    """The soak's failures of one fully checked match, as report lines, less those of
    the open engine bugs that ``tests/test_soak.py`` pins (``KNOWN_BUGS``)."""
    result = soak_game(seed, rules, max_steps=MAX_STEPS, illegal_rate=CHECK_RATE,
                       privacy_rate=CHECK_RATE)
    return unexpected(list(result.failures))


@PLAYOUTS
@given(rules=house_rule_sets(), seed=seeds)
def test_house_rule_playouts_keep_every_invariant(rules: Rules, seed: int) -> None:
    assert failures_of(rules, seed) == []


@PLAYOUTS
@given(rules=house_rule_sets(), seed=seeds)
def test_house_rule_playouts_are_deterministic(rules: Rules, seed: int) -> None:
    first = soak_game(seed, rules, max_steps=MAX_STEPS, illegal_rate=0, privacy_rate=0)
    second = soak_game(seed, rules, max_steps=MAX_STEPS, illegal_rate=0, privacy_rate=0)
    assert first == second


@settings(max_examples=max(50, _BASE), deadline=None)
@given(rules=house_rule_sets())
def test_house_rule_sets_are_valid_and_small(rules: Rules) -> None:
    assert rules.deck != "attack"
    assert rules.target_score <= 200 or rules.scoring == "lazy"  # lazy: no target
    assert rules.rounds is None or rules.rounds <= 3
    assert rules.players * rules.hand_size < len(rules.deck_cards())


def test_the_strategy_reaches_every_house_key() -> None:
    """Over a fixed set of draws, every key of section 4 leaves its default, and UNO H2O
    and each special wild of section 4 are played."""
    changed: set[str] = set()

    @settings(max_examples=300, deadline=None, database=None, derandomize=True)
    @given(rules=house_rule_sets())
    def collect(rules: Rules) -> None:
        defaults = Rules()
        changed.update(key for key in HOUSE_KEYS
                       if getattr(rules, key) != getattr(defaults, key))
        if rules.deck == "h2o":
            changed.add("deck=h2o")
        changed.update(f"extra_cards:{code}" for code, _ in rules.extra_cards)

    collect()
    wanted = {*HOUSE_KEYS, "deck=h2o",
              *(f"extra_cards:{code}" for code in ("WC", "WSW", "WSH", "WD1", "WD2"))}
    assert wanted - changed == set()
