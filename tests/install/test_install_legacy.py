"""Install never hides the config Continue loads. Continue's IDE loads `config.yaml` when it
exists and the legacy `config.json` only otherwise: a `config.yaml` written beside a lone
`config.json` would replace it. Each layout a Continue root can have (json only, yaml only,
both, neither), through the real CLI, install then uninstall, with what `doctor` says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from deja.install.legacy import load_jsonc
from tests.support.cli_run import json_envelope

# A legacy config as users have them: comments, trailing commas, keys Deja must never lose.
LEGACY = """{
  // My models: the keys must stay where Continue reads them.
  "models": [
    {"title": "GPT", "provider": "openai", "model": "gpt-4o", "apiKey": "sk-mine",},
  ],
  /* tab autocomplete */
  "tabAutocompleteModel": {"title": "Local", "provider": "ollama", "model": "qwen"},
}
"""
YAML = "name: Mine\nversion: 1.0.0\nschema: v1\n# my comment\nmodels: []\n"


def deja(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(root),
        "DEJA_HOME": str(root.parent / "home"),
        "XDG_CONFIG_HOME": str(root.parent / "config"),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    return subprocess.run(
        [sys.executable, "-m", "deja", *args], env=env, capture_output=True, text=True, timeout=180
    )


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def wiring(root: Path) -> dict[str, dict[str, Any]]:
    data = json_envelope(deja(root, "doctor", "--json"), "doctor")
    return {check["name"]: check for check in data["checks"]}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "continue"
    (folder / "sessions").mkdir(parents=True)
    (folder / "sessions" / "sessions.json").write_text("[]")
    return folder


def test_a_lone_config_json_is_refused_with_the_reason_and_the_entries_to_add(root: Path) -> None:
    (root / "config.json").write_text(LEGACY)
    before = files(root)
    result = deja(root, "install", "continue")
    assert result.returncode == 1
    assert files(root) == before, "nothing written, no config.yaml beside config.json"
    first = result.stderr.splitlines()[0]
    assert f"Continue loads {root / 'config.json'} here (there is no config.yaml)" in first
    assert first.endswith("nothing was written.")
    assert "move your settings to config.yaml" in result.stderr
    assert "Traceback" not in result.stderr
    # Uninstall has nothing to take away: every byte stays.
    assert deja(root, "uninstall", "continue").returncode == 0 and files(root) == before
    checks = wiring(root)
    assert checks["continue-config"]["ok"]
    assert checks["continue-config"]["detail"] == (
        f"Continue loads {root / 'config.json'} (there is no config.yaml)"
    )
    assert not checks["continue-mcp"]["ok"]
    assert "experimental.modelContextProtocolServers" in checks["continue-mcp"]["detail"]


def pasted(root: Path, stderr: str) -> str:
    """config.json with the two entries the refusal printed added, as a user would."""
    blocks = stderr.split(", the entry\n")[1:]
    server = json.loads(blocks[0][: blocks[0].rindex("}") + 1])
    command = json.loads(blocks[1][: blocks[1].rindex("}") + 1])
    return LEGACY.replace(
        "  /* tab autocomplete */\n",
        '  "experimental": {"modelContextProtocolServers": [\n'
        f"    {json.dumps(server)},  // Deja\n  ]}},\n"
        f'  "customCommands": [{json.dumps(command)}],\n  /* tab autocomplete */\n',
    )


def test_the_printed_entries_pasted_into_config_json_are_what_doctor_checks(root: Path) -> None:
    (root / "config.json").write_text(LEGACY)
    result = deja(root, "install", "continue")
    text = pasted(root, result.stderr)
    assert load_jsonc(text, "config.json")["models"][0]["apiKey"] == "sk-mine"
    (root / "config.json").write_text(text)
    checks = wiring(root)
    assert checks["continue-mcp"]["ok"], checks["continue-mcp"]
    assert checks["mcp-command"]["ok"], checks["mcp-command"]
    assert checks["prompt"]["ok"] and not checks["skill"]["ok"]
    assert checks["skill"]["fix"].startswith("move your settings to config.yaml")


def test_yaml_only_is_installed_into_and_doctor_names_it(root: Path) -> None:
    (root / "config.yaml").write_text(YAML)
    assert deja(root, "install", "continue").returncode == 0
    checks = wiring(root)
    assert checks["continue-config"]["detail"] == f"Continue loads {root / 'config.yaml'}"
    assert checks["continue-mcp"]["ok"] and checks["prompt"]["ok"]


def test_both_installs_into_the_yaml_continue_loads_and_leaves_json_alone(root: Path) -> None:
    (root / "config.json").write_text(LEGACY)
    (root / "config.yaml").write_text(YAML)
    before = files(root)
    assert deja(root, "install", "continue").returncode == 0
    assert (root / "config.json").read_bytes() == before["config.json"]
    assert "name: deja" in (root / "config.yaml").read_text()
    checks = wiring(root)
    assert checks["continue-config"]["detail"] == (
        f"Continue loads {root / 'config.yaml'} ({root / 'config.json'} beside it is not read)"
    )
    assert deja(root, "uninstall", "continue").returncode == 0
    after = files(root)
    after.pop("config.yaml.deja-backup")  # the user's copy, kept on purpose
    assert after == before, "uninstall puts back every byte"


def test_neither_creates_the_config_yaml_continue_would(root: Path) -> None:
    assert deja(root, "install", "continue").returncode == 0
    assert (root / "config.yaml").exists()
    assert wiring(root)["continue-config"]["detail"] == f"Continue loads {root / 'config.yaml'}"
    assert deja(root, "uninstall", "continue").returncode == 0
    assert not (root / "config.yaml").exists()


def test_a_config_yaml_an_earlier_install_wrote_over_config_json_is_named_and_undone(
    root: Path,
) -> None:
    """What an earlier Deja did: it created config.yaml beside config.json. Doctor says so, and
    uninstall removes that config.yaml, so Continue reads config.json again."""
    assert deja(root, "install", "continue").returncode == 0  # creates config.yaml, as then
    (root / "config.json").write_text(LEGACY)
    checks = wiring(root)
    assert not checks["continue-config"]["ok"]
    assert checks["continue-config"]["detail"] == (
        f"Continue loads {root / 'config.yaml'}, which deja install created, instead of your"
        f" {root / 'config.json'}"
    )
    assert checks["continue-config"]["fix"].startswith("deja uninstall continue")
    assert deja(root, "uninstall", "continue").returncode == 0
    assert not (root / "config.yaml").exists()
    assert (root / "config.json").read_text() == LEGACY
    assert wiring(root)["continue-config"]["detail"].startswith(
        f"Continue loads {root / 'config.json'}"
    )
