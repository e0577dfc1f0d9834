"""How a turn is shown: what the other doors render, reasoning folded, a command as `$ … → exit
N`, and "kept by Deja" on a turn only the index still has (the real `cn` compaction)."""

from __future__ import annotations

import pytest

from deja.query import History, TurnRecord
from deja.query.handoff import Launch
from deja.query.session_page import PageTurn, page_record
from deja.tui.actions import launch
from deja.tui.turn import KEPT_BY_DEJA, turn_blocks

COMPACTED = "46fc93d8-5750-4aed-8a33-3fd33ab775c6"


def record(role: str, **fields: object) -> TurnRecord:
    values: dict[str, object] = {
        "turn": 1, "role": role, "time": 0.0, "text": "", "tool": None, "status": None,
        "path": None, "exit_code": None, "output": None, "args": None, "hunks": [],
        "compacted": False,
    }  # fmt: skip
    values.update(fields)
    return TurnRecord(**values)  # type: ignore[arg-type]


def test_reasoning_is_folded_and_a_command_reads_as_typed() -> None:
    turn = PageTurn(1, 0.0, False, False)
    turn.records += [
        page_record(record("reasoning", text="think about it")),
        page_record(
            record("command", tool="Bash", args="make test", exit_code=2, output="1 failed")
        ),
        page_record(record("command", tool="Bash", args="rm -rf x", status="refused")),
    ]
    heading, reasoning, ran, refused = turn_blocks(turn)
    assert heading.markdown.startswith("### Turn 1 · ")
    assert (
        reasoning.folded
        and reasoning.title == "Reasoning"
        and "think about it" in (reasoning.markdown)
    )
    assert ran.markdown == "`$ make test` → exit 2\n\n```text\n1 failed\n```"
    assert refused.markdown == "`$ rm -rf x` → refused"


def test_a_cut_output_says_so() -> None:
    turn = PageTurn(1, 0.0, False, False)
    turn.records.append(page_record(record("command", args="seq 9999", output="1\n" * 5000)))
    assert "output cut at 4,000 of 10,000 characters" in turn_blocks(turn)[1].markdown


def test_a_compacted_turn_of_the_real_cn_store_is_kept_by_deja(history: History) -> None:
    page = history.session_page(COMPACTED, offset=0, limit=40, at_turn=None)
    kept = [turn for turn in page.turns if turn.compacted]
    assert kept, "cn's compaction left no compacted turn"
    assert KEPT_BY_DEJA in turn_blocks(kept[0])[0].markdown
    live = [turn for turn in page.turns if not turn.compacted]
    assert all(KEPT_BY_DEJA not in turn_blocks(turn)[0].markdown for turn in live)


def test_a_confirmed_launch_without_cn_on_path_says_the_line_to_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "")
    plan = Launch("cn --fork 08fbb9ac-e294", ["cn", "--fork", "08fbb9ac-e294"], None, [])
    assert launch(plan) == 1
    assert (
        capsys.readouterr().out
        == "deja: cn is not on PATH; run it yourself:\ncn --fork 08fbb9ac-e294\n"
    )
