"""One module per workload kind, each with a `KIND` (registry.py finds them)."""
