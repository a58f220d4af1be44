"""Runners: where and how the points of a sweep run (a local pool or SLURM).

A runner never knows what a NIC is: it runs `python -m g5net.runners.point
SWEEPDIR INDEX` per point and reads the outcome from the run store.
"""

RUNNERS = ("local", "slurm")
