"""The team connection in Deja's config: `team.json` next to the exclude list. It holds the DSN
without a password (libpq finds that in PGPASSWORD, ~/.pgpass or a service file), the member's
display name and the workspaces the user opted in."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from deja import settings
from deja.errors import DejaError

CONFIG_NAME = "team.json"


class TeamError(DejaError):
    """A team operation that cannot go on: one line saying why and what to do."""


@dataclass(slots=True)
class TeamConfig:
    dsn: str
    name: str = ""
    shared: list[str] = field(default_factory=list)


def require_driver() -> None:
    """psycopg is the `team` extra: without it, one line saying how to add it."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise TeamError(
            "team history needs psycopg 3: pip install 'deja[team]' (or psycopg[binary])"
        ) from None


def config_path() -> Path:
    return settings.exclude_file().parent / CONFIG_NAME


def check_dsn(dsn: str) -> str:
    """The DSN as given, refused when it carries a password: Deja never writes one down."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(dsn)
    except Exception as error:  # psycopg raises ProgrammingError for a DSN it cannot parse
        raise TeamError(f"not a PostgreSQL connection string: {_first_line(error)}") from None
    if parts.get("password"):
        raise TeamError(
            "the connection string holds a password; give it in PGPASSWORD, ~/.pgpass or a"
            " service file instead (Deja never stores one)"
        )
    return dsn


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def load_config(path: Path | None = None) -> TeamConfig:
    path = path or config_path()
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise TeamError("no team connection; run `deja team connect DSN` first") from None
    except (OSError, orjson.JSONDecodeError) as error:
        raise TeamError(f"cannot read {path}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("dsn"), str):
        raise TeamError(f"{path} is not a team connection; run `deja team connect DSN` again")
    shared = [w for w in data.get("shared", []) if isinstance(w, str)]
    return TeamConfig(data["dsn"], str(data.get("name", "")), shared)


def save_config(config: TeamConfig, path: Path | None = None) -> Path:
    """Written whole through a temporary file, 0600 in a 0700 folder."""
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    data = {"dsn": config.dsn, "name": config.name, "shared": sorted(set(config.shared))}
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".team-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path
