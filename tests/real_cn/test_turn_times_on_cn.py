"""Turn times and titles on sessions the real `cn` 1.5.47 resumed and compacted (issue 13): a
turn typed today in a week-old session is found by `deja search --since 1h`; a session `cn`
compacted keeps the title of its first request, not of the `continue` cn adds after compaction."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.cn_run import CnDirs, run_cn
from tests.support.fake_model import FakeModel, Reply, is_compaction_request, text_reply
from tests.support.scenarios import COMPACTION_SUMMARY, SCENARIOS, load_json, store_files

pytestmark = pytest.mark.real_cn

WEEK = 7 * 86_400


def cn(
    exe: Path, fake: FakeModel, dirs: CnDirs, prompt: str, *replies: Reply, **options: Any
) -> None:
    fake.reset(replies)
    done = run_cn(
        prompt, cn=exe, root=dirs.root, home=dirs.home, cwd=dirs.work, model_url=fake.url, **options
    )
    assert done.returncode == 0, done.stderr


def age_the_session(dirs: CnDirs) -> Path:
    """Make the one session a week old: created then, last written then (its list entry and
    its file's mtime; cn keeps `dateCreated` when it saves again)."""
    listing_path = dirs.root / "sessions" / "sessions.json"
    listing = load_json(listing_path)
    week_ago = time.time() - WEEK
    for entry in listing:
        entry["dateCreated"] = str(int(week_ago * 1000))
    listing_path.write_text(json.dumps(listing, indent=2))
    (path,) = store_files(dirs.root / "sessions")
    os.utime(path, (week_ago, week_ago))
    return path


def search(env: dict[str, str], cwd: Path, *args: str) -> list[dict[str, Any]]:
    done = run_deja(env, "search", *args, "--json", cwd=cwd)
    hits: list[dict[str, Any]] = json_envelope(done, "search")["hits"]
    return hits


def test_a_turn_typed_today_in_a_week_old_session_cn_resumed_is_found_since_1h(
    cn_exe: Path, fake_model: FakeModel, cn_dirs: CnDirs, tmp_path: Path
) -> None:
    cn(cn_exe, fake_model, cn_dirs, "Set up the flaky uploads harness.", text_reply("Set up."))
    path = age_the_session(cn_dirs)
    env = deja_env(cn_dirs.root, tmp_path / "deja-home")
    assert run_deja(env, "index").returncode == 0
    assert search(env, cn_dirs.work, "harness", "--since", "1h") == []

    resumed = text_reply("Renamed to retryrig.")
    cn(cn_exe, fake_model, cn_dirs, "Rename it to retryrig.", resumed, extra_args=("--resume",))
    assert path.stat().st_mtime > time.time() - 600  # cn wrote the old session again, today
    recent = search(env, cn_dirs.work, "retryrig", "--since", "1h")
    assert {hit["role"] for hit in recent} == {"user", "assistant"}
    assert search(env, cn_dirs.work, "harness", "--since", "1h") == []
    older = search(env, cn_dirs.work, "harness", "--since", "8d")
    assert older and max(h["turn"] for h in older) < min(h["turn"] for h in recent)


def test_a_session_cn_compacted_keeps_its_first_request_as_title_and_dates_what_followed(
    cn_exe: Path, fake_model: FakeModel, cn_dirs: CnDirs, tmp_path: Path
) -> None:
    first, second = SCENARIOS["compaction"].steps
    cn(cn_exe, fake_model, cn_dirs, first.prompt, *first.replies)
    age_the_session(cn_dirs)
    warm = deja_env(cn_dirs.root, tmp_path / "deja-home")
    assert run_deja(warm, "index").returncode == 0

    def summarise(body: dict[str, Any]) -> Reply | None:
        return text_reply(COMPACTION_SUMMARY) if is_compaction_request(body) else None

    fake_model.on_request = summarise
    cn(
        cn_exe,
        fake_model,
        cn_dirs,
        second.prompt,
        *second.replies,
        extra_args=("--resume",),
        context_length=second.context_length,
        max_tokens=second.max_tokens,
    )
    (path,) = store_files(cn_dirs.root / "sessions")
    on_disk = load_json(path)
    assert on_disk["title"] == "Untitled Session" and first.prompt not in path.read_text()

    cold = deja_env(cn_dirs.root, tmp_path / "cold-home")  # never saw the turns compaction took
    for env, title in ((warm, first.prompt), (cold, "continue")):
        sessions = json_envelope(run_deja(env, "sessions", "--json", cwd=cn_dirs.work), "sessions")
        assert [s["title"] for s in sessions["sessions"]] == [title]
        # What followed the compaction was written today: found since 1h either way.
        recent = search(env, cn_dirs.work, "left", "--since", "1h")
        assert [hit["snippet"] for hit in recent] == ["Nothing else is **left** to do."]
    assert search(warm, cn_dirs.work, "listing", "--since", "1h", "--role", "user") == []
    assert search(warm, cn_dirs.work, "listing", "--since", "8d", "--role", "user")
