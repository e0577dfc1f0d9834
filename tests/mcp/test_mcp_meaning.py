"""`deja mcp` with search by meaning's deep model: while it reads in the background, an answer
meaning may have given says so; once it has read every record, `deja_search` finds by meaning a
paraphrase the static model misses."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from deja.mcp.tools import BUILDING, DEEP_READING
from tests.mcp.test_mcp import McpSession, mcp_session
from tests.support.paraphrases import REPORTS, REPORTS_QUESTION, write_paraphrased

pytestmark = pytest.mark.semantic

READING = DEEP_READING.split("(")[0]


def read_everything(mcp: McpSession, question: str, timeout: float = 180) -> str:
    """The answer to `question` once it no longer says the first pass or the deep model is
    still reading (what the server reports, asked again until it stops saying so)."""
    deadline = time.monotonic() + timeout
    while True:
        text, is_error = mcp.call("deja_search", {"query": question, "scope": "all"})
        assert not is_error, text
        if BUILDING not in text and READING not in text:
            return text
        assert time.monotonic() < deadline, "the deep model never read every record"
        time.sleep(0.1)


def test_the_mcp_server_finds_what_only_the_deep_model_finds(tmp_path: Path) -> None:
    root, home, workspace = tmp_path / "continue", tmp_path / "home", tmp_path / "proj"
    workspace.mkdir()
    write_paraphrased(root)
    with mcp_session(root, home, workspace) as mcp:
        text = read_everything(mcp, REPORTS_QUESTION)
    first = next(line for line in text.splitlines() if line.startswith("[1]"))
    assert first.endswith(REPORTS) and "Report totals" in first
    assert "by meaning" in text.splitlines()[text.splitlines().index(first) + 1]
