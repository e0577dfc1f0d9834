"""`deja.lsp.pygls_adapter` holds every use of pygls' internals: these tests fail when the pygls
installed is not the pinned one, when a private method it overrides or calls changes its
signature, when a private attribute it reads is gone, and when another module of `deja.lsp`
touches a pygls private (or the adapter uses one it does not declare)."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from deja.lsp import pygls_adapter
from deja.lsp.server import create_server

ROOT = Path(__file__).resolve().parents[2]
LSP = ROOT / "server" / "deja" / "lsp"
ADAPTER = LSP / "pygls_adapter.py"
# The signatures the adapter was written against (pygls 2.1.1), as `inspect.signature` says them.
RECORDED = {
    ("pygls.protocol.json_rpc.JsonRPCProtocol", "_send_data"): "(self, data: 'Any')",
    ("pygls.protocol.json_rpc.JsonRPCProtocol", "_send_response"): (
        "(self, msg_id: 'MsgId', result: 'Any | None' = None, "
        "error: 'Union[ResponseError, None]' = None)"
    ),
    ("pygls.protocol.json_rpc.JsonRPCProtocol", "_serialize_message"): (
        "(self, data: 'Any') -> 'dict[str, Any]'"
    ),
    ("pygls.protocol.json_rpc.JsonRPCProtocol", "_get_handler"): (
        "(self, feature_name: 'str') -> 'MessageHandler'"
    ),
    ("pygls.protocol.json_rpc.JsonRPCProtocol", "_handle_notification"): (
        "(self, method_name: 'str', params: 'Any')"
    ),
    ("pygls.protocol.json_rpc.JsonRPCProtocol", "_handle_cancel_notification"): (
        "(self, msg_id: 'MsgId')"
    ),
    ("pygls.server.JsonRPCServer", "_start_io_async"): (
        "(self, stdin: 'Optional[BinaryIO]' = None, stdout: 'Optional[BinaryIO]' = None)"
    ),
    ("pygls.server.JsonRPCServer", "_report_server_error"): (
        "(self, error: 'Exception', source: 'ServerErrors')"
    ),
}


def pinned_pygls() -> str:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [each for each in dependencies if re.match(r"pygls\b", each)]
    found = re.fullmatch(r"pygls==([\d.]+)", pin)
    assert found, f"pygls is pinned to one version, not {pin!r}"
    return found.group(1)


def test_the_installed_pygls_is_the_pinned_one_and_the_bundled_one() -> None:
    pinned = pinned_pygls()
    assert version("pygls") == pinned
    bundled = (ROOT / "editor-extension" / "bundled-requirements.txt").read_text()
    assert f"\npygls=={pinned}\n" in bundled


@pytest.mark.parametrize(("owner", "method"), sorted(RECORDED))
def test_a_private_method_used_keeps_its_recorded_signature(owner: str, method: str) -> None:
    module, name = owner.rsplit(".", 1)
    cls = getattr(importlib.import_module(module), name)
    assert method in vars(cls), f"{owner}.{method} is gone"
    assert str(inspect.signature(getattr(cls, method))) == RECORDED[owner, method]


def test_the_record_is_of_every_private_method_the_adapter_declares() -> None:
    declared = {
        (owner, method)
        for owner, methods in pygls_adapter.PRIVATE_METHODS.items()
        for method in methods
    }
    assert declared == set(RECORDED)


def test_the_private_attributes_used_are_there() -> None:
    server = create_server()
    holders = {"protocol": server.protocol, "server": server}
    for holder, names in pygls_adapter.PRIVATE_ATTRIBUTES.items():
        for name in names:
            assert hasattr(holders[holder], name), f"pygls' {holder} has no {name}"


def pygls_privates() -> set[str]:
    """Every single-underscore name on pygls' server and protocol, class and instance."""
    server = LanguageServer("probe", "0")
    names = {*dir(LanguageServer), *dir(LanguageServerProtocol)}
    names |= {*vars(server), *vars(server.protocol)}
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def private_uses(path: Path, privates: set[str]) -> set[str]:
    """The pygls private names `path` reads, sets, calls or overrides."""
    used = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in privates:
            used.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in privates:
            used.add(node.name)
    return used


def test_only_the_adapter_touches_pygls_privates() -> None:
    privates = pygls_privates()
    assert {"_send_data", "_converter", "_stop_event"} <= privates  # the probe sees them
    found = {
        path.name: sorted(used)
        for path in sorted(LSP.glob("*.py"))
        if path != ADAPTER and (used := private_uses(path, privates))
    }
    assert found == {}


def test_the_adapter_declares_every_pygls_private_it_uses() -> None:
    declared = {name for names in pygls_adapter.PRIVATE_METHODS.values() for name in names}
    declared |= {name for names in pygls_adapter.PRIVATE_ATTRIBUTES.values() for name in names}
    assert private_uses(ADAPTER, pygls_privates()) == declared
