"""Deja's environment settings: the one place that reads them. Each is read when it is used,
never at import (`deja --help` works whatever they hold), and a value Deja cannot use is one
`SettingError` naming the variable and what it must be."""

from __future__ import annotations

import os
from collections.abc import Mapping

from deja.errors import DejaError

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from pathlib import Path

# No cap unless the user sets one: a file too large to parse whole has its history streamed,
# so the reader's memory does not grow with it. A file over a cap set is reported, not read.
NO_CAP = 2**63 - 1
DEFAULT_MAX_SESSION_BYTES = NO_CAP
MAX_SESSION_BYTES_VAR = "DEJA_MAX_SESSION_BYTES"

Env = Mapping[str, str]


class SettingError(DejaError):
    """An environment variable holds a value Deja cannot use."""


def _env(env: Env | None) -> Env:
    return os.environ if env is None else env


def _value(env: Env | None, name: str) -> str:
    """The variable's value, stripped; blank is unset."""
    return _env(env).get(name, "").strip()


# The folders are worked out as text (`os.path`): a quiet `deja index` opens the index and lists
# the store without loading `pathlib` (with `re`, `enum` and `urllib`, the largest share of its
# imports); the public functions give them as `Path`s.


def _is_absolute(path: str) -> bool:
    """`Path.is_absolute`: on Windows a drive (or a share) and a root."""
    return os.path.isabs(path) and (os.sep == "/" or bool(os.path.splitdrive(path)[0]))


def _user_home(env: Env | None) -> str:
    return _value(env, "HOME") or os.path.expanduser("~")


def _expand(value: str, env: Env | None) -> str:
    """`~` is the user's home (HOME as given in `env`, for tests and for the sidecar alike)."""
    if value == "~" or value.startswith("~/"):
        return os.path.join(_user_home(env), value[2:])
    return os.path.expanduser(value)  # ~user/…


def _xdg(env: Env | None, name: str, fallback: str) -> str:
    """An XDG base folder; the spec says a relative value is invalid and to be ignored."""
    value = _value(env, name)
    if value and _is_absolute(value):
        return value
    return os.path.join(_user_home(env), fallback)


def _path(text: str) -> Path:
    from pathlib import Path

    return Path(text)


def max_session_bytes(env: Env | None = None) -> int:
    """`DEJA_MAX_SESSION_BYTES`: a positive whole number of bytes; no cap (`NO_CAP`) unset."""
    raw = _value(env, MAX_SESSION_BYTES_VAR)
    if not raw:
        return DEFAULT_MAX_SESSION_BYTES
    if not (raw.isascii() and raw.isdigit()) or int(raw) == 0:
        raise SettingError(
            f"{MAX_SESSION_BYTES_VAR} must be a positive whole number of bytes "
            f"(unset: no cap), not {raw!r}"
        )
    return min(int(raw), NO_CAP)


def redact_secrets(env: Env | None = None) -> bool:
    """False only with `DEJA_NO_REDACT=1`; anything but 1, 0 or unset is refused, since a
    misspelt switch must not leave the user guessing whether secrets are stored."""
    raw = _value(env, "DEJA_NO_REDACT")
    if raw in ("", "0"):
        return True
    if raw == "1":
        return False
    raise SettingError(
        "DEJA_NO_REDACT must be 1 (store secrets as written) or 0 / unset (redact them), "
        f"not {raw!r}"
    )


def continue_root(env: Env | None = None, cwd: Path | None = None) -> Path:
    """Continue's folder: `DEJA_CONTINUE_ROOT`, else `CONTINUE_GLOBAL_DIR` (relative to cwd, as
    Continue takes it), else `~/.continue`."""
    return _path(continue_root_text(env, None if cwd is None else str(cwd)))


def continue_root_text(env: Env | None = None, cwd: str | None = None) -> str:
    """`continue_root` as text."""
    for name in ("DEJA_CONTINUE_ROOT", "CONTINUE_GLOBAL_DIR"):
        value = _value(env, name)
        if value:
            path = _expand(value, env)
            return path if _is_absolute(path) else os.path.join(cwd or os.getcwd(), path)
    return os.path.join(_user_home(env), ".continue")


def deja_home(env: Env | None = None) -> Path:
    """Where the index lives: `DEJA_HOME` (absolute, or from `~`), else `$XDG_DATA_HOME/deja`,
    else `~/.local/share/deja`."""
    return _path(deja_home_text(env))


def deja_home_text(env: Env | None = None) -> str:
    """`deja_home` as text."""
    value = _value(env, "DEJA_HOME")
    if value:
        path = _expand(value, env)
        if not _is_absolute(path):
            # Relative to what? Each front door would keep its own index.
            raise SettingError(f"DEJA_HOME must be an absolute path (~ is expanded), not {value!r}")
        return path
    return os.path.join(_xdg(env, "XDG_DATA_HOME", ".local/share"), "deja")


def exclude_file(env: Env | None = None) -> Path:
    """The privacy switch's list: `$XDG_CONFIG_HOME/deja/exclude`, else `~/.config/deja/exclude`."""
    return _path(exclude_file_text(env))


def exclude_file_text(env: Env | None = None) -> str:
    """`exclude_file` as text."""
    return os.path.join(_xdg(env, "XDG_CONFIG_HOME", ".config"), "deja", "exclude")


def semantic_search(env: Env | None = None) -> bool:
    """False with `DEJA_SEMANTIC=0`: no vectors made, search by words only, even with the
    semantic extra installed."""
    return _semantic(env) != "0"


def deep_meaning(env: Env | None = None) -> bool:
    """False with `DEJA_SEMANTIC=0` or `light`: the long-running doors neither make nor ask the
    deep model's vectors (the static model's still answer, with `light`)."""
    return _semantic(env) == "1"


def _semantic(env: Env | None) -> str:
    raw = _value(env, "DEJA_SEMANTIC") or "1"
    if raw in ("0", "1", "light"):
        return raw
    raise SettingError(
        "DEJA_SEMANTIC must be 0 (words only), light (no deep model) or 1 / unset (auto),"
        f" not {raw!r}"
    )
