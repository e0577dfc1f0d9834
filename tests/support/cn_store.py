"""A store the real `cn` writes into, one `cn -p` run at a time against the fake model: what the
real-`cn` tests of forks and of recovery share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cn_run import CnDirs, run_cn
from .fake_model import FakeModel, Reply
from .scenarios import store_files


@dataclass
class CnStore:
    cn: Path
    dirs: CnDirs
    fake: FakeModel

    def run(self, prompt: str, replies: tuple[Reply, ...], *args: str, **options: Any) -> str:
        """One `cn -p` run; returns the id of the session file it wrote last."""
        self.fake.reset(replies)
        proc = run_cn(
            prompt,
            cn=self.cn,
            root=self.dirs.root,
            home=self.dirs.home,
            cwd=self.dirs.work,
            model_url=self.fake.url,
            extra_args=args,
            **options,
        )
        assert proc.returncode == 0, proc.stderr
        newest = max(self.files(), key=lambda path: path.stat().st_mtime_ns)
        return newest.stem

    def files(self) -> list[Path]:
        return store_files(self.dirs.root / "sessions")
