"""`deja install continue` / `deja uninstall continue`: Continue's config edited in place (every
other byte kept), found again by name, backed up once, refused when broken, created when
missing, previewed as a diff, and undone exactly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deja.install import SKILL_DESCRIPTION, ConfigError, launcher, plan_install, skill_text
from deja.install.continue_setup import SKELETON
from deja.install.record import record_path, sha256
from deja.install.yamledit import load, plain, remove_entry, set_entry

USER_CONFIG = """\
# My Continue config — hand written
name: Main Config   # shown in the IDE
version: 1.0.0
schema: v1

models:
  - name: Local Qwen            # display title
    provider: openai
    model: "qwen2.5-coder-32b"
    apiBase: 'http://127.0.0.1:8000/v1'
    roles: [chat, edit, apply]
    defaultCompletionOptions: {contextLength: 32768, maxTokens: 4096}

# MCP servers
mcpServers:
  - name: sqlite             # keep this one
    command: uvx
    args: [mcp-server-sqlite, --db-path, ./test.db]
    env: {NODE_ENV: production}
  - uses: anthropic/memory-mcp

  # prompts come next
prompts:
  - name: review
    description: Review the diff
    prompt: |
      Review the current changes for bugs.
      Be brief.

rules:
  - Always answer in English
"""
# Trailing spaces: a dump of the whole document would drop them.
USER_CONFIG += "  - Keep answers short   \n"
DOCS = "docs:\n  - name: Python\n    startUrl: https://docs.python.org\n"
DEJA_LINES = """\
  - name: deja
    command: /opt/deja/bin/deja
    args: [mcp]
