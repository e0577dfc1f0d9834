"""docs/editors.md shows, for the editors the suite drives, the very files the suite runs."""

from __future__ import annotations

import re

import pytest

from tests.editors.conftest import HERE

DOC = HERE.parent.parent / "docs" / "editors.md"


@pytest.mark.parametrize("name", ["deja.lua", "deja-eglot.el"])
def test_the_doc_block_is_the_file_the_test_runs(name: str) -> None:
    marker = f"<!-- tests/editors/{name} -->"
    found = re.search(re.escape(marker) + r"\n```\w+\n(.*?)```\n", DOC.read_text(), re.DOTALL)
    assert found is not None, f"docs/editors.md has no block after {marker}"
    assert found.group(1) == (HERE / name).read_text()


def test_the_doc_has_a_section_for_each_editor() -> None:
    headings = re.findall(r"^## (.+)$", DOC.read_text(), re.MULTILINE)
    for editor in ("Neovim", "eglot", "lsp-mode", "ALE", "Helix", "Zed", "Sublime"):
        assert any(editor in heading for heading in headings), editor
