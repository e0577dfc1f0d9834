"""Fixtures for the tests that run the real Continue CLI ``cn`` against a local fake model.

``cn`` is installed once into ``$DEJA_TEST_CACHE`` (default ``~/.cache/deja-test``) by
:func:`tests.support.cn_install.ensure_cn`; set ``DEJA_REAL_CN=0`` to skip these tests.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[2]
if str(_REPO) not in sys.path:  # `tests` is not a package: make `tests.support` importable
    sys.path.insert(0, str(_REPO))

from tests.support.cn_install import ensure_cn  # noqa: E402
from tests.support.cn_run import CnDirs  # noqa: E402
from tests.support.fake_model import FakeModel  # noqa: E402
from tests.support.scenarios import ScenarioRun, run_scenario  # noqa: E402


@pytest.fixture(scope="session")
def cn_exe() -> Path:
    """The installed ``cn`` 1.5.47 executable (installed on first use)."""
    if os.environ.get("DEJA_REAL_CN") == "0":
        pytest.skip("DEJA_REAL_CN=0: real cn tests disabled")
    return ensure_cn()


@pytest.fixture(scope="module")
def scenario_run(
    cn_exe: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], ScenarioRun]:
    """``scenario_run(name)`` runs a scenario of ``tests.support.scenarios`` once per module."""
    base = tmp_path_factory.mktemp("real-cn")
    runs: dict[str, ScenarioRun] = {}

    def get(name: str) -> ScenarioRun:
        if name not in runs:
            runs[name] = run_scenario(name, cn=cn_exe, base=base)
        return runs[name]

    return get


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    """A running, empty-scripted fake model (answers "Done." until scripted)."""
    with FakeModel() as fake:
        yield fake


@pytest.fixture
def cn_dirs(tmp_path: Path) -> CnDirs:
    """Fresh store, home and workspace folders for one ad-hoc ``run_cn`` call."""
    return CnDirs.make(tmp_path)
