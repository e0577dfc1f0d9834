"""A pytest plugin (`-p tests.support.no_orjson`) that makes `import orjson` fail, as on a Python
the VS Code extension's universal package runs on: Deja then uses `deja.jsonlib`'s fallback."""

import sys

if "deja.jsonlib" in sys.modules:  # pragma: no cover - the plugin must load before Deja
    raise RuntimeError("tests.support.no_orjson must be loaded before deja is imported")
sys.modules["orjson"] = None  # type: ignore[assignment]
