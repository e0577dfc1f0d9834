"""The team index's figures (issue 18), against a real PostgreSQL 15 started here.

    python bench/team.py --size 1G                   # what `make bench` runs (bench/RESULTS.md)
    python bench/team.py --size 4M --quick --kills 1  # what `make test` runs

On a generated store (bench/make_store.py), indexed once and copied for a second member: two
members pushing it concurrently (`deja team push`, MB/s of store and of text per member); team
search p50/p99 over everything pushed (a member granted every project, one connection, the
needles and common queries of the store); `deja search --team` end to end; what the team
database holds per record; and pushes killed (-9) at random points, then run again, compared
with the clean push.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "server"), str(HERE.parent)]

from tests.support.postgres import Postgres, running_postgres  # noqa: E402

from bench.make_store import parse_size  # noqa: E402
from bench.run import ensure_store, queries  # noqa: E402
from deja.index.exclude import ExcludeList  # noqa: E402
from deja.query import History, SearchQuery  # noqa: E402
from deja.team.config import TeamConfig, save_config  # noqa: E402
from deja.team.connection import opened  # noqa: E402
from deja.team.grants import grant  # noqa: E402
from deja.team.local import session_records, shared_sessions  # noqa: E402
from deja.team.migrations import migrate  # noqa: E402
from deja.team.search import TeamFilter, search_on  # noqa: E402

PASSWORD = "bench-pw"
DUMP = (
    "SELECT md5(string_agg(concat_ws('|', session_id, key, project, turn, role, time, path,"
    " relpath, exit_code, status, compacted, md5(body)), E'\\n' ORDER BY session_id, key)),"
    " count(*) FROM deja_records WHERE member = 'alice'"
)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class Member:
    def __init__(self, role: str, work: Path, store: Path, home: Path, pg: Postgres) -> None:
        self.role, self.store, self.home, self.pg = role, store, home, pg
        self.config = work / f"config-{role}"

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "DEJA_CONTINUE_ROOT": str(self.store),
            "DEJA_HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.config),
            "PGPASSWORD": PASSWORD,
            "PYTHONPATH": os.pathsep.join(sys.path),
        }

    def use(self, database: str, shared: list[str]) -> None:
        dsn = self.pg.dsn(self.role, database)
        os.environ["XDG_CONFIG_HOME"] = str(self.config)
        save_config(TeamConfig(dsn, self.role.capitalize(), shared))

    def push(self) -> tuple[float, dict[str, int]]:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "deja", "team", "push", "--json"],
            env=self.env(),
            capture_output=True,
            text=True,
            check=True,
        )
        return time.perf_counter() - started, orjson.loads(done.stdout)


def setup(pg: Postgres, database: str, projects: list[str]) -> None:
    pg.psql(f"CREATE DATABASE {database} OWNER deja_owner")
    owner = TeamConfig(pg.dsn("deja_owner", database))
    with opened(owner) as db:
        migrate(db)
    for project in projects:
        for role in ("alice", "bob"):
            grant(owner, project, role)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="1G")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (CI)")
    parser.add_argument("--kills", type=int, default=5)
    args = parser.parse_args()
    store = ensure_store(parse_size(args.size), args.seed, args.out)
    store_mb = sum(p.stat().st_size for p in (store / "sessions").glob("*.json")) / 1e6
    work = Path(tempfile.mkdtemp(prefix="deja-team-bench-"))
    os.environ["PGPASSWORD"] = PASSWORD
    try:
        return run(args, store, store_mb, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, store: Path, store_mb: float, work: Path) -> int:
    history = History(home=work / "home-alice", root=store, exclude_path=work / "no-exclude")
    history.refresh()
    indexed = history.indexed_sessions()
    shared = sorted({session.workspace for session in indexed})
    projects = sorted({session.project for session in indexed})
    local = shared_sessions(history, shared, ExcludeList())
    rows = [session_records(history, session) for session in local]
    records = sum(len(r) for r in rows)
    text_mb = sum(len(row[-1].encode()) for r in rows for row in r) / 1e6
    history.close()
    shutil.copytree(work / "home-alice", work / "home-bob")
    out: list[tuple[str, str]] = [
        ("store", f"{store_mb:.0f} MB, {len(local)} sessions, {records} records"),
        ("text pushed per member (redacted)", f"{text_mb:.1f} MB"),
    ]
    with running_postgres(fsync=True) as pg:
        pg.psql(f"CREATE ROLE deja_owner LOGIN CREATEROLE PASSWORD '{PASSWORD}'")
        for role in ("alice", "bob"):
            pg.psql(f"CREATE ROLE {role} LOGIN PASSWORD '{PASSWORD}'")
        setup(pg, "team", projects)
        members = [Member(r, work, store, work / f"home-{r}", pg) for r in ("alice", "bob")]
        for member in members:
            member.use("team", shared)
        with ThreadPoolExecutor(2) as pool:
            pushes = list(pool.map(lambda m: m.push(), members))
        for member, (seconds, report) in zip(members, pushes, strict=True):
            out.append(
                (
                    f"push, two members at once: {member.role}",
                    f"{seconds:.1f} s · {store_mb / seconds:.1f} MB/s of store ·"
                    f" {text_mb / seconds:.2f} MB/s of text · {report['records']} records",
                )
            )
        again, _ = members[0].push()
        out.append(("push again, nothing changed", f"{again * 1000:.0f} ms"))
        out += search_figures(pg, store, members[1], args.quick)
        out += size_figures(pg, records * 2)
        out += kill_figures(pg, members[0], projects, shared, args.kills, pushes[0][0])
    width = max(len(name) for name, _ in out)
    for name, value in out:
        print(f"{name:<{width}}  {value}")
    return 0


def search_figures(pg: Postgres, store: Path, bob: Member, quick: bool) -> list[tuple[str, str]]:
    words = queries(store)
    runs = 2 if quick else 10
    config = TeamConfig(pg.dsn("bob", "team"))
    times: list[float] = []
    hits = 0
    with opened(config) as db:
        for _ in range(runs):
            for word in words:
                started = time.perf_counter()
                found, _ = search_on(db, SearchQuery(word, limit=20, count_all=False), TeamFilter())
                times.append(time.perf_counter() - started)
                hits += bool(found)
    cli: list[float] = []
    for word in words[: 5 if quick else 20]:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "deja", "search", "--team", word],
            env=bob.env(),
            capture_output=True,
            check=True,
        )
        cli.append(time.perf_counter() - started)
    return [
        (
            f"team search, one connection ({len(times)} queries, {hits} with hits)",
            f"p50 {percentile(times, 0.5) * 1000:.1f} ms"
            f" · p99 {percentile(times, 0.99) * 1000:.1f} ms",
        ),
        (
            "`deja search --team` end to end (process start, connect, TLS off)",
            f"p50 {statistics.median(cli) * 1000:.0f} ms",
        ),
    ]


def size_figures(pg: Postgres, records: int) -> list[tuple[str, str]]:
    total, heap, indexes = (
        int(v)
        for v in pg.psql(
            "SELECT pg_total_relation_size('deja_records'), pg_relation_size('deja_records'),"
            " pg_indexes_size('deja_records')",
            database="team",
        )
        .strip()
        .split("|")
    )
    gin = int(pg.psql("SELECT pg_relation_size('deja_records_tsv')", database="team"))
    return [
        ("team database, deja_records", f"{total / 1e6:.0f} MB for {records} records"),
        (
            "per record",
            f"{total / records:.0f} B (heap+TOAST {(total - indexes) / records:.0f}, GIN"
            f" {gin / records:.0f}, other indexes {(indexes - gin) / records:.0f}; heap alone"
            f" {heap / records:.0f})",
        ),
    ]


def kill_figures(
    pg: Postgres, alice: Member, projects: list[str], shared: list[str], kills: int, full: float
) -> list[tuple[str, str]]:
    expected = pg.psql(DUMP, database="team").strip()
    setup(pg, "team_kill", projects)
    alice.use("team_kill", shared)
    rng = random.Random(18)
    seen = []
    for _ in range(kills):
        process = subprocess.Popen(
            [sys.executable, "-m", "deja", "team", "push"],
            env=alice.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.2, full))
        process.kill()
        process.wait()
        seen.append(pg.psql("SELECT count(*) FROM deja_records", database="team_kill").strip())
    alice.push()
    got = pg.psql(DUMP, database="team_kill").strip()
    verdict = "equal" if got == expected else f"DIFFERENT ({got} vs {expected})"
    return [
        (
            f"kill -9 of a push at {kills} random points, then a push",
            f"{verdict} to the clean push (records after each kill: {', '.join(seen)})",
        )
    ]


if __name__ == "__main__":
    sys.exit(main())
