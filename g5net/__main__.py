"""`python -m g5net`: the `g5net` command."""

import sys

from .cli import main

sys.exit(main())
