"""One request per input (`deja.operations`): the CLI, the sidecar and MCP keep the same bounds
and say the same line when an input breaks them; MCP's shipped schema accepts exactly what its
tools accept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from deja.errors import DejaError
from deja.lsp import options as lsp_options
from deja.lsp.export import export_result
from deja.lsp.params import Params
from deja.lsp.requests import search_result, session_result, sessions_result
from deja.lsp.restore import restore_result
from deja.lsp.session_view import session_view_result
from deja.mcp.definitions import FIELDS, tool_dicts
from deja.mcp.tools import Recall
from deja.operations import (
    LIMIT,
    LOCAL_SCOPES,
    RULES,
    SIDECAR_NAMES,
    FixRequest,
    RecoverRequest,
    RequestInvalid,
    SearchRequest,
    ShowRequest,
    from_json,
    from_options,
    json_schema,
)
from deja.query import History
from tests.support.cli_run import deja_env, run_deja
from tests.support.storebuilder import assistant, session_doc, user, write_session

WORKSPACE = "/w/shop"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Recall]]:
    root = tmp_path_factory.mktemp("operations")
    store, home = root / "store", root / "home"
    for n in range(3):
        turns = [user(f"flaky queue number {n}"), assistant("retry it")]
        write_session(store, session_doc(f"s-{n}", turns, workspace=WORKSPACE))
    recall = Recall(WORKSPACE, home=home, root=store)
    recall.start()
    assert recall.wait_indexed(60)
    yield store, home, recall
    recall.close()


def cli(world: tuple[Path, Path, Recall], *args: str) -> str | None:
    """The CLI's one error line, or None when it answered."""
    store, home, _ = world
    done = run_deja(deja_env(store, home), *args)
    if done.returncode == 0:
        return None
    assert done.returncode == 2, done.stderr  # a bad option value is a usage error
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr.strip().removeprefix("deja: ")


def typed(refusal: str | None) -> str | None:
    """The CLI's line: the same refusal, the option named as it is typed (`--limit`)."""
    return None if refusal is None else f"--{refusal}"


def lsp(world: tuple[Path, Path, Recall], method: str, params: dict[str, Any]) -> str | None:
    store, home, _ = world
    history = History(home, store)
    try:
        choice = history.scope_for(all_workspaces=True)
        if method == "deja/export":
            export_result(history, Params(method, params))
        elif method == "deja/restore":
            restore_result(history, Params(method, params), [WORKSPACE])
        elif method == "deja/session":
            session_result(history, Params(method, params))
        elif method == "deja/sessionView":
            session_view_result(history, Params(method, params))
        else:
            answer = search_result if method == "deja/search" else sessions_result
            answer(history, Params(method, params), choice)
    except DejaError as error:
        return error.message
    finally:
        history.close()
    return None


def mcp(world: tuple[Path, Path, Recall], tool: str, arguments: dict[str, Any]) -> str | None:
    text, error = world[2].answer(tool, arguments)
    return text if error else None


@pytest.mark.parametrize(
    ("limit", "refusal"),
    [
        (0, "limit must be a whole number from 1 to 500, not 0"),
        (501, "limit must be a whole number from 1 to 500, not 501"),
        (1, None),
        (200, None),
        (500, None),
    ],
)
def test_every_door_keeps_the_same_limit(
    world: tuple[Path, Path, Recall], limit: int, refusal: str | None
) -> None:
    """The CLI took any limit of 0 or more, MCP 1 to 20, the sidecar 1 to 500."""
    assert cli(world, "search", "queue", "--all", "--limit", str(limit)) == typed(refusal)
    assert cli(world, "sessions", "--all", "--limit", str(limit)) == typed(refusal)
    assert lsp(world, "deja/search", {"query": "queue", "limit": limit}) == refusal
    assert lsp(world, "deja/sessions", {"limit": limit}) == refusal
    assert mcp(world, "deja_search", {"query": "queue", "limit": limit}) == refusal
    assert mcp(world, "deja_file_history", {"path": "a.py", "limit": limit}) == refusal


def test_bad_input_reads_the_same_on_the_sidecar_and_mcp(world: tuple[Path, Path, Recall]) -> None:
    for arguments, refusal in [
        ({}, "query is required"),
        ({"query": "  "}, "query is required"),
        ({"query": 7}, "query must be a string, not 7"),
        ({"query": "q", "limit": True}, "limit must be a whole number from 1 to 500, not True"),
        ({"query": "q", "limit": "5"}, "limit must be a whole number from 1 to 500, not '5'"),
        ({"query": "q", "scope": "mine"}, "scope must be one of workspace, all, team, not 'mine'"),
        ({"query": "q", "since": 7}, "since must be a string, not 7"),
    ]:
        assert lsp(world, "deja/search", arguments) == refusal
        assert mcp(world, "deja_search", arguments) == refusal


