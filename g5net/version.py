"""The one version source: `g5net --version`, the wheel's name (pyproject.toml
reads it) and every run's run.json."""

__version__ = "0.2.0"
