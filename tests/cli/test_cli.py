"""`deja` commands end to end, as a user runs them: human output, `--json`, errors."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli_run import json_envelope, run_deja
from tests.support.storebuilder import snapshot

SAMPLE = Path(__file__).parents[2] / "fixtures" / "sample-store"
CLI_SESSION = "e5a07c33-1f6b-4d28-b9e4-6c2a8d0f1e03"
COMPACTED = "19f3b8d4-7a2c-4e61-8d05-3b9e1c7a2f04"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("cli")
    store = base / "store"
    shutil.copytree(SAMPLE, store)
    return {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(base / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "NO_COLOR": "1",
    }


def deja(
    env: dict[str, str], *args: str, cwd: str = "/", ok: bool = True
) -> subprocess.CompletedProcess[str]:
    result = run_deja(env, *args, cwd=cwd)
    if ok:
        assert result.returncode == 0, result.stderr
    return result


envelope = json_envelope


def test_index_reports_counts_human_and_json(env: dict[str, str]) -> None:
    human = deja(env, "index", "--rebuild")
    assert "6 changed" in human.stdout and "1 error " in human.stdout
    assert (
        "a3b6f2d8-9e1c-4b75-8a2f-1c5d7e9b0307.json" in human.stdout
    )  # the half-written file, named
    data = envelope(deja(env, "index", "--json"), "index")
    assert data["changed"] == 0 and data["sessions"] == 7


def test_search_human_output_highlights_and_labels(env: dict[str, str]) -> None:
    out = deja(env, "search", "pyyaml", "--all").stdout
    assert "[pyyaml]" in out.lower() and "command" in out


def test_search_json_hit_fields(env: dict[str, str]) -> None:
    data = envelope(deja(env, "search", "ModuleNotFoundError", "--all", "--json"), "search")
    hit = data["hits"][0]  # type: ignore[index]
    assert set(hit) >= {
        "session_id",
        "title",
        "workspace",
        "project",
        "turn",
        "time",
        "role",
        "snippet",
        "file",
        "exit_code",
        "status",
        "compacted",
        "score",
    }
    assert (hit["role"], hit["exit_code"], hit["status"]) == ("command", 1, "errored")
    assert "**ModuleNotFoundError**" in hit["snippet"]


def test_search_scope_defaults_to_the_workspace_of_the_cwd(
    env: dict[str, str], tmp_path: Path
) -> None:
    outside = envelope(deja(env, "search", "flaky", "--json", cwd=str(tmp_path)), "search")
    assert outside["scope"] == "all workspaces" and outside["notes"]
    fake_ws = tmp_path / "home/dev/api/src"
    fake_ws.mkdir(parents=True)
    result = deja(env, "search", "flaky", "--workspace", "/home/dev/api", "--json")
    assert envelope(result, "search")["hits"] == []
    result = deja(env, "search", "flaky", "--workspace", "/home/dev/webapp", "--json")
    assert len(envelope(result, "search")["hits"]) >= 1  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "expect"),
    [
        (['"exponential backoff"'], "retry"),
        (["parseConfig"], "parse_config"),
        (["main.py"], None),
        (["health*"], "health"),
        (["parse_config", "-leaks"], "parse_config"),
    ],
)
def test_query_forms(env: dict[str, str], query: list[str], expect: str | None) -> None:
    data = envelope(deja(env, "search", *query, "--all", "--json", "--limit", "50"), "search")
    hits = data["hits"]
    if expect is None:
        assert hits == []
        return
    assert hits, query
    assert all(expect in (h["snippet"].lower() + h["title"].lower()) for h in hits)  # type: ignore[union-attr]
    if "-leaks" in query:
        assert all("leaks" not in h["snippet"] for h in hits)  # type: ignore[union-attr]


def test_path_parts_are_searchable(env: dict[str, str]) -> None:
    data = envelope(deja(env, "search", "config.py", "--all", "--json", "--role", "edit"), "search")
    assert data["hits"] and all(h["file"].endswith("config.py") for h in data["hits"])  # type: ignore[union-attr]


def test_typo_falls_back_to_labelled_approximate_hits(env: dict[str, str]) -> None:
    data = envelope(deja(env, "search", "websockt", "flaky", "--all", "--json"), "search")
    assert data["hits"] == [] or data["approximate"]
    data = envelope(deja(env, "search", "helth", "--all", "--json"), "search")
    assert data["approximate"] is True and data["hits"]
    assert "approximate" in deja(env, "search", "helth", "--all").stdout


def test_role_since_session_and_file_filters(env: dict[str, str]) -> None:
    data = envelope(deja(env, "search", "pytest", "--all", "--role", "command", "--json"), "search")
    assert data["hits"] and {h["role"] for h in data["hits"]} == {"command"}  # type: ignore[union-attr]
    data = envelope(
        deja(env, "search", "pytest", "--all", "--since", "2099-01-01", "--json"), "search"
    )
    assert data["hits"] == []
    data = envelope(
        deja(env, "search", "pytest", "--all", "--session", CLI_SESSION[:8], "--json"), "search"
    )
    assert {h["session_id"] for h in data["hits"]} == {CLI_SESSION}  # type: ignore[union-attr]
    data = envelope(
        deja(
            env,
            "search",
            "parse_config",
            "--all",
            "--file",
            "/home/dev/api/src/loader.py",
            "--json",
        ),
        "search",
    )
    assert {h["file"] for h in data["hits"]} == {"/home/dev/api/src/loader.py"}  # type: ignore[union-attr]


def test_sessions_newest_first_with_current_and_compaction(env: dict[str, str]) -> None:
    data = envelope(deja(env, "sessions", "--all", "--json"), "sessions")
    sessions = data["sessions"]
    assert [s["last_active"] for s in sessions] == sorted(  # type: ignore[union-attr]
        (s["last_active"] for s in sessions), reverse=True
    )  # type: ignore[union-attr]
    assert sum(s["current"] for s in sessions) == 1  # type: ignore[union-attr]
    compacted = next(s for s in sessions if s["id"] == COMPACTED)  # type: ignore[union-attr]
    assert compacted["lost_context"] is True
    assert {"first_user", "last_user", "message_count", "size", "started"} <= set(compacted)
    human = deja(env, "sessions", "--all", "--limit", "2").stdout
    assert human.count("started") == 2
    paged = envelope(
        deja(env, "sessions", "--all", "--limit", "2", "--offset", "2", "--json"), "sessions"
    )
    assert [s["id"] for s in paged["sessions"]] == [s["id"] for s in sessions[2:4]]  # type: ignore[index,union-attr]


def test_show_renders_tool_calls_and_accepts_id_prefix(env: dict[str, str]) -> None:
    out = deja(env, "show", CLI_SESSION[:8]).stdout
    assert "$ python -m pytest tests/test_config.py → exit 1" in out
    assert "edited /home/dev/api/src/config.py (+2 −1)" in out
    assert "wrote /home/dev/api/CHANGELOG.md" in out
    data = envelope(deja(env, "show", CLI_SESSION, "--turn", "3", "--json"), "show")
    assert {r["turn"] for r in data["records"]} == {3}  # type: ignore[union-attr]


def test_blame_by_suffix_and_by_line(env: dict[str, str], tmp_path: Path) -> None:
    data = envelope(deja(env, "blame", "src/config.py", "--json"), "blame")
    events = data["events"]
    assert {e["role"] for e in events} == {"edit", "read"}  # type: ignore[union-attr]
    assert events[0]["time"] >= events[-1]["time"]  # type: ignore[index]
    edit = next(e for e in events if e["role"] == "edit")  # type: ignore[union-attr]
    assert "parse_config leaks" in edit["request"]
    current = tmp_path / "src" / "config.py"
    current.parent.mkdir()
    current.write_text(
        "import json\n\ndef parse_config(path):\n"
        '    with open(path, encoding="utf-8") as handle:\n'
        "        return json.load(handle)\n"
    )
    on_line = envelope(deja(env, "blame", str(current), "--line", "5", "--json"), "blame")
    assert on_line["events"] and all(e["role"] == "edit" for e in on_line["events"])  # type: ignore[union-attr]
    off_line = envelope(deja(env, "blame", str(current), "--line", "1", "--json"), "blame")
    assert off_line["events"] == []


def test_stats(env: dict[str, str]) -> None:
    data = envelope(deja(env, "stats", "--json"), "stats")
    assert data["sessions"] == 6 and data["records"] > 20
    assert "records:" in deja(env, "stats").stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "nosuchsession"], "no session"),
        (["show", "abc"], "8+ characters"),
        (["search", "-only"], "at least one word"),
        (["search", '""'], "empty"),
    ],
)
def test_errors_are_one_clear_line(env: dict[str, str], args: list[str], message: str) -> None:
    result = deja(env, *args, ok=False)
    assert result.returncode != 0
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_store_not_found_says_where_it_looked(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(tmp_path / "none"),
        "DEJA_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    result = deja(env, "search", "x", ok=False)
    assert result.returncode == 1 and str(tmp_path / "none") in result.stderr


def test_cli_leaves_the_store_untouched(env: dict[str, str]) -> None:
    store = Path(env["DEJA_CONTINUE_ROOT"])
    before = snapshot(store)
    for args in (
        ["index", "--rebuild"],
        ["search", "flaky", "--all"],
        ["sessions", "--all"],
        ["show", CLI_SESSION],
        ["blame", "src/config.py"],
        ["stats"],
    ):
        deja(env, *args)
    assert snapshot(store) == before


def test_forget_human_and_json(tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(SAMPLE, store)
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "NO_COLOR": "1",
    }
    deja(env, "index")
    human = deja(env, "forget", "--session", COMPACTED[:8]).stdout
    assert f"forgot session {COMPACTED}" in human
    assert envelope(deja(env, "search", "FastAPI", "--all", "--json"), "search")["hits"] == []
    data = envelope(deja(env, "forget", "--workspace", "/home/dev/webapp", "--json"), "forget")
    assert data["sessions"] == 1
    assert envelope(deja(env, "search", "flaky", "--all", "--json"), "search")["hits"] == []
    deja(env, "index", "--rebuild")
    assert envelope(deja(env, "search", "FastAPI", "--all", "--json"), "search")["hits"] == []
