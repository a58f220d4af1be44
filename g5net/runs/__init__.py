"""Runs: executing one, its directory and record, the run store of a sweep, finding runs."""
