"""Golden transcripts: seeded bot matches must stay byte for byte the same.

After a deliberate change of the engine's behaviour, regenerate them with
``.venv/bin/python scripts/regen_golden.py`` and review the diff.
"""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from unokit.engine.errors import RulesError
from unokit.engine.rules import PRESETS, Rules

ROOT = Path(__file__).resolve().parents[1]


def _load_regen() -> ModuleType:
    path = ROOT / "scripts" / "regen_golden.py"
    spec = importlib.util.spec_from_file_location("regen_golden", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regen = _load_regen()


def supported_presets() -> list[str]:
    names = []
    for name in PRESETS:
        try:
            Rules.preset(name)
        except RulesError:
            continue
        names.append(name)
    return names


@pytest.mark.parametrize(("preset", "rules_text", "seed"), regen.GOLDEN,
                         ids=[regen.golden_name(p, s) for p, _, s in regen.GOLDEN])
def test_golden_transcript(preset: str, rules_text: str, seed: int) -> None:
    path = regen.GOLDEN_DIR / regen.golden_name(preset, seed)
    assert path.exists(), f"{path} is missing: run scripts/regen_golden.py"
    expected = path.read_text(encoding="utf-8")
    actual = regen.golden_text(rules_text, seed)
    if actual != expected:
        diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                    fromfile=str(path), tofile="regenerated", lineterm="", n=2)
        shown = "\n".join(list(diff)[:80])
        pytest.fail(f"{path.name} differs from a fresh run (first lines of the diff below); "
                    f"if the change is intended, run scripts/regen_golden.py\n{shown}")


def test_golden_rules_match_their_preset() -> None:
    for preset, rules_text, _ in regen.GOLDEN:
        assert Rules.from_string(rules_text).preset_name == preset


def test_every_supported_preset_has_a_golden_file() -> None:
    covered = {preset for preset, _, _ in regen.GOLDEN}
    missing = [name for name in supported_presets() if name not in covered]
    assert not missing, f"supported presets without a golden transcript: {missing}"
    for preset in covered:
        assert list(regen.GOLDEN_DIR.glob(f"{preset}_seed*.txt")), preset


def test_no_stale_golden_files() -> None:
    listed = {regen.golden_name(preset, seed) for preset, _, seed in regen.GOLDEN}
    on_disk = {path.name for path in regen.GOLDEN_DIR.glob("*.txt")}
    assert on_disk == listed
