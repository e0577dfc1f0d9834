"""The recall store: a generated Continue store (`bench/make_store.py`, the noise) with one
session per topic of `topics.py` added, shaped as the CLI writes them (`fixtures/continue_builder`),
and the questions with the session that answers each. Deterministic: same seed, same bytes."""

from __future__ import annotations

import argparse
import json
import os
import random
import uuid
from dataclasses import dataclass
from pathlib import Path

from fixtures.continue_builder import assistant, session_doc, tool_output, tool_state, user

from bench.make_store import make_store

from .topics import TOPICS

# Where the recall stores are written by default: bench/out/recall-<noise>M-<seed>.
OUT = Path(__file__).resolve().parent.parent / "out"
PROJECTS = ("/home/dev/shop", "/home/dev/api-gateway", "/home/dev/dashboard", "/home/dev/billing")
# Small talk that every session has, so a topic's session is not just its two key sentences.
_OPENERS = (
    "Let me look at the relevant code first.",
    "I'll start by reading the module and running the tests.",
    "First I checked where this is handled.",
)
_CLOSERS = (
    "Thanks, that works now.",
    "Great, tests pass on my side too.",
    "Looks good, let's commit it.",
)
_COMMANDS = ("pytest -q", "npm test", "make check", "pytest tests -x")


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    kind: str  # "paraphrase" | "exact"
    answers: tuple[str, ...]  # session ids


def _topic_session(rng: random.Random, index: int, topic_id: str, t) -> dict[str, object]:  # type: ignore[no-untyped-def]
    command = rng.choice(_COMMANDS)
    call = tool_state(
        f"call_{index}",
        "Bash",
        {"command": command},
        tool_output(f"{rng.randint(12, 240)} passed in {rng.uniform(0.5, 9):.2f}s"),
    )
    history = [
        user(t.request),
        assistant(rng.choice(_OPENERS), states=[call]),
        assistant(t.reply),
        user(rng.choice(_CLOSERS)),
        assistant("Committed the change with a short message describing it."),
    ]
    title = t.request.split(".")[0][:60]
    return session_doc(topic_id, history, title=title, workspace=rng.choice(PROJECTS))


def make_recall_store(out: Path, seed: int = 1, noise_bytes: int = 40 << 20) -> list[Question]:
    """Writes the store under `out` (once: an existing one is reused) and `questions.json`."""
    questions_path = out / "questions.json"
    if questions_path.exists():
        return load_questions(questions_path)
    make_store(out, noise_bytes, seed)
    rng = random.Random(seed)
    sessions = out / "sessions"
    listing = json.loads((sessions / "sessions.json").read_text())
    base_ms = int(listing[-1]["dateCreated"]) if listing[-1]["dateCreated"].isdigit() else 0
    questions: list[Question] = []
    for index, topic in enumerate(TOPICS):
        topic_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        doc = _topic_session(rng, index, topic_id, topic)
        path = sessions / f"{topic_id}.json"
        path.write_text(json.dumps(doc, indent=2))
        created = base_ms - rng.randint(0, 90 * 86_400_000)
        os.utime(path, ns=(created * 1_000_000, created * 1_000_000))
        listing.append(
            {
                "sessionId": topic_id,
                "title": doc["title"],
                "dateCreated": str(created),
                "workspaceDirectory": doc["workspaceDirectory"],
                "messageCount": len(doc["history"]),  # type: ignore[arg-type]
            }
        )
        questions += [Question(text, "paraphrase", (topic_id,)) for text in topic.paraphrases]
        questions.append(Question(topic.exact, "exact", (topic_id,)))
    (sessions / "sessions.json").write_text(json.dumps(listing, indent=2))
    questions_path.write_text(
        json.dumps(
            [{"text": q.text, "kind": q.kind, "answers": list(q.answers)} for q in questions],
            indent=2,
        )
    )
    return questions


def load_questions(path: Path) -> list[Question]:
    return [
        Question(q["text"], q["kind"], tuple(q["answers"])) for q in json.loads(path.read_text())
    ]


def add_store_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every recall script takes to choose its store."""
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--quick", action="store_true", help="8 MB of noise instead of 64 MB")


def recall_store(args: argparse.Namespace) -> tuple[Path, list[Question]]:
    """The store the options name (written once) and its questions."""
    noise = (8 if args.quick else 64) << 20
    store = args.out / f"recall-{noise >> 20}M-{args.seed}"
    return store, make_recall_store(store, args.seed, noise)
