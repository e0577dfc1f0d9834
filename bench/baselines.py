"""Comparison baselines for the Deja bench, run in the same process: ripgrep and deja-vu.

ripgrep (Debian's ``ripgrep`` package, ``apt-get install -y ripgrep``)
    ``ensure_rg()`` finds ``rg``. ``rg_search`` lists the sessions whose file holds a query
    (fixed string, case-insensitive, ``sessions.json`` excluded: the same rule as the
    ground truth in ``needles.json``); ``rg_latencies`` times it over N runs.

deja-vu (github vshulcz/deja-vu, the best-known peer; a static Go binary, npm package
``@vshulcz/deja-vu-linux-amd64@0.21.1``, command ``deja``)
    ``ensure_deja_vu()`` installs it with
    ``npm install --prefix $DEJA_TEST_CACHE/deja-vu-0.21.1 --no-save <pkg>@0.21.1``
    (``DEJA_TEST_CACHE`` defaults to ``~/.cache/deja-test``); the binary is then
    ``<prefix>/node_modules/@vshulcz/deja-vu-linux-amd64/bin/deja``.

    It reads the Continue store named by ``DEJA_CONTINUE_ROOT`` (the directory holding
    ``sessions/``) and keeps its index in ``$HOME/.cache/deja/index.db/`` (a directory of
    ``.gob``/``.bin`` files) beside ``index.db.lock`` and ``index.db.usage.jsonl``. Every run
    here gets a scrubbed environment: ``HOME`` = a temp dir of the caller's, that root,
    ``DEJA_OFFLINE=1`` and ``DEJA_NO_UPDATE_NOTICE=1`` (no once-a-day release look, no
    network), ``DEJA_TUI=0``, stdin from /dev/null; nothing else of the user's environment
    (so ``CONTINUE_GLOBAL_DIR``, ``CODEX_HOME``, ... cannot point it at real stores).

    - cold index: remove ``$HOME/.cache/deja``, then ``deja index`` (``deja index --rebuild``
      is the same full build). It runs in the foreground and exits 0 when done; on a big
      store it prints "searchable now with the 200 most recent sessions while the rest is
      indexed" but still finishes the rest before exiting (no background process remains).
    - no-change re-index: ``deja index`` again; it stats the files and prints
      "index is up to date (N sessions)" on stderr.
    - search: ``deja search --json --limit N -- <query>`` (``--all`` for every match; the
      ``search`` form lets a query start with a dash). JSON on stdout:
      ``{"schema_version":2, "tier":"exact"|"relevance"|..., "total":N, "capped"?:true,
      "hits":[{"session":{"id", "path", "title", ...}, "count", "snippets", "score"}]}``;
      notes ("showing 15 of 357", "no matches ...") go to stderr; exit code 0 even with no
      match. A search refreshes the index first (new or changed files are read in), so
      its latency includes that freshness check.

    Quirks seen with 0.21.1 on stores from ``bench/make_store.py``:
    - it indexes only the text of ``user`` and ``assistant`` messages (and the title):
      tool arguments and outputs (commands, paths, edits, terminal output), ``thinking``
      items, context items and ``promptLogs`` are not searchable;
    - a multi-word query with no session holding all words falls back to the
      ``relevance`` tier and returns ranked partial matches (``total`` counts those);
    - a query with no exact hit goes on to try word forms and close spellings, so a
      miss costs more than a hit;
    - it re-reads ``sessions.json`` for every session file, so a cold index grows
      quadratically with the session count (1 GB / 2,719 sessions: ~56 s, ~30 s with no
      list file);
    - project names are derived from the workspace with dashes read as separators
      (``chat-bot`` shows as ``chat/bot``).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

DEJA_VU_VERSION = "0.21.1"
DEJA_VU_PACKAGE = "@vshulcz/deja-vu-linux-amd64"
_RG_INSTALL_HINT = "install ripgrep: `apt-get install -y ripgrep` (Debian/Ubuntu, as root)"


# --------------------------------------------------------------------------------------------
# Timing helpers
# --------------------------------------------------------------------------------------------


def percentile(samples: Sequence[float], p: float) -> float:
    """The p-th percentile (0..100) by linear interpolation between closest ranks."""
    if not samples:
        raise ValueError("no samples")
    xs = sorted(samples)
    k = (len(xs) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def summarize(samples: Sequence[float]) -> dict[str, float]:
    """{"n", "p50", "p99", "mean", "min", "max"} of latencies in seconds."""
    return {
        "n": float(len(samples)),
        "p50": percentile(samples, 50),
        "p99": percentile(samples, 99),
        "mean": sum(samples) / len(samples),
        "min": min(samples),
        "max": max(samples),
    }


def _timed(
    cmd: Sequence[str], *, env: dict[str, str] | None = None, timeout: float | None = None
) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        list(cmd),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    return time.perf_counter() - t0, proc


# --------------------------------------------------------------------------------------------
# ripgrep
# --------------------------------------------------------------------------------------------


def ensure_rg() -> Path:
    """Path of `rg`; raises RuntimeError saying how to install it when missing."""
    found = shutil.which("rg")
    if found is None:
        raise RuntimeError(f"ripgrep (rg) not found on PATH; {_RG_INSTALL_HINT}")
    return Path(found)


def rg_command(store: Path, query: str, rg: Path | None = None) -> list[str]:
    """The rg invocation: files holding `query` as a fixed, case-insensitive string."""
    return [
        str(rg or ensure_rg()),
        "--files-with-matches",
        "--fixed-strings",
        "--ignore-case",
        # The store may sit inside a git work tree whose .gitignore hides it.
        "--no-ignore",
        "--hidden",
        "--no-messages",
        "--glob",
        "!sessions.json",
        "--",
        query,
        str(Path(store) / "sessions"),
    ]


def rg_search(store: Path, query: str, rg: Path | None = None) -> list[str]:
    """Sorted ids of the sessions whose file holds `query` (case-insensitive)."""
    proc = subprocess.run(
        rg_command(store, query, rg), stdin=subprocess.DEVNULL, capture_output=True, check=False
    )
    if proc.returncode not in (0, 1):  # 1 = no match
        raise RuntimeError(f"rg failed ({proc.returncode}): {proc.stderr.decode(errors='replace')}")
    return sorted(Path(line).stem for line in proc.stdout.decode().splitlines() if line)


def rg_latencies(
    store: Path, query: str, runs: int, warmup: int = 1, rg: Path | None = None
) -> list[float]:
    """Wall-clock seconds of `runs` rg searches for `query` (after `warmup` untimed ones)."""
    cmd = rg_command(store, query, rg)
    out: list[float] = []
    for i in range(warmup + runs):
        dt, proc = _timed(cmd)
        if proc.returncode not in (0, 1):
            raise RuntimeError(
                f"rg failed ({proc.returncode}): {proc.stderr.decode(errors='replace')}"
            )
        if i >= warmup:
            out.append(dt)
    return out


# --------------------------------------------------------------------------------------------
# deja-vu
# --------------------------------------------------------------------------------------------


def deja_vu_prefix() -> Path:
    """Where ensure_deja_vu installs the npm package (DEJA_TEST_CACHE overrides the base)."""
    base = os.environ.get("DEJA_TEST_CACHE") or str(Path.home() / ".cache" / "deja-test")
    return Path(base).expanduser() / f"deja-vu-{DEJA_VU_VERSION}"


def _deja_vu_binary(prefix: Path) -> Path:
    return prefix / "node_modules" / DEJA_VU_PACKAGE / "bin" / "deja"


def ensure_deja_vu() -> Path:
    """Path of the deja-vu `deja` binary, installing it from npm on first use."""
    binary = _deja_vu_binary(deja_vu_prefix())
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise RuntimeError(
            f"{DEJA_VU_PACKAGE} is a linux/amd64 binary; this is "
            f"{platform.system()}/{platform.machine()}"
        )
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm not found: install Node.js/npm (`apt-get install -y npm`)")
    prefix = deja_vu_prefix()
    prefix.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(prefix),
            "--no-save",
            "--no-audit",
            "--no-fund",
            f"{DEJA_VU_PACKAGE}@{DEJA_VU_VERSION}",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        timeout=600,
    )
    if proc.returncode != 0 or not binary.is_file():
        raise RuntimeError(
            f"npm install of {DEJA_VU_PACKAGE}@{DEJA_VU_VERSION} failed: "
            f"{proc.stderr.decode(errors='replace')[-2000:]}"
        )
    binary.chmod(binary.stat().st_mode | 0o111)  # npm keeps the mode, but be sure
    return binary


def deja_vu_env(store: Path, home: Path) -> dict[str, str]:
    """A scrubbed environment: only the store, a throwaway HOME and the offline switches."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(Path(home).resolve()),
        "DEJA_CONTINUE_ROOT": str(Path(store).resolve()),
        "DEJA_OFFLINE": "1",
        "DEJA_NO_UPDATE_NOTICE": "1",
        "DEJA_TUI": "0",
        "LANG": "C.UTF-8",
    }
    if "TMPDIR" in os.environ:
        env["TMPDIR"] = os.environ["TMPDIR"]
    return env


