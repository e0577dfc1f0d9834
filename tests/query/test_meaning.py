"""Search by meaning beside the words: a hit is labelled "by meaning" only when it holds no word
of the query (as the index tokenises it); a quoted phrase or a single identifier-like word gets
no hit by meaning; meaning joins only when the words found fewer than `meaning.FEW` records,
and otherwise nothing of the model loads."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from deja.query import HIGHLIGHT_END, HIGHLIGHT_START, History, Scope, SearchQuery
from deja.query.meaning import FEW, fuse
from tests.semantic.test_semantic import CACHE, _store
from tests.support.storebuilder import assistant, session_doc, user, write_session

_WORD = re.compile(r"[^\W_]+")


def _hits(history: History, text: str) -> list[tuple[str, bool, str]]:
    result = history.search(SearchQuery(text, scope=Scope(), limit=10))
    return [(hit.session_id, hit.meaning_only, hit.snippet) for hit in result.hits]


@pytest.fixture
def history(tmp_path: Path) -> History:
    _store(tmp_path / "store")
    history = History(home=tmp_path / "home", root=tmp_path / "store")
    history.refresh()
    return history


@pytest.mark.semantic
def test_a_hit_holding_a_word_of_the_query_is_not_labelled_by_meaning(history: History) -> None:
    # Not every word is in the session, so the words alone find nothing; "the" is in both of
    # its records, so neither was found "with no word matched".
    question = "caching credentials for the login service"
    hits = _hits(history, question)
    assert hits and {session for session, _, _ in hits} == {CACHE}
    assert [meaning_only for _, meaning_only, _ in hits] == [False, False]
    assert all(f"{HIGHLIGHT_START}the{HIGHLIGHT_END}" in snippet for _, _, snippet in hits)
    # Every hit labelled by meaning holds none of the question's words.
    asked = set(_WORD.findall("caching credentials for login"))
    labelled = [s for _, meaning_only, s in _hits(history, "caching credentials for login")]
    assert labelled
    for snippet in labelled:
        assert not asked & set(_WORD.findall(snippet.lower()))
    history.close()


@pytest.mark.semantic
@pytest.mark.parametrize(
    "text", ['"caching credentials for login"', "token_cache", "tokenCache", "cache/token.py"]
)
def test_a_phrase_or_an_identifier_gets_no_hit_by_meaning(history: History, text: str) -> None:
    # By meaning alone these are close to the token lookup session (its own test, below).
    assert _hits(history, text) == []
    history.close()


@pytest.mark.semantic
def test_the_same_words_unquoted_are_found_by_meaning(history: History) -> None:
    unquoted = _hits(history, "caching credentials for login")
    assert [(s, m) for s, m, _ in unquoted][:1] == [(CACHE, True)]
    # Not every word is in it ("cache" is not): found because meaning joined.
    assert [(s, m) for s, m, _ in _hits(history, "token cache")][:1] == [(CACHE, False)]
    history.close()


_SEARCH = """
import json, sys
from deja.query import History, Scope, SearchQuery
from pathlib import Path
history = History(home=Path(sys.argv[1]), root=Path(sys.argv[2]))
result = history.search(SearchQuery(sys.argv[3], scope=Scope(), limit=5))
print(json.dumps({"hits": len(result.hits), "numpy": "numpy" in sys.modules,
                  "model": "deja.semantic.model" in sys.modules}))
"""


@pytest.mark.semantic
def test_the_model_loads_only_when_the_words_found_too_few(tmp_path: Path) -> None:
    root = tmp_path / "store"
    _store(root)
    for n in range(FEW):
        session = f"a1b2c3d4-0000-4000-8000-00000000010{n}"
        write_session(
            root,
            session_doc(session, [user(f"deploy the staging stack, take {n}"), assistant("Done.")]),
        )
    History(home=tmp_path / "home", root=root).refresh()

    def search(text: str) -> dict[str, object]:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                _SEARCH,
                str(tmp_path / "home"),
                str(root),
                text,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    assert search("deploy staging") == {"hits": FEW, "numpy": False, "model": False}
    assert search("caching credentials for login") == {"hits": 2, "numpy": True, "model": True}


def test_fuse_adds_each_ranking_reciprocal_ranks() -> None:
    fused = fuse([10, 20, 30], [30, 40])
    assert [rid for rid, _ in fused] == [30, 10, 20, 40]
    scores = dict(fused)
    assert scores[30] == pytest.approx(1 / 63 + 1 / 61)
    assert scores[40] == pytest.approx(1 / 62)
    assert fuse([], []) == []
