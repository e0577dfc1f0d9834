"""The sidecar's per-message levers (issue 16) against pygls' own ways, in one process, CPU time
(`time.process_time`) per message over real `deja/search` pages of an index: the way out
(pygls: cattrs over the whole message, then `json.dumps`; Deja: `transport.encoded`), a custom
request's params (pygls' hook: a namedtuple class per object; Deja's: the JSON as sent), and the
bench client's reading of the result (pygls' client: namedtuples; `plain_results_converter`).

    python bench/sidecar_levers.py STORE HOME   # HOME: an index of STORE (`deja index`)
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "server"), str(HERE.parent)]

import orjson  # noqa: E402
from pygls.protocol import (  # noqa: E402
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    default_converter,
)

from bench.sidecar_client import plain_results_converter  # noqa: E402
from deja.lsp import transport  # noqa: E402
from deja.lsp.params import Params  # noqa: E402
from deja.lsp.protocol import strict_converter  # noqa: E402
from deja.lsp.requests import search_result  # noqa: E402
from deja.query import History, Scope, ScopeChoice  # noqa: E402

ROUNDS = 5


def cpu_per_call(work: Callable[[Any], Any], items: list[Any]) -> float:
    """Median over ROUNDS of the CPU seconds per item."""
    times = []
    for _ in range(ROUNDS):
        started = time.process_time()
        for item in items:
            work(item)
        times.append((time.process_time() - started) / len(items))
    return sorted(times)[ROUNDS // 2]


def main(store: Path, home: Path) -> None:
    needles = orjson.loads((store / "needles.json").read_bytes())
    words = [n["query"] for n in needles["needles"]] + [c["query"] for c in needles["common"]]
    history = History(home=home, root=store)
    pages = [
        search_result(
            history, Params("deja/search", {"query": w, "limit": 20}), ScopeChoice(Scope())
        )
        for w in words
    ]
    history.close()
    pygls, deja = default_converter(), strict_converter()  # type: ignore[no-untyped-call]
    responses = [JsonRPCResponseMessage(id=n, jsonrpc="2.0", result=p) for n, p in enumerate(pages)]
    bodies = [json.dumps(m, default=lambda v: pygls.unstructure(v)).encode() for m in responses]
    # As read off the wire, each time (pygls' hook rewrites the parsed dict in place).
    requests = [
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": n,
                "method": "deja/search",
                "params": {"query": w, "limit": 20},
            }
        )
        for n, w in enumerate(words)
    ]
    plain = plain_results_converter()
    rows = [
        (
            "out: a `deja/search` page",
            cpu_per_call(lambda m: json.dumps(m, default=pygls.unstructure).encode(), responses),
            cpu_per_call(lambda m: transport.encoded(m, deja.unstructure), responses),
        ),
        (
            "in: a `deja/search` request's params",
            cpu_per_call(lambda r: pygls.structure(json.loads(r), JsonRPCRequestMessage), requests),
            cpu_per_call(lambda r: deja.structure(json.loads(r), JsonRPCRequestMessage), requests),
        ),
        (
            "bench client: reading a page",
            cpu_per_call(lambda b: pygls.structure(json.loads(b), JsonRPCResponseMessage), bodies),
            cpu_per_call(lambda b: plain.structure(json.loads(b), JsonRPCResponseMessage), bodies),
        ),
    ]
    size = sorted(len(b) for b in bodies)[len(bodies) // 2]
    print(f"{len(pages)} pages of up to 20 hits, median {size:,} bytes; CPU per message:")
    print("| step | pygls' way | Deja's | ratio |\n|---|---|---|---|")
    for name, before, after in rows:
        print(f"| {name} | {before * 1e3:.3f} ms | {after * 1e3:.3f} ms | {after / before:.2f}× |")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
