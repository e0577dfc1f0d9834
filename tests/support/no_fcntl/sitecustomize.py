"""On PYTHONPATH, makes `import fcntl` fail in every Python started with it, as on Windows."""

import sys

sys.modules["fcntl"] = None  # type: ignore[assignment]
