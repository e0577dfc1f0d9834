"""The contract with the VS Code extension: every `deja/…` result and notification it parses, as
the real sidecar sends it, kept in `editor-extension/test/fixtures/protocol/`. There the
TypeScript unit tests assign each fixture to its `protocol.ts` type (tsc fails on a missing or
mistyped field) and pass it through the code that reads it. A change to a shape here fails until
the fixtures are rewritten (`DEJA_UPDATE_FIXTURES=1`), and so the TypeScript side checks it."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from deja.lsp.params import plain
from deja.query import HIGHLIGHT_END, HIGHLIGHT_START
from deja.wire import snippet_highlights
from tests.lsp.conftest import (
    EDIT_SESSION,
    FORK_SESSION,
    FORK_STARTED,
    OTHER_SESSION,
    SERVER,
    World,
    first_pass,
    fork_doc,
    make_world,
    until,
)
from tests.support.doctor_contract import doctor_fixture
from tests.support.storebuilder import write_session

FIXTURES = Path(__file__).parents[2] / "editor-extension" / "test" / "fixtures" / "protocol"
UPDATE = os.environ.get("DEJA_UPDATE_FIXTURES") == "1"
# Where the world stands in the fixtures, instead of this run's temporary folder.
BASE = "/home/u"
# A session file's modification time is its last activity: fixed, the edit session the newest.
MTIMES = {EDIT_SESSION: 1_763_026_200.0, OTHER_SESSION: 1_762_939_800.0}  # 11-13, 11-12 2025
FORK_MTIME = 1_763_112_600.0  # 11-14 2025
# Numbers that follow from the length of this run's folder (file sizes, BM25 scores of paths).
VARYING = {"size": 9834, "score": 4.21}
# In rendered markdown: ages (they follow the clock) and sizes (the folder's length).
AGES = re.compile(r"\b(?:\d+ [a-z]+ ago|just now)\b")
SIZES = re.compile(r"\b\d+(?:\.\d+)? (?:B|KB|MB)\b")


class Recorder:
    """A pytest-lsp client that keeps Deja's notifications exactly as they came."""

    def __init__(self, lsp: LanguageClient) -> None:
        self.lsp = lsp
        self.notifications: dict[str, list[Any]] = {}
        for method in ("deja/indexChanged", "deja/storeStatus"):
            self.notifications[method] = []
            lsp.feature(method)(self._recorder(method))

    def _recorder(self, method: str) -> Any:
        def record(params: Any) -> None:
            self.notifications[method].append(plain(params))

        return record

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        return plain(await self.lsp.protocol.send_request_async(method, params))


def normalise(value: Any, world: World, key: str = "") -> Any:
    """This run's folder as `BASE` (also where a snippet starts inside it), and what follows
    from its length or the clock fixed."""
    if key in VARYING:
        return VARYING[key]
    if isinstance(value, dict):
        fixed = {name: normalise(item, world, name) for name, item in value.items()}
        if "highlights" in fixed:  # offsets into a snippet whose start follows the folder
            text, spans = snippet_highlights(marked(fixed["snippet"]))
            fixed["snippet_text"], fixed["highlights"] = text, spans
        return fixed
    if isinstance(value, list):
        return [normalise(item, world) for item in value]
    if not isinstance(value, str):
        return value
    base = str(world.base)
    text = value.replace(world.base.as_uri(), f"file://{BASE}").replace(base, BASE)
    cut = next((base[i:] for i in range(1, len(base)) if f"…{base[i:]}/" in text), None)
    if cut is not None:
        text = text.replace(f"…{cut}", f"…{BASE[-1]}")
    if key == "markdown":
        text = SIZES.sub("9.6 KB", AGES.sub("3 days ago", text))
    return text


def marked(snippet: str) -> str:
    """A markdown snippet's `**` pairs as the index's match markers again."""
    parts = snippet.split("**")
    marks = [HIGHLIGHT_START if i % 2 == 0 else HIGHLIGHT_END for i in range(len(parts) - 1)]
    return "".join(part + mark for part, mark in zip(parts, [*marks, ""], strict=True))


