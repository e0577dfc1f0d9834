"""The durable index: the only writer of Deja's data.

Names load on first use (PEP 562): `deja search` over an unchanged store never loads the
pass.
"""

from __future__ import annotations

from deja.lazy_exports import lazy_exports

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from .core import Index
    from .lock import IndexBusy
    from .pass_report import PassReport
    from .recovery import Recovery
    from .refresh import Progress
    from .refusal import StoreRefusal
    from .schema import SCHEMA_VERSION, default_home
    from .tombstones import NotIndexed, Tombstone

_WHERE = {
    "Index": ".core",
    "IndexBusy": ".lock",
    "NotIndexed": ".tombstones",
    "PassReport": ".pass_report",
    "Progress": ".refresh",
    "Recovery": ".recovery",
    "SCHEMA_VERSION": ".schema",
    "StoreRefusal": ".refusal",
    "Tombstone": ".tombstones",
    "default_home": ".schema",
}


__getattr__ = lazy_exports(__name__, _WHERE)


__all__ = [
    "SCHEMA_VERSION",
    "Index",
    "IndexBusy",
    "NotIndexed",
    "PassReport",
    "Progress",
    "Recovery",
    "StoreRefusal",
    "Tombstone",
    "default_home",
]