def deja_vu_index_dir(home: Path) -> Path:
    """Where deja-vu keeps its index under a given HOME."""
    return Path(home) / ".cache" / "deja"


def _deja(
    args: Sequence[str], store: Path, home: Path, timeout: float | None = 3600
) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    Path(home).mkdir(parents=True, exist_ok=True)
    dt, proc = _timed([str(ensure_deja_vu()), *args], env=deja_vu_env(store, home), timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(
            f"deja {' '.join(args)} failed ({proc.returncode}): "
            f"{proc.stderr.decode(errors='replace')[-2000:]}"
        )
    return dt, proc


def deja_vu_cold_index(store: Path, home: Path) -> float:
    """Seconds for a full index build from nothing (any index under `home` is removed)."""
    shutil.rmtree(deja_vu_index_dir(home), ignore_errors=True)
    dt, _ = _deja(["index"], store, home)
    return dt


def deja_vu_noop_once(store: Path, home: Path) -> float:
    """Seconds of one `deja index` that finds nothing changed (the index must exist)."""
    dt, proc = _deja(["index"], store, home)
    if b"up to date" not in proc.stderr:  # it re-read something: not a no-op measurement
        raise RuntimeError(f"deja index was not a no-op: {proc.stderr.decode(errors='replace')}")
    return dt


def deja_vu_search_once(store: Path, home: Path, query: str, limit: int | None = 15) -> float:
    """Seconds of one `deja search` (the index must exist)."""
    return _deja(_search_args(query, limit), store, home)[0]


def deja_vu_search(
    store: Path, home: Path, query: str, limit: int | None = 15
) -> tuple[list[str], dict[str, object]]:
    """(session ids of the hits in rank order, the whole JSON answer); `limit=None` = --all."""
    _, proc = _deja(_search_args(query, limit), store, home)
    doc = json.loads(proc.stdout)
    ids = [str(h["session"]["id"]) for h in doc.get("hits", [])]
    return ids, doc


def _search_args(query: str, limit: int | None) -> list[str]:
    cap = ["--all"] if limit is None else ["--limit", str(max(1, min(100, limit)))]
    return ["search", "--json", *cap, "--", query]
