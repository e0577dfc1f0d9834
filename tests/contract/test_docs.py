"""The docs for the reader they are for: the README a user's guide whose first lines are the two
commands CI and a newcomer run, reference in `docs/`, no issue numbers in either, and the
guarantees' tests named where they are. Broken links are `make docs`'s (mkdocs, strict)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PRODUCT_DOCS = [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "RESULTS.md"]


def test_the_readme_opens_with_the_demo_and_the_test_command() -> None:
    block = re.search(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    assert commands == ["make demo", "make test"]
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_is_a_guide_not_the_reference() -> None:
    assert len(README.read_bytes()) <= 15_000


def test_the_map_and_the_bench_results_stay_short() -> None:
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    results = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    assert len(architecture.splitlines()) <= 300
    assert len(results.splitlines()) <= 250


def test_no_issue_numbers_in_product_docs() -> None:
    pattern = re.compile(r"\bissues? #?\d+|\(#\d+\)", re.IGNORECASE)
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in PRODUCT_DOCS
        for match in pattern.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not found


def test_every_test_file_a_guarantee_names_exists() -> None:
    table = (ROOT / "docs" / "guarantees.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:tests|editor-extension/test)/[\w/.-]+\.(?:py|ts))", table))
    assert named
    assert not sorted(path for path in named if not (ROOT / path).is_file())


def test_the_site_home_is_the_readme_with_its_links_made_the_sites() -> None:
    from docs_site.hooks import LINK, on_page_content, site_link

    images: list[str] = []

    def home(text: str) -> str:
        return LINK.sub(lambda match: site_link(match, images), text)

    assert home("[limits](docs/limits.md#limits)") == "[limits](limits.md#limits)"
    assert home("see [its README](editor-extension/README.md)") == "see its README"
    assert home("[gone](editor-extension/NO-SUCH.md)") == "[gone](editor-extension/NO-SUCH.md)"
    assert home("[site](https://example.org/x.md) [top](#install)") == (
        "[site](https://example.org/x.md) [top](#install)"
    )
    shot = "tests/tui/__snapshots__/test_snapshots/test_the_search_screen%5Bdark-80x24%5D.svg"
    assert home(f"![screen]({shot})") == f"![screen]({shot})" and images == [shot]
    cell = "<td><code>a \\| b</code></td><p><code>c \\| d</code></p>"
    assert on_page_content(cell) == "<td><code>a | b</code></td><p><code>c \\| d</code></p>"
