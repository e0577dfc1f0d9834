"""`deja install continue --mcp-pythonpath`: the VS Code extension's "Connect to Continue" wires
the MCP server to the bundled Deja (the resolved Python, the bundled libraries on PYTHONPATH)."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from ruamel.yaml import YAML

ROOT = Path(__file__).parents[2]


def deja(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEJA_CONTINUE_ROOT": str(root), "DEJA_HOME": str(root / "home")}
    return subprocess.run(
        [sys.executable, "-m", "deja", *args], env=env, capture_output=True, text=True, check=False
    )


def test_the_mcp_entry_carries_the_bundled_pythonpath_and_uninstall_removes_it(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("name: mine\nversion: 1.0.0\nschema: v1\n")
    libs = str(tmp_path / "ext" / "bundled" / "libs")
    installed = deja(tmp_path, "install", "continue", "--mcp-pythonpath", libs)
    assert installed.returncode == 0, installed.stderr
    entry = YAML(typ="safe").load(config.read_text())["mcpServers"][0]
    assert entry == {
        "name": "deja",
        "command": sys.executable,
        "args": ["-m", "deja", "mcp"],
        "env": {"PYTHONPATH": libs},
    }
    again = deja(tmp_path, "install", "continue", "--mcp-pythonpath", libs)
    assert "already installed" in again.stdout
    assert deja(tmp_path, "uninstall", "continue").returncode == 0
    assert config.read_text() == "name: mine\nversion: 1.0.0\nschema: v1\n"


def test_without_the_option_the_entry_has_no_env(tmp_path: Path) -> None:
    assert deja(tmp_path, "install", "continue").returncode == 0
    entry = YAML(typ="safe").load((tmp_path / "config.yaml").read_text())["mcpServers"][0]
    assert "env" not in entry


# The platform .vsix: what Deja needs at run time is carried, pure packages in bundled/libs and
# the ones with a compiled part per CPython in bundled/orjson/cpXY (scripts/bundle.sh).
EXTENSION = ROOT / "editor-extension"
# mcp: pydantic-core is native, "Deja: Connect to Continue" offers to install it; textual: the
# terminal screen (bare `deja`), which the editor never runs.
NOT_BUNDLED = {"mcp", "textual"}
COMPILED = {
    "orjson": "orjson/orjson*",
    "watchfiles": "watchfiles/_rust_notify*",
    "ijson": "ijson/backends/_yajl2*",
}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def bundled_names() -> tuple[set[str], set[str]]:
    """(the pure packages of bundled-requirements.txt, bundle.sh's NATIVE ones)."""
    lines = (EXTENSION / "bundled-requirements.txt").read_text().splitlines()
    pure = {_name(line) for line in lines if line.strip() and not line.startswith("#")}
    native = re.search(
        r'^NATIVE="([^"]*)"', (EXTENSION / "scripts" / "bundle.sh").read_text(), re.M
    )
    assert native, "bundle.sh names its native wheels in NATIVE"
    return pure, {_name(item) for item in native.group(1).split()}


def test_every_runtime_dependency_is_in_the_platform_bundle() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pure, native = bundled_names()
    assert set(COMPILED) <= native
    missing = {_name(dep) for dep in declared} - pure - native - NOT_BUNDLED
    assert not missing, f"runtime dependencies no .vsix carries: {sorted(missing)}"
    # And what those need in turn (as installed here), but for the ones left out on purpose.
    for name in sorted((pure | native) - NOT_BUNDLED):
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is not None and not any(
                marker.evaluate({"python_version": v, "python_full_version": f"{v}.0", "extra": ""})
                for v in ("3.11", "3.12", "3.13", "3.14")
            ):
                continue
            needed = _name(requirement.name)
            assert needed in pure | native, f"{name} needs {needed}, which is not bundled"


def host_target() -> str | None:
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "arm64": "arm64", "aarch64": "arm64"}.get(machine)
    return (
        f"{sys.platform}-{arch}" if sys.platform in ("linux", "darwin", "win32") and arch else None
    )


@pytest.mark.skipif(host_target() is None or sys.platform == "win32", reason="bundle.sh is bash")
def test_the_host_platform_bundle_imports_its_native_packages(tmp_path: Path) -> None:
    """bundle.sh for this machine's platform, in a copy of the extension folder: every CPython's
    folder holds the compiled wheels, and this Python imports them from the bundle alone."""
    copy = tmp_path / "editor-extension"
    (copy / "scripts").mkdir(parents=True)
    shutil.copy(EXTENSION / "scripts" / "bundle.sh", copy / "scripts")
    shutil.copy(EXTENSION / "bundled-requirements.txt", copy)
    (tmp_path / "server").symlink_to(ROOT / "server")
    built = subprocess.run(
        ["bash", str(copy / "scripts" / "bundle.sh"), str(host_target())],
        env={**os.environ, "DEJA_BUILD_PYTHON": sys.executable},
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    if built.returncode != 0 and re.search(
        r"connection|resolve|network|No matching", built.stderr, re.I
    ):
        pytest.skip(f"no wheels to download here: {built.stderr.strip()[-200:]}")
    assert built.returncode == 0, built.stderr
    bundled = copy / "bundled"
    tags = sorted(path.name for path in (bundled / "orjson").iterdir())
    assert tags == ["cp311", "cp312", "cp313", "cp314"]
    for tag in tags:
        for name, pattern in COMPILED.items():
            assert list((bundled / "orjson" / tag).glob(pattern)), (
                f"{tag} lacks {name}'s compiled part"
            )
    here = f"cp{sys.version_info.major}{sys.version_info.minor}"
    probe = (
        "import sys; sys.path[:0] = sys.argv[1:]\n"
        "import ijson, orjson, watchfiles\n"
        "from deja.continue_store import stream\n"
        "print(ijson.backend, stream.available(), watchfiles.__file__.startswith(sys.argv[2]))"
    )
    imported = subprocess.run(
        [sys.executable, "-S", "-c", probe, str(bundled / "libs"), str(bundled / "orjson" / here)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.split() == ["yajl2_c", "True", "True"]
