"""`deja --version` and `deja --help` load no command module, build no command's parser, and
(`--version`) load no argparse nor `typing`: start-up is what a user feels first. A command that
runs builds only its own parser."""

from __future__ import annotations

import json
import subprocess
import sys

# A run of `main`: what it loaded (nothing loaded before it), or (`count`) the argparse parsers
# it built (argparse loaded first, to count them).
PROBE = """
import sys
built = []
if sys.argv[1] == "count":
    import argparse
    init = argparse.ArgumentParser.__init__
    def counted(self, *args, **kw):
        built.append(kw.get("prog"))
        init(self, *args, **kw)
    argparse.ArgumentParser.__init__ = counted
from deja.cli.main import main
try:
    code = main(sys.argv[2:])
except SystemExit as exit:
    code = exit.code
modules = sorted(sys.modules)
import json
print(json.dumps({"code": code, "built": built, "modules": modules}), file=sys.stderr)
"""


def probe(*words: str, count: bool = False) -> dict[str, object]:
    how = "count" if count else "plain"
    run = subprocess.run(
        [sys.executable, "-c", PROBE, how, *words], capture_output=True, text=True, timeout=60
    )
    return json.loads(run.stderr.strip().splitlines()[-1])  # type: ignore[no-any-return]


def commands_loaded(modules: object) -> list[str]:
    assert isinstance(modules, list)
    return [m for m in modules if m.startswith(("deja.cli.commands.", "deja.query", "deja.index"))]


def test_version_loads_no_parser_no_command_no_typing() -> None:
    ran = probe("--version")
    assert ran["code"] == 0
    modules = ran["modules"]
    assert commands_loaded(modules) == []
    assert isinstance(modules, list)
    assert [m for m in ("argparse", "typing", "re") if m in modules] == []


def test_help_builds_the_top_parser_alone_and_loads_no_command() -> None:
    ran = probe("--help")
    assert ran["code"] == 0
    assert commands_loaded(ran["modules"]) == []
    assert "deja.cli.common" not in ran["modules"]  # type: ignore[operator]
    counted = probe("--help", count=True)
    assert counted["built"] == ["deja"]  # the commands are listed, their parsers not built


def test_a_typo_is_told_without_building_the_commands() -> None:
    ran = probe("serch", "x", count=True)
    assert ran["code"] == 2 and ran["built"] == ["deja"]
    assert commands_loaded(ran["modules"]) == []


def test_a_command_builds_its_own_parser_alone() -> None:
    ran = probe("show", "--help", count=True)
    assert ran["code"] == 0 and ran["built"] == ["deja", "deja show"]
