"""`python -m deja …` is the same as `deja …`."""

from deja.cli.main import program

program()
