"""`deja serve --tcp PORT` (for debugging) listens on 127.0.0.1 only, speaking the same protocol."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities
from pytest_lsp.client import make_test_lsp_client

from tests.lsp.conftest import EDIT_SESSION, SERVER, World, first_pass, plain, until

PROC_NET = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
LISTEN = "0A"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening_on(port: int) -> set[str]:
    """Addresses with a listening socket on `port`, from the kernel's table (no connection made:
    the debug server serves one connection and then stops)."""
    found: set[str] = set()
    for table in PROC_NET:
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == LISTEN and int(hex_port, 16) == port:
                raw = bytes.fromhex(address)
                # The kernel writes each 32-bit word in host (little-endian) order.
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
                family = socket.AF_INET if len(raw) == 4 else socket.AF_INET6
                found.add(socket.inet_ntop(family, words))
    return found


@pytest.mark.skipif(not PROC_NET[0].exists(), reason="reads Linux's /proc/net/tcp")
async def test_tcp_binds_loopback_only(world: World) -> None:
    port = free_port()
    server = await asyncio.create_subprocess_exec(
        *SERVER, "--tcp", str(port), env=world.env, stderr=asyncio.subprocess.PIPE
    )
    try:
        assert server.stderr is not None
        line = await asyncio.wait_for(server.stderr.readline(), 30)
        assert f"listening on 127.0.0.1:{port}" in line.decode()
        await until(lambda: listening_on(port), timeout=30, what="the listening socket")
        assert listening_on(port) == {"127.0.0.1"}
        client = make_test_lsp_client()
        await client.start_tcp("127.0.0.1", port)
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                workspace_folders=[types.WorkspaceFolder(world.project.as_uri(), "proj")],
            )
        )
        await first_pass(client)
        sessions = plain(await client.protocol.send_request_async("deja/sessions", {}))
        assert [s["id"] for s in sessions["sessions"]] == [EDIT_SESSION]
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        assert await asyncio.wait_for(server.wait(), 30) == 0
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
