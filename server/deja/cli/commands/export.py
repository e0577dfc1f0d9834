"""`deja export ID`: a session to share, as Markdown, JSON or one self-contained HTML file."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

from deja.operations import ExportRequest

from ..common import CliError, as_request, implicit_pass, opened_history

if TYPE_CHECKING:
    from deja.export import Format

EXTENSIONS: dict[str, Format] = {
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".json": "json",
}


def run(args: argparse.Namespace) -> int:
    from deja.export import export_session

    request = as_request(ExportRequest, args)
    form = cast("Format", request.format) if request.format else _from_extension(args.output)
    with opened_history() as history:
        implicit_pass(history)
        text = export_session(history.show(request.session), form)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    target = Path(args.output)
    temporary = target.with_name(f".{target.name}.deja-tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise CliError(f"cannot write {target}: {error.strerror}") from None
    print(f"wrote {target} ({form}; secrets redacted as in Deja's index)", file=sys.stderr)
    return 0


def _from_extension(output: str | None) -> Format:
    return EXTENSIONS.get(Path(output or "").suffix.lower(), "md")
