"""Instructions per provenance mapping (valgrind's callgrind), which the machine's load does not
change: the matcher before the speed work (`tests/support/provenance_reference.py`), the
first mapping of a history (its hunks prepared) and a mapping again, on `provenance_bench`'s
5,000-line file.

    python bench/provenance_callgrind.py [--runs 5]     # needs valgrind (apt); ~1 min a kind

Each kind runs in its own process under callgrind, counting only inside the measured calls.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from functools import reduce
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS = ("before", "first", "again")


def measured(kind: str, runs: int) -> None:
    """The calls callgrind counts: all of them inside `functools.reduce`."""
    sys.path[:0] = [str(HERE.parent / "server"), str(HERE.parent)]
    from tests.support import provenance_reference

    from bench.provenance_bench import events_of, history
    from deja.query.provenance import forget_prepared
    from deja.query.provenance_match import provenance

    calls, document = history()
    events = events_of(calls)
    provenance_reference.provenance(events, document)
    provenance(events, document)

    def one(_done: None, _run: int) -> None:
        if kind == "before":
            provenance_reference.provenance(events, document)
        else:
            provenance(events, document)

    for _ in range(runs):
        if kind == "first":
            forget_prepared()  # (outside the count: freeing the last history is not mapping)
        reduce(one, range(1), None)


def counted(kind: str, runs: int) -> int:
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no",
             "--toggle-collect=functools_reduce", f"--callgrind-out-file={out}",
             sys.executable, __file__, "--measure", kind, "--runs", str(runs)],
            check=True, capture_output=True,
        )  # fmt: skip
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
        return int(totals[0].split()[1]) // runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--measure", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measured(args.measure, args.runs)
        return 0
    counts = {kind: counted(kind, args.runs) for kind in KINDS}
    for kind, count in counts.items():
        ratio = counts["before"] / count
        print(f"  {kind:<7} {count / 1e6:8.1f} M instructions a mapping  ({ratio:.2f}× fewer)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
