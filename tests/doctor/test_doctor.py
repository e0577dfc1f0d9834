"""`deja doctor`: every problem it reports, each with its fix, from the real CLI over real
stores, configs and servers (the sidecar and Continue's MCP command are started and asked
`initialize`); exit 0 only when all is well; the `--json` envelope the editor shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from deja.doctor.probe import sidecar_check
from deja.doctor.python import python_check
from deja.index import SCHEMA_VERSION
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.storebuilder import session_doc, user, write_session

NAMES = ["python", "orjson", "store", "sessions", "index", "meaning", "exclude"]
WIRED = ["continue-config", "continue-mcp", "mcp-command", "skill", "prompt", "sidecar"]


def world(tmp_path: Path, *, install: bool = True) -> dict[str, str]:
    """A store of two sessions, an index home, a config folder; Continue wired by the real
    `deja install continue` unless told."""
    store = tmp_path / "continue"
    for n in (1, 2):
        write_session(store, session_doc(f"doctor-session-{n}", [user(f"question {n}")]))
    env = deja_env(store, tmp_path / "home", XDG_CONFIG_HOME=str(tmp_path / "config"))
    if install:
        assert run_deja(env, "install", "continue").returncode == 0
    return env


def doctor(env: dict[str, str]) -> tuple[int, dict[str, dict[str, Any]], dict[str, Any]]:
    result = run_deja(env, "doctor", "--json", timeout=180)
    data = json_envelope(result, "doctor")
    return result.returncode, {check["name"]: check for check in data["checks"]}, data


def test_all_is_well_exits_0_and_says_what_it_found(tmp_path: Path) -> None:
    env = world(tmp_path)
    code, checks, data = doctor(env)
    assert code == 0, data
    assert data["ok"] is True and list(checks) == NAMES + WIRED
    for check in data["checks"]:
        assert set(check) >= {"name", "ok", "detail", "fix"} and check["ok"] and not check["fix"]
    assert checks["store"]["detail"] == f"{env['DEJA_CONTINUE_ROOT']}: 2 session files"
    assert checks["store"]["looked"][0] == f"DEJA_CONTINUE_ROOT={env['DEJA_CONTINUE_ROOT']}"
    assert checks["sessions"]["detail"] == "2 readable, none unreadable"
    index = checks["index"]
    assert (
        index["path"] == f"{env['DEJA_HOME']}/index.sqlite3" and index["schema"] == SCHEMA_VERSION
    )
    assert index["bytes"] > 0 and index["last_pass"] is not None
    assert "2 sessions" in index["detail"]
    # The tests search by words only (DEJA_SEMANTIC=0).
    assert checks["meaning"]["state"] == "words only"
    assert checks["meaning"]["detail"] == "turned off (DEJA_SEMANTIC=0): search by words only"
    assert "deja" in checks["mcp-command"]["detail"]  # `deja mcp` started and answered
    assert "hoverProvider" in checks["sidecar"]["detail"]
    human = run_deja(env, "doctor", timeout=180)
    assert human.returncode == 0 and human.stdout.strip().endswith("all is well")
    assert f"ok   store: {env['DEJA_CONTINUE_ROOT']}: 2 session files" in human.stdout


def test_no_store_says_where_it_looked(tmp_path: Path) -> None:
    env = world(tmp_path, install=False)
    env["DEJA_CONTINUE_ROOT"] = str(tmp_path / "nowhere")
    code, checks, _ = doctor(env)
    assert code == 1
    store = checks["store"]
    assert not store["ok"] and "no such folder" in store["detail"]
    assert f"DEJA_CONTINUE_ROOT={tmp_path / 'nowhere'}" in store["detail"]
    assert "CONTINUE_GLOBAL_DIR unset" in store["looked"]
    assert "set DEJA_CONTINUE_ROOT" in store["fix"] and "sessions" not in checks
    human = run_deja(env, "doctor", timeout=180)
    assert human.returncode == 1 and "FAIL store:" in human.stdout
    assert "     fix: start one Continue session" in human.stdout
    assert human.stdout.strip().endswith("problems found")


def test_a_sessions_path_that_is_no_folder(tmp_path: Path) -> None:
    env = world(tmp_path, install=False)
    store = tmp_path / "flat"
    store.mkdir()
    (store / "sessions").write_text("not a folder")
    env["DEJA_CONTINUE_ROOT"] = str(store)
    _, checks, _ = doctor(env)
    assert not checks["store"]["ok"] and "cannot list" in checks["store"]["detail"]
    assert "must be a folder you can read" in checks["store"]["fix"]


def test_unreadable_sessions_each_with_its_reason_and_fix(tmp_path: Path) -> None:
    env = world(tmp_path)
    sessions = Path(env["DEJA_CONTINUE_ROOT"]) / "sessions"
    (sessions / "broken-json-0001.json").write_text('{"sessionId": "broken-json-0001", "hist')
    big = session_doc("big-session-0001", [user("x" * 5000)])
    write_session(Path(env["DEJA_CONTINUE_ROOT"]), big)
    env["DEJA_MAX_SESSION_BYTES"] = "4096"
    code, checks, _ = doctor(env)
    assert code == 1
    check = checks["sessions"]
    assert not check["ok"] and check["detail"].startswith("2 readable, 2 unreadable: ")
    by_file = {Path(item["path"]).name: item for item in check["unreadable"]}
    assert set(by_file) == {"broken-json-0001.json", "big-session-0001.json"}
    assert "DEJA_MAX_SESSION_BYTES=4096" in by_file["big-session-0001.json"]["reason"]
    assert by_file["big-session-0001.json"]["fix"].startswith("raise DEJA_MAX_SESSION_BYTES")
    assert "damaged" in by_file["broken-json-0001.json"]["fix"]
    assert "raise DEJA_MAX_SESSION_BYTES" in check["fix"] and "damaged" in check["fix"]


def test_an_emptied_store_is_not_applied_and_says_how_to(tmp_path: Path) -> None:
    env = world(tmp_path)
    assert doctor(env)[0] == 0
    for path in (Path(env["DEJA_CONTINUE_ROOT"]) / "sessions").glob("*.json"):
        path.unlink()
    code, checks, _ = doctor(env)
    assert code == 1 and not checks["sessions"]["ok"]
    assert "not applied" in checks["sessions"]["detail"]
    assert "deja index --accept-empty" in checks["sessions"]["fix"]


def test_index_home_problems(tmp_path: Path) -> None:
    env = world(tmp_path, install=False)
    code, checks, _ = doctor({**env, "DEJA_HOME": "relative/home"})
    assert code == 1 and not checks["index"]["ok"]
    assert "DEJA_HOME must be an absolute path" in checks["index"]["detail"]
    assert "set DEJA_HOME to an absolute path" in checks["index"]["fix"]
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    _, checks, _ = doctor({**env, "DEJA_HOME": str(blocked / "home")})
    assert not checks["index"]["ok"] and "cannot open the index" in checks["index"]["detail"]
    assert (
        checks["index"]["fix"]
        == f"make {blocked / 'home'} a folder you can write (or set DEJA_HOME to one)"
    )


def test_a_bad_setting_and_a_rebuilt_index_are_reported(tmp_path: Path) -> None:
    env = world(tmp_path, install=False)
    code, checks, _ = doctor({**env, "DEJA_MAX_SESSION_BYTES": "lots"})
    assert code == 1 and not checks["index"]["ok"]
    assert "DEJA_MAX_SESSION_BYTES" in checks["index"]["detail"]
    assert checks["index"]["fix"] == "correct the variable it names, or unset it"
    assert "sidecar" in checks  # the other checks still ran
    home = Path(env["DEJA_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "index.sqlite3").write_bytes(b"not a database" * 100)
    _, checks, _ = doctor(env)
    assert checks["index"]["ok"] and "was unreadable and was rebuilt" in checks["index"]["detail"]


def test_exclude_list_listed_and_an_unreadable_one_reported(tmp_path: Path) -> None:
    env = world(tmp_path)
    exclude = Path(env["XDG_CONFIG_HOME"]) / "deja" / "exclude"
    exclude.parent.mkdir(parents=True)
    exclude.write_text("# private\n/w/proj\n")
    code, checks, _ = doctor(env)
    assert code == 0 and checks["exclude"]["patterns"] == ["/w/proj"]
    assert checks["exclude"]["detail"] == f"{exclude}: /w/proj; 2 sessions kept out"
    exclude.unlink()
    exclude.mkdir()  # a list Deja cannot read keeps nothing out: say so
    code, checks, _ = doctor(env)
    assert code == 1 and not checks["exclude"]["ok"]
    assert "its workspaces are not kept out" in checks["exclude"]["detail"]
    assert checks["exclude"]["fix"] == f"make {exclude} readable by you"


def test_continue_not_wired(tmp_path: Path) -> None:
    env = world(tmp_path, install=False)
    code, checks, _ = doctor(env)
    config = Path(env["DEJA_CONTINUE_ROOT"]) / "config.yaml"
    assert code == 1
    assert checks["continue-mcp"]["detail"] == f"no Continue config at {config}"
    assert "mcp-command" not in checks  # nothing to start
    assert checks["skill"]["fix"] == checks["prompt"]["fix"] == "deja install continue"
    config.write_bytes(b"name: \xff\xfe\n")
    _, checks, _ = doctor(env)
    assert checks["continue-mcp"]["detail"].startswith(f"cannot read {config}")
    config.write_text("name: x\nversion: 1.0.0\nmcpServers: [\n")
    _, checks, _ = doctor(env)
    assert "is not valid YAML" in checks["continue-mcp"]["detail"]
    assert checks["continue-mcp"]["fix"].startswith("repair the YAML")
    config.write_text("name: x\nversion: 1.0.0\nmcpServers:\n  - name: other\n    command: x\n")
    _, checks, _ = doctor(env)
    assert checks["continue-mcp"]["detail"] == f"{config} has no MCP server named deja"
    assert checks["continue-mcp"]["fix"] == "deja install continue"


def replace_command(env: dict[str, str], command: str, args: str) -> None:
    config = Path(env["DEJA_CONTINUE_ROOT"]) / "config.yaml"
    text = config.read_text()
    start = text.index("command: ")
    end = text.index("\n", text.index("args:") + 6)
    while text[end + 1 :].startswith("      - "):
        end = text.index("\n", end + 1)
    config.write_text(text[:start] + f"command: {command}\n    args: {args}" + text[end:])


def test_mcp_command_missing_or_not_answering(tmp_path: Path) -> None:
    env = world(tmp_path)
    replace_command(env, str(tmp_path / "gone" / "deja"), "[mcp]")
    code, checks, _ = doctor(env)
    assert code == 1 and not checks["mcp-command"]["ok"]
    assert "is not an executable file here" in checks["mcp-command"]["detail"]
    assert checks["mcp-command"]["fix"].startswith("deja install continue")
    replace_command(env, "/bin/true", "[]")  # starts, exits at once, answers nothing
    _, checks, _ = doctor(env)
    assert "did not answer MCP's initialize: it exited (code 0)" in checks["mcp-command"]["detail"]
    replace_command(env, sys.executable, "[-c, 'import sys; sys.exit(\"no deja here\")']")
    _, checks, _ = doctor(env)
    assert "it said: no deja here" in checks["mcp-command"]["detail"]
    replace_command(env, sys.executable, "[-c, 'print(\"Welcome!\"); input()']")
    _, checks, _ = doctor(env)
    assert "wrote what is not a JSON-RPC message on stdout" in checks["mcp-command"]["detail"]
    assert checks["skill"]["ok"] and checks["prompt"]["ok"]


def test_an_edited_skill_is_reported_as_kept(tmp_path: Path) -> None:
    env = world(tmp_path)
    skill = Path(env["DEJA_CONTINUE_ROOT"]) / "skills" / "deja-history" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nmine\n")
    _, checks, _ = doctor(env)
    assert checks["skill"]["ok"] and "edited by you" in checks["skill"]["detail"]
    skill.unlink()
    code, checks, _ = doctor(env)
    assert code == 1 and checks["skill"]["detail"] == f"no skill at {skill}"


def test_a_sidecar_that_cannot_start(tmp_path: Path) -> None:
    """A Python without Deja (the system's, its path not given): the real failure, its words."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    python = "/usr/bin/python3"
    probe = subprocess.run([python, "-c", "import deja"], env=env, capture_output=True)
    if probe.returncode == 0:
        pytest.fail("/usr/bin/python3 imports deja: this test needs one that does not")
    check = sidecar_check(python, env)
    assert not check.ok and "No module named deja" in check.detail
    assert check.fix and "install Deja's wheel with its dependencies" in check.fix


def test_an_old_python_is_a_problem_and_no_orjson_is_not() -> None:
    old = python_check((3, 10, 12), "/usr/bin/python3.10")
    assert not old.ok and "Deja needs Python 3.11 or newer" in old.detail
    assert old.fix and "pipx install" in old.fix
    assert python_check((3, 11, 0), "/x/python").ok
    code = (
        "import sys; sys.modules['orjson'] = None\n"
        "from deja.doctor.python import orjson_check\n"
        "c = orjson_check(); print(c.ok, c.detail, c.fix, sep='|')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    ok, detail, fix = out.strip().split("|")
    # The standard library reads the store without it (deja.jsonlib): slower, not a problem.
    assert ok == "True" and fix == "None"
    assert "standard library's json" in detail and detail.endswith("-m pip install orjson")
