"""`deja resume` and `deja handoff`: the printed command lines (quoted, ids checked), the notes
on stderr, the digest (≤ 4 KB, redacted), and `--exec` running a stub `cn` found first on PATH."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from deja.query import SessionSummary, SessionView, TurnRecord
from deja.query.digest import MAX_BYTES, build_digest, decisions, failures
from deja.query.handoff import HandoffError, check_id, handoff, quote, resume
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

FIX = "5e551011-aaaa-4bbb-8ccc-000000000001"
GONE = "90e0e0e0-aaaa-4bbb-8ccc-000000000002"
ODD = "odd_id.v2-session"
SECRET = "sk-proj-Zx8Qw2Lm9Rt4Vb7Nc1Kd5Hg3Jf6Ps0Ay"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("handoff")
    root = base / "continue"
    workspace = base / "it's a project"
    workspace.mkdir()
    history = [
        user(f"Make the importer retry on timeouts. My key is OPENAI_API_KEY={SECRET}"),
        assistant("We decided to retry three times with backoff instead of failing at once."),
        assistant(
            "",
            [
                call(
                    "Bash",
                    {"command": "pytest tests/test_importer.py"},
                    "Error executing tool Bash: Error (exit code 1): TimeoutError",
                    status="errored",
                )
            ],
        ),
        assistant(
            "",
            [
                call(
                    "Edit",
                    {
                        "file_path": f"{workspace}/importer.py",
                        "old_string": "fetch(url)",
                        "new_string": "retry(fetch, url)",
                    },
                    f"Successfully edited {workspace}/importer.py",
                    call_id="call_2",
                )
            ],
        ),
        assistant(
            "", [call("Bash", {"command": "pytest tests/test_importer.py"}, "2 passed", "done")]
        ),
        user("now log each retry " + "with details " * 800),
        assistant("Each retry is logged at INFO."),
    ]
    write_session(root, session_doc(FIX, history, "Importer retries", str(workspace)))
    write_session(root, session_doc(GONE, [user("hello")], "Old place", "/no/such/folder"))
    write_session(root, session_doc(ODD, [user("odd")], "Odd id", str(workspace)))
    bin_dir = base / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "cn"
    stub.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "with open(os.environ['CN_RECORD'], 'w') as out:\n"
        "    json.dump({'argv': sys.argv[1:], 'cwd': os.getcwd()}, out)\n"
        "sys.exit(7)\n"
    )
    stub.chmod(0o755)
    return {
        "root": root,
        "home": base / "deja-home",
        "workspace": workspace,
        "bin": bin_dir,
        "record": base / "cn-record.json",
    }


def deja(
    setup: dict[str, Path], *args: str, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(setup["root"]),
        "DEJA_HOME": str(setup["home"]),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "CN_RECORD": str(setup["record"]),
        "PATH": path if path is not None else f"{setup['bin']}{os.pathsep}{os.environ['PATH']}",
    }
    return subprocess.run(
        [sys.executable, "-m", "deja", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
    )


def recorded(setup: dict[str, Path]) -> dict[str, object]:
    data: dict[str, object] = json.loads(setup["record"].read_text())
    setup["record"].unlink()
    return data


def test_resume_prints_a_quoted_cd_and_fork(setup: dict[str, Path]) -> None:
    result = deja(setup, "resume", FIX[:8])
    assert result.returncode == 0, result.stderr
    workspace = str(setup["workspace"])
    line = result.stdout.strip()
    assert line == f"cd {shlex.quote(workspace)} && cn --fork {FIX}"
    assert "--fork starts a new Continue session that carries the old session's history" in (
        result.stderr
    )
    # The printed line, run by a shell, forks in the workspace (a stub cn records it).
    env = {**os.environ, "PATH": f"{setup['bin']}:{os.environ['PATH']}"}
    env["CN_RECORD"] = str(setup["record"])
    assert subprocess.run(["sh", "-c", line], env=env, check=False).returncode == 7
    assert recorded(setup) == {"argv": ["--fork", FIX], "cwd": workspace}


def test_resume_refuses_ids_that_are_not_plain(setup: dict[str, Path]) -> None:
    for bad in ["abc;rm -rf ~", ODD, "../../etc/passwd", "$(reboot)", "short"]:
        result = deja(setup, "resume", bad)
        assert result.returncode == 1
        assert "is not a plain session id" in result.stderr and not result.stdout


def test_resume_of_a_session_whose_workspace_is_gone(setup: dict[str, Path]) -> None:
    result = deja(setup, "resume", GONE)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"cn --fork {GONE}\n"
    assert "/no/such/folder no longer exists: the fork will run where you are" in result.stderr


def test_resume_exec_runs_cn_attached_in_the_workspace(setup: dict[str, Path]) -> None:
    result = deja(setup, "resume", FIX, "--exec")
    assert result.returncode == 7  # cn's own exit code
    assert recorded(setup) == {"argv": ["--fork", FIX], "cwd": str(setup["workspace"])}
    gone = deja(setup, "resume", GONE, "--exec")
    assert gone.returncode == 7 and recorded(setup) == {"argv": ["--fork", GONE], "cwd": "/"}


def test_exec_without_cn_says_so(setup: dict[str, Path]) -> None:
    result = deja(setup, "resume", FIX, "--exec", path="/nonexistent")
    assert result.returncode == 1 and "cn is not on PATH" in result.stderr


def test_unknown_session_is_one_clear_line(setup: dict[str, Path]) -> None:
    result = deja(setup, "resume", "feedface-0000-0000")
    assert result.returncode == 1
    assert result.stderr == "deja: no session 'feedface-0000-0000' in the index\n"


def test_handoff_prints_cn_with_a_small_redacted_digest(setup: dict[str, Path]) -> None:
    result = deja(setup, "handoff", FIX)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("cn '")
    argv = shlex.split(result.stdout)
    assert argv[0] == "cn" and len(argv) == 2
    digest = argv[1]
    assert len(digest.encode()) <= MAX_BYTES
    assert SECRET not in result.stdout and "[redacted:" in digest
    assert "Ask: Make the importer retry on timeouts." in digest
    assert "- We decided to retry three times with backoff instead of failing at once." in digest
    assert "Changed files: importer.py" in digest
    assert (
        "- `pytest tests/test_importer.py` (exit 1) → fixed by editing importer.py, "
        "then it passed" in digest
    )
    assert "- last request (turn 5): now log each retry with details" in digest
    assert "- last reply (turn 6): Each retry is logged at INFO." in digest
    assert "opens a new Continue session with the old session's digest" in result.stderr
    assert f"cd {quote(str(setup['workspace']))}" in result.stderr


def test_handoff_exec_starts_cn_with_the_digest(setup: dict[str, Path]) -> None:
    printed = shlex.split(deja(setup, "handoff", FIX).stdout)[1]
    result = deja(setup, "handoff", FIX, "--exec")
    assert result.returncode == 7
    assert recorded(setup) == {"argv": [printed], "cwd": str(setup["workspace"])}


def test_json_envelopes(setup: dict[str, Path]) -> None:
    data = json.loads(deja(setup, "resume", FIX, "--json").stdout)
    assert data["command"] == "resume" and data["argv"] == ["cn", "--fork", FIX]
    assert data["cwd"] == str(setup["workspace"])


# Pure parts --------------------------------------------------------------------------------------


def summary(session_id: str = FIX, workspace: str = "/w/p") -> SessionSummary:
    return SessionSummary(
        id=session_id,
        title="T",
        workspace=workspace,
        project="p",
        started=1_750_000_000,
        last_active=1_750_000_600,
        first_user="",
        last_user="",
        message_count=1,
        size=1,
        lost_context=False,
        kept_turns=0,
        deleted=False,
    )


def record(turn: int, role: str, text: str = "", **fields: object) -> TurnRecord:
    values: dict[str, object] = {
        "tool": None,
        "status": "done",
        "path": None,
        "exit_code": None,
        "output": None,
        "args": None,
        "hunks": [],
        "compacted": False,
    }
    values.update(fields)
    return TurnRecord(turn=turn, role=role, time=1_750_000_000 + turn, text=text, **values)  # type: ignore[arg-type]


def test_ids_and_quoting() -> None:
    assert check_id(FIX) == FIX
    for bad in ["", "1234567", "a" * 65, "abc def12", "ab'cdefgh", "abc/defgh", "abc_defgh"]:
        with pytest.raises(HandoffError):
            check_id(bad)
    assert quote("/plain/path") == "'/plain/path'"
    assert shlex.split(quote("it's $HOME `x`")) == ["it's $HOME `x`"]
    with pytest.raises(HandoffError):
        resume(summary("bad id; rm"))
    launch = handoff(summary(workspace="/no/such"), "say 'hi'\nthen $(stop)")
    assert shlex.split(launch.line) == ["cn", "say 'hi'\nthen $(stop)"] and launch.cwd is None


def test_failures_find_the_fix() -> None:
    records = [
        record(1, "command", args="make test", exit_code=2, status="errored"),
        record(2, "command", args="make test", exit_code=2, status="errored"),
        record(3, "command", args="apt install libfoo"),
        record(4, "command", args="make test"),
        record(5, "command", args="npm run lint", exit_code=1, status="errored"),
        record(6, "command", args="npm run lint -- --fix"),
        record(7, "command", args="cargo build", status="errored"),
    ]
    found = failures(records)
    assert [(f.command, f.fix, f.passed) for f in found] == [
        ("make test", "`apt install libfoo`", True),
        ("npm run lint", "`npm run lint -- --fix`", True),
        ("cargo build", None, False),
    ]


def test_decisions_are_the_sentences_that_choose() -> None:
    records = [
        record(0, "user", "Let's use SQLite instead of Postgres for the cache. Thanks!"),
        record(1, "assistant", "Done. I switched to WAL mode because readers must not block."),
        record(2, "reasoning", "We decided nothing here."),
    ]
    assert decisions(records) == [
        "Let's use SQLite instead of Postgres for the cache.",
        "I switched to WAL mode because readers must not block.",
    ]


def test_digest_stays_under_4_kb_for_a_huge_session() -> None:
    records = [record(0, "user", "ask " * 5000)]
    for n in range(1, 400):
        records.append(record(n, "assistant", f"We decided on option {n} instead of {n - 1}. " * 3))
        records.append(record(n, "edit", path=f"/w/p/src/file_{n}.py", hunks=[(None, "x")]))
        records.append(record(n, "command", args=f"tool{n} run {'x' * 300}", exit_code=1))
    records.append(record(400, "summary", "summary " * 2000))
    digest = build_digest(SessionView(summary(), records))
    assert len(digest.encode()) <= MAX_BYTES
    assert digest.startswith("Pick up where an earlier Continue session stopped.")
    assert "Changed files: src/file_1.py" in digest and "more" in digest
