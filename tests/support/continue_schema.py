"""Continue's session types as a JSON schema (`tests/schemas/continue_session.schema.json`,
transcribed from core/index.d.ts): what a file Deja writes into the store is checked against."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "schemas" / "continue_session.schema.json").read_text()
)


def check_session(document: object) -> None:
    """Raises when `document` is not a `Session` as Continue types it; every tool call's
    arguments must also parse as JSON (`ToolCall.function.arguments` is a JSON string)."""
    jsonschema.validate(document, SCHEMA)
    assert isinstance(document, dict)
    for item in document["history"]:
        for state in item.get("toolCallStates", []):
            assert json.loads(state["toolCall"]["function"]["arguments"]) == state["parsedArgs"]


def check_list(entries: object) -> None:
    jsonschema.validate(entries, {"$defs": SCHEMA["$defs"], "$ref": "#/$defs/SessionsList"})
