"""The closing block's commits: each session's work window, merged per workspace, and `git log`
over each window (a subprocess, bounded in time and commits)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from deja.time_format import iso_time as iso

from ..sessions import SessionSummary
from .load import next_session_start

GIT_MAX_COMMITS = 30
GIT_AFTER_S = 2 * 3_600  # commits this soon after a session's last activity are its outcome
GIT_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class Commits:
    workspace: str
    since: float
    until: float
    log: str  # `git log` output; empty when no commit was made in that range


def work_window(db: sqlite3.Connection, session: SessionSummary) -> tuple[float, float]:
    """The time whose commits are the session's work: from its first turn until the next session
    in its workspace starts or GIT_AFTER_S after its last activity, whichever is sooner (and never
    before its last activity: commits made right after a session are its outcome)."""
    end = session.last_active + GIT_AFTER_S
    next_start = next_session_start(db, session)
    if next_start is not None:
        end = min(end, next_start)
    return session.started, max(end, session.last_active)


def merge_windows(windows: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """Overlapping or touching windows as one, in time order."""
    merged: list[tuple[float, float]] = []
    for since, until in sorted(windows):
        if merged and since <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], until))
        else:
            merged.append((since, until))
    return merged


def session_commits(db: sqlite3.Connection, sessions: Sequence[SessionSummary]) -> list[Commits]:
    """The commits of the sessions' work windows, per workspace that is a git work tree."""
    windows: dict[str, list[tuple[float, float]]] = {}
    for session in sessions:
        if session.workspace:
            windows.setdefault(session.workspace, []).append(work_window(db, session))
    found = []
    for workspace, spans in windows.items():
        for since, until in merge_windows(spans):
            log = git_commits(workspace, since, until)
            if log is None:
                break  # not a git work tree: no other window of it is either
            found.append(Commits(workspace, since, until, log))
    return found


def git_commits(workspace: str, since: float, until: float) -> str | None:
    """The workspace's commits in [since, until], or None when it is not a git work tree."""
    if not workspace or not os.path.isdir(workspace):
        return None
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            [
                "git",
                "-C",
                workspace,
                "log",
                f"--since={iso(since)}",
                f"--until={iso(until)}",
                "--stat",
                "--no-merges",
                "--no-color",
                # The workspace path comes from a session file: run no diff driver it configures.
                "--no-textconv",
                "--no-ext-diff",
                f"--max-count={GIT_MAX_COMMITS}",
                "--format=%h %aI %an: %s",
                "--",
                ".",
            ],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=GIT_TIMEOUT_S,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None
