"""A package's names loaded on first use (PEP 562), so importing the package costs nothing
until one of them is asked for: the CLI's search path leans on it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any


def lazy_exports(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """The package's `__getattr__`: each name from its module in `where` (relative to the
    package), imported when first asked for and then kept on the package."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
