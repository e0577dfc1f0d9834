"""The sidecar: one pygls language server for every editor, over stdio (or TCP on 127.0.0.1)."""

from __future__ import annotations

import logging
import sys

from . import (
    actions,
    commands,
    export,
    fix_files,
    hover,
    lens,
    lifecycle,
    protocol,
    recover,
    requests,
    restore,
    session_view,
)
from .context import DejaServer

LOOPBACK = "127.0.0.1"
# The live index's thread holds the GIL for most of a pass (each stat a release the waiting loop
# seldom wins); after Python's default switch interval a request waits up to that per
# hand-over, which sets a hover's slowest answers. A request asks the GIL back sooner.
SWITCH_INTERVAL_S = 0.0005


def create_server() -> DejaServer:
    server = DejaServer()
    protocol.install(server)
    for feature in (
        lifecycle,
        requests,
        restore,
        session_view,
        fix_files,
        hover,
        lens,
        commands,
        actions,
        recover,
        export,
    ):
        feature.register(server)
    return server


def serve(tcp_port: int | None = None) -> None:
    # stdout is the protocol's: anything else Deja or pygls says goes to stderr.
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="deja serve: %(name)s: %(message)s"
    )
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    server = create_server()
    if tcp_port is None:
        server.start_io()
        return
    print(f"deja serve: listening on {LOOPBACK}:{tcp_port}", file=sys.stderr, flush=True)
    server.start_tcp(LOOPBACK, tcp_port)
