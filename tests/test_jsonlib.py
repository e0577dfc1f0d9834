"""`deja.jsonlib`: the standard library fallback gives orjson's results, and the reader's whole
suite passes without orjson (the VS Code extension's universal package carries none)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deja import jsonlib

ROOT = Path(__file__).parent.parent
# The reader's suite: the reader itself and its hostile input.
READER_SUITE = ["tests/continue_store/test_reader.py", "tests/contract/test_hostile.py"]

scalars = (
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64 - 1) | st.text()
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values, st.booleans())
def test_fallback_writes_orjsons_bytes_and_reads_them_back(value: object, indent: bool) -> None:
    option = orjson.OPT_INDENT_2 if indent else 0
    expected = orjson.dumps(value, option=option)
    assert jsonlib.stdlib_dumps(value, indent=indent) == expected
    assert jsonlib.stdlib_loads(expected) == orjson.loads(expected)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False)))
def test_fallback_floats_read_back_as_the_same_numbers(value: list[float]) -> None:
    # The one difference: a float may be written in another notation (6.1e-05, 0.000061).
    assert orjson.loads(jsonlib.stdlib_dumps(value)) == value
    assert jsonlib.stdlib_loads(orjson.dumps(value)) == value


REFUSED = [
    b'{"a": NaN}',
    b"[Infinity]",
    b"[-Infinity]",
    b'["\\ud800"]',
    b'{"\\udc00x": 1}',
    b'["\xff"]',
    b"[1,]",
    b"",
    b"[" * 5000 + b"]" * 5000,
]


@pytest.mark.parametrize("data", REFUSED, ids=range(len(REFUSED)))
def test_fallback_refuses_what_orjson_refuses(data: bytes) -> None:
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(data)
    with pytest.raises(jsonlib.JSONDecodeError):
        jsonlib.stdlib_loads(data)


def test_fallback_accepts_what_orjson_accepts_at_the_edges() -> None:
    for data in [
        b"[18446744073709551615, -9223372036854775808]",
        b"[18446744073709551616, -9223372036854775809, 1000000000000000000000000000000]",
        b'["\\ud83d\\ude00"]',
        b"1",
    ]:
        assert jsonlib.stdlib_loads(data) == orjson.loads(data)


def test_fallback_writes_like_orjson_at_the_edges() -> None:
    assert jsonlib.stdlib_dumps([float("nan"), float("inf")]) == orjson.dumps(
        [float("nan"), float("inf")]
    )
    with pytest.raises(TypeError):
        orjson.dumps(["\ud800"])
    with pytest.raises(TypeError):
        jsonlib.stdlib_dumps(["\ud800"])
    assert jsonlib.stdlib_dumps({"é": "ü"}) == orjson.dumps({"é": "ü"})
    assert json.loads(jsonlib.stdlib_dumps({"a": []}, indent=True)) == {"a": []}


def test_the_readers_suite_passes_without_orjson() -> None:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import tests.support.no_orjson, deja.jsonlib as j; print(j.HAS_ORJSON)",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == "False", "the plugin must hide orjson"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.support.no_orjson",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            *READER_SUITE,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and " failed" not in run.stdout


def _uses_orjson(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name.startswith("orjson") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("orjson"):
            return True
        if isinstance(node, ast.Name) and node.id == "orjson":
            return True
    return False


def test_only_jsonlib_uses_orjson() -> None:
    package = ROOT / "server" / "deja"
    users = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name != "jsonlib.py" and _uses_orjson(path)
    )
    assert users == [], "use deja.jsonlib: the universal VS Code package has no orjson"
