"""Scripted scenarios for the real ``cn``: shared by the tests and the fixture capture script.

A :class:`Scenario` is one or more ``cn -p --auto`` runs (:class:`Step`) in one workspace and one
store, each answered by the scripted :class:`~tests.support.fake_model.FakeModel`.
:func:`run_scenario` runs it and returns where everything landed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cn_run import DEFAULT_MODEL, MULTIEDIT_MODEL, run_cn
from .fake_model import (
    FakeModel,
    Reply,
    ToolCall,
    is_compaction_request,
    text_reply,
    tool_reply,
)

__all__ = [
    "FIXTURES_DIR",
    "SCENARIOS",
    "Scenario",
    "ScenarioRun",
    "Step",
    "StepResult",
    "load_json",
    "run_scenario",
    "store_files",
]


@dataclass(frozen=True)
class Step:
    """One ``cn`` invocation. ``compaction_summary`` answers cn's summarise request (if any)."""

    prompt: str
    replies: tuple[Reply, ...]
    extra_args: tuple[str, ...] = ()
    context_length: int | None = None
    max_tokens: int | None = None
    compaction_summary: str | None = None
    snapshot_before: bool = False  # copy <root>/sessions to snapshots/before first


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    steps: tuple[Step, ...]
    model: str = DEFAULT_MODEL
    files: Mapping[str, str] = field(default_factory=dict)  # workspace files created first


@dataclass
class StepResult:
    step: Step
    proc: subprocess.CompletedProcess[str]
    requests: list[dict[str, Any]]
    replies_left: int
    hook_errors: list[Exception]

    @property
    def compaction_requests(self) -> list[dict[str, Any]]:
        return [body for body in self.requests if is_compaction_request(body)]


@dataclass
class ScenarioRun:
    scenario: Scenario
    base: Path
    root: Path
    home: Path
    workspace: Path
    steps: list[StepResult]
    snapshots: dict[str, Path]  # name -> a copy of a `sessions` folder

    @property
    def sessions_dir(self) -> Path:
        return self.root / "sessions"

    def session_files(self, sessions_dir: Path | None = None) -> list[Path]:
        return store_files(sessions_dir or self.sessions_dir)

    def session(self, sessions_dir: Path | None = None) -> dict[str, Any]:
        """The one session document in the store (fails if there is not exactly one)."""
        files = self.session_files(sessions_dir)
        if len(files) != 1:
            raise AssertionError(f"expected one session file, found {[f.name for f in files]}")
        document = load_json(files[0])
        assert isinstance(document, dict)
        return document

    def sessions_list(self, sessions_dir: Path | None = None) -> list[dict[str, Any]]:
        listing = load_json((sessions_dir or self.sessions_dir) / "sessions.json")
        assert isinstance(listing, list)
        return listing


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def store_files(sessions_dir: Path) -> list[Path]:
    """The session documents in a ``sessions`` folder (without ``sessions.json``), sorted."""
    if not sessions_dir.is_dir():
        return []
    return sorted(p for p in sessions_dir.glob("*.json") if p.name != "sessions.json")


# Where tests/support/capture_real_cn.py saves what the real cn wrote for each scenario.
FIXTURES_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "real-cn"

APP_PY = "def greet():\n    return 'hello'\n\n\nprint(greet())\n"
LISTING_LINES = 340
COMPACTION_SUMMARY = (
    "Summary: the user asked for a long listing; I ran `seq` with Bash and it printed "
    f"{LISTING_LINES} numbered lines. The user then asked for the next step."
)