async def results(world: World) -> dict[str, Any]:
    """Each fixture's name and what the sidecar sent for it."""
    config = ClientServerConfig(server_command=SERVER, server_env=world.env)
    lsp = await config.start()
    assert isinstance(lsp, LanguageClient)
    client = Recorder(lsp)
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            initialization_options={"notifications": True},
            workspace_folders=[types.WorkspaceFolder(world.project.as_uri(), "proj")],
        )
    )
    try:
        await first_pass(lsp)
        changes = client.notifications["deja/indexChanged"]
        await until(lambda: changes, what="deja/indexChanged")
        found = {
            "search": await client.request("deja/search", {"query": "parse_config", "count": True}),
            "search-approximate": await client.request(
                "deja/search", {"query": "helth", "scope": "all"}
            ),
            "sessions": await client.request("deja/sessions", {"scope": "all"}),
            "session": await client.request("deja/session", {"sessionId": EDIT_SESSION}),
            "sessionView": await client.request("deja/sessionView", {"sessionId": EDIT_SESSION}),
            "fileHistory": await client.request(
                "deja/fileHistory", {"uri": world.config_py.as_uri()}
            ),
            "forkCommand": await client.request("deja/forkCommand", {"sessionId": EDIT_SESSION}),
            "restore-listing": await client.request("deja/restore", {"scope": "all"}),
            "restore-transcript": await client.request("deja/restore", {"sessionId": EDIT_SESSION}),
            "fix": await client.request(
                "deja/fix", {"error": "ModuleNotFoundError: No module named 'yaml'"}
            ),
            "files": await client.request("deja/files", {"topic": "parse_config", "scope": "all"}),
            "teamStatus": await client.request("deja/teamStatus", {}),
            "indexChanged": changes[0],
        }
        found.update(await store_statuses(world, client))
        found.update(await fork_case(world, client))
        found.update(await share_case(world, client))
    finally:
        await lsp.shutdown_session()
        await lsp.stop()
    return found


async def store_statuses(world: World, client: Recorder) -> dict[str, Any]:
    """The store taken away (passes refused) and put back (applied again)."""
    statuses = client.notifications["deja/storeStatus"]
    sessions, aside = world.store / "sessions", world.base / "aside"
    sessions.rename(aside)
    await until(lambda: statuses, what="deja/storeStatus refused")
    aside.rename(sessions)
    await until(lambda: len(statuses) > 1, what="deja/storeStatus applied again")
    return {"storeStatus-refused": statuses[0], "storeStatus-applied": statuses[1]}


async def fork_case(world: World, client: Recorder) -> dict[str, Any]:
    """A `cn --fork` of the edit session arrives: its session carries `forked_from`."""
    changes = client.notifications["deja/indexChanged"]
    path = write_session(world.store, fork_doc(world), date_created=FORK_STARTED)
    os.utime(path, (FORK_MTIME, FORK_MTIME))
    await until(lambda: any(FORK_SESSION in c["sessions"] for c in changes), what="the fork")
    return {
        "session-fork": await client.request("deja/session", {"sessionId": FORK_SESSION}),
        "sessionView-fork": await client.request("deja/sessionView", {"sessionId": FORK_SESSION}),
    }


# What follows from the clock or a fresh uuid in a recovery, fixed.
RECOVERED_ID = "9f1c2d3e-0000-4000-8000-000000000009"
RECOVERED_CREATED = "1763112600000"


async def share_case(world: World, client: Recorder) -> dict[str, Any]:
    """The other session's file deleted: what only Deja holds, a dry-run recovery of it (nothing
    written), and its Markdown export; then the file is put back as it was."""
    path = world.store / "sessions" / f"{OTHER_SESSION}.json"
    data, mtime = path.read_bytes(), path.stat().st_mtime
    path.unlink()

    async def lost() -> Any:
        return await client.request("deja/lostSessions", {"scope": "all"})

    for _ in range(500):  # until the sidecar's watcher has seen the deletion
        if (await lost())["sessions"]:
            break
        await asyncio.sleep(0.02)
    recovered = await client.request("deja/recover", {"sessionId": OTHER_SESSION, "dryRun": True})
    recovered = json.loads(json.dumps(recovered).replace(recovered["new_id"], RECOVERED_ID))
    recovered["entry"]["dateCreated"] = RECOVERED_CREATED
    exported = await client.request("deja/export", {"sessionId": OTHER_SESSION})
    exported["text"] = SIZES.sub("9.6 KB", AGES.sub("3 days ago", exported["text"]))
    found = {"lostSessions": await lost(), "recover-dryRun": recovered, "export-md": exported}
    path.write_bytes(data)
    os.utime(path, (mtime, mtime))
    return found


async def test_fixtures_are_what_the_sidecar_sends(steady_path: Path) -> None:
    # Not `tmp_path`: sizes, text lengths and snippet windows follow the folder's path.
    world = make_world(steady_path)
    # No team connection, whatever ~ holds.
    world.env["XDG_CONFIG_HOME"] = str(steady_path / "config")
    for session, mtime in MTIMES.items():
        os.utime(world.store / "sessions" / f"{session}.json", (mtime, mtime))
    produced = {
        name: json.dumps(normalise(value, world), indent=2, ensure_ascii=False) + "\n"
        for name, value in (await results(world)).items()
    }
    doctor = json.dumps(doctor_fixture(world, BASE), indent=2, ensure_ascii=False)
    produced["doctor"] = doctor + "\n"
    if UPDATE:
        FIXTURES.mkdir(parents=True, exist_ok=True)
        for name, text in produced.items():
            (FIXTURES / f"{name}.json").write_text(text, encoding="utf-8")
    committed = {path.stem: path.read_text(encoding="utf-8") for path in FIXTURES.glob("*.json")}
    assert committed == produced, (
        "a deja/… shape changed: rewrite the fixtures with DEJA_UPDATE_FIXTURES=1, then make "
        "editor-extension/src/shared/protocol.ts agree (its unit tests type-check every fixture)"
    )
