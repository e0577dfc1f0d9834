"""`deja doctor`: what is wrong with this machine's Deja, each problem with its fix.

Each check is a `Check` (a name, whether all is well, what was found, the fix); `run_doctor`
runs them all in the order a user would mend them: Python, Continue's store and its sessions,
the index, the exclude list, Continue's wiring (the MCP entry, its command, the skill, the
prompt), and the sidecar's start. Shared by the CLI (`deja doctor`) and, through its `--json`
envelope (`deja.wire.doctor_json`), the editor's "Deja: Show Diagnostics"."""

from __future__ import annotations

from .checks import Check

__all__ = ["Check", "run_doctor"]


def run_doctor() -> list[Check]:
    # Imported here: `deja.doctor.python` must load when the rest of Deja cannot (no orjson).
    from .local import index_checks, store_check
    from .probe import sidecar_check
    from .python import python_checks
    from .wiring import wiring_checks

    checks = python_checks()
    store, root = store_check()
    checks.append(store)
    checks.extend(index_checks(root, store.ok))
    checks.extend(wiring_checks(root))
    checks.append(sidecar_check())
    return checks
