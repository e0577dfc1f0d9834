"""The start of a child process's script that refuses every socket call and keeps what was
tried in `tried`, so a test can say a model loaded with no network attempt."""

from __future__ import annotations

BLOCK_SOCKETS = """
import json, socket
tried = []
def refuse(*args, **kwargs):
    tried.append(repr(args[:2]))
    raise OSError("network disabled by the test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
"""
