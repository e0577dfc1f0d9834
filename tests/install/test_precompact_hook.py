"""The `PreCompact` hook `deja install continue` writes into the settings file `cn` reads, and
`deja capture`, the command it runs: run by hand here as `cn` would run it (the hook's JSON on
stdin), since `cn` 1.5.47 declares the event but never fires it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from deja.install.precompact import EVENT, STATUS
from tests.support.cli_run import deja_env, run_deja
from tests.support.storebuilder import assistant, session_doc, user, write_session

SESSION = "0c0c0c0c-1111-4222-8333-444444444444"


def hook_commands(root: Path) -> list[str]:
    settings = json.loads((root / "settings.json").read_text())
    return [
        hook["command"]
        for group in settings["hooks"][EVENT]
        for hook in group["hooks"]
        if hook.get("statusMessage") == STATUS
    ]


def test_the_hook_command_captures_the_session_about_to_be_compacted(tmp_path: Path) -> None:
    root, home = tmp_path / "continue", tmp_path / "home"
    turns = [user("rename the flux capacitor"), assistant("renamed it to chronoton")]
    write_session(root, session_doc(SESSION, turns))
    env = deja_env(root, home)
    assert run_deja(env, "install", "continue").returncode == 0
    (command,) = hook_commands(root)
    payload = {
        "session_id": SESSION,
        "transcript_path": "",
        "cwd": str(tmp_path),
        "hook_event_name": "PreCompact",
    }
    ran = subprocess.run(
        command, shell=True, input=json.dumps(payload), env=env, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "" and ran.stderr == f"deja: session {SESSION} indexed\n"
    # What compaction then deletes from the file, Deja holds.
    write_session(root, session_doc(SESSION, [assistant("Summary: a rename.")]))
    shown = run_deja(env, "show", SESSION[:8])
    assert "flux capacitor" in shown.stdout and "chronoton" in shown.stdout


def test_capture_takes_a_session_file_and_says_what_is_wrong(tmp_path: Path) -> None:
    root, home = tmp_path / "continue", tmp_path / "home"
    path = write_session(root, session_doc(SESSION, [user("hello capture")]))
    env = deja_env(root, home)
    done = run_deja(env, "capture", str(path))
    assert done.returncode == 0 and done.stderr == f"deja: session {SESSION} indexed\n"
    again = run_deja(env, "capture", SESSION)
    assert again.stderr == f"deja: session {SESSION} already indexed\n"
    elsewhere = tmp_path / f"{SESSION}.json"
    elsewhere.write_text("{}")
    for args, message in [
        ((str(elsewhere),), f"deja: {elsewhere} is not in Continue's store"),
        (("no-such-session",), "deja: no session no-such-session in"),
        (("../x",), "deja: ../x is not in Continue's store"),
    ]:
        bad = run_deja(env, "capture", *args)
        assert bad.returncode == 1 and bad.stderr.startswith(message), bad.stderr
        assert "Traceback" not in bad.stderr
    not_json = subprocess.run(
        [*run_args(), "capture"], input="not json", env=env, capture_output=True, text=True
    )
    assert not_json.returncode == 1
    assert not_json.stderr == "deja: stdin is not a hook's JSON (no session_id)\n"


def run_args() -> list[str]:
    return [sys.executable, "-m", "deja"]


def test_install_keeps_the_users_settings_and_uninstall_puts_them_back(tmp_path: Path) -> None:
    root = tmp_path / "continue"
    root.mkdir()
    settings = root / "settings.json"
    original = '{\n    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},\n'
    original += '    "theme": "dark"\n}'
    settings.write_text(original)
    env = deja_env(root, tmp_path / "home")
    assert run_deja(env, "install", "continue").returncode == 0
    assert run_deja(env, "install", "continue").returncode == 0  # twice: one hook
    data = json.loads(settings.read_text())
    assert data["theme"] == "dark" and len(data["hooks"]["Stop"]) == 1
    assert len(hook_commands(root)) == 1
    assert run_deja(env, "uninstall", "continue").returncode == 0
    assert settings.read_text() == original  # byte for byte
    assert not (root / "settings.json.deja-backup").exists()


def test_uninstall_removes_a_settings_file_install_created(tmp_path: Path) -> None:
    root = tmp_path / "continue"
    root.mkdir()
    env = deja_env(root, tmp_path / "home")
    run_deja(env, "install", "continue")
    assert (root / "settings.json").exists()
    run_deja(env, "uninstall", "continue")
    assert not (root / "settings.json").exists()


def test_settings_that_are_not_json_are_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "continue"
    root.mkdir()
    (root / "settings.json").write_text("{ not json")
    env = deja_env(root, tmp_path / "home")
    done = run_deja(env, "install", "continue")
    assert done.returncode == 0, done.stderr
    assert "settings.json is not valid JSON" in done.stdout + done.stderr
    assert (root / "settings.json").read_text() == "{ not json"