SCENARIOS: dict[str, Scenario] = {
    scenario.name: scenario
    for scenario in (
        Scenario(
            name="bash_ok",
            description="Bash `echo hello` succeeds (exit 0); the model reports token usage.",
            steps=(
                Step(
                    prompt="Run echo hello in the shell.",
                    replies=(
                        tool_reply(
                            ToolCall("Bash", {"command": "echo hello"}, id="call_bash_ok_1"),
                            prompt_tokens=1200,
                        ),
                        text_reply("The command printed hello.", prompt_tokens=1300),
                    ),
                ),
            ),
        ),
        Scenario(
            name="bash_fail",
            description=(
                "Bash `sh -c 'echo oops >&2; exit 3'` (non-zero exit with stderr: errored), then "
                "`sh -c 'echo partial; exit 3'` (non-zero exit, empty stderr: done)."
            ),
            steps=(
                Step(
                    prompt="Run the failing script and then the quiet one.",
                    replies=(
                        tool_reply(
                            ToolCall(
                                "Bash",
                                {"command": "sh -c 'echo oops >&2; exit 3'"},
                                id="call_bash_fail_1",
                            )
                        ),
                        tool_reply(
                            ToolCall(
                                "Bash",
                                {"command": "sh -c 'echo partial; exit 3'"},
                                id="call_bash_fail_2",
                            )
                        ),
                        text_reply("Both commands exited with code 3."),
                    ),
                ),
            ),
        ),
        Scenario(
            name="write_new_file",
            description="Write creates notes.txt (a relative path) in the workspace.",
            steps=(
                Step(
                    prompt="Create notes.txt with two lines.",
                    replies=(
                        tool_reply(
                            ToolCall(
                                "Write",
                                {"filepath": "notes.txt", "content": "line one\nline two\n"},
                                id="call_write_1",
                            )
                        ),
                        text_reply("Created notes.txt."),
                    ),
                ),
            ),
        ),
        Scenario(
            name="read_edit",
            description="Read app.py, then Edit it (model name not 'capable': cn offers Edit).",
            files={"app.py": APP_PY},
            steps=(
                Step(
                    prompt="Make greet() return 'hello, world'.",
                    replies=(
                        tool_reply(ToolCall("Read", {"filepath": "app.py"}, id="call_read_1")),
                        tool_reply(
                            ToolCall(
                                "Edit",
                                {
                                    "file_path": "app.py",
                                    "old_string": "return 'hello'",
                                    "new_string": "return 'hello, world'",
                                },
                                id="call_edit_1",
                            )
                        ),
                        text_reply("greet() now returns 'hello, world'."),
                    ),
                ),
            ),
        ),
        Scenario(
            name="read_multiedit",
            description=(
                f"Read app.py, then MultiEdit with two edits (model {MULTIEDIT_MODEL!r}: cn "
                "offers MultiEdit instead of Edit)."
            ),
            model=MULTIEDIT_MODEL,
            files={"app.py": APP_PY},
            steps=(
                Step(
                    prompt="Rename greet to greet_all everywhere in app.py.",
                    replies=(
                        tool_reply(ToolCall("Read", {"filepath": "app.py"}, id="call_read_2")),
                        tool_reply(
                            ToolCall(
                                "MultiEdit",
                                {
                                    "file_path": "app.py",
                                    "edits": [
                                        {
                                            "old_string": "def greet(",
                                            "new_string": "def greet_all(",
                                        },
                                        {
                                            "old_string": "print(greet())",
                                            "new_string": "print(greet_all())",
                                        },
                                    ],
                                },
                                id="call_multiedit_1",
                            )
                        ),
                        text_reply("Renamed greet to greet_all."),
                    ),
                ),
            ),
        ),
        Scenario(
            name="parallel_tools",
            description=(
                "One assistant turn with two parallel tool calls: Bash `echo one` (done) and Read "
                "of a missing file (errored)."
            ),
            steps=(
                Step(
                    prompt="Echo one and read missing.txt.",
                    replies=(
                        tool_reply(
                            ToolCall("Bash", {"command": "echo one"}, id="call_par_bash"),
                            ToolCall("Read", {"filepath": "missing.txt"}, id="call_par_read"),
                        ),
                        text_reply("one was echoed; missing.txt does not exist."),
                    ),
                ),
            ),
        ),
        Scenario(
            name="tool_errors",
            description=(
                "A call to an unknown tool (errored: `Tool NoSuchTool not found`), then a Bash "
                "call whose arguments are not valid JSON (stored as `{}`; errored: missing "
                "`command`)."
            ),
            steps=(
                Step(
                    prompt="Try the odd tools.",
                    replies=(
                        tool_reply(ToolCall("NoSuchTool", {"x": 1}, id="call_unknown_1")),
                        tool_reply(ToolCall("Bash", '{"command": "echo hi"', id="call_badargs_1")),
                        text_reply("Both tool calls failed."),
                    ),
                ),
            ),
        ),
        Scenario(
            name="compaction",
            description=(
                "Run 1 (default context): Bash prints a long listing. Run 2: `cn --resume` with "
                "contextLength 5100 / maxTokens 100, so cn auto-compacts before its first model "
                "call and rewrites the same session file. before/ = store after run 1, after/ = "
                "store after run 2."
            ),
            steps=(
                Step(
                    prompt="Print a long numbered listing.",
                    replies=(
                        tool_reply(
                            ToolCall(
                                "Bash",
                                {
                                    "command": (
                                        f"seq -f 'listing line %g of the long output' "
                                        f"1 {LISTING_LINES}"
                                    )
                                },
                                id="call_listing_1",
                            )
                        ),
                        text_reply(f"Printed {LISTING_LINES} lines."),
                    ),
                ),
                Step(
                    prompt="Now the next step, please.",
                    extra_args=("--resume",),
                    context_length=5100,
                    max_tokens=100,
                    compaction_summary=COMPACTION_SUMMARY,
                    snapshot_before=True,
                    replies=(
                        text_reply("Continuing from the summary."),
                        text_reply("Nothing else is left to do."),
                    ),
                ),
            ),
        ),
    )
}