def _values(schema: dict[str, Any]) -> list[Any]:
    """Values on both sides of a property's rules, and of other JSON types."""
    values: list[Any] = [True, 1.5, "", " ", "7d", "x", [], {}]
    values += [schema["minimum"] - 1, schema["minimum"]] if "minimum" in schema else [3]
    values += [schema["maximum"], schema["maximum"] + 1] if "maximum" in schema else []
    values += [*schema.get("enum", []), "everywhere"]
    return values


@pytest.mark.parametrize("tool", [tool["name"] for tool in tool_dicts()])
def test_the_shipped_schema_accepts_what_the_tool_accepts(tool: str) -> None:
    """Every argument on either side of a rule: the schema MCP ships and the tool's converter
    agree (the tools refused a blank query the schema allowed)."""
    shipped = next(t["inputSchema"] for t in tool_dicts() if t["name"] == tool)
    kind, fields = FIELDS[tool]
    assert shipped == json_schema(kind, fields)
    Draft202012Validator.check_schema(shipped)
    validator = Draft202012Validator(shipped)
    base = {name: "x" for name in shipped.get("required", [])}
    cases: list[dict[str, Any]] = [{}, base, {**base, "unknown": 1}]
    for name, schema in shipped["properties"].items():
        cases += [{**base, name: value} for value in _values(schema)]
    for arguments in cases:
        try:
            from_json(kind, arguments, fields=fields, moment=lambda text: 0.0)
            accepted = True
        except RequestInvalid:
            accepted = False
        assert validator.is_valid(arguments) == accepted, (tool, arguments)


def test_each_rule_names_a_field_of_its_request() -> None:
    for kind, rules in RULES.items():
        assert set(rules) <= set(kind._fields), kind  # type: ignore[attr-defined]


def test_the_cli_converter_reads_parsed_options() -> None:
    options = {"query": "queue", "limit": 10, "offset": 0, "all": True, "role": None}
    assert from_options(SearchRequest, options).limit == 10
    assert LIMIT.high is not None
    with pytest.raises(RequestInvalid, match=r"^limit must be a whole number from 1 to 500"):
        from_options(FixRequest, {"error": "boom", "limit": LIMIT.high + 1})


TURN_RANGE = "a whole number from 0 to 100000000"


@pytest.mark.parametrize(
    ("turn", "refusal"),
    [
        (-1, f"turn must be {TURN_RANGE}, not -1"),
        (100_000_001, f"turn must be {TURN_RANGE}, not 100000001"),
        ("x", f"turn must be {TURN_RANGE}, not 'x'"),
        ("1.5", f"turn must be {TURN_RANGE}, not '1.5'"),
    ],
)
def test_every_door_that_shows_a_session_keeps_the_same_turn(
    world: tuple[Path, Path, Recall], turn: int | str, refusal: str
) -> None:
    """`deja show --turn` took any number of 0 or more (argparse's own words for the rest),
    `deja/session` 0 to 10000 and the session view 0 to 100000000."""
    assert cli(world, "show", "s-0", "--turn", str(turn)) == typed(refusal)
    assert lsp(world, "deja/session", {"sessionId": "s-0", "turn": turn}) == refusal
    assert lsp(world, "deja/sessionView", {"sessionId": "s-0", "turn": turn}) == refusal


def test_a_shown_session_is_read_by_every_door(world: tuple[Path, Path, Recall]) -> None:
    assert cli(world, "show", "s-0") is None
    assert cli(world, "show", "s-0", "--turn", "0") is None
    assert lsp(world, "deja/session", {"sessionId": "s-0"}) is None
    assert lsp(world, "deja/sessionView", {"sessionId": "s-0", "limit": 500}) is None
    assert lsp(world, "deja/sessionView", {"sessionId": "  "}) == "sessionId is required"
    assert lsp(world, "deja/session", {"session": "s-0"}) == "sessionId is required"


