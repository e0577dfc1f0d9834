"""Continue's wiring, as `deja install continue` leaves it: which config Continue loads
(`config.yaml`, else the legacy `config.json`), the `deja` MCP server in that one (its command
found and answering MCP's `initialize`), the skill, the `/deja` prompt."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from deja.install import ConfigError, skill_text
from deja.install.continue_setup import SERVER_NAME, config_path, skill_path
from deja.install.legacy import JSON_NAME, is_deja, load_jsonc, loaded_config, mcp_servers
from deja.install.prompt import PROMPT_NAME
from deja.install.record import InstallRecord, record_path
from deja.install.yamledit import load, plain

from .checks import Check, failed, passed
from .probe import mcp_initialize

INSTALL = "deja install continue"


def _named(document: Any, key: str, name: str) -> dict[str, Any] | None:
    items = document.get(key) if isinstance(document, dict) else None
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and item.get("name") == name:
            return item
    return None


def _config(root: Path) -> tuple[Any, Check | None]:
    """The config's data, or the check that says why there is none to look at."""
    path = config_path(root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, failed("continue-mcp", f"no Continue config at {path}", INSTALL)
    except (OSError, UnicodeDecodeError) as error:
        return None, failed("continue-mcp", f"cannot read {path}: {error}", f"repair {path}")
    try:
        return plain(load(text, str(path))), None
    except ConfigError as error:
        fix = f"repair the YAML where it says, then {INSTALL}"
        return None, failed("continue-mcp", error.message, fix)


def config_check(root: Path) -> Check:
    """Which config Continue loads, and whether a `config.yaml` install created hides the
    user's `config.json`."""
    loaded, legacy = loaded_config(root), root / JSON_NAME
    if loaded == legacy:
        return passed("continue-config", f"Continue loads {legacy} (there is no config.yaml)")
    if not legacy.exists():
        return passed("continue-config", f"Continue loads {loaded}")
    try:
        record = InstallRecord.loads(record_path(root).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        record = InstallRecord()
    if record.skeleton is not None and record.skeleton.over is None:
        return failed(
            "continue-config",
            f"Continue loads {loaded}, which deja install created, instead of your {legacy}",
            "deja uninstall continue (it removes that config.yaml; Continue reads config.json"
            " again), then deja install continue says how to wire Deja into config.json",
        )
    return passed("continue-config", f"Continue loads {loaded} ({legacy} beside it is not read)")


def _legacy_checks(root: Path) -> list[Check]:
    """Deja in `config.json`, where Continue looks: `experimental.modelContextProtocolServers`
    and `customCommands` (install does not write it; it prints the entries)."""
    path, fix = root / JSON_NAME, f"{INSTALL} (it prints what to add to config.json)"
    try:
        document = load_jsonc(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as error:
        return [failed("continue-mcp", f"cannot read {path}: {error}", f"repair {path}")]
    except ConfigError as error:
        return [failed("continue-mcp", error.message, f"repair the JSON where it says, then {fix}")]
    checks: list[Check] = []
    entry = next((server for server in mcp_servers(document) if is_deja(server)), None)
    if entry is None:
        where = "experimental.modelContextProtocolServers"
        checks.append(failed("continue-mcp", f"{path} has no Deja MCP server in {where}", fix))
    else:
        args = [str(arg) for arg in entry.get("args") or []]
        shown = " ".join([str(entry.get("command")), *args])
        checks.append(passed("continue-mcp", f"{path}: Deja runs {shown}"))
        checks.append(mcp_command_check(entry.get("command"), args, entry.get("env")))
    checks.append(skill_check(root, f"move your settings to config.yaml, then {INSTALL}"))
    if _named(document, "customCommands", PROMPT_NAME) is None:
        checks.append(failed("prompt", f"no /{PROMPT_NAME} in customCommands of {path}", fix))
    else:
        checks.append(passed("prompt", f"/{PROMPT_NAME} is in {path}"))
    return checks


def wiring_checks(root: Path) -> list[Check]:
    checks = [config_check(root)]
    if loaded_config(root) == root / JSON_NAME:
        return checks + _legacy_checks(root)
    document, problem = _config(root)
    checks += [problem] if problem else []
    path = config_path(root)
    if problem is None:
        entry = _named(document, "mcpServers", SERVER_NAME)
        if entry is None:
            checks.append(
                failed("continue-mcp", f"{path} has no MCP server named {SERVER_NAME}", INSTALL)
            )
        else:
            command = entry.get("command")
            args = [str(arg) for arg in entry.get("args") or []]
            shown = " ".join([str(command), *args])
            checks.append(passed("continue-mcp", f"{path}: {SERVER_NAME} runs {shown}"))
            checks.append(mcp_command_check(command, args, entry.get("env")))
    checks.append(skill_check(root))
    prompt = None if document is None else _named(document, "prompts", PROMPT_NAME)
    if prompt is None:
        checks.append(failed("prompt", f"no /{PROMPT_NAME} prompt in {path}", INSTALL))
    else:
        checks.append(passed("prompt", f"/{PROMPT_NAME} is in {path}"))
    return checks


def mcp_command_check(command: object, args: list[str], env: object) -> Check:
    """The entry's command is there and answers `initialize` as Continue will ask it."""
    if not isinstance(command, str) or not command:
        return failed("mcp-command", "the deja MCP entry has no command", INSTALL)
    program = command if os.path.isabs(command) else shutil.which(command)
    if program is None or not os.access(program, os.X_OK) or not os.path.isfile(program):
        return failed(
            "mcp-command",
            f"{command} is not an executable file here",
            f"{INSTALL} (it writes the command of the Deja you run it with)",
        )
    extra = {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}
    reply = mcp_initialize([program, *args], {**os.environ, **extra})
    if reply.error:
        return failed(
            "mcp-command",
            f"{program} {' '.join(args)} did not answer MCP's initialize: {reply.error}",
            f"run `{program} {' '.join(args)}` to see why; then {INSTALL}",
        )
    return passed("mcp-command", f"{program} started and answered: {reply.detail}")


def skill_check(root: Path, fix: str = INSTALL) -> Check:
    path = skill_path(root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return failed("skill", f"no skill at {path}", fix)
    except (OSError, UnicodeDecodeError) as error:
        return failed("skill", f"cannot read {path}: {error}", f"repair {path}, or remove it")
    whose = "as Deja wrote it" if text == skill_text() else "edited by you (kept as it is)"
    return passed("skill", f"{path}: {whose}")
