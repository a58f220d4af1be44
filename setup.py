"""The wheel carries g5net's own folders (configs/, workloads/, kernels/,
disk-images/, studies/, examples/) as package data under g5net/tree/, where
g5net/home.py looks for them when no checkout is around. Everything else is in
pyproject.toml."""

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from g5net import home  # noqa: E402  (the list of folders, from its one place)


class BuildPyWithTree(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install runs from the checkout, which has the folders
        tree = Path(self.build_lib) / "g5net" / home.PACKAGED.name
        shutil.rmtree(tree, ignore_errors=True)
        for name in home.SHIPPED:
            shutil.copytree(HERE / name, tree / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildPyWithTree})
