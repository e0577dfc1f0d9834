"""Security promises (issue 8), each a test that can fail: every front door leaves Continue's
store byte for byte and mtime for mtime; nothing listens on a socket unless asked; everything
Deja writes is private; secrets never reach the index."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities
from pytest_lsp.client import make_test_lsp_client

from deja.query import History, SearchQuery
from tests.lsp.conftest import EDIT_SESSION, SERVER, World, first_pass, make_world, plain
from tests.mcp.test_mcp import mcp_session
from tests.support.storebuilder import assistant, call, session_doc, snapshot, user, write_session


def deja(world: World, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "deja", *args],
        env=world.env,
        cwd=world.project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, (args, result.stderr)
    return result


def private_files(home: Path) -> list[str]:
    """Everything under DEJA_HOME that others could read."""
    loose = []
    for path in [home, *home.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        loose_file = path.is_file() and bool(mode & 0o077)
        loose_dir = path.is_dir() and mode != 0o700
        if loose_file or loose_dir:
            loose.append(f"{path.relative_to(home)} {oct(mode)}")
    return loose


def listening_inodes() -> set[str]:
    inodes = set()
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6"), Path("/proc/net/udp")):
        if table.exists():
            for line in table.read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] in ("0A", "07"):  # TCP LISTEN; UDP unconnected
                    inodes.add(fields[9])
    return inodes


def sockets_of(pid: int) -> set[str]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            found.add(target[len("socket:[") : -1])
    return found


async def test_every_front_door_leaves_the_store_untouched_and_home_private(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    before = snapshot(world.store)
    for args in (
        ["index"],
        ["index", "--rebuild"],
        ["search", "parse_config", "--all"],
        ["search", "parse_config", "--json"],
        ["sessions", "--all"],
        ["show", EDIT_SESSION],
        ["blame", "src/config.py"],
        ["blame", "src/config.py", "--line", "5"],
        ["stats"],
        ["restore"],
        ["restore", "last"],
        ["restore", "--session", EDIT_SESSION, ":", "yaml"],
        ["resume", EDIT_SESSION],
        ["handoff", EDIT_SESSION],
        ["install", "continue", "--dry-run"],
    ):
        deja(world, *args)

    client = make_test_lsp_client()
    await client.start_io(*SERVER, env=world.env)
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                workspace_folders=[types.WorkspaceFolder(world.project.as_uri(), "proj")],
            )
        )
        await first_pass(client)
        assert listening_inodes().isdisjoint(sockets_of(client._server.pid))  # type: ignore[attr-defined]
        uri = world.config_py.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=world.config_py.read_text()
                )
            )
        )
        hover = await client.text_document_hover_async(
            types.HoverParams(
                types.TextDocumentIdentifier(uri), types.Position(line=5, character=8)
            )
        )
        assert hover is not None
        found = plain(
            await client.protocol.send_request_async(
                "deja/search", {"query": "parse_config", "scope": "all"}
            )
        )
        assert found["hits"]
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="deja.showSession", arguments=[EDIT_SESSION])
        )
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="deja.showFileHistory", arguments=[uri])
        )
        await client.shutdown_session()
    finally:
        await client.stop()

    with mcp_session(world.store, world.home, world.project) as mcp:
        mcp.ready()
        (process,) = _children_running("deja", "mcp")
        assert listening_inodes().isdisjoint(sockets_of(process))
        assert (
            "parse_config" in mcp.call("deja_search", {"query": "parse_config", "scope": "all"})[0]
        )
        mcp.call("deja_file_history", {"path": "src/config.py"})
        mcp.call("deja_restore", {"session": "last"})

    assert snapshot(world.store) == before
    assert private_files(world.home) == []
    assert list((world.home / "views").glob("*")) or list(world.home.rglob("*.md"))


def _children_running(*words: str) -> list[int]:
    """PIDs of this test's child processes whose command line holds `words`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = next(
            (line.split()[1] for line in status.splitlines() if line.startswith("PPid:")), ""
        )
        args = [part.decode(errors="replace") for part in cmdline]
        if parent == str(os.getpid()) and all(word in args for word in words):
            found.append(int(entry.name))
    return found


def test_cli_opens_no_socket(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "deja", "index"],
        env=world.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen: set[str] = set()
    while process.poll() is None:
        try:
            seen |= sockets_of(process.pid)
        except OSError:
            break
        time.sleep(0.005)
    assert process.returncode == 0 and seen == set()


