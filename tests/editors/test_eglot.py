"""Emacs with eglot (Debian's `emacs-nox` and `elpa-eglot`) with the configuration of
docs/editors.md. Without markdown-mode (Debian's default) eglot asks for plain-text hovers."""

from __future__ import annotations

from pathlib import Path

from tests.editors.conftest import EDITED_LINE, HERE, EditedProject, gone, require, run_editor

CONFIG = HERE / "deja-eglot.el"


def test_eglot_hover_lens_action_search_and_shutdown(
    edited: EditedProject, home: dict[str, str], tmp_path: Path
) -> None:
    emacs = require("emacs", "emacs-nox and elpa-eglot")
    out = tmp_path / "eglot.json"
    env = {
        **home,
        "DEJA_EGLOT_CONFIG": str(CONFIG),
        "DEJA_EGLOT_OUT": str(out),
        "DEJA_FILE": str(edited.app_py),
        "DEJA_LINE": str(EDITED_LINE),
        "DEJA_QUERY": "greet",
    }
    # Debian's elpa packages load from the site files, which `-Q` would leave out.
    argv = [emacs, "--batch", "-q", "-l", "package", "--eval", "(package-initialize)"]
    found = run_editor([*argv, "-l", str(HERE / "drive_eglot.el")], env, edited.workspace, out)
    assert found["steps"][-1] == "stopped" and found["stopped"] is True, found
    hover = found["hover"]["contents"]
    assert hover["kind"] == "plaintext", hover
    assert hover["value"].startswith("Make greet() return") and "**" not in hover["value"]
    assert "- return 'hello'\n+ return 'hello, world'" in hover["value"]
    titles = [lens["command"]["title"] for lens in found["lenses"]]
    assert titles[0].startswith("1 Continue session touched this file")
    assert any("open session" in title for title in found["actions"])
    written = Path(found["wrote"].split("wrote ", 1)[1].strip())
    assert written.read_text().startswith("# Make greet() return")
    assert found["search"]["hits"][0]["title"].startswith("Make greet")
    assert found["exit"] == 0 and "Traceback" not in found["stderr"]
    assert gone(found["pid"]), "the server outlived Emacs"
