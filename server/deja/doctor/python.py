"""The interpreter's checks: Python 3.11 or newer, and orjson. Nothing else of Deja is imported
here, so they can say what is missing when the rest cannot load."""

from __future__ import annotations

import importlib.util
import sys
from importlib import metadata

from .checks import Check, failed, passed

NEEDED = (3, 11)
# Deja's wheel (`make dist`), by path: `deja` on PyPI is another project.
INSTALL = "pipx install deja-<version>-py3-none-any.whl (or uv tool install, or pip install --user)"


def python_checks() -> list[Check]:
    return [python_check(tuple(sys.version_info[:3]), sys.executable), orjson_check()]


def python_check(version: tuple[int, ...], executable: str) -> Check:
    where = f"Python {'.'.join(map(str, version))} at {executable}"
    if version >= NEEDED:
        return passed("python", where, executable=executable)
    return failed(
        "python",
        f"{where}: Deja needs Python 3.11 or newer",
        f"install Python 3.11 or newer, then Deja with it: {INSTALL}",
        executable=executable,
    )


def orjson_check() -> Check:
    # Without orjson Deja reads through the standard library (deja.jsonlib): slower, not wrong.
    if importlib.util.find_spec("orjson") is None:
        return passed(
            "orjson",
            f"orjson is not installed in {sys.executable}: Deja reads with the standard library's"
            f" json (same results, parsing ~2.4x slower); for speed: {sys.executable} -m pip"
            " install orjson",
        )
    return passed("orjson", f"orjson {metadata.version('orjson')}")
