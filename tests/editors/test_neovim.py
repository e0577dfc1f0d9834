"""Neovim (Debian's `neovim`, `vim.lsp`) with the configuration of docs/editors.md."""

from __future__ import annotations

from pathlib import Path

from tests.editors.conftest import EDITED_LINE, HERE, EditedProject, gone, require, run_editor

CONFIG = HERE / "deja.lua"


def test_neovim_hover_lens_action_search_and_shutdown(
    edited: EditedProject, home: dict[str, str], tmp_path: Path
) -> None:
    nvim = require("nvim", "neovim")
    out = tmp_path / "nvim.json"
    env = {
        **home,
        "DEJA_NVIM_CONFIG": str(CONFIG),
        "DEJA_NVIM_OUT": str(out),
        "DEJA_FILE": str(edited.app_py),
        "DEJA_LINE": str(EDITED_LINE),
        "DEJA_QUERY": "greet",
    }
    argv = [
        nvim,
        "--headless",
        "-u",
        "NONE",
        "-i",
        "NONE",
        "-c",
        f"luafile {HERE / 'drive_nvim.lua'}",
    ]
    found = run_editor(argv, env, edited.workspace, out)
    assert found["steps"][-1] == "stopped", found
    assert all(found["reached"].values()), found
    # Neovim 0.7 offers markdown first: the hover names the session and the request.
    hover = found["hover"]
    assert hover["kind"] == "markdown" and "Make greet() return" in hover["value"]
    assert "return 'hello, world'" in hover["value"]
    assert "command:" not in hover["value"] and "Code actions on this line" in hover["value"]
    assert found["lenses"][0].startswith("1 Continue session touched this file")
    assert any(title.startswith("edited by Continue") for title in found["lenses"])
    assert found["actions"][:1] and "open session" in found["actions"][0]
    assert "Deja: file history" in found["actions"]
    (wrote,) = [m for m in found["messages"] if "wrote " in m]
    written = Path(wrote.split("wrote ", 1)[1].strip())
    assert written.read_text().startswith("# Make greet() return")
    assert found["search"]["hits"] and found["search"]["hits"][0]["title"].startswith("Make greet")
    assert len(found["sessions"]["sessions"]) == 1  # `[]` taken as no parameters
    assert found["exit"] == 0 and "Traceback" not in found["stderr"]
    assert gone(found["pid"]), "the server outlived Neovim"
