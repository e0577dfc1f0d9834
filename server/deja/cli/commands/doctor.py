"""`deja doctor`: what is wrong with Deja on this machine, each problem with its fix."""

from __future__ import annotations

import argparse

from ..common import emit


def run(args: argparse.Namespace) -> int:
    from deja.doctor import run_doctor
    from deja.wire import doctor_json

    checks = run_doctor()

    def lines() -> list[str]:
        out: list[str] = []
        for check in checks:
            out.append(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
            if check.fix:
                out.append(f"     fix: {check.fix}")
        bad = sum(not check.ok for check in checks)
        out.append("all is well" if not bad else f"{bad} problem{'s' * (bad != 1)} found")
        return out

    emit(args, "doctor", lines, **doctor_json(checks))
    return 0 if all(check.ok for check in checks) else 1