def run_scenario(
    scenario: Scenario | str,
    *,
    cn: Path,
    base: Path,
    timeout: float = 90,
) -> ScenarioRun:
    """Run every step of ``scenario`` under ``base/<name>/{root,home,work}`` (wiped first)."""
    if isinstance(scenario, str):
        scenario = SCENARIOS[scenario]
    folder = base / scenario.name
    if folder.exists():
        shutil.rmtree(folder)
    root, home, workspace = folder / "root", folder / "home", folder / "work"
    for path in (root, home, workspace):
        path.mkdir(parents=True)
    workspace = workspace.resolve()  # cn records process.cwd(), which is the resolved path
    for relative, text in scenario.files.items():
        target = workspace / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    results: list[StepResult] = []
    snapshots: dict[str, Path] = {}
    with FakeModel() as fake:
        for step in scenario.steps:
            summary = step.compaction_summary

            def hook(body: dict[str, Any], summary: str | None = summary) -> Reply | None:
                if summary is not None and is_compaction_request(body):
                    return text_reply(summary)
                return None

            fake.reset(step.replies)
            fake.on_request = hook
            if step.snapshot_before:
                snapshot = folder / "snapshots" / "before" / "sessions"
                shutil.copytree(root / "sessions", snapshot)
                snapshots["before"] = snapshot
            proc = run_cn(
                step.prompt,
                cn=cn,
                root=root,
                home=home,
                cwd=workspace,
                model_url=fake.url,
                extra_args=step.extra_args,
                timeout=timeout,
                model=scenario.model,
                context_length=step.context_length,
                max_tokens=step.max_tokens,
            )
            results.append(
                StepResult(
                    step=step,
                    proc=proc,
                    requests=list(fake.requests),
                    replies_left=fake.pending,
                    hook_errors=list(fake.hook_errors),
                )
            )
    return ScenarioRun(
        scenario=scenario,
        base=folder,
        root=root,
        home=home,
        workspace=workspace,
        steps=results,
        snapshots=snapshots,
    )
