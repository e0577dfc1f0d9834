"""Every form of a moment Deja shows is made in `deja.time_format`: no other module formats a
time, so the doors cannot drift apart on what a date looks like."""

from __future__ import annotations

import re
from pathlib import Path

from deja.time_format import ago, ago_and_iso, day, iso_time, minute, minute_utc, since_bound

PACKAGE = Path(__file__).parents[2] / "server" / "deja"
FORMATTING = re.compile(r"\.strftime\(|\.fromtimestamp\(|\.isoformat\(|\btime\.(gm|local)time\(")


def test_no_module_but_time_format_formats_a_time() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "time_format.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FORMATTING.search(line)
    ]
    assert not found, f"times formatted outside deja/time_format.py: {found}"


def test_the_forms() -> None:
    moment = 1_800_000_000.0  # 2027-01-15 08:00:00 UTC
    assert iso_time(moment) == "2027-01-15T08:00:00Z"
    assert day(moment) == "2027-01-15"
    assert minute(moment) == "2027-01-15 08:00" and minute_utc(moment) == "2027-01-15 08:00 UTC"
    assert since_bound(moment) == "2027-01-15 08:00 UTC"
    assert since_bound(moment - 8 * 3600) == "2027-01-15"
    assert ago(moment - 2 * 86_400, moment) == "2 days ago"
    assert ago_and_iso(moment - 60, moment) == "1 minute ago (2027-01-15T07:59:00Z)"
