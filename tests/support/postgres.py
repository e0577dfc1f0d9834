"""A real PostgreSQL 15 (Debian's packages) for the team tests and the bench: initdb into a
temporary folder, listening on 127.0.0.1 on a free port and on a Unix socket in that folder,
run as the `postgres` OS user when we are root (postgres refuses root), stopped by its PID."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

BIN = Path(os.environ.get("DEJA_PG_BIN", "/usr/lib/postgresql/15/bin"))
SUPERUSER = "postgres"


def available() -> str | None:
    """Why PostgreSQL cannot run here, or None."""
    if not (BIN / "postgres").exists():
        return f"no PostgreSQL at {BIN} (make tools installs postgresql-15)"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_owner(argv: list[str]) -> list[str]:
    """The command run as the `postgres` OS user when we are root (setpriv execs: the PID we
    get is the server's own)."""
    if os.geteuid() != 0:
        return argv
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--", *argv]


class Postgres:
    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def socket_dir(self) -> str:
        return str(self.folder)

    def init(self) -> None:
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        subprocess.run(
            _as_owner(
                [
                    str(BIN / "initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    SUPERUSER,
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--auth-local=trust",
                    "--auth-host=scram-sha-256",
                ]
            ),
            check=True,
            capture_output=True,
        )

    def start(self, *, fsync: bool = False) -> None:
        log = open(self.folder / "server.log", "ab")  # noqa: SIM115 - the server keeps it
        self.process = subprocess.Popen(
            _as_owner(
                [
                    str(BIN / "postgres"),
                    "-D",
                    str(self.data),
                    "-p",
                    str(self.port),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    f"unix_socket_directories={self.folder}",
                    "-c",
                    f"fsync={'on' if fsync else 'off'}",
                    "-c",
                    "max_connections=60",
                ]
            ),
            stdout=log,
            stderr=log,
        )
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError((self.folder / "server.log").read_text()[-2000:])
            ready = subprocess.run(
                [str(BIN / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)],
                check=False,
            )
            if ready.returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("PostgreSQL did not start in 30 s")

    def stop(self) -> None:
        """Fast shutdown by PID; killed if it does not end in 30 s."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def restart(self) -> None:
        self.stop()
        self.start()

    def psql(self, sql: str, *, database: str = "postgres", user: str = SUPERUSER) -> str:
        """Runs SQL as `user` over the Unix socket (trusted): setup, and checks as the superuser."""
        result = subprocess.run(
            [
                str(BIN / "psql"),
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                self.socket_dir,
                "-p",
                str(self.port),
                "-U",
                user,
                "-d",
                database,
                "-c",
                sql,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode:
            raise RuntimeError(result.stderr.strip())
        return result.stdout

    def dsn(self, user: str, database: str) -> str:
        return f"host=127.0.0.1 port={self.port} dbname={database} user={user}"


@contextlib.contextmanager
def running_postgres(*, fsync: bool = False) -> Iterator[Postgres]:
    folder = Path(tempfile.mkdtemp(prefix="deja-pg-"))
    os.chmod(folder, 0o755)
    server = Postgres(folder, _free_port())
    # A run ended by SIGTERM (a timeout, a killed CI job) unwinds too, so the server is stopped.
    previous = signal.signal(signal.SIGTERM, _exit_on_term)
    try:
        server.init()
        server.start(fsync=fsync)
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
        signal.signal(signal.SIGTERM, previous)


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
