"""Workloads: what a spec's `[workloads.NAME]` runs in the guests and what it measured.

One module per kind in `kinds/` (registry.py finds them), each holding its
checks, the guest commands it runs and the parser of what it printed; the
parts every kind shares are the modules named for what they hold: flows and
ports (flows.py), job lines (shell.py), the ready handshake (ready.py), the
`/proc` counters (proc.py), the kernel's profiler (profiler.py), the job
script (job.py) and a guest's results (results.py).
"""
