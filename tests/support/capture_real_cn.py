"""Regenerate ``fixtures/real-cn/``: session stores written by the real ``cn`` 1.5.47.

Usage (from the repository root)::

    python -m tests.support.capture_real_cn            # every scenario
    python -m tests.support.capture_real_cn bash_ok    # just some
    python tests/support/capture_real_cn.py --list

Each scenario of :data:`tests.support.scenarios.SCENARIOS` is run with the real ``cn`` against the
scripted fake model, in ``<workdir>/<scenario>/{root,home,work}`` (default workdir
``/tmp/deja-real-cn``, so the paths that ``cn`` records are the same on every machine). The store
``cn`` wrote is then copied, byte for byte and unmodified, to::

    fixtures/real-cn/<scenario>/sessions/{<uuid>.json, sessions.json}
    fixtures/real-cn/<scenario>/before/sessions/...   (scenarios with a "before" snapshot:
    fixtures/real-cn/<scenario>/after/sessions/...     the store before / after the last run)
    fixtures/real-cn/<scenario>/scenario.json          what was run (not written by cn)

``fixtures/real-cn/README.md`` is rewritten too. Needs npm registry access once (to install cn).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: make `tests.support` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.cn_install import CN_VERSION, ensure_cn, node_version
from tests.support.scenarios import (
    FIXTURES_DIR,
    SCENARIOS,
    ScenarioRun,
    run_scenario,
    store_files,
)

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = FIXTURES_DIR
DEFAULT_WORKDIR = Path("/tmp/deja-real-cn")


def check_run(run: ScenarioRun) -> None:
    """Raise if the run did not go as scripted (then nothing is saved)."""
    name = run.scenario.name
    for index, result in enumerate(run.steps, 1):
        proc = result.proc
        if proc.returncode != 0:
            raise SystemExit(
                f"{name} step {index}: cn exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            )
        if result.hook_errors:
            raise SystemExit(f"{name} step {index}: fake model hook failed: {result.hook_errors}")
        if result.replies_left:
            raise SystemExit(f"{name} step {index}: {result.replies_left} scripted replies unused")
        if result.step.compaction_summary is not None and not result.compaction_requests:
            raise SystemExit(f"{name} step {index}: cn did not compact")
    if not store_files(run.sessions_dir):
        raise SystemExit(f"{name}: cn wrote no session file")


def _copy_store(sessions: Path, dest: Path) -> list[str]:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    names = []
    for path in sorted(sessions.glob("*.json")):
        shutil.copy2(path, dest / path.name)
        names.append(path.name)
    return names


def save_run(run: ScenarioRun, out: Path) -> Path:
    """Copy what cn wrote for ``run`` into ``out/<scenario>/`` (replacing an older capture)."""
    target = out / run.scenario.name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    stores: dict[str, list[str]] = {}
    if "before" in run.snapshots:
        stores["before/sessions"] = _copy_store(
            run.snapshots["before"], target / "before" / "sessions"
        )
        stores["after/sessions"] = _copy_store(run.sessions_dir, target / "after" / "sessions")
    else:
        stores["sessions"] = _copy_store(run.sessions_dir, target / "sessions")
    node = node_version()
    meta: dict[str, Any] = {
        "scenario": run.scenario.name,
        "description": run.scenario.description,
        "written_by": f"@continuedev/cli@{CN_VERSION} (cn -p --auto), real binary",
        "node": ".".join(map(str, node)) if node else None,
        "model": run.scenario.model,
        "workspaceDirectory": str(run.workspace),
        "continueGlobalDir": str(run.root),
        "workspace_files": sorted(run.scenario.files),
        "stores": stores,
        "steps": [
            {
                "prompt": result.step.prompt,
                "extra_args": list(result.step.extra_args),
                "contextLength": result.step.context_length,
                "maxTokens": result.step.max_tokens,
                "model_requests": len(result.requests),
                "compaction_requests": len(result.compaction_requests),
                "stdout": result.proc.stdout,
            }
            for result in run.steps
        ],
    }
    (target / "scenario.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return target


README_HEAD = """\
# Session stores written by the real Continue CLI

Every file under `*/sessions/` here was written by the **real** `cn` from the npm package
`@continuedev/cli@{version}` (headless: `cn -p --auto --config <file> "<prompt>"`), running
offline against the scripted fake OpenAI-compatible model of `tests/support/fake_model.py`.
The session files and `sessions.json` are copied byte for byte and **not edited**: ids, epoch-ms
`dateCreated` values and paths are exactly as `cn` wrote them. The paths are stable because the
capture runs in `/tmp/deja-real-cn/<scenario>/` (workspace `.../work`, store `.../root`), so
no path needed replacing. Re-capturing changes only the session ids (uuid v4, also the file
names) and the `dateCreated` values; tool-call ids are scripted (`call_...`).

Regenerate with `python -m tests.support.capture_real_cn [scenario ...]` (see that script);
`tests/real_cn/` re-runs the same scenarios (`tests/support/scenarios.py`) with the real `cn` and
checks that they still produce these shapes. `scenario.json` in each folder records what was run
(prompts, flags, model name, number of model requests, cn's stdout); cn did not write it.

Layout: `<scenario>/sessions/<sessionId>.json` + `sessions.json`; the `compaction` scenario has
`before/sessions/` (store after the first run) and `after/sessions/` (same store after
`cn --resume` auto-compacted it).

| scenario | what cn was made to do |
|---|---|
"""


def write_readme(out: Path) -> None:
    rows = [
        f"| `{name}` | {scenario.description.replace('|', '/')} |"
        for name, scenario in SCENARIOS.items()
    ]
    text = README_HEAD.format(version=CN_VERSION) + "\n".join(rows) + "\n"
    (out / "README.md").write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("scenarios", nargs="*", help="scenario names (default: all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, scenario in SCENARIOS.items():
            print(f"{name}: {scenario.description}")
        return 0
    names = args.scenarios or list(SCENARIOS)
    unknown = [name for name in names if name not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)}")
    cn = ensure_cn()
    args.workdir.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in names:
        run = run_scenario(name, cn=cn, base=args.workdir)
        check_run(run)
        target = save_run(run, args.out)
        print(f"{name}: {target}")
    write_readme(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