@pytest.mark.parametrize("limit", ["x", "-1", "0", "501", "2.5"])
def test_a_limit_that_is_no_number_reads_the_same_on_every_door(
    world: tuple[Path, Path, Recall], limit: str
) -> None:
    """The CLI said argparse's `invalid positive value: 'x'` (with its usage line), or `must be
    0 or more`; the sidecar's session view checked its page size by hand."""
    value: int | str = int(limit) if limit.lstrip("-").isdigit() else limit
    refusal = f"limit must be a whole number from 1 to 500, not {value!r}"
    assert cli(world, "search", "queue", "--all", "--limit", limit) == typed(refusal)
    assert cli(world, "sessions", "--all", "--limit", limit) == typed(refusal)
    assert cli(world, "fix", "boom", "--limit", limit) == typed(refusal)
    assert cli(world, "files", "queue", "--limit", limit) == typed(refusal)
    assert cli(world, "blame", "a.py", "--limit", limit) == typed(refusal)
    assert lsp(world, "deja/search", {"query": "queue", "limit": value}) == refusal
    assert lsp(world, "deja/sessions", {"limit": value}) == refusal
    assert lsp(world, "deja/sessionView", {"sessionId": "s-0", "limit": value}) == refusal
    assert mcp(world, "deja_search", {"query": "queue", "limit": value}) == refusal
    assert mcp(world, "deja_file_history", {"path": "a.py", "limit": value}) == refusal


def test_an_offset_reads_the_same_on_the_cli_and_the_sidecar(
    world: tuple[Path, Path, Recall],
) -> None:
    refusal = "offset must be a whole number from 0 to 1000000, not -1"
    assert cli(world, "search", "queue", "--all", "--offset", "-1") == typed(refusal)
    assert cli(world, "sessions", "--all", "--offset", "-1") == typed(refusal)
    assert lsp(world, "deja/search", {"query": "queue", "offset": -1}) == refusal
    assert lsp(world, "deja/sessions", {"offset": -1}) == refusal


def test_each_door_names_the_session_field_its_own_way_in_one_place() -> None:
    """The CLI's `ID` is `session_id`, the sidecar's `sessionId`: both are the request's
    `session`, and the sidecar's refusal names the key it sent."""
    assert from_options(ShowRequest, {"session_id": "s-1", "turn": 3, "full": True}) == (
        ShowRequest("s-1", turn=3)
    )
    sent = {"sessionId": "s-1", "turn": 3, "count": True}
    assert from_json(ShowRequest, sent, names=SIDECAR_NAMES) == ShowRequest("s-1", turn=3)
    with pytest.raises(RequestInvalid, match=r"^sessionId is required$"):
        from_json(ShowRequest, {"session": "s-1"}, names=SIDECAR_NAMES)
    with pytest.raises(RequestInvalid, match=r"^count must be true or false, not 'yes'$"):
        from_json(SearchRequest, {"query": "q", "count": "yes"}, names=SIDECAR_NAMES)
    assert from_json(SearchRequest, {"query": "q", "count": True}, names=SIDECAR_NAMES).count_all
    recover = {"session_id": "s-1", "copy": False, "dry_run": True}
    assert from_options(RecoverRequest, recover) == RecoverRequest("s-1", dry_run=True)
    with pytest.raises(RequestInvalid, match=r"^dryRun must be true or false, not 'yes'$"):
        from_json(RecoverRequest, {"sessionId": "s-1", "dryRun": "yes"}, names=SIDECAR_NAMES)


def test_the_sidecar_options_take_the_scopes_every_request_takes() -> None:
    assert lsp_options.SCOPES is LOCAL_SCOPES
    assert RULES[ShowRequest]["limit"] is LIMIT


def test_an_export_format_reads_the_same_on_the_cli_and_the_sidecar(
    world: tuple[Path, Path, Recall],
) -> None:
    """The CLI's was argparse's `invalid choice: 'pdf' (choose from md, html, json)`."""
    refusal = "format must be one of md, html, json, not 'pdf'"
    assert cli(world, "export", "s-0", "--format", "pdf") == typed(refusal)
    assert lsp(world, "deja/export", {"sessionId": "s-0", "format": "pdf"}) == refusal
    assert cli(world, "export", "s-0", "--format", "json") is None
    assert lsp(world, "deja/export", {"sessionId": "s-0", "format": "html"}) is None
    assert lsp(world, "deja/export", {"format": "md"}) == "sessionId is required"


def test_a_restore_reads_its_session_and_scope_through_one_request(
    world: tuple[Path, Path, Recall],
) -> None:
    assert lsp(world, "deja/restore", {"scope": "mine"}) == (
        "scope must be one of workspace, all, not 'mine'"
    )
    assert lsp(world, "deja/restore", {"sessionId": 7}) == "sessionId must be a string, not 7"
    assert mcp(world, "deja_restore", {"session": 7}) == "session must be a string, not 7"
    assert lsp(world, "deja/restore", {"sessionId": "s-0", "scope": "all"}) is None
    assert cli(world, "restore", "--session", "s-0") is None


def test_the_cli_reads_an_option_of_the_fields_own_name_first() -> None:
    """`deja search --session` is the request's `session`; `deja show ID` (`session_id`) too."""
    options = {"query": "q", "session": "s-1", "limit": 10, "offset": 0}
    assert from_options(SearchRequest, options).session == "s-1"
