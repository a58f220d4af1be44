"""The kernel's function profiler in a job: read around a profiled region,
never switched inside one, since switching it patches every traced call site
(metrics/profile.py says how the tables are read).

Its job-side functions, g5_profile_snap and g5_profile_region, are the shell
file workloads/profile.sh, which each job that profiles carries at its top:
not workloads/lib.sh, which is in the disk image, whose digest is part of
every run id (artifacts/images.py), so that moving them there would change
every run id.
"""

from __future__ import annotations

import functools

from ..home import REPO

FUNCTIONS_FILE = REPO / "workloads" / "profile.sh"
ENABLED_FILE = '"$G5_TRACING/function_profile_enabled"'
# A profiled workload NAME leaves NAME.profstart<cpu> (each CPU's table before
# its region) and NAME.prof<cpu> (after it): the region's is their difference.
# profile.sh writes these names.
PROFILE_START, PROFILE_END = "profstart", "prof"


@functools.cache
def functions() -> str:
    """The shell functions a profiling job defines, as job lines."""
    return FUNCTIONS_FILE.read_text().rstrip("\n")


def switch(on: bool) -> str:
    """Switching outside any region: under gem5 on a detailed CPU this costs
    host hours, which a profiler on at boot avoids (job.render)."""
    return "g5_profile_start" if on else f"echo 0 >{ENABLED_FILE}"
