"""`python -m deja …` is the same as `deja …`."""

import sys

from deja.cli.main import main

sys.exit(main())
