"""`deja fix` (error signatures and the fix chain) and `deja files` over built stores, and both
CLI commands. The chain on what the real `cn` wrote is `tests/real_cn/test_fix_on_cn.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deja.query import History, Scope
from deja.query.error_signature import LINE_CHARS, MAX_LINES, mask, signature
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

TRACE = (
    "Error executing tool Bash: Error (exit code 1): Traceback (most recent call last):\n"
    '  File "{path}/check.py", line {line}, in <module>\n'
    "    import yaml_tools\n"
    "ModuleNotFoundError: No module named '{module}'\n"
)


def trace(path: str = "/tmp/tmpq1w2e3r4/work", line: int = 3, module: str = "yaml_tools") -> str:
    return TRACE.format(path=path, line=line, module=module)


# Signatures ------------------------------------------------------------------------------------


def test_noise_is_masked() -> None:
    line = (
        "2026-11-30T10:11:12.123Z ERROR worker 0x7ffe12a0 at /var/tmp/tmpab3x9q/run.log:42:7 "
        "took 12.5ms, commit 3f9c2d1ab, id 123e4567-e89b-12d3-a456-426614174000, line 88"
    )
    masked = mask(line)
    assert masked == (
        "<time> ERROR worker <hex> at <path>/run.log:<n> took <n>ms, commit <hex>, id <id>, "
        "line <n>"
    )


def test_the_same_error_on_another_machine_and_run_has_one_signature() -> None:
    here = signature(trace())
    there = signature(trace(path="/home/ann/src/proj", line=17))
    assert here.key == there.key and here.similarity(there) == 1.0
    assert here.lines == ("ModuleNotFoundError: No module named 'yaml_tools'",)
    # Continue's own prefix and the shared traceback header are not part of it.
    assert "Traceback" not in here.text and "exit code" not in here.text


def test_distinct_errors_are_kept_apart() -> None:
    yaml_missing = signature(trace())
    numpy_missing = signature(trace(module="numpy"))
    key_error = signature("Traceback (most recent call last):\nKeyError: 'user_id'\n")
    other_key = signature("Traceback (most recent call last):\nKeyError: 'token'\n")
    assert not yaml_missing.close_to(numpy_missing)
    assert not key_error.close_to(other_key)
    assert not yaml_missing.close_to(key_error)
    ts_error = signature("src/app.ts(12,5): error TS2322: Type 'string' is not assignable.")
    ts_same = signature("src/app.ts(40,9): error TS2322: Type 'string' is not assignable.")
    ts_other = signature("src/app.ts(12,5): error TS2307: Cannot find module 'react'.")
    assert ts_error.key == ts_same.key
    assert not ts_error.close_to(ts_other)


def test_output_without_an_error_word_keeps_its_last_lines() -> None:
    found = signature("building\nstep 1 of 3\nstep 2 of 3\nboom at stage 2\n")
    assert found.lines == ("step <n> of <n>", "boom at stage <n>")


def test_hostile_error_text_gives_a_bounded_signature() -> None:
    for text in (
        "error " + "a" * 16_000,
        "error " + "0x" * 8_000,
        "fatal: " + "." * 16_000,
        "\x00\x1b[31merror\x1b[0m \ud800 lone surrogate\r\n" * 500,
        "\n".join(f"Error {n}: " + "x/" * 500 for n in range(5_000)),
    ):
        found = signature(text)
        assert 0 < len(found.lines) <= MAX_LINES
        assert all(len(line) <= LINE_CHARS for line in found.lines)
    assert signature("\n\n   \n").lines == ()


# The fix chain on built stores ----------------------------------------------------------------


def _bash(command: str, output: str, call_id: str, status: str = "done") -> dict[str, Any]:
    return call("Bash", {"command": command}, output, status=status, call_id=call_id)


def _edit(path: str, call_id: str) -> dict[str, Any]:
    args = {"file_path": path, "old_string": "import yaml_tools", "new_string": "import yaml"}
    return call("Edit", args, "edited", call_id=call_id)


def fixed_session(session_id: str, workspace: str, mtime: float) -> dict[str, Any]:
    """check.py fails, is edited, fails the same way again, is edited again, then passes."""
    history = [
        user("Run the checker."),
        assistant("", [_bash("python3 check.py", trace(workspace), "c1", "errored")]),
        assistant("", [_edit(f"{workspace}/setup.cfg", "c2")]),
        assistant("", [_bash("python3 check.py", trace(workspace, 5), "c3", "errored")]),
        assistant("", [_edit(f"{workspace}/check.py", "c4")]),
        assistant("", [_bash("pip list", "pyyaml 6.0", "c5")]),
        assistant("", [_bash("python3 check.py -v", "all good", "c6")]),
        assistant("Fixed: check.py now imports yaml."),
    ]
    return session_doc(session_id, history, title="Fix the checker", workspace=workspace)


def never_fixed_session(session_id: str, workspace: str) -> dict[str, Any]:
    history = [
        user("Run the checker again."),
        assistant("", [_bash("python3 check.py", trace(workspace, 9), "d1", "errored")]),
        assistant("I could not fix it."),
    ]
    return session_doc(session_id, history, title="Checker still broken", workspace=workspace)


def other_error_session(session_id: str, workspace: str) -> dict[str, Any]:
    history = [
        user("Run it."),
        assistant(
            "", [_bash("python3 check.py", trace(workspace, module="numpy"), "e1", "errored")]
        ),
        assistant("", [_bash("pip install numpy", "ok", "e2")]),
        assistant("", [_bash("python3 check.py", "ok", "e3")]),
    ]
    return session_doc(session_id, history, title="Numpy missing", workspace=workspace)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    write_session(root, fixed_session("s-fixed-000001", "/w/alpha", 1), mtime=1_760_000_000)
    write_session(root, never_fixed_session("s-broken-00002", "/w/beta"), mtime=1_760_100_000)
    write_session(root, other_error_session("s-numpy-000003", "/w/alpha"), mtime=1_760_200_000)
    return root


def _history(tmp_path: Path, root: Path) -> History:
    history = History(home=tmp_path / "home", root=root)
    history.refresh()
    return history


def test_fix_finds_the_same_error_and_what_made_it_go_away(tmp_path: Path, store: Path) -> None:
    history = _history(tmp_path, store)
    asked = "ModuleNotFoundError: No module named 'yaml_tools'"
    result = history.fix(asked, Scope())
    ids = [f.session_id for f in result.failures]
    assert ids == ["s-fixed-000001", "s-broken-00002"]  # the fixed one first; numpy kept apart
    fixed, broken = result.failures
    assert fixed.fixed and fixed.confirmed and fixed.attempts == 2
    # Only what came after the error was last seen: the first edit did not fix it.
    assert [(s.role, s.what) for s in fixed.steps] == [
        ("edit", "check.py"),
        ("command", "pip list"),
    ]
    assert fixed.passed_by is not None and fixed.passed_by.what == "python3 check.py -v"
    assert not broken.fixed and not broken.steps and broken.passed_by is None
    history.close()


def test_a_fix_not_confirmed_by_a_rerun_is_said_so(tmp_path: Path) -> None:
    root = tmp_path / "store"
    history_items = [
        user("Build it."),
        assistant(
            "",
            [
                _bash(
                    "make build",
                    "make: *** [build] Error 2\ncc: fatal error: no input files",
                    "b1",
                    "errored",
                )
            ],
        ),
        assistant("", [_edit("/w/gamma/Makefile", "b2")]),
        assistant("The Makefile now lists the sources."),
    ]
    write_session(root, session_doc("s-unconfirmed1", history_items, workspace="/w/gamma"))
    history = _history(tmp_path, root)
    (failure,) = history.fix("cc: fatal error: no input files", Scope()).failures
    assert failure.fixed and not failure.confirmed
    assert [s.what for s in failure.steps] == ["Makefile"]
    history.close()


def test_fix_scope_and_an_empty_error(tmp_path: Path, store: Path) -> None:
    history = _history(tmp_path, store)
    asked = trace("/somewhere/else", 40)
    beta = history.fix(asked, Scope(("/w/beta",), "beta")).failures
    assert [f.session_id for f in beta] == ["s-broken-00002"]
    with pytest.raises(ValueError, match="error"):
        history.fix("   \n  ", Scope())
    history.close()


# Files a topic touched ------------------------------------------------------------------------


def test_files_ranks_what_the_topic_sessions_touched(tmp_path: Path, store: Path) -> None:
    root = store
    history_items = [
        user("Rework the checker output."),
        assistant("", [call("Read", {"filepath": "/w/alpha/check.py"}, "print()", call_id="r1")]),
        assistant("", [call("Read", {"filepath": "/w/alpha/README.md"}, "# x", call_id="r2")]),
    ]
    write_session(root, session_doc("s-reader-00004", history_items, workspace="/w/alpha"))
    history = _history(tmp_path, root)
    result = history.files("checker", Scope())
    assert result.sessions == 3  # the numpy session never says "checker"
    first = result.files[0]
    assert first.relative == "check.py" and first.edits == 1 and first.reads == 1
    assert {s.session_id for s in first.sessions} == {"s-fixed-000001", "s-reader-00004"}
    assert [f.relative for f in result.files] == ["check.py", "setup.cfg", "README.md"]
    assert history.files("nothing-like-this", Scope()).files == []
    history.close()


# CLI ------------------------------------------------------------------------------------------


def test_cli_fix_and_files(tmp_path: Path, store: Path) -> None:
    env = deja_env(store, tmp_path / "home")
    out = run_deja(env, "fix", "ModuleNotFoundError: No module named 'yaml_tools'")
    assert out.returncode == 0, out.stderr
    assert "never fixed in that session" in out.stdout
    assert "then `python3 check.py -v` (turn 6) ran without the error" in out.stdout
    data = json_envelope(run_deja(env, "fix", "--json", "No module named 'numpy'"), "fix")
    assert [f["session_id"] for f in data["failures"]] == ["s-numpy-000003"]
    assert data["failures"][0]["steps"][0]["what"] == "pip install numpy"
    piped = run_deja_stdin(env, trace("/x", 1), "fix", "-")
    assert "s-fixed-000001" in piped.stdout
    files = json_envelope(run_deja(env, "files", "--all", "--json", "checker"), "files")
    assert files["files"][0]["relative"] == "check.py"
    assert files["files"][0]["sessions"][0]["session_id"] == "s-fixed-000001"
    text = run_deja(env, "files", "--all", "numpy")
    assert "no session" in text.stdout.lower() or "none of them" in text.stdout
    undecodable = run_deja(env, "fix", "--json", "No module named 'yaml_tools' \udcff")
    assert undecodable.returncode == 0, undecodable.stderr
    assert json_envelope(undecodable, "fix")["failures"]
    empty = run_deja(env, "fix", " ")
    assert empty.returncode == 1 and "error" in empty.stderr


def run_deja_stdin(env: dict[str, str], stdin: str, *args: str) -> Any:
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "deja", *args], env=env, input=stdin, capture_output=True,
        text=True, timeout=60, cwd="/",
    )  # fmt: skip


def test_a_forks_copy_of_a_failure_and_its_files_count_once(tmp_path: Path) -> None:
    root = tmp_path / "store"
    parent = fixed_session("aaaaaaaa-0000-4000-8000-0000000000f1", "/w/alpha", 1)
    fork_id = "bbbbbbbb-0000-4000-8000-0000000000f2"
    own = [user("and the docs"), assistant("Noted.")]
    fork = session_doc(fork_id, [*parent["history"], *own], title="Fork", workspace="/w/alpha")
    write_session(root, parent, date_created="1750262400000", mtime=1_760_000_000)
    write_session(root, fork, date_created="1750266000000", mtime=1_760_000_600)
    history = _history(tmp_path, root)
    assert history.show(fork_id).session.forked_from == parent["sessionId"]
    result = history.fix("ModuleNotFoundError: No module named 'yaml_tools'", Scope())
    assert [f.session_id for f in result.failures] == [parent["sessionId"]]
    (checker,) = [f for f in history.files("checker", Scope()).files if f.relative == "check.py"]
    assert [s.session_id for s in checker.sessions] == [parent["sessionId"]]
    history.close()


def test_the_text_cn_shows_and_piped_output_find_the_recorded_failure(tmp_path: Path) -> None:
    root = tmp_path / "store"
    failed = _bash(
        "sh deploy.sh", "Error executing tool Bash: Error (exit code 3): oops", "o1", "errored"
    )
    history_items = [
        user("Deploy it."),
        assistant("", [failed]),
        assistant("", [_edit("/w/gamma/deploy.sh", "o2")]),
        assistant("", [_bash("sh deploy.sh", "deployed", "o3")]),
    ]
    doc = session_doc("s-oops-0000004", history_items, title="Deploy", workspace="/w/gamma")
    write_session(root, doc, mtime=1_760_300_000)
    history = _history(tmp_path, root)
    try:
        every = Scope()
        assert history.fix("oops", every).failures  # what already worked
        shown = history.fix("Error (exit code 3): oops", every)  # the line `cn` prints
        assert [f.session_id for f in shown.failures] == ["s-oops-0000004"]
        assert shown.error == "oops"
        # `sh deploy.sh 2>&1 | deja fix -`: stdout around stderr, one stdout line with an error
        # word in it; Continue recorded stderr alone.
        piped = history.fix("starting deploy\n0 errors in the config\noops\ncleaning up\n", every)
        assert [f.session_id for f in piped.failures] == ["s-oops-0000004"]
        assert piped.error == "oops" and piped.failures[0].confirmed
        assert not history.fix("starting deploy\ncleaning up\n", every).failures
    finally:
        history.close()
