"""The site's mkdocs hooks.

The README is the site's home page: its links into `docs/` become links between pages (so the
strict build checks them), a linked image is copied into the site, and a link to another file of
the repository, which the site does not hold, must name a file that exists; in the site it is its
text alone. In a table cell GitHub needs a pipe inside code written `\\|`, which Python-Markdown
leaves as it is: the site shows a plain pipe, as GitHub does."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from urllib.parse import unquote

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
CELL = re.compile(r"<td>.*?</td>", re.DOTALL)
log = logging.getLogger("mkdocs.plugins.deja_hooks")


def site_link(match: re.Match[str], images: list[str]) -> str:
    bang, text, target = match.groups()
    if re.match(r"[a-z][a-z0-9+.-]*:|#", target):  # a URL or an anchor
        return match.group(0)
    path = target.split("#", 1)[0]
    if path.startswith("docs/"):
        return f"{bang}[{text}]({target.removeprefix('docs/')})"
    if not (ROOT / unquote(path)).is_file():
        log.warning("README.md links to '%s', which is not in the repository", target)
        return match.group(0)
    if bang:
        images.append(path)
        return match.group(0)
    return text


def on_files(files: Files, config: MkDocsConfig) -> Files:
    images: list[str] = []
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    home = LINK.sub(lambda match: site_link(match, images), text)
    files.append(File.generated(config, "index.md", content=home))
    for image in images:
        name = unquote(image)
        files.append(File.generated(config, name, abs_src_path=str(ROOT / name)))
    return files


def on_page_content(html: str, **_: object) -> str:
    return CELL.sub(lambda cell: cell.group(0).replace("\\|", "|"), html)
