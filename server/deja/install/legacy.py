"""Continue's legacy `config.json`, which the IDE loads only when there is no `config.yaml`
(`core/config/profile/doLoadConfig.ts`; `cn` reads `config.yaml` alone). Install never writes a
`config.yaml` beside it: that file would take its place, and the user's models and keys in
`config.json` would no longer be used. Install refuses instead and gives the entries to add;
`doctor` reads the file (JSON with comments and trailing commas, as Continue's `comment-json`
parses it) to say whether Deja is wired into it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .yamledit import ConfigError

JSON_NAME = "config.json"
YAML_NAME = "config.yaml"

# Strings (kept whole), `// …` and `/* … */` comments, and commas before `]` or `}`.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/|,(?=\s*[\]}])', re.DOTALL)


class HiddenConfig(ConfigError):
    """Install would hide the config Continue loads; `way_forward` says what to do instead."""

    def __init__(self, message: str, way_forward: str) -> None:
        super().__init__(message)
        self.way_forward = way_forward


def loaded_config(root: Path) -> Path:
    """The config Continue's IDE loads from `root`: `config.yaml` when it exists (Continue fills
    an empty one with its default), else `config.json` when that exists, else `config.yaml`
    (Continue creates it on its first start)."""
    yaml, legacy = root / YAML_NAME, root / JSON_NAME
    if not yaml.exists() and legacy.exists():
        return legacy
    return yaml


def _uncommented(text: str) -> str:
    """Plain JSON: comments gone (their line breaks kept, so errors name the right line), then
    trailing commas (a comma before a comment before `]` trails only once the comment is gone)."""

    def keep(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith('"'):
            return token
        return "" if token == "," else "\n" * token.count("\n")

    return _TOKENS.sub(keep, _TOKENS.sub(keep, text))


def load_jsonc(text: str, name: str) -> Any:
    """The data of a JSON-with-comments file, or ConfigError saying where it broke."""
    try:
        return json.loads(_uncommented(text.removeprefix("\ufeff")))
    except json.JSONDecodeError as error:
        raise ConfigError(f"{name} is not valid JSON: {error.msg} at line {error.lineno}") from None


def mcp_servers(document: Any) -> list[dict[str, Any]]:
    """`experimental.modelContextProtocolServers`, each entry's `transport` flattened as
    Continue does (`{type, command, args, env}`)."""
    experimental = document.get("experimental") if isinstance(document, dict) else None
    servers = (
        experimental.get("modelContextProtocolServers") if isinstance(experimental, dict) else None
    )
    found: list[dict[str, Any]] = []
    for server in servers if isinstance(servers, list) else ():
        transport = server.get("transport") if isinstance(server, dict) else None
        if isinstance(transport, dict):
            found.append(transport)
    return found


def is_deja(transport: dict[str, Any]) -> bool:
    """A stdio server that runs `deja mcp` or `python -m deja mcp`."""
    args = [str(arg) for arg in transport.get("args") or []]
    command = str(transport.get("command") or "")
    by_script = Path(command).name.lower() in ("deja", "deja.exe") and args[:1] == ["mcp"]
    return by_script or args[-3:] == ["-m", "deja", "mcp"]


def json_entries(command: str, args: list[str], env: dict[str, str] | None) -> str:
    """What to add to `config.json` by hand: the MCP server and the `/deja` command."""
    transport: dict[str, Any] = {"type": "stdio", "command": command, "args": args}
    if env:
        transport["env"] = env
    from .prompt import PROMPT_DESCRIPTION, PROMPT_NAME, PROMPT_TEXT

    command_entry = {"name": PROMPT_NAME, "description": PROMPT_DESCRIPTION, "prompt": PROMPT_TEXT}
    server = json.dumps({"transport": transport}, indent=2, ensure_ascii=False)
    slash = json.dumps(command_entry, indent=2, ensure_ascii=False)
    return (
        f'  in "experimental": {{"modelContextProtocolServers": [ … ]}}, the entry\n{server}\n'
        f'  in "customCommands": [ … ], the entry\n{slash}'
    )


def refuse_beside_json(
    root: Path, command: str, args: list[str], env: dict[str, str] | None
) -> None:
    """HiddenConfig when Continue loads `config.json` here: install would have to create the
    `config.yaml` that replaces it."""
    legacy = root / JSON_NAME
    if loaded_config(root) != legacy:
        return
    raise HiddenConfig(
        f"Continue loads {legacy} here (there is no {YAML_NAME}), and a {YAML_NAME} written"
        " beside it would replace it: Continue would stop using the models and keys in it",
        "To wire Deja, either move your settings to config.yaml (Continue's docs: 'Migrating"
        " config.json to config.yaml') and run `deja install continue` again, or add these"
        f" entries to {legacy} yourself (`deja doctor` then checks them):\n"
        + json_entries(command, args, env),
    )
