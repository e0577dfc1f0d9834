"""docs/cli.md, written from `options.COMMANDS` (the table the parsers are built from):
`python -m deja.cli.reference > docs/cli.md`. tests/cli/test_cli_reference.py fails when the
file differs from what this writes. The text depends on nothing of the machine (no terminal
width, no computed default), so every machine writes the same file."""

from __future__ import annotations

import sys

from .options import COMMANDS, Arg, Command, Ref

HEADER = """# Command-line reference

<!-- Generated from the parsers' option table (`server/deja/cli/options.py`) by
`python -m deja.cli.reference > docs/cli.md`; a test fails when this file drifts. -->

`deja COMMAND [OPTIONS]`. `deja --help` lists the commands and `deja COMMAND --help` a
command's options; `deja --version` prints the version. A bad command line exits 2 with the
command's usage and one line saying what is wrong on stderr (with `--json`, a JSON envelope).
"""


def reference() -> str:
    """The whole of docs/cli.md."""
    parts = [HEADER]
    parts += [f"- [`deja {c.name}`](#deja-{c.name}): {c.help}" for c in COMMANDS]
    for command in COMMANDS:
        parts += ["", *_command(command, f"deja {command.name}")]
    return "\n".join(parts) + "\n"


def _command(command: Command, prog: str) -> list[str]:
    lines = [f"## {prog}" if " " not in prog[5:] else f"### {prog}", "", _sentence(command.help)]
    lines += ["", "```text", _usage(command, prog), "```"]
    args = [*command.args]
    if command.json and " " not in prog[5:]:
        args.insert(0, Arg(("--json",), "print a versioned JSON envelope", flag=True))
    if args:
        lines += ["", *(_item(arg, command) for arg in args)]
    if command.actions:
        names = ", ".join(f"`{action.name}`" for action in command.actions)
        lines += [f"- `ACTION`: one of {names}, below (`{prog} ACTION --help`)"]
        for action in command.actions:
            lines += ["", *_command(action, f"{prog} {action.name}")]
    return lines


def _usage(command: Command, prog: str) -> str:
    """As argparse's usage orders it: options (an exclusive group as `[a | b]`), then the
    positionals."""
    options: list[str] = ["[--json]"] if command.json and " " not in prog[5:] else []
    positionals: list[str] = []
    groups: dict[str, list[str]] = {}
    for arg in command.args:
        shown = _value(arg)
        if not arg.names[0].startswith("-"):
            positionals.append(_positional(arg.nargs, shown))
            continue
        word = f"{arg.names[-1]} {shown}".strip()
        if arg.group is None:
            options.append(f"[{word}]")
        elif arg.group in groups:
            groups[arg.group].append(word)
        else:
            groups[arg.group] = [word]
            options.append(arg.group)  # a placeholder, filled below
    for name, words in groups.items():
        joined = " | ".join(words)
        at = options.index(name)
        options[at] = f"({joined})" if name in command.required else f"[{joined}]"
    return " ".join([prog, *options, *positionals, *(["ACTION"] if command.actions else [])])


def _positional(nargs: str | None, shown: str) -> str:
    return {"*": f"[{shown} ...]", "+": f"{shown} [{shown} ...]", "?": f"[{shown}]"}.get(
        nargs or "", shown
    )


def _value(arg: Arg) -> str:
    """The value an argument takes, as argparse names it: its metavar, its choices, its name."""
    if arg.flag:
        return ""
    if arg.metavar:
        return arg.metavar
    if isinstance(arg.choices, Ref):
        arg = Arg(arg.names, choices=arg.choices.get())
    if arg.choices is not None and not isinstance(arg.choices, Ref):
        return "{" + ",".join(arg.choices) + "}"
    name = arg.names[-1]
    return name.lstrip("-").replace("-", "_").upper() if name.startswith("-") else name


def _item(arg: Arg, command: Command) -> str:
    value = _value(arg)
    shown = ", ".join(f"`{name} {value}`" if value else f"`{name}`" for name in arg.names)
    if not arg.names[0].startswith("-"):
        shown = f"`{value}`"
    said = arg.help or ""
    default = arg.default
    if not arg.flag and default is not None and not isinstance(default, Ref):
        said = f"{said}; default `{default}`" if said else f"default `{default}`"
    if arg.group is not None:
        group = [other.names[-1] for other in command.args if other.group == arg.group]
        if arg.group in command.required:
            said += f" (one of {', '.join(f'`{name}`' for name in group)} is needed)"
        else:
            others = ", ".join(f"`{name}`" for name in group if name != arg.names[-1])
            said += f" (not with {others})"
    return f"- {shown}: {said.strip()}" if said.strip() else f"- {shown}"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


if __name__ == "__main__":
    sys.stdout.write(reference())
