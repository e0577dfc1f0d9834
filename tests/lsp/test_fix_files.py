"""`deja/fix` and `deja/files` from the real sidecar: the same answer as the core's, the
markdown the extension shows, and bad parameters answered as InvalidParams."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from pygls.exceptions import JsonRpcInvalidParams

from deja.query import History, Scope
from deja.wire import fix_json
from tests.lsp.conftest import EDIT_SESSION, OTHER_SESSION, Client, World, make_world, start, stop
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

pytestmark = pytest.mark.asyncio(loop_scope="module")
FIXED_SESSION = "5c0ffee0-3333-4aaa-8bbb-000000000003"
MISSING_YAML = (
    "Error executing tool Bash: Error (exit code 1)\nModuleNotFoundError: No module named 'yaml'"
)


def fixed_session(project: Path) -> dict[str, object]:
    """The error the other session left, fixed: a pip install, then the script runs."""

    def bash(command: str, output: str, call_id: str, status: str = "done") -> object:
        return assistant("", [call("Bash", {"command": command}, output, status, call_id)])

    return session_doc(
        FIXED_SESSION,
        [
            user("the health check crashes"),
            bash("python health.py", MISSING_YAML, "f1", "errored"),
            bash("pip install pyyaml", "Successfully installed", "f2"),
            bash("python health.py", "ok", "f3"),
        ],
        title="Health check crash",
        workspace=project.as_uri(),
    )


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    made = make_world(tmp_path_factory.mktemp("lsp-fix"))
    write_session(made.store, fixed_session(made.project))
    return made


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(world: World) -> AsyncIterator[Client]:
    started = await start(world)
    await started.indexed()
    yield started
    await stop(started)


async def test_fix_answers_as_the_core_does(client: Client, world: World) -> None:
    asked = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'yaml'"
    reply = await client.request("deja/fix", {"error": asked})
    assert [f["session_id"] for f in reply["failures"]] == [FIXED_SESSION, OTHER_SESSION]
    fixed, never = reply["failures"]
    assert fixed["confirmed"] and [s["what"] for s in fixed["steps"]] == ["pip install pyyaml"]
    assert not never["fixed"]
    markdown = reply.pop("markdown")
    assert markdown.startswith("```text\nerror signature: ModuleNotFoundError")
    assert "never fixed in that session" in markdown
    history = History(world.home, world.store)
    try:
        assert reply == fix_json(history.fix(asked, Scope(), limit=5))
    finally:
        history.close()


async def test_files_answers_the_topic(client: Client) -> None:
    reply = await client.request("deja/files", {"topic": "parse_config", "scope": "all"})
    assert [f["relative"] for f in reply["files"]] == ["src/config.py", "CHANGELOG.md"]
    assert reply["files"][0]["sessions"][0]["session_id"] == EDIT_SESSION
    assert "src/config.py · 1 edit, 1 read" in reply["markdown"]


async def test_bad_parameters_are_invalid_params(client: Client) -> None:
    with pytest.raises(JsonRpcInvalidParams, match="deja/fix: error is required"):
        await client.request("deja/fix", {})
    with pytest.raises(JsonRpcInvalidParams, match="error must be a string"):
        await client.request("deja/fix", {"error": 5})
    with pytest.raises(JsonRpcInvalidParams, match="deja/files: topic is required"):
        await client.request("deja/files", {"topic": "  "})
    with pytest.raises(JsonRpcInvalidParams, match="nothing in it says what failed"):
        await client.request("deja/fix", {"error": "   ...   "})
    assert (await client.request("deja/fix", {"error": MISSING_YAML}))["failures"]
