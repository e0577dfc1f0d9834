"""Environment settings (issue 11): a bad value is one clear error naming the variable, when the
setting is used (never at import: `deja --help` works); the size cap in force is quoted, and
raising it re-reads the files the old cap refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from deja import settings
from deja.query import History, SearchQuery
from tests.support.cli_run import run_deja
from tests.support.storebuilder import session_doc, user, write_session

BAD_NUMBERS = ["abc", "0", "-5", "1.5", "64MB", " "]


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_a_bad_size_cap_names_the_variable(value: str) -> None:
    if not value.strip():
        # Blank is unset, as for every other setting.
        assert settings.max_session_bytes({"DEJA_MAX_SESSION_BYTES": value}) == (
            settings.DEFAULT_MAX_SESSION_BYTES
        )
        return
    with pytest.raises(settings.SettingError) as raised:
        settings.max_session_bytes({"DEJA_MAX_SESSION_BYTES": value})
    message = str(raised.value)
    assert "DEJA_MAX_SESSION_BYTES" in message and repr(value) in message
    assert "positive whole number of bytes" in message


def test_good_settings_are_read() -> None:
    assert settings.max_session_bytes({}) == settings.NO_CAP  # no cap unless one is set
    assert settings.max_session_bytes({"DEJA_MAX_SESSION_BYTES": "1000"}) == 1000
    assert settings.redact_secrets({}) and settings.redact_secrets({"DEJA_NO_REDACT": "0"})
    assert not settings.redact_secrets({"DEJA_NO_REDACT": "1"})
    assert settings.deja_home({"DEJA_HOME": "/data/deja"}) == Path("/data/deja")
    assert settings.deja_home({"DEJA_HOME": "~/d", "HOME": "/h"}) == Path("/h/d")
    assert settings.deja_home({"XDG_DATA_HOME": "/x", "HOME": "/h"}) == Path("/x/deja")
    assert settings.deja_home({"HOME": "/h"}) == Path("/h/.local/share/deja")
    assert settings.exclude_file({"XDG_CONFIG_HOME": "/c", "HOME": "/h"}) == Path("/c/deja/exclude")


def test_relative_xdg_folders_are_ignored_as_the_spec_says() -> None:
    env = {"XDG_DATA_HOME": "rel", "XDG_CONFIG_HOME": "rel", "HOME": "/h"}
    assert settings.deja_home(env) == Path("/h/.local/share/deja")
    assert settings.exclude_file(env) == Path("/h/.config/deja/exclude")


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("DEJA_NO_REDACT", "yes", "DEJA_NO_REDACT must be 1"),
        ("DEJA_HOME", "relative/home", "DEJA_HOME must be an absolute path"),
    ],
)
def test_other_bad_settings_name_the_variable(name: str, value: str, expected: str) -> None:
    reader = settings.redact_secrets if name == "DEJA_NO_REDACT" else settings.deja_home
    with pytest.raises(settings.SettingError, match=expected) as raised:
        reader({name: value, "HOME": "/h"})
    assert repr(value) in str(raised.value)


# End to end ------------------------------------------------------------------------------------


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_deja(env, *args, cwd=None)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    store = tmp_path / "continue"
    write_session(store, session_doc("s1", [user("hello there")]))
    return {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEJA_MAX_SESSION_BYTES", "abc"),
        ("DEJA_MAX_SESSION_BYTES", "0"),
        ("DEJA_MAX_SESSION_BYTES", "-5"),
        ("DEJA_NO_REDACT", "yes"),
        ("DEJA_HOME", "relative/home"),
    ],
)
def test_cli_with_a_bad_setting_helps_and_then_fails_in_one_line(
    env: dict[str, str], name: str, value: str
) -> None:
    bad = {**env, name: value}
    for args in (["--help"], ["index", "--help"]):
        shown = run(bad, *args)
        assert shown.returncode == 0 and "usage: deja" in shown.stdout, shown.stderr
    for args in (["index"], ["search", "hello", "--all"], ["restore", "--all"]):
        failed = run(bad, *args)
        assert failed.returncode == 1, (args, failed.stdout, failed.stderr)
        lines = failed.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"deja: {name} must be"), failed.stderr
        assert repr(value) in lines[0]


def write_big(store: Path, session_id: str, words: str, size: int) -> Path:
    # An hour old: not a file Continue is writing right now, so a refusal is remembered.
    doc = session_doc(session_id, [user(words + " " + "x" * size)])
    return write_session(store, doc, mtime=1_700_000_000)


def test_raising_the_cap_rereads_what_the_old_cap_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "continue"
    write_session(store, session_doc("small", [user("a small session")]), mtime=1_700_000_000)
    big = write_big(store, "big", "needle in a big session", 20_000)
    size = big.stat().st_size
    history = History(tmp_path / "home", store)
    try:
        monkeypatch.setenv("DEJA_MAX_SESSION_BYTES", "10000")
        first = history.refresh()
        assert [Path(e.path).name for e in first.errors] == ["big.json"]
        message = first.errors[0].message
        assert "10000" in message and "DEJA_MAX_SESSION_BYTES" in message, message
        again = history.refresh()
        assert (again.read, len(again.errors)) == (0, 1)  # remembered, not read again
        monkeypatch.setenv("DEJA_MAX_SESSION_BYTES", str(size + 1))
        raised = history.refresh()
        assert (raised.read, raised.errors) == (1, [])
        assert history.search(SearchQuery("needle")).hits
    finally:
        history.close()


def test_the_cli_quotes_the_cap_in_force(env: dict[str, str]) -> None:
    store = Path(env["DEJA_CONTINUE_ROOT"])
    write_big(store, "big", "too big", 5_000)
    result = run({**env, "DEJA_MAX_SESSION_BYTES": "4096"}, "index")
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if "big.json" in line)
    assert "over the 4.0 KB cap" in line and "DEJA_MAX_SESSION_BYTES=4096" in line, line
