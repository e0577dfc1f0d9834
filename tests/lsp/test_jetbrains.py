"""The LSP4IJ template (editor-extension/jetbrains): its files hold to LSP4IJ's published
installer schema (vendored in tests/vendor/lsp4ij) and to the fields LSP4IJ's template reader
knows; the installer's check runs; the server started exactly as the template says — and as each
command the installer configures, resolved as LSP4IJ resolves it — with the template's
initializationOptions gives hover, code lens, and a lens's document."""

from __future__ import annotations

import fnmatch
import json
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from lsprotocol import types
from pygls.uris import to_fs_path

from deja import __version__
from deja.lsp.options import KNOWN, SCOPES, parse_options
from tests.lsp.conftest import EDIT_SESSION, World, start, stop

TEMPLATE = Path(__file__).parents[2] / "editor-extension" / "jetbrains"
VENDOR = Path(__file__).parents[1] / "vendor" / "lsp4ij"
WHEEL = f"deja-{__version__}-py3-none-any.whl"
# This OS's key in LSP4IJ's per-OS values (`ServerTemplate.OS_KEY`), "default" when absent.
OS_KEY = {"win32": "windows", "darwin": "mac"}.get(sys.platform, "unix")
# What LSP4IJ's template reader takes from template.json (`ServerTemplate`, its deserializer).
TEMPLATE_KEYS = {
    "id", "name", "dev", "url", "default", "env", "programArgs", "workingDir",
    "expandConfiguration", "languageMappings", "fileTypeMappings", "disablePromotionFor",
}  # fmt: skip
TASKS = {"exec", "configureServer", "showMessage", "download"}
# What LSP4IJ declares that Deja relies on: markdown hovers, code lenses, server-initiated
# progress and window/showDocument.
LSP4IJ = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(
        workspace_folders=True,
        execute_command=types.ExecuteCommandClientCapabilities(),
        code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
    ),
    text_document=types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
        hover=types.HoverClientCapabilities(
            content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
        ),
        code_lens=types.CodeLensClientCapabilities(),
    ),
    window=types.WindowClientCapabilities(
        work_done_progress=True,
        show_document=types.ShowDocumentClientCapabilities(support=True),
    ),
)


def template() -> dict[str, Any]:
    return dict(json.loads((TEMPLATE / "template.json").read_text()))


def installer() -> dict[str, Any]:
    return dict(json.loads((TEMPLATE / "installer.json").read_text()))


def for_os(value: Any) -> Any:
    """LSP4IJ's choice: the entry for this OS ("windows", "mac", "unix"), else "default"."""
    return value.get(OS_KEY, value["default"]) if isinstance(value, dict) else value


def start_command(world: World) -> list[str]:
    command = shlex.split(for_os(template()["programArgs"]))
    assert shutil.which(command[0], path=world.env["PATH"]), command
    return command


