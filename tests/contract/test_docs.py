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
