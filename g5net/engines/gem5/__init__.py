"""The gem5 engine, one module per job (what it and configs/ agree on is
g5net/contract/gem5.py, stdlib only, imported by both):

- probe.py         finding gem5 and asking a build what it can do
- config_files.py  the configs gem5 runs, their digest, gem5's PYTHONPATH
- boards.py        what gem5 calls each host, and the files it writes for it
- cmdline.py       a gem5 guest's kernel command line
- run_config.py    the config JSON of one phase
- checkpoints.py   boot checkpoints: their key and their store
- process.py       running and watching one gem5 process
- dist.py          per-host processes joined by dist-gem5's switch
- gem5_args.py     the user's flags for gem5 (--gem5-arg)
- doctor.py        what `g5net doctor` reports of gem5
- engine.py        the engine: boot into a checkpoint, then measure
"""

from .engine import Gem5Engine

ENGINE = Gem5Engine

__all__ = ["ENGINE", "Gem5Engine"]