def tasks(node: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every task of an installer tree, with its kind: a task is one key naming its kind."""
    assert len(node) == 1 and set(node) <= TASKS, node
    kind, task = next(iter(node.items()))
    yield kind, task
    for follow in ("onSuccess", "onFail"):
        if follow in task:
            yield from tasks(task[follow])


def configured_commands() -> list[str]:
    """What each way through the installer sets as the server's command, for this OS."""
    found = [t["command"] for kind, t in tasks(installer()["run"]) if kind == "configureServer"]
    return [for_os(command) for command in found]


def test_template_keeps_to_the_fields_lsp4ij_reads() -> None:
    data = template()
    assert set(data) <= TEMPLATE_KEYS
    assert set(data["programArgs"]) <= {"windows", "mac", "unix", "default"}
    for mapping in data["fileTypeMappings"]:
        assert set(mapping) <= {"fileType", "languageId"} and mapping["languageId"]
        assert set(mapping["fileType"]) <= {"name", "patterns"}


def test_installer_holds_to_lsp4ij_schema_and_its_task_fields() -> None:
    data = installer()
    schema = json.loads((VENDOR / "installerSettings.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert set(data) <= {"id", "name", "executeOnStartServer", "properties", "check", "run"}
    every = [*tasks(data["check"]), *tasks(data["run"])]
    kinds = [kind for kind, _ in every]
    assert kinds.count("configureServer") == 3 and kinds.count("exec") == 4  # pipx, uv, pip
    for kind, task in every:
        # The step schema, for the steps LSP4IJ's task factories read.
        step = {"exec": {"exec": task}, "showMessage": {"showMessage": task}}.get(kind)
        if step is not None:
            jsonschema.validate(step, {"$ref": f"#/definitions/{kind}", **schema})
        if kind == "exec":
            command = for_os(task["command"])
            assert isinstance(command, list) and all(isinstance(a, str) for a in command)
            # Properties (${…}) are resolved in workingDir, not in an exec's command words.
            assert not any("${" in word for word in command)
            if "install" in command:
                assert command[-1] == WHEEL and task["workingDir"] == "${wheelDir}"
        if kind == "configureServer":
            assert task["update"] is True and set(task["command"]) == {"windows", "default"}
    assert for_os(data["check"]["exec"]["command"]) == ["deja", "--version"]


def test_the_installer_check_is_deja_version(world: World) -> None:
    check = for_os(installer()["check"]["exec"]["command"])
    result = subprocess.run(check, env=world.env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and __version__ in result.stdout


def test_settings_schema_is_the_servers_initialization_options(tmp_path: Path) -> None:
    schema = json.loads((TEMPLATE / "settings.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    assert set(schema["properties"]) == set(KNOWN)
    assert tuple(schema["properties"]["scope"]["enum"]) == SCOPES
    shipped = json.loads((TEMPLATE / "initializationOptions.json").read_text())
    jsonschema.validate(shipped, schema)
    good = {"scope": "all", "continueRoot": str(tmp_path), "dejaHome": "~/deja-index"}
    jsonschema.validate(good, schema)
    assert parse_options(good)[1] == [] and parse_options(shipped)[1] == []
    for bad in ({"scope": "everything"}, {"dejaHome": "relative/home"}, {"colour": "red"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
        assert parse_options(bad)[1], bad  # the server refuses it too, saying so


def language_of(name: str) -> str:
    for mapping in template()["fileTypeMappings"]:
        if any(fnmatch.fnmatch(name, p) for p in mapping["fileType"]["patterns"]):
            return str(mapping["languageId"])
    raise AssertionError(f"the template maps no language to {name}")


def test_template_describes_the_server() -> None:
    data = template()
    assert data["id"] == "deja" and data["name"]
    assert data["programArgs"]["default"] == "deja serve"
    assert language_of("config.py") == "python" and language_of("app.tsx") == "typescriptreact"
    assert (TEMPLATE / "README.md").exists()


def installed_command(world: World, configured: str) -> list[str]:
    """A command the installer configures, as LSP4IJ starts it: macros resolved, words split as
    a shell would. `$USER_HOME$` is a home where the install left `deja` in `.local/bin` (where
    pipx and uv put it), here the test environment's own."""
    home = world.base / "user-home"
    (home / ".local" / "bin").mkdir(parents=True, exist_ok=True)
    deja = shutil.which("deja", path=world.env["PATH"])
    assert deja is not None
    link = home / ".local" / "bin" / "deja"
    if not link.exists():
        link.symlink_to(deja)
    command = shlex.split(configured.replace("$USER_HOME$", str(home)))
    assert shutil.which(command[0], path=world.env["PATH"]), command
    return command


@pytest.mark.parametrize("way", ["template", "pipx", "uv", "pip --user"])
async def test_the_template_gets_hover_lens_and_a_document(world: World, way: str) -> None:
    options = json.loads((TEMPLATE / "initializationOptions.json").read_text())
    if way == "template":
        command = start_command(world)
    else:
        configured = configured_commands()[["pipx", "uv", "pip --user"].index(way)]
        command = installed_command(world, configured)
    client = await start(world, options=options, capabilities=LSP4IJ, command=command)
    try:
        await client.indexed()
        assert client.lsp.messages == []  # the template's options are all valid
        uri = world.config_py.as_uri()
        client.lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(
                    uri, language_of("config.py"), 1, world.config_py.read_text()
                )
            )
        )
        hover = await client.lsp.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, 8))
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert "Make parse\\_config close its file" in hover.contents.value
        assert "command:" not in hover.contents.value  # LSP4IJ follows only file:// links
        # Alt+Enter: the same actions as intentions, each a command the server runs.
        actions = await client.lsp.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri),
                types.Range(types.Position(4, 8), types.Position(4, 8)),
                types.CodeActionContext([]),
            )
        )
        offered = [a.command for a in actions or [] if isinstance(a, types.Command)]
        assert offered == ["deja.showSession", "deja.forkSession", "deja.showFileHistory"]
        lenses = await client.lsp.text_document_code_lens_async(
            types.CodeLensParams(types.TextDocumentIdentifier(uri))
        )
        commands = [lens.command for lens in lenses or [] if lens.command]
        assert [c.command for c in commands] == ["deja.showFileHistory", "deja.showSession"]
        # Clicking a lens: LSP4IJ sends the lens's command to the server as it is.
        session_lens = commands[1]
        arguments = list(session_lens.arguments or [])
        assert arguments == [EDIT_SESSION, 2]
        result = await client.command(session_lens.command, *arguments)
        assert result["shown"] and client.lsp.shown_documents[-1].uri == result["uri"]
        shown = Path(str(to_fs_path(result["uri"]))).read_text()
        assert shown.startswith("# Make parse\\_config close its file") and "## Turn 2" in shown
    finally:
        await stop(client)
