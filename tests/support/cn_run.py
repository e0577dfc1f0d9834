"""Run the real ``cn`` headless (``-p --auto``) against a local fake model, fully offline.

The environment is minimal and isolated: ``HOME`` and ``CONTINUE_GLOBAL_DIR`` point into test
folders, telemetry is off, stdin is ``/dev/null``. ``cn`` writes its sessions to
``<root>/sessions``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_MODEL",
    "MULTIEDIT_MODEL",
    "CnDirs",
    "cn_env",
    "config_yaml",
    "run_cn",
    "write_config",
]

# A model name that matches none of cn's "capable model" patterns: cn offers `Edit`.
DEFAULT_MODEL = "deja-fake-model"
# A name cn treats as capable (gpt/claude/qwen/...): cn offers `MultiEdit` instead of `Edit`.
MULTIEDIT_MODEL = "gpt-4.1"


@dataclass(frozen=True)
class CnDirs:
    """The three folders one ``cn`` run needs."""

    root: Path  # CONTINUE_GLOBAL_DIR: the store is <root>/sessions
    home: Path  # HOME
    work: Path  # cwd, recorded by cn as the session's workspaceDirectory

    @classmethod
    def make(cls, base: Path) -> CnDirs:
        """Create ``base/{root,home,work}`` (``work`` resolved, as cn records it)."""
        for name in ("root", "home", "work"):
            (base / name).mkdir(parents=True, exist_ok=True)
        return cls(base / "root", base / "home", (base / "work").resolve())


_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", "SYSTEMROOT")


def _q(value: str) -> str:
    # JSON strings are valid YAML double-quoted scalars.
    return json.dumps(value)


def config_yaml(
    model_url: str,
    *,
    model: str = DEFAULT_MODEL,
    context_length: int | None = None,
    max_tokens: int | None = None,
) -> str:
    """The text of a ``config.yaml`` with one OpenAI-compatible model at ``model_url + "/v1"``."""
    lines = [
        "name: deja-test",
        "version: 1.0.0",
        "schema: v1",
        "models:",
        "  - name: Deja Fake",
        "    provider: openai",
        f"    model: {_q(model)}",
        f"    apiBase: {_q(model_url.rstrip('/') + '/v1')}",
        "    apiKey: sk-deja-test",
        "    roles: [chat, edit, apply, summarize]",
        "    capabilities: [tool_use]",
    ]
    options = {"contextLength": context_length, "maxTokens": max_tokens}
    set_options = {key: value for key, value in options.items() if value is not None}
    if set_options:
        lines.append("    defaultCompletionOptions:")
        lines.extend(f"      {key}: {value}" for key, value in set_options.items())
    return "\n".join(lines) + "\n"


def write_config(path: Path, model_url: str, **options: object) -> Path:
    """Write :func:`config_yaml` to ``path`` (its folder is created) and return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(config_yaml(model_url, **options))  # type: ignore[arg-type]
    return path


def cn_env(root: Path, home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A clean environment for ``cn``: isolated HOME / CONTINUE_GLOBAL_DIR, no telemetry."""
    env = {key: os.environ[key] for key in _PASSED_ENV if key in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(
        {
            "HOME": str(home),
            "CONTINUE_GLOBAL_DIR": str(root),
            "CONTINUE_CLI_ENABLE_TELEMETRY": "0",
            "NO_COLOR": "1",
            "FORCE_COLOR": "0",
            "CI": "1",
        }
    )
    if extra:
        env.update(extra)
    return env


def run_cn(
    prompt: str | None,
    *,
    cn: Path,
    root: Path,
    home: Path,
    cwd: Path,
    model_url: str,
    extra_args: Sequence[str] = (),
    timeout: float = 120,
    model: str = DEFAULT_MODEL,
    context_length: int | None = None,
    max_tokens: int | None = None,
    config: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``cn -p --auto --config <file> [extra_args] <prompt>`` and wait for it.

    The config is written to ``config`` (default ``<root>/config.yaml``) for ``model_url`` (the
    fake model's base URL, without ``/v1``), ``model`` (see :data:`MULTIEDIT_MODEL`) and optional
    ``defaultCompletionOptions``. ``prompt=None`` passes no prompt (e.g. with ``--resume``).
    Returns the completed process (text mode); raises ``subprocess.TimeoutExpired`` after killing
    ``cn``'s whole process group when it runs longer than ``timeout`` seconds.
    """
    for folder in (root, home, cwd):
        folder.mkdir(parents=True, exist_ok=True)
    config_path = write_config(
        config or root / "config.yaml",
        model_url,
        model=model,
        context_length=context_length,
        max_tokens=max_tokens,
    )
    args = [str(cn), "-p", "--auto", "--config", str(config_path), *extra_args]
    if prompt is not None:
        args.append(prompt)
    proc = subprocess.Popen(
        args,
        cwd=cwd,
        env=cn_env(root, home, env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: a timeout kills cn and its children
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        stdout, stderr = proc.communicate()
        raise subprocess.TimeoutExpired(args, timeout, output=stdout, stderr=stderr) from None
    except BaseException:
        _kill_group(proc)
        proc.communicate()
        raise
    # cn may leave children (e.g. a backgrounded Bash job) in its group: end them too.
    _kill_group(proc)
    return subprocess.CompletedProcess(args, proc.returncode, stdout, stderr)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    # The group id is cn's own PID (start_new_session=True): only what cn started is signalled.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
