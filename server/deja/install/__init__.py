"""Wiring Deja into Continue: its config (MCP server, `/deja` prompt) and a skill."""

from .continue_setup import (
    SKILL_DESCRIPTION,
    Change,
    Plan,
    apply,
    launcher,
    plan_install,
    plan_uninstall,
    skill_text,
)
from .legacy import HiddenConfig
from .yamledit import ConfigError

__all__ = [
    "SKILL_DESCRIPTION",
    "Change",
    "ConfigError",
    "HiddenConfig",
    "Plan",
    "apply",
    "launcher",
    "plan_install",
    "plan_uninstall",
    "skill_text",
]
