"""Bad input never crashes the reader, never hides the rest of the store, and stays bounded
(issue 8): any JSON shape (hypothesis), the hostile corpus in fixtures/, and generated big cases."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deja.continue_store import SessionError, parse_session, read_store
from deja.quantities import human_size
from deja.query import History, SearchQuery
from tests.support.storebuilder import session_doc, snapshot, user, write_session

HOSTILE = Path(__file__).parents[2] / "fixtures" / "hostile-store"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=30,
)
# Values shaped like the parts of a session, so the generator reaches deep into the reader.
message = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant", "thinking", "system", "tool", 3, None]),
        "content": json_values
        | st.lists(
            st.fixed_dictionaries(
                {"type": st.sampled_from(["text", "imageUrl", 1]), "text": json_values}
            )
        ),
    }
)
state = st.fixed_dictionaries(
    {
        "toolCall": st.fixed_dictionaries(
            {
                "function": st.fixed_dictionaries(
                    {
                        "name": st.sampled_from(
                            [
                                "Bash",
                                "Edit",
                                "MultiEdit",
                                "Write",
                                "Read",
                                "edit_existing_file",
                                "mcp_tool",
                            ]
                        )
                        | json_values,
                        "arguments": st.text() | json_values,
                    }
                )
            }
        ),
        "status": st.sampled_from(["done", "errored", "canceled"]) | json_values,
        "parsedArgs": json_values
        | st.dictionaries(
            st.sampled_from(
                [
                    "command",
                    "filepath",
                    "file_path",
                    "old_string",
                    "new_string",
                    "edits",
                    "content",
                    "changes",
                ]
            ),
            json_values,
        ),
        "output": json_values
        | st.lists(st.fixed_dictionaries({"content": json_values, "status": json_values})),
    }
)
item = st.fixed_dictionaries(
    {"message": message | json_values},
    optional={
        "toolCallStates": st.lists(state, max_size=3) | json_values,
        "conversationSummary": json_values,
        "contextItems": json_values,
        "reasoning": json_values,
    },
)
document = (
    st.fixed_dictionaries(
        {},
        optional={
            "title": json_values,
            "workspaceDirectory": json_values,
            "history": st.lists(item, max_size=6) | json_values,
        },
    )
    | json_values
)


def parse(data: bytes) -> None:
    parse_session(
        data,
        session_id="s",
        entry=None,
        file="s.json",
        size=len(data),
        mtime_ns=0,
        redact=lambda text: text,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document)
def test_any_json_shape_parses_or_fails_cleanly(doc: Any) -> None:
    with contextlib.suppress(SessionError):
        parse(json.dumps(doc).encode())


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_parse_or_fail_cleanly(data: bytes) -> None:
    with contextlib.suppress(SessionError):
        parse(data)


def test_hostile_corpus_reads_the_good_and_names_the_bad(tmp_path: Path) -> None:
    store = tmp_path / "hostile"
    shutil.copytree(HOSTILE, store)
    before = snapshot(store)
    result = read_store(store)
    assert snapshot(store) == before
    ids = {s.id for s in result.sessions}
    assert {"good-1", "nul-bytes", "invalid-utf8", "lone-surrogate", "wrong-types"} <= ids
    failed = {Path(d.path).name: d.message for d in result.diagnostics}
    assert "nested too deeply" in failed["deep-nesting.json"]
    assert "invalid JSON" in failed["not-json.json"] and "invalid JSON" in failed["empty.json"]
    assert not (tmp_path / "etc").exists()
    text = " ".join(r.text for s in result.sessions for r in s.records)
    assert "\x00" not in text and "\x1b" not in text
    assert "a real message among junk" in text


def test_hostile_title_cannot_drive_the_terminal(tmp_path: Path) -> None:
    store = tmp_path / "hostile"
    shutil.copytree(HOSTILE, store)
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    result = subprocess.run(
        [sys.executable, "-m", "deja", "search", "instructions", "--all"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and "instructions" in result.stdout
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout


# VmHWM, not ru_maxrss: the latter survives exec and would count the forking pytest's memory.
BIG_CASE = """
import re, sys
from pathlib import Path
from deja.continue_store import read_store
result = read_store(Path(sys.argv[1]))
status = Path("/proc/self/status").read_text()
print(len(result.sessions), int(re.search(r"VmHWM:\\s+(\\d+)", status).group(1)) // 1024)
for d in result.diagnostics:
    print(Path(d.path).name, d.message)
"""


def run_big(store: Path, **env: str) -> tuple[int, int, str]:
    """Read the store in a fresh process, so its peak memory is measured alone."""
    result = subprocess.run(
        [sys.executable, "-c", BIG_CASE, str(store)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env},
    )
    assert result.returncode == 0, result.stderr
    first, _, rest = result.stdout.partition("\n")
    sessions, peak = first.split()
    return int(sessions), int(peak), rest


def test_file_over_the_cap_is_reported_not_read(tmp_path: Path) -> None:
    store = tmp_path / "store"
    write_session(store, session_doc("small", [user("still indexed")]))
    big = store / "sessions" / "big.json"
    with big.open("wb") as handle:  # 100 MB: over the cap, never loaded
        handle.write(b'{"history": [{"message": {"role": "user", "content": "')
        handle.write(b"x" * (100 * 1024 * 1024))
        handle.write(b'"}}]}')
    limit = 64 * 1024 * 1024  # no cap unless one is set
    sessions, peak, diagnostics = run_big(store, DEJA_MAX_SESSION_BYTES=str(limit))
    assert sessions == 1 and peak < 150
    cap = f"over the {human_size(limit)} cap"
    assert f"{cap} (DEJA_MAX_SESSION_BYTES={limit})" in diagnostics


def test_fifty_megabyte_string_is_clipped_and_bounded(tmp_path: Path) -> None:
    store = tmp_path / "store"
    write_session(store, session_doc("huge", [user("needle " + "y" * 50_000_000)]))
    write_session(store, session_doc("small", [user("neighbour")]))
    sessions, peak, _ = run_big(store)
    assert sessions == 2 and peak < 400
    history = History(home=tmp_path / "home", root=store)
    try:
        history.refresh()
        assert history.search(SearchQuery("needle")).hits
        assert history.search(SearchQuery("neighbour")).hits
        assert history.stats().index_bytes < 5_000_000
    finally:
        history.close()


@pytest.mark.parametrize("items", [1_000_000])
def test_million_item_history_is_bounded(tmp_path: Path, items: int) -> None:
    store = tmp_path / "store"
    folder = store / "sessions"
    folder.mkdir(parents=True)
    with (folder / "long.json").open("w") as handle:
        handle.write('{"history": [')
        handle.write(",".join('{"message":{"role":"user","content":"q"}}' for _ in range(items)))
        handle.write("]}")
    write_session(store, session_doc("small", [user("neighbour")]))
    sessions, peak, _ = run_big(store)
    assert sessions == 2 and peak < 1_000
