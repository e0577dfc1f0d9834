"""`deja uninstall continue`: remove exactly what `deja install continue` added."""

from __future__ import annotations

import argparse

from ..common import CliError
from .install import report


def run(args: argparse.Namespace) -> int:
    from deja.continue_store import resolve_root
    from deja.install import ConfigError, plan_uninstall

    root = resolve_root()
    try:
        plan = plan_uninstall(root)
    except ConfigError as error:
        raise CliError(f"{error}; nothing was written") from None
    return report(
        args,
        plan,
        root,
        f"Deja is removed from Continue at {root}:",
        f"Deja is not installed in {root}; nothing to change.",
    )