"""


def deja(root: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(root),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    result = subprocess.run(
        [sys.executable, "-m", "deja", *args], env=env, capture_output=True, text=True, timeout=60
    )
    if ok:
        assert result.returncode == 0, result.stderr
    return result


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "continue"
    folder.mkdir()
    return folder


def test_install_keeps_every_other_byte(root: Path) -> None:
    config = root / "config.yaml"
    config.write_text(USER_CONFIG)
    deja(root, "install", "continue")
    after = config.read_text()
    lines, original = after.splitlines(keepends=True), USER_CONFIG.splitlines(keepends=True)
    # The new entry sits at the end of mcpServers, the prompt at the end of prompts; every other
    # line (comments, quoting, trailing blanks, spacing) is the user's.
    added = [line for line in lines if line not in original]
    assert [line for line in lines if line in original] == original
    command, args = sys.executable, ["-m", "deja", "mcp"]  # how `python -m deja` runs
    assert added[0] == "  - name: deja\n"
    data = plain(load(after, "config.yaml"))
    assert data["mcpServers"][0]["name"] == "sqlite" and data["mcpServers"][1] == {
        "uses": "anthropic/memory-mcp"
    }
    assert data["mcpServers"][2] == {"name": "deja", "command": command, "args": args}
    assert [p["name"] for p in data["prompts"]] == ["review", "deja"]
    assert "deja_search" in data["prompts"][1]["prompt"]
    assert after.index("  - name: deja") < after.index("  # prompts come next")


def test_install_twice_leaves_one_entry_and_backs_up_once(root: Path) -> None:
    config = root / "config.yaml"
    config.write_text(USER_CONFIG)
    first = deja(root, "install", "continue").stdout
    assert "your original config is kept at" in first
    installed = config.read_text()
    backup = root / "config.yaml.deja-backup"
    assert backup.read_text() == USER_CONFIG
    second = deja(root, "install", "continue").stdout
    assert "already installed" in second
    assert config.read_text() == installed and backup.read_text() == USER_CONFIG
    data = plain(load(installed, "config.yaml"))
    assert sum(1 for s in data["mcpServers"] if s.get("name") == "deja") == 1
    # A changed path (Deja moved) updates the entry in place; the backup stays the original.
    moved = set_entry(installed, "mcpServers", {"name": "deja", "command": "/new/deja"})
    config.write_text(moved)
    deja(root, "install", "continue")
    assert config.read_text() == installed and backup.read_text() == USER_CONFIG


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("name: x\nmodels: [\n", "line 3, column 1"),
        ("name: x\nname: y\n", "line 2, column 1"),
        ("name: x\nmodels:\n\t- a\n", "line 3, column 1"),
        ("name: x\n---\nname: y\n", "line 2, column 1"),
    ],
)
def test_invalid_yaml_is_refused_with_where_and_nothing_written(
    root: Path, text: str, where: str
) -> None:
    config = root / "config.yaml"
    config.write_text(text)
    result = deja(root, "install", "continue", ok=False)
    assert result.returncode == 1
    assert "is not valid YAML" in result.stderr and where in result.stderr
    assert "nothing was written" in result.stderr
    assert config.read_text() == text
    assert sorted(p.name for p in root.iterdir()) == ["config.yaml"]


def test_layouts_it_cannot_edit_are_refused(root: Path) -> None:
    config = root / "config.yaml"
    for text, why in [
        ("name: x\nmcpServers: [{name: a, command: b}]\n", "written inline"),
        ("name: x\nmcpServers: {a: b}\n", "is not a list"),
        ("- a\n- b\n", "does not hold a mapping"),
    ]:
        config.write_text(text)
        result = deja(root, "install", "continue", ok=False)
        assert why in result.stderr and config.read_text() == text


def test_a_missing_config_is_created_with_continues_required_keys(root: Path) -> None:
    deja(root, "install", "continue")
    text = (root / "config.yaml").read_text()
    assert text.startswith(SKELETON)
    data = plain(load(text, "config.yaml"))
    assert (data["name"], data["version"], data["schema"]) == ("Main Config", "1.0.0", "v1")
    assert not (root / "config.yaml.deja-backup").exists()
    skill = (root / "skills" / "deja-history" / "SKILL.md").read_text()
    assert skill == skill_text()


def test_skill_front_matter_and_short_description() -> None:
    text = skill_text()
    front, body = text.split("---\n")[1], text.split("---\n", 2)[2]
    meta = plain(load(front, "SKILL.md"))
    assert meta == {"name": "deja-history", "description": SKILL_DESCRIPTION}
    assert len(SKILL_DESCRIPTION.encode()) <= 300
    for tool in ("deja_search", "deja_file_history", "deja_restore"):
        assert tool in body
    assert "did we solve this before" in body.lower() and "compaction" in body


def test_dry_run_prints_the_diff_and_changes_nothing(root: Path) -> None:
    config = root / "config.yaml"
    config.write_text(USER_CONFIG)
    out = deja(root, "install", "continue", "--dry-run").stdout
    assert f"--- {config}\n+++ {config}\n" in out
    assert "+  - name: deja\n" in out and f"+    command: {sys.executable}\n" in out
    assert f"--- /dev/null\n+++ {root}/skills/deja-history/SKILL.md" in out
    assert "+name: deja-history\n" in out
    assert config.read_text() == USER_CONFIG
    assert sorted(p.name for p in root.iterdir()) == ["config.yaml"]


def test_uninstall_removes_exactly_what_install_added(root: Path) -> None:
    config = root / "config.yaml"
    for original in [
        USER_CONFIG,
        "name: x\nversion: 1.0.0\n",
        "name: x\r\nversion: 1.0.0\r\nmcpServers: []  # none yet\r\n",
    ]:
        config.write_text(original, newline="")
        (root / "config.yaml.deja-backup").unlink(missing_ok=True)
        deja(root, "install", "continue")
        assert config.read_bytes() != original.encode()
        out = deja(root, "uninstall", "continue").stdout
        assert "removed from Continue" in out
        assert config.read_bytes() == original.encode()
        assert not (root / "skills").exists()
        assert "not installed" in deja(root, "uninstall", "continue").stdout


def test_uninstall_of_a_created_config_removes_it(root: Path) -> None:
    deja(root, "install", "continue")
    deja(root, "uninstall", "continue")
    assert list(root.iterdir()) == []


def test_uninstall_leaves_what_the_user_added_since(root: Path) -> None:
    config = root / "config.yaml"
    config.write_text(USER_CONFIG)
    deja(root, "install", "continue")
    config.write_text(config.read_text() + DOCS)
    (root / "skills" / "mine").mkdir()
    deja(root, "uninstall", "continue")
    assert config.read_text() == USER_CONFIG + DOCS
    assert (root / "skills" / "mine").is_dir()
    assert (root / "config.yaml.deja-backup").read_text() == USER_CONFIG


# The text edits, as pure functions ------------------------------------------------------------


ENTRY = {"name": "deja", "command": "/opt/deja/bin/deja", "args": ["mcp"]}


def test_entry_follows_the_files_own_indentation() -> None:
    flush = "name: x\nmodels:\n- name: a\n  provider: openai\n"
    assert set_entry(flush, "mcpServers", ENTRY).endswith(
        "mcpServers:\n- name: deja\n  command: /opt/deja/bin/deja\n  args: [mcp]\n"
    )
    wide = "name: x\nmcpServers:\n    -   name: a\n        command: b\n"
    assert set_entry(wide, "mcpServers", ENTRY) == wide + (
        "    -   name: deja\n        command: /opt/deja/bin/deja\n        args: [mcp]\n"
    )
    assert set_entry("name: x\n", "mcpServers", ENTRY) == "name: x\nmcpServers:\n" + DEJA_LINES


def test_entry_in_a_list_with_a_dash_on_its_own_line_is_found_and_updated() -> None:
    text = "mcpServers:\n  -\n    name: deja\n    command: /old\n  - name: b\n    command: c\n"
    updated = set_entry(text, "mcpServers", ENTRY)
    assert plain(load(updated, "c"))["mcpServers"] == [ENTRY, {"name": "b", "command": "c"}]
    assert updated.endswith("  - name: b\n    command: c\n")


def test_values_that_need_quotes_get_them() -> None:
    entry = {"name": "deja", "command": "/path with: colon/deja #1", "args": ["-m", "deja", "mcp"]}
    text = set_entry("name: x\n", "mcpServers", entry)
    assert plain(load(text, "c"))["mcpServers"] == [entry]


def test_remove_entry_is_a_no_op_without_the_entry() -> None:
    assert remove_entry(USER_CONFIG, "mcpServers", "deja") == USER_CONFIG
    assert remove_entry("name: x\n", "mcpServers", "deja") == "name: x\n"
    with pytest.raises(ConfigError, match="not valid YAML"):
        remove_entry("a: [\n", "mcpServers", "deja")


def test_plan_install_reports_nothing_when_installed(root: Path) -> None:
    first = plan_install(root, "/opt/deja/bin/deja", ["mcp"])
    assert [change.what for change in first.changes] == [
        "MCP server and /deja prompt",
        "skill",
        "PreCompact hook",
    ]
    from deja.install import apply

    apply(first, root)
    assert plan_install(root, "/opt/deja/bin/deja", ["mcp"]).changes == []


def test_launcher_is_the_running_deja_by_absolute_path(tmp_path: Path) -> None:
    script = tmp_path / "bin" / "deja"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert launcher(str(script)) == (str(script), ["mcp"])
    assert launcher("/usr/lib/python3/site-packages/deja/__main__.py") == (
        sys.executable,
        ["-m", "deja", "mcp"],
    )


# Issue 11: configs without a final newline, the user's own empty keys, an edited skill ---------


SKILL = Path("skills") / "deja-history" / "SKILL.md"


def install_and_uninstall(root: Path, original: str) -> str:
    """Install into `original`, check the entries are there, uninstall; the installed text."""
    config = root / "config.yaml"
    config.write_bytes(original.encode())
    deja(root, "install", "continue")
    installed = config.read_bytes().decode()
    data = plain(load(installed, "config.yaml"))
    assert [s["name"] for s in data["mcpServers"] if s.get("name") == "deja"] == ["deja"]
    assert [p["name"] for p in data["prompts"] if p.get("name") == "deja"] == ["deja"]
    deja(root, "uninstall", "continue")
    return installed


@pytest.mark.parametrize(
    "original",
    [
        "name: x\nversion: 1.0.0",
        "name: x\nmcpServers:\n  - name: sqlite\n    command: uvx",
        "name: x\r\nmcpServers:\r\n  - name: sqlite\r\n    command: uvx",
        "name: x\nprompts: []",
        "name: x\nmcpServers:",
        "name: x\n# the end",
        USER_CONFIG.rstrip("\n"),
    ],
)
def test_a_config_without_a_final_newline_is_installed_into_and_restored(
    root: Path, original: str
) -> None:
    installed = install_and_uninstall(root, original)
    # The user's data is all still there, and the file still ends the way it did.
    data = plain(load(installed, "config.yaml"))
    before = plain(load(original, "config.yaml"))
    for key, value in before.items():
        if key in ("mcpServers", "prompts") and value:
            assert data[key][: len(value)] == value
        elif key not in ("mcpServers", "prompts"):
            assert data[key] == value
    assert not installed.endswith(("\n", "\r"))
    assert (root / "config.yaml").read_bytes() == original.encode()


@pytest.mark.parametrize(
    "original",
    [
        "name: x\nmcpServers:\nprompts: []\n",
        "mcpServers:\nprompts: []\nname: x\n",
        "name: x\nmcpServers:   # none yet\nprompts: [ ]\n",
        "name: x\r\nprompts: []\r\nmcpServers:\r\n",
        "name: x\nmcpServers: []\nprompts:\n\nrules:\n  - Be brief\n",
    ],
)
def test_uninstall_leaves_the_users_own_empty_keys_as_they_were(root: Path, original: str) -> None:
    install_and_uninstall(root, original)
    assert (root / "config.yaml").read_bytes() == original.encode()


def test_the_users_empty_keys_come_back_after_other_edits_too(root: Path) -> None:
    config = root / "config.yaml"
    original = "name: x\nmcpServers:\nprompts: []\n"
    config.write_text(original)
    deja(root, "install", "continue")
    config.write_text(config.read_text() + DOCS)  # the user edits the config meanwhile
    deja(root, "uninstall", "continue")
    assert config.read_text() == original + DOCS


@pytest.mark.parametrize("original", ["", "# my Continue config\n", "# only a comment"])
def test_an_empty_config_that_install_filled_is_empty_again(root: Path, original: str) -> None:
    config = root / "config.yaml"
    config.write_bytes(original.encode())
    deja(root, "install", "continue")
    assert plain(load(config.read_text(), "c"))["name"] == "Main Config"
    deja(root, "uninstall", "continue")
    assert config.read_bytes() == original.encode()
    # Only the backup is left, the user's copy of the original.
    assert sorted(p.name for p in root.iterdir()) == ["config.yaml", "config.yaml.deja-backup"]


def test_uninstall_keeps_a_skill_the_user_edited_and_says_so(root: Path) -> None:
    deja(root, "install", "continue")
    skill = root / SKILL
    edited = skill_text() + "\n## Ours\nAlways search with scope all.\n"
    skill.write_text(edited)
    out = deja(root, "uninstall", "continue").stdout
    assert "kept skills/deja-history/SKILL.md: you edited it" in out
    assert skill.read_text() == edited
    # The rest is gone: the config Deja created and its bookkeeping.
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == [
        "skills",
        "skills/deja-history",
        str(SKILL),
    ]


def test_install_does_not_overwrite_an_edited_skill_and_says_so(root: Path) -> None:
    deja(root, "install", "continue")
    skill = root / SKILL
    edited = skill_text().replace("Use when asked", "Use whenever asked")
    skill.write_text(edited)
    out = deja(root, "install", "continue").stdout
    assert "kept skills/deja-history/SKILL.md: you edited it" in out
    assert skill.read_text() == edited
    # A SKILL.md of that name that Deja never wrote is the user's too.
    other = root.parent / "other"
    (other / SKILL).parent.mkdir(parents=True)
    (other / SKILL).write_text("---\nname: deja-history\ndescription: mine\n---\n")
    out = deja(other, "install", "continue").stdout
    assert "kept skills/deja-history/SKILL.md: you edited it" in out
    assert (other / SKILL).read_text() == "---\nname: deja-history\ndescription: mine\n---\n"
    prompts = plain(load((other / "config.yaml").read_text(), "c"))["prompts"]
    assert "deja" in [p["name"] for p in prompts]


def test_a_skill_install_wrote_is_recognised_even_if_deja_changed_it_since(root: Path) -> None:
    """What install wrote is recorded: an older Deja's unedited skill is updated, then removed."""

    deja(root, "install", "continue")
    older = skill_text().replace("Recall past", "Recall earlier")
    (root / SKILL).write_text(older)
    record = json.loads(record_path(root).read_text())
    record["skill_sha256"] = sha256(older)  # as the older Deja recorded it
    record_path(root).write_text(json.dumps(record))
    out = deja(root, "install", "continue").stdout
    assert "kept" not in out and (root / SKILL).read_text() == skill_text()
    deja(root, "uninstall", "continue")
    assert list(root.iterdir()) == []


def test_the_prompt_keeps_the_question_apart_from_its_text(root: Path) -> None:
    deja(root, "install", "continue")
    prompts = plain(load((root / "config.yaml").read_text(), "c"))["prompts"]
    (prompt,) = [p for p in prompts if p["name"] == "deja"]
    # cn expands `/deja how …` to the prompt's text followed directly by the words typed
    # (`assistantPrompt.prompt + args.join(" ")`, cn 1.5.47 src/slashCommands.ts).
    expanded = prompt["prompt"] + " ".join(["how", "did", "we", "fix", "it"])
    assert expanded.split()[-5:] == ["how", "did", "we", "fix", "it"]
