"""The unit gem5 v21+ writes at the end of a stat's description: `# Number of
ticks simulated (Tick)`, `# ... ((Count/Second))` for a rate. Older files have
none. Units are gem5's own names (src/base/stats/units.hh), kept as written."""

from __future__ import annotations

import re

# units.hh's unit names; a rate is `(A/B)` of two of them, printed in the
# description's own parentheses.
_BASE = r"(?:Cycle|Tick|Second|Bit|Byte|Watt|Joule|Volt|Celsius|Count|Ratio|Unspecified)"
_UNIT = re.compile(rf"\s*\(({_BASE}|\({_BASE}/{_BASE}\))\)$")


def split_unit(description: str) -> tuple[str, str | None]:
    """(the description without its unit, the unit) as `Count`, `Tick/Second`;
    the unit is None where the description ends in none."""
    m = _UNIT.search(description)
    if m is None:
        return description, None
    return description[:m.start()], m.group(1).strip("()")
