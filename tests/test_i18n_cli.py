"""The command line in the terminal's language: ``UNOKIT_LANG``, else ``LANGUAGE``,
``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` (a C or POSIX locale is English), or the
language ``--lang`` names; errors, summaries and the help screens alike. Machine-read
output (transcripts, JSON) stays English."""

# ruff: noqa: RUF001  (Russian text is Cyrillic on purpose)

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from unokit import i18n
from unokit.cli import app

ROOT = Path(__file__).resolve().parent.parent
WIDE = {"COLUMNS": "200", "TERMINAL_WIDTH": "200"}
"""A help screen on one line per option (Rich wraps at the terminal's width)."""
LOCALE_VARIABLES = ("UNOKIT_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def unokit(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``unokit ARGS`` in a process of its own, under exactly the locale ``env`` gives."""
    environ = {k: v for k, v in os.environ.items() if k not in LOCALE_VARIABLES}
    environ.update(env, PYTHONPATH=str(ROOT / "src"), PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "unokit.cli", *args], env=environ,
                          capture_output=True, text=True, timeout=120, check=False)


def test_lang_ru_gives_russian_errors() -> None:
    done = unokit("selfplay", "--bots", ",", LANG="ru_RU.UTF-8")
    assert done.returncode == 2
    assert done.stderr.strip() == "ошибка: --bots: укажите хотя бы одного бота"


def test_a_c_locale_is_english() -> None:
    done = unokit("selfplay", "--bots", ",", LANG="C", LC_ALL="C")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: --bots: give at least one bot name"


def test_unokit_lang_wins_over_lang() -> None:
    done = unokit("selfplay", "--rules", "official", "--bots", "easy,easy,easy,easy,easy",
                  UNOKIT_LANG="ka", LANG="ru_RU.UTF-8")
    assert done.returncode == 2
    assert done.stderr.strip() == "შეცდომა: --bots: 5 ბოტი 4 მოთამაშისთვის"


def test_the_runner_reads_the_environment_and_restores_the_language() -> None:
    result = CliRunner().invoke(app, ["replay", "missing.json", "--as", "1"],
                                env={"UNOKIT_LANG": "ka"})
    assert result.exit_code == 2
    assert result.output.startswith("შეცდომა: ")
    assert i18n.current_language() == "en"


def test_the_lang_option_picks_the_language() -> None:
    result = CliRunner().invoke(app, ["--lang", "da", "selfplay", "--bots", ","])
    assert result.exit_code == 2
    assert result.output.strip() == "fejl: --bots: angiv mindst ét botnavn"
    bad = CliRunner().invoke(app, ["--lang", "fr", "rules"])
    assert bad.exit_code == 2
    assert bad.output.strip() == "error: --lang fr: one of en, ru, ka, da"


def test_usage_errors_are_in_the_language_too() -> None:
    result = CliRunner().invoke(app, ["selfplay", "--no-such-option"],
                                env={"UNOKIT_LANG": "da"})
    assert result.exit_code == 2
    assert result.output.startswith("fejl: ")


def test_help_screens_are_translated() -> None:
    runner = CliRunner()
    verify = runner.invoke(app, ["--lang", "ru", "verify", "--help"], env=WIDE)
    assert verify.exit_code == 0
    assert "Проверить, что раздача в записи доказуемо честна" in verify.output
    assert "Обязательство, опубликованное сервером перед партией." in verify.output
    play = runner.invoke(app, ["play", "--help"], env={"UNOKIT_LANG": "ka", **WIDE})
    assert "ითამაშეთ UNO ბოტების წინააღმდეგ ტერმინალში" in play.output
    top = runner.invoke(app, ["--lang", "da", "--help"], env=WIDE)
    assert "Beskedernes sprog: en, ru, ka eller da" in top.output
    assert "Kør spilserveren" in top.output  # the list of commands
    english = runner.invoke(app, ["verify", "--help"], env=WIDE)
    assert "Check that a record's deal was provably fair" in english.output
    assert i18n.current_language() == "en"


