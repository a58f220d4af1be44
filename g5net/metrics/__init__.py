"""Derived metrics of a run: what is computed, in which unit, where the CPU time went."""
