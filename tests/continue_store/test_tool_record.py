"""A tool call's record reads each part of the call once: a read keeps only the head and tail
of its output, so only that is redacted (a read's output is a whole file)."""

from __future__ import annotations

from deja.continue_store.redact import redact
from deja.continue_store.tool_calls import tool_record


def state(name: str, args: dict[str, str], output: str) -> dict[str, object]:
    return {
        "toolCall": {"function": {"name": name, "arguments": ""}},
        "parsedArgs": args,
        "status": "done",
        "output": [{"content": output}],
    }


def test_a_read_redacts_only_the_output_it_keeps() -> None:
    seen: list[int] = []

    def recording(text: str) -> str:
        seen.append(len(text))
        return redact(text)

    body = "line of a file sk-" + "A1b2" * 10 + "\n"
    record = tool_record(
        state("Read", {"filepath": "src/app.py"}, body * 2_000),
        turn=0,
        time=0.0,
        workspace="/w",
        fallback_output="",
        redact=recording,
    )
    assert record.role == "read" and record.text == "Read /w/src/app.py"
    assert record.output is not None and "[redacted:api-key]" in record.output
    assert "sk-A1b2" not in record.output and len(record.output) < 2_100
    assert max(seen) < 2_100  # never the 16,000 characters a command's output keeps


def test_a_command_keeps_and_redacts_more_of_its_output() -> None:
    record = tool_record(
        state("Bash", {"command": "cat .env"}, "TOKEN=sk-" + "A1b2" * 10 + "\n" + "x" * 20_000),
        turn=0,
        time=0.0,
        workspace="/w",
        fallback_output="",
        redact=redact,
    )
    assert record.role == "command" and record.output is not None
    assert "sk-A1b2" not in record.output and 15_000 < len(record.output) < 17_000
