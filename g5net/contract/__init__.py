"""What g5net and the configs gem5 runs (configs/) agree on.

Standard library only, and this file imports nothing: gem5's embedded Python
imports these modules, with g5net's package directory on PYTHONPATH, and must
not pull in the rest of g5net (tests/test_gem5_side.py holds it so).
"""
