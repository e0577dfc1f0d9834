"""The skill and the `/deja` prompt Continue is given name every tool Deja's MCP server has."""

from __future__ import annotations

from deja.install import skill_text
from deja.install.prompt import PROMPT_TEXT
from deja.mcp.definitions import TOOLS


def test_the_skill_and_the_prompt_name_every_tool() -> None:
    names = [tool.name for tool in TOOLS]
    assert {"deja_fix", "deja_files"} <= set(names)
    skill = skill_text()
    assert [name for name in names if f"`{name}`" not in skill] == []
    assert [name for name in names if name not in PROMPT_TEXT] == []