def test_a_summary_line_and_its_plural(tmp_path: Path) -> None:
    record = tmp_path / "match.json"
    saved = CliRunner().invoke(app, ["selfplay", "--rules", "official,players=2,rounds=1",
                                     "--seed", "3", "--save", str(record)])
    assert saved.exit_code == 0, saved.output
    result = CliRunner().invoke(app, ["--lang", "ru", "replay", str(record), "--no-color"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert re.search(r": \d+ ход(а|ов)?, правила official", lines[0]), lines[0]
    assert lines[1].startswith("Игроки: ")
    assert lines[-1].startswith("Воспроизведение в порядке: дайджест событий ")
    # the transcript itself is the same in every language (records and golden files)
    english = CliRunner().invoke(app, ["replay", str(record), "--no-color"])
    assert lines[2:-1] == english.output.splitlines()[2:-1]


def test_selfplay_summaries_are_translated_and_the_transcript_is_not() -> None:
    args = ["selfplay", "--rules", "official,players=2,rounds=1", "--seed", "3", "--no-color"]
    russian = CliRunner().invoke(app, ["--lang", "ru", *args]).output.splitlines()
    english = CliRunner().invoke(app, args).output.splitlines()
    assert russian[0] == "Правила: " + english[0].removeprefix("Rules: ")
    assert russian[-2].startswith("Итоговые очки: ")
    assert russian[-1].startswith("Победитель: ") and russian[-1].endswith("после 1 раунда")
    assert russian[3:-2] == english[3:-2]


def test_a_bad_rule_set_is_refused_in_the_terminals_language() -> None:
    done = unokit("selfplay", "--rules", "official,jump_in=maybe", UNOKIT_LANG="ru")
    assert done.returncode == 2
    assert done.stderr.strip() == ("ошибка: неверный набор правил: jump_in: ожидалось true "
                                   "или false, получено 'maybe'")
    done = unokit("rules", "official,teams=pairs,players=3", UNOKIT_LANG="da")
    assert done.returncode == 2
    assert done.stderr.startswith("fejl: ugyldigt regelsæt: teams, players: par kræver "
                                  "4, 6, 8 eller 10 spillere; forudindstillinger: official,")
    done = unokit("selfplay", "--rules", "official,jumpin=true", UNOKIT_LANG="ka")
    assert "jumpin: უცნობი გასაღები; ხომ არ გულისხმობდით jump_in?" in done.stderr


def test_a_bad_rule_set_stays_english_in_english() -> None:
    done = unokit("selfplay", "--rules", "official,jump_in=maybe", LANG="C")
    assert done.stderr.strip() == ("error: invalid rule set: jump_in: expected true or "
                                   "false, got 'maybe'")


def test_a_broken_record_is_refused_in_the_terminals_language(tmp_path: Path) -> None:
    record = tmp_path / "match.json"
    saved = CliRunner().invoke(app, ["selfplay", "--rules", "official,players=2,rounds=1",
                                     "--seed", "3", "--save", str(record)])
    assert saved.exit_code == 0, saved.output
    data = json.loads(record.read_text())
    data["seed"] = "x"
    record.write_text(json.dumps(data))
    done = unokit("replay", str(record), UNOKIT_LANG="ru")
    assert done.returncode == 2
    assert done.stderr.strip() == (f"ошибка: {record}: seed: ожидалось целое число "
                                   "0 <= seed < 2**64, получено 'x'")
    data["seed"], data["actions"] = 3, ["0:uno", *data["actions"]]
    record.write_text(json.dumps(data))
    done = unokit("replay", str(record), UNOKIT_LANG="da")
    assert done.returncode == 2
    assert done.stderr.startswith(f"fejl: {record}: træk 0 ('0:uno') er ikke tilladt: ")
    data["seed"] = "x"
    record.write_text(json.dumps(data))
    done = unokit("verify", str(record), UNOKIT_LANG="ka")
    assert done.returncode == 2
    assert "seed: მოსალოდნელი იყო მთელი რიცხვი 0 <= seed < 2**64" in done.stderr
    done = unokit("verify", str(record), LANG="C")
    assert done.stderr.strip() == (f"error: {record}: seed: expected an integer "
                                   "0 <= seed < 2**64, got 'x'")


def test_the_rules_table_says_each_meaning_in_the_terminals_language() -> None:
    from unokit.engine.rules import KEYS

    done = unokit("rules", "official", UNOKIT_LANG="da", **WIDE)
    assert done.returncode == 0, done.stderr
    assert "antal spillere" in done.stdout
    assert "number of players" not in done.stdout
    for spec in KEYS:
        for lang in i18n.LANGUAGES[1:]:
            assert i18n.translate(lang, spec.meaning) != spec.meaning, (lang, spec.name)


def test_a_file_that_cannot_be_read_is_refused_in_the_terminals_language(
        tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    done = unokit("replay", str(missing), UNOKIT_LANG="ru")
    assert done.returncode == 2
    assert done.stderr.strip() == f"ошибка: {missing}: нет такого файла (не удаётся прочитать)"
    done = unokit("verify", str(tmp_path), UNOKIT_LANG="da")
    assert done.returncode == 2
    assert done.stderr.strip() == f"fejl: {tmp_path}: en mappe, ikke en fil"
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    done = unokit("replay", str(broken), UNOKIT_LANG="ka")
    assert done.returncode == 2
    assert done.stderr.startswith("შეცდომა: ")
    assert ": არასწორი JSON: Expecting" in done.stderr
    done = unokit("replay", str(missing), LANG="C")
    assert done.stderr.strip() == f"error: {missing}: no such file (cannot read it)"
    done = unokit("replay", str(broken), LANG="C")
    assert done.stderr.startswith("error: ") and ": not valid JSON: Expecting" in done.stderr


def test_a_rule_the_simulator_does_not_play_is_refused_in_the_terminals_language() -> None:
    done = unokit("simulate", "--rules", "official,scoring=elimination", "--games", "1",
                  UNOKIT_LANG="da")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "fejl: --rules 'official,scoring=elimination': ugyldigt regelsæt: scoring: "
        "simulatoren spiller ikke 'elimination' (kun 'lazy', 'penalty', 'standard'); brug motoren")
    done = unokit("simulate", "--rules", "official,extra_cards={WC: 2}", "--games", "1",
                  UNOKIT_LANG="ru")
    assert "симулятор играет колодами как есть, без дополнительных карт; используйте движок" \
        in done.stderr
    done = unokit("simulate", "--rules", "official,scoring=elimination", "--games", "1",
                  LANG="C")
    assert done.stderr.strip() == (
        "error: --rules 'official,scoring=elimination': invalid rule set: scoring: "
        "the simulator does not play 'elimination' (only 'lazy', 'penalty', 'standard'); "
        "use the engine")


def test_the_playouts_refusals_keep_their_templates() -> None:
    from unokit.bots.plain import Plain
    from unokit.engine.rules import Rules

    refused = [*Plain.refusals(Rules.preset("official", extra_cards={"WC": 2},
                                            blank_card_effect="draw_ten")).values(),
               *Plain.refusals(Rules.preset("official", extra_cards={"WSW": 1})).values()]
    assert len(refused) == 2
    for why in refused:
        assert i18n.localize("da", why) != str(why)
        assert i18n.localize("en", why) == str(why)
