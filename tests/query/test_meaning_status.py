"""How far search by meaning's deep model has read the index, stated once (`Stats.meaning`) and
shown by `deja stats`, `deja doctor` and their `--json`: records read of all, every record, or
why there is no deep model; asked without loading it."""

from __future__ import annotations

from pathlib import Path

import pytest

from deja.query import History
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.paraphrases import read_deep, write_paraphrased

BACKGROUND = "(an editor or MCP server reads the rest in the background)"


@pytest.fixture
def paraphrased(tmp_path: Path) -> History:
    write_paraphrased(tmp_path / "store")
    history = History(home=tmp_path / "home", root=tmp_path / "store")
    history.refresh()
    return history


def _stats_line(env: dict[str, str]) -> str:
    ran = run_deja(env, "stats")
    assert ran.returncode == 0, ran.stderr
    (line,) = [line for line in ran.stdout.splitlines() if line.startswith("search by meaning")]
    return line


@pytest.mark.semantic
def test_stats_and_doctor_say_how_far_the_deep_model_has_read(
    paraphrased: History, tmp_path: Path
) -> None:
    env = deja_env(tmp_path / "store", tmp_path / "home", PYTHONPROFILEIMPORTTIME="1")
    env.pop("DEJA_SEMANTIC", None)
    try:
        meaning = paraphrased.stats().meaning
        assert (meaning.state, meaning.read, meaning.records) == ("reading", 0, 4)
        assert read_deep(paraphrased, sessions=1) == 2  # "Buttons", the newest
        meaning = paraphrased.stats().meaning
        assert (meaning.state, meaning.read, meaning.records) == ("reading", 2, 4)
        ran = run_deja(env, "stats", "--json")
        assert json_envelope(ran, "stats")["meaning"] == {
            "state": "reading",
            "read": 2,
            "records": 4,
            "summary": f"deep model has read 2 of 4 records {BACKGROUND}",
        }
        # Asked without loading the deep model (a `deja stats` never embeds).
        assert "onnxruntime" not in ran.stderr and "deep_model" not in ran.stderr
        assert (
            _stats_line(env)
            == f"search by meaning: deep model has read 2 of 4 records {BACKGROUND}"
        )
        read_deep(paraphrased)
        assert _stats_line(env) == "search by meaning: deep model has read every record"
        doctor = json_envelope(run_deja(env, "doctor", "--json", timeout=180), "doctor")
        (check,) = [check for check in doctor["checks"] if check["name"] == "meaning"]
        assert check["ok"] and check["detail"] == "deep model has read every record"
        assert (check["state"], check["read"], check["records"]) == ("read", 4, 4)
        light = {**env, "DEJA_SEMANTIC": "light"}
        assert _stats_line(light) == (
            "search by meaning: deep model turned off (DEJA_SEMANTIC=light)"
        )
    finally:
        paraphrased.close()


def test_words_only_says_so(paraphrased: History, tmp_path: Path) -> None:
    try:
        meaning = paraphrased.stats().meaning
        assert meaning.state == "words only" and not meaning.reading
        env = deja_env(tmp_path / "store", tmp_path / "home")
        assert _stats_line(env) == (
            "search by meaning: turned off (DEJA_SEMANTIC=0): search by words only"
        )
    finally:
        paraphrased.close()
