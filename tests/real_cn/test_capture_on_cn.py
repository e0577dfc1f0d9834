"""Deja installed, nothing else of it running, the real `cn` 1.5.47 against the fake model: the
TUI (under tmux) with three turns then `/compact`, or four turns the fourth auto-compacting; four
`cn -p` runs the fourth compacting; the first day after install, `cn --resume` of a session
started before it, among 400 others, compacting at its start. The MCP server `cn` starts watches
the store, newest sessions first, so after the compaction `deja show` still holds every turn `cn`
wrote before it, marked compacted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from deja.query import History, UnknownSession
from tests.support.cn_run import CnDirs, cn_env, write_config
from tests.support.fake_model import (
    FakeModel,
    Reply,
    ToolCall,
    is_compaction_request,
    last_user_text,
    text_reply,
    tool_reply,
)
from tests.support.tmux_tui import Tui, wait_until

pytestmark = pytest.mark.real_cn

TITLE_REQUEST = "please reply with a title for the chat"
INPUT_READY = "Ask anything"
TURNS = ["plan the alpha zebra migration", "check the beta giraffe cache", "ship gamma okapi"]
SUMMARY = "Summary: three chores were discussed."
COMPACTED = "Chat history compacted successfully."


def reply_to(body: dict[str, Any]) -> Reply | None:
    if is_compaction_request(body):
        return text_reply(SUMMARY)
    said = last_user_text(body)
    if TITLE_REQUEST in said:
        return text_reply("Chores")
    return text_reply(f"done: {said.split()[-2]} handled")


def deja(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / "deja"
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "deja"]
    done = subprocess.run(
        [*argv, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done


def deja_cn_env(dirs: CnDirs) -> dict[str, str]:
    """`cn`'s environment with Deja's index in its home and this checkout's `deja` importable."""
    return cn_env(
        dirs.root,
        dirs.home,
        {"DEJA_HOME": str(dirs.home / "deja"), "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def test_tui_turns_then_compact_are_all_held(cn_exe: Path, tmp_path: Path) -> None:
    dirs = CnDirs.make(tmp_path)
    env = deja_cn_env(dirs)
    with FakeModel(on_request=reply_to) as fake:
        config = write_config(dirs.root / "config.yaml", fake.url)
        deja(env, dirs.work, "install", "continue")
        tui_env = {key: value for key, value in env.items() if key != "CI"}
        tui_env["TERM"] = "xterm-256color"
        with Tui.start([str(cn_exe), "--config", str(config)], env=tui_env, cwd=dirs.work) as tui:
            tui.wait_for(INPUT_READY)
            for turn in TURNS:
                tui.type_text(turn)
                tui.wait_for(f"● {turn}")
                tui.press("Enter")
                tui.wait_for(f"done: {turn.split()[-2]} handled")
                tui.wait_for(INPUT_READY)
            # The fake model answers at once; a person takes longer than cn's MCP server (only
            # it runs Deja here) takes to index what cn wrote: the last reply, held.
            (session,) = [
                p for p in (dirs.root / "sessions").glob("*.json") if p.stem != "sessions"
            ]
            last = f"done: {TURNS[-1].split()[-2]} handled"
            wait_until(lambda: held(dirs.home / "deja", dirs.root, session.stem, last), what=last)
            tui.type_text("/compact")
            tui.wait_for("● /compact")
            tui.press("Enter")
            tui.wait_for(COMPACTED)
        # cn and its MCP server are gone; the file holds only the summary now.
        (session,) = [p for p in (dirs.root / "sessions").glob("*.json") if p.stem != "sessions"]
        assert TURNS[0] not in session.read_text()
    deja(env, dirs.work, "index")  # waits for what cn's MCP server may still be writing
    shown = deja(env, dirs.work, "show", session.stem, "--full").stdout
    for turn in TURNS:
        assert turn in shown and f"done: {turn.split()[-2]} handled" in shown
    assert "compacted" in shown and SUMMARY in shown


def cn_p(cn_exe: Path, config: Path, env: dict[str, str], cwd: Path, *args: str) -> None:
    done = subprocess.run(
        [str(cn_exe), "-p", "--auto", "--config", str(config), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        start_new_session=True,
    )
    assert done.returncode == 0, done.stderr


def test_four_headless_runs_the_fourth_compacting_keep_the_first_three(
    cn_exe: Path, tmp_path: Path
) -> None:
    dirs = CnDirs.make(tmp_path)
    env = deja_cn_env(dirs)
    config = dirs.root / "config.yaml"

    def compaction(body: dict[str, Any]) -> Reply | None:
        return text_reply(SUMMARY) if is_compaction_request(body) else None

    with FakeModel(on_request=compaction) as fake:
        write_config(config, fake.url)
        deja(env, dirs.work, "install", "continue")
        for number, (turn, command) in enumerate(zip(TURNS, COMMANDS, strict=True)):
            fake.reset(
                [
                    tool_reply(ToolCall("Bash", {"command": command}, id=f"call_{number}")),
                    text_reply(f"reply number {number} given"),
                ]
            )
            cn_p(cn_exe, config, env, dirs.work, *(["--resume"] if number else []), turn)
        # The fourth run's context is small: cn compacts before its first model call.
        write_config(config, fake.url, context_length=5100, max_tokens=100)
        deja(env, dirs.work, "install", "continue")
        fake.reset([text_reply("Continuing from the summary.")])
        cn_p(cn_exe, config, env, dirs.work, "--resume", "and the fourth request")
        assert [b for b in fake.requests if is_compaction_request(b)], "cn did not compact"
    (session,) = [p for p in (dirs.root / "sessions").glob("*.json") if p.stem != "sessions"]
    assert TURNS[0] not in session.read_text()
    # An explicit pass waits for the writer, which cn's last MCP server may still hold.
    deja(env, dirs.work, "index")
    shown = deja(env, dirs.work, "show", session.stem, "--full").stdout
    for number, turn in enumerate(TURNS):
        assert turn in shown and f"reply number {number} given" in shown
    assert "first-output" in shown and "second-output" in shown and "long line 600" in shown
    assert "compacted" in shown and SUMMARY in shown


AUTO_TURNS = [*TURNS, "list the delta ibis logs"]


class AutoCompactingModel:
    """Turns 1-3 answer at once; turn 4 runs a command (once) whose long output fills the
    context, so `cn` auto-compacts before the model call that would read it."""

    def __init__(self, summarising: Callable[[], object] = lambda: None) -> None:
        self.ran_command = False
        self.summarised = False
        self.summarising = summarising  # a real model takes seconds to summarise

    def __call__(self, body: dict[str, Any]) -> Reply | None:
        # cn 1.5.47's TUI sends its summarise request after the command ran, with the history
        # before the command and (as the fake model receives it) no summarise prompt of its own.
        tool_result = any(message.get("role") == "tool" for message in body["messages"])
        compacting = self.ran_command and not self.summarised and not tool_result
        if is_compaction_request(body) or compacting:
            self.summarised = True
            self.summarising()
            return text_reply(SUMMARY)
        said = last_user_text(body)
        if TITLE_REQUEST in said:
            return text_reply("Chores")
        if said == AUTO_TURNS[-1] and not self.ran_command:
            self.ran_command = True
            return tool_reply(ToolCall("Bash", {"command": "seq -f 'ibis log line %g' 1 600"}))
        turn = AUTO_TURNS[-1] if self.ran_command else said
        return text_reply(f"done: {turn.split()[-2]} handled")


def test_tui_four_turns_the_fourth_auto_compacting_are_all_held(
    cn_exe: Path, tmp_path: Path
) -> None:
    dirs = CnDirs.make(tmp_path)
    env = deja_cn_env(dirs)

    def output_held() -> bool:
        """The long output cn wrote before it asked for the summary is in the index."""
        files = [p for p in (dirs.root / "sessions").glob("*.json") if p.stem != "sessions"]
        home = dirs.home / "deja"
        return len(files) == 1 and held(home, dirs.root, files[0].stem, "ibis log line 600")

    model = AutoCompactingModel(lambda: wait_until(output_held, what="the long output held"))
    with FakeModel(on_request=model) as fake:
        config = write_config(
            dirs.root / "config.yaml", fake.url, context_length=5100, max_tokens=100
        )
        deja(env, dirs.work, "install", "continue")
        tui_env = {key: value for key, value in env.items() if key != "CI"}
        tui_env["TERM"] = "xterm-256color"
        argv = [str(cn_exe), "--auto", "--config", str(config)]
        with Tui.start(argv, env=tui_env, cwd=dirs.work) as tui:
            tui.wait_for(INPUT_READY)
            for turn in AUTO_TURNS:
                tui.type_text(turn)
                tui.wait_for(f"● {turn}")
                tui.press("Enter")
                tui.wait_for(f"done: {turn.split()[-2]} handled")
                tui.wait_for(INPUT_READY)
            # After an auto-compaction mid-turn, cn goes on by itself with a "continue" turn.
            tui.wait_for("● continue")
        assert model.summarised, "cn did not compact"
        (session,) = [p for p in (dirs.root / "sessions").glob("*.json") if p.stem != "sessions"]
        assert TURNS[0] not in session.read_text()
    deja(env, dirs.work, "index")
    shown = deja(env, dirs.work, "show", session.stem, "--full").stdout
    for turn in AUTO_TURNS:
        assert turn in shown and f"done: {turn.split()[-2]} handled" in shown
    assert "ibis log line 600" in shown
    assert "compacted" in shown and SUMMARY in shown


COMMANDS = ["echo first-output", "echo second-output", "seq -f 'long line %g' 1 600"]


def crowd_the_store(session: Path, count: int) -> None:
    """``count`` other sessions beside ``session``: copies of it under new ids and words (not
    forks of it), from another workspace, each written before it. `cn --resume` takes the
    newest file of the store, whatever its workspace, so none may be newer than ``session``."""
    text = session.read_text()
    newest = session.stat().st_mtime_ns
    for number in range(count):
        words = text
        for word in ("zebra", "giraffe", "okapi", "-output", "long line"):
            words = words.replace(word, f"{word}{number}")
        other = dict(json.loads(words), sessionId=f"00000000-0000-4000-8000-{number:012d}")
        other["workspaceDirectory"] = str(session.parent.parent / "elsewhere")
        other["title"] = f"Other session {number}"
        path = session.parent / f"{other['sessionId']}.json"
        path.write_text(json.dumps(other))
        when = newest - (number + 1) * 60_000_000_000
        os.utime(path, ns=(when, when))


class FirstDayModel:
    """Each turn of the day before runs its command, then replies; today, the first request
    still carries the old turns: cn's summarise request (its TUI's request reaches the fake model
    without the summarise prompt)."""

    def __init__(self) -> None:
        self.today = False

    def __call__(self, body: dict[str, Any]) -> Reply | None:
        said = last_user_text(body)
        if TITLE_REQUEST in said:
            return text_reply("Chores")
        old_turns = TURNS[0] in json.dumps(body["messages"])
        if is_compaction_request(body) or (self.today and old_turns):
            return text_reply(SUMMARY)
        if self.today:  # after the compaction, cn 1.5.47 sends the summary alone
            return text_reply("done: fourth handled")
        if body["messages"][-1].get("role") == "tool":
            return text_reply(f"done: {said.split()[-2]} handled")
        command = COMMANDS[TURNS.index(said)]
        return tool_reply(ToolCall("Bash", {"command": command}))


def held(home: Path, root: Path, session_id: str, text: str = TURNS[0]) -> bool:
    """The index holds `text` in the session (asked without a pass of its own)."""
    history = History(home=home, root=root)
    try:
        records = history.show(session_id).records
    except UnknownSession:
        return False
    finally:
        history.close()
    return any(text in record.text or text in (record.output or "") for record in records)


def test_first_day_resume_compacting_at_its_start_in_a_crowded_store_keeps_every_turn(
    cn_exe: Path, tmp_path: Path
) -> None:
    dirs = CnDirs.make(tmp_path)
    env = deja_cn_env(dirs)
    config = dirs.root / "config.yaml"
    with FakeModel(on_request=(model := FirstDayModel())) as fake:
        # The day before: three turns, Deja not installed yet.
        write_config(config, fake.url)
        for number, turn in enumerate(TURNS):
            cn_p(cn_exe, config, env, dirs.work, *(["--resume"] if number else []), turn)
        (session,) = [p for p in (dirs.root / "sessions").glob("*.json") if p.stem != "sessions"]
        crowd_the_store(session, 400)
        # Today: Deja installed; a small context, so cn compacts before its first model call.
        write_config(config, fake.url, context_length=5100, max_tokens=100)
        deja(env, dirs.work, "install", "continue")
        model.today = True
        tui_env = {key: value for key, value in env.items() if key != "CI"}
        tui_env["TERM"] = "xterm-256color"
        argv = [str(cn_exe), "--auto", "--resume", "--config", str(config)]
        with Tui.start(argv, env=tui_env, cwd=dirs.work) as tui:
            tui.wait_for(INPUT_READY)
            # Only cn's MCP server runs Deja: the session resumed is held before the user sends.
            wait_until(lambda: held(dirs.home / "deja", dirs.root, session.stem), what="held")
            tui.type_text("and the fourth request")
            tui.wait_for("● and the fourth request")
            tui.press("Enter")
            tui.wait_for("done: fourth handled")
            tui.wait_for(INPUT_READY)
            wait_until(lambda: SUMMARY in session.read_text(), what="the compacted session file")
        assert not fake.hook_errors
        assert TURNS[0] not in session.read_text()
    deja(env, dirs.work, "index")
    shown = deja(env, dirs.work, "show", session.stem, "--full").stdout
    for turn in TURNS:
        assert turn in shown and f"done: {turn.split()[-2]} handled" in shown
    assert "first-output" in shown and "second-output" in shown and "long line 600" in shown
    assert "compacted" in shown and SUMMARY in shown
