"""docs/cli.md is what `deja.cli.reference` writes from the option table the parsers are built
from: a changed option, help or command fails here until the file is written again
(`python -m deja.cli.reference > docs/cli.md`)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from pathlib import Path

import deja
from deja.cli.parser import build_parser
from deja.cli.reference import reference

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"


def test_docs_cli_md_is_what_the_parsers_table_gives() -> None:
    assert DOC.read_text(encoding="utf-8") == reference(), (
        "docs/cli.md drifted from cli/options.py: run "
        "`.venv/bin/python -m deja.cli.reference > docs/cli.md`"
    )


def _sections() -> dict[str, str]:
    text = reference()
    parts = text.split("\n## deja ")[1:]
    return {part.split("\n", 1)[0]: part for part in parts}


def test_every_option_of_every_parser_is_in_the_reference() -> None:
    """The argparse parser and the reference come from one table: each command's section
    names each of its options and positionals, and each of the parser's commands has one."""
    sections = _sections()
    commands = next(
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    assert set(sections) == set(commands.choices)
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.help == argparse.SUPPRESS or "-h" in action.option_strings:
                continue
            for spelling in action.option_strings or [_shown(action)]:
                assert f"`{spelling}" in sections[name], (name, spelling)


def _shown(positional: argparse.Action) -> str:
    """A positional as argparse's usage names it."""
    if positional.metavar:
        return str(positional.metavar)
    if positional.choices:
        return "{" + ",".join(positional.choices) + "}"
    return positional.dest


def test_the_version_is_stated_once() -> None:
    """`deja --version` prints `deja.__version__`; the package's metadata is pyproject's."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["version"] == deja.__version__
    run = subprocess.run(
        [sys.executable, "-m", "deja", "--version"], capture_output=True, text=True, timeout=60
    )
    assert (run.returncode, run.stdout) == (0, f"deja {deja.__version__}\n")
