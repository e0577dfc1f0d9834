"""`deja export`: Markdown as `show --full`, JSON as the wire shape (versioned), and one
self-contained HTML file — no script, nothing loaded from the network, hostile text escaped."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from deja import render_markdown
from deja.query import History
from tests.support.cli_run import deja_env, run_deja
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

SID = "dddddddd-0000-4000-8000-000000000004"
HOSTILE_TITLE = '</title><script>alert("title")</script>'
HOSTILE_USER = (
    "<script>alert(1)</script> <img src=x onerror=alert(2)> ![pic](https://evil.example/p.png)"
    " [click](javascript:alert(3)) [ok](https://example.org/doc) <iframe src=https://x.example>"
)
CODE = "Here:\n\n```python\ndef greet(name):\n    return f'hi {name}'\n```\n"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    root = tmp_path / "store"
    history = [
        user(HOSTILE_USER),
        assistant(
            CODE,
            [
                call("Bash", {"command": "echo '<b>bold</b>' $(whoami)"}, "<iframe src=//x>"),
                call(
                    "Edit",
                    {"file_path": 'a"><script>.py', "old_string": "<x>", "new_string": "</pre>"},
                    "Successfully edited",
                    call_id="call_2",
                ),
            ],
        ),
    ]
    write_session(root, session_doc(SID, history, title=HOSTILE_TITLE, workspace="/w/p"))
    environment = deja_env(root, tmp_path / "home")
    assert run_deja(environment, "index").returncode == 0
    return environment


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def exported(env: dict[str, str], *args: str) -> str:
    done = run_deja(env, "export", SID[:8], *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_html_loads_nothing_and_runs_nothing(env: dict[str, str]) -> None:
    page = exported(env, "--format", "html")
    parsed = Tags()
    parsed.feed(page)
    names = {tag for tag, _ in parsed.tags}
    assert not names & {"script", "img", "iframe", "link", "object", "embed", "base", "frame"}
    attributes = [(tag, name, value or "") for tag, attrs in parsed.tags for name, value in attrs]
    assert not [a for a in attributes if a[1].startswith("on") or a[1] in ("src", "srcset")]
    assert all(
        v.startswith(("http://", "https://", "mailto:")) for _, n, v in attributes if n == "href"
    )
    assert "@import" not in page and "url(" not in page
    (policy,) = [v for t, n, v in attributes if t == "meta" and n == "content" and "src" in v]
    assert policy.startswith("default-src 'none'")


def test_html_shows_hostile_text_as_text(env: dict[str, str]) -> None:
    page = exported(env, "--format", "html")
    text = "".join(_text(page))
    assert HOSTILE_TITLE in text  # shown, as text: in the <title> and the heading
    assert "<script>alert(1)</script>" in text and "<img src=x onerror=alert(2)>" in text
    assert "echo '<b>bold</b>' $(whoami)" in text and "<iframe src=//x>" in text
    assert 'a"><script>.py' in text and "- <x>" in text and "+ </pre>" in text
    assert '<a href="https://example.org/doc">ok</a>' in page
    assert 'href="javascript' not in page


def test_html_highlights_code_inline(env: dict[str, str]) -> None:
    page = exported(env, "--format", "html")
    assert '<pre class="hl"><code><span class="hl-k">def</span>' in page
    assert ".hl .hl-k {" in page  # the token colours are in the page's own style


def _text(page: str) -> list[str]:
    parsed = Tags()
    parsed.feed(page)
    return parsed.text


def test_markdown_is_show_full_and_json_is_the_wire_shape(
    env: dict[str, str], tmp_path: Path
) -> None:
    history = History(home=Path(env["DEJA_HOME"]), root=Path(env["DEJA_CONTINUE_ROOT"]))
    view = history.show(SID)
    history.close()
    markdown = exported(env)

    def steady(text: str) -> list[str]:  # the facts line says "last active N ago"
        return [line for line in text.splitlines() if "last active" not in line]

    assert steady(markdown) == steady(render_markdown.session(view))
    assert "echo '<b>bold</b>' $(whoami)" in markdown and "<iframe src=//x>" in markdown
    out = tmp_path / "session.json"
    done = run_deja(env, "export", SID, "-o", str(out))
    assert done.returncode == 0 and f"wrote {out}" in done.stderr
    document = json.loads(out.read_text())
    assert (document["kind"], document["version"], document["redacted"]) == (
        "deja-session-export",
        1,
        True,
    )
    shown = json.loads(run_deja(env, "show", SID, "--full", "--json").stdout)
    assert document["records"] == shown["records"] and document["session"]["id"] == SID


def test_export_of_an_unknown_session_is_one_line(env: dict[str, str]) -> None:
    done = run_deja(env, "export", "zzzzzzzzzz")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