SECRETS = {
    "api-key": "sk-proj-" + "Zq8Lm2Nx4Pv6Rt0Wy3Bc5De7Fg9Hj1Kl",
    "github-token": "ghp_" + "Zq8Lm2Nx4Pv6Rt0Wy3Bc5De7Fg9Hj1KlMn0P",
    "aws-key": "AKIA" + "Z7Q2L8M3N4X5P6V1",
    "slack-token": "xoxb-" + "123456789012-1234567890123-Zq8Lm2Nx4Pv6Rt0Wy3Bc5De",
    "google-key": "AIza" + "SyZq8Lm2Nx4Pv6Rt0Wy3Bc5De7Fg9Hj1KlM",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.Zq8Lm2Nx4Pv6Rt0Wy3Bc5De7Fg9Hj1Kl",
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAZq8Lm2Nx4Pv6Rt0Wy3\n"
    "-----END RSA PRIVATE KEY-----",
}
CONTEXT_SECRETS = {
    "bearer": ("Authorization: Bearer ", "Zq8Lm2Nx4Pv6Rt0Wy3Bc5De7Fg9Hj1Kl"),
    "password": ("DB_PASSWORD=", "hunter2-Zq8Lm2Nx"),
    "url-credentials": ("postgres://admin:", "Zq8Lm2Nx4Pv6@db.internal/app"),
}


def test_each_kind_of_secret_is_redacted_everywhere_it_can_appear(tmp_path: Path) -> None:
    store = tmp_path / "store"
    values = [*SECRETS.values(), *(prefix + value for prefix, value in CONTEXT_SECRETS.values())]
    for n, secret in enumerate(values):
        write_session(
            store,
            session_doc(
                f"sec{n}",
                [
                    user(f"message carrying {secret} in it"),
                    assistant(
                        f"echoing {secret}",
                        [
                            call(
                                "Bash",
                                {"command": f"run --key '{secret}'"},
                                f"output {secret}",
                                call_id="a",
                            ),
                            call(
                                "Write",
                                {"filepath": "cfg.env", "content": f"VALUE={secret}\n"},
                                "ok",
                                call_id="b",
                            ),
                            call(
                                "Edit",
                                {
                                    "file_path": "cfg.py",
                                    "old_string": f"k = '{secret}'",
                                    "new_string": "k = os.environ['K']",
                                },
                                "ok",
                                call_id="c",
                            ),
                            call(
                                "mcp_tool",
                                {"token_arg": secret},
                                f"tool said {secret}",
                                call_id="d",
                            ),
                        ],
                    ),
                ],
            ),
        )
    history = History(home=tmp_path / "home", root=store)
    try:
        history.refresh()
        assert history.search(SearchQuery("message carrying")).hits
    finally:
        history.close()
    index = b"".join(path.read_bytes() for path in (tmp_path / "home").glob("index.sqlite3*"))
    for secret in [*SECRETS.values(), *(value for _, value in CONTEXT_SECRETS.values())]:
        core = secret.splitlines()[1] if "PRIVATE KEY" in secret else secret
        assert core.encode() not in index, core
    assert b"[redacted:" in index


def test_no_redact_switch_keeps_secrets(tmp_path: Path) -> None:
    store = tmp_path / "store"
    secret = SECRETS["api-key"]
    write_session(store, session_doc("s", [user(f"key {secret}")]))
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "DEJA_NO_REDACT": "1",
    }
    result = subprocess.run(
        [sys.executable, "-m", "deja", "search", "key", "--all"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert secret in result.stdout


def test_loopback_only_even_when_asked_for_tcp(tmp_path: Path) -> None:
    """`--tcp` is the only listener, and it is bound to 127.0.0.1 (tests/lsp/test_tcp.py checks
    the kernel's table); here: no other address accepts a connection."""
    world = make_world(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [*SERVER, "--tcp", str(port)], env=world.env, stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stderr is not None
        assert "127.0.0.1" in server.stderr.readline()
        addresses = {
            info[4][0]
            for info in socket.getaddrinfo(socket.gethostname(), None)
            if info[0] == socket.AF_INET
        } - {"127.0.0.1", "127.0.1.1"}
        for address in addresses:
            with socket.socket() as other:
                other.settimeout(1)
                assert other.connect_ex((address, port)) != 0
    finally:
        server.kill()
        server.wait()
