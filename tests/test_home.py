"""Where g5net finds its own folders, `python -m g5net`, and the revision a run records.
(An installed wheel: tests/test_install.py.)"""

import os
import subprocess
import sys

from conftest import REPO

import g5net
from g5net import home
from g5net.runs import record as run_record


def _g5net(*args, env=None, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "g5net", *args], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=60)


def test_the_checkout_is_home_and_has_every_folder():
    assert home.REPO == REPO and home.missing() == []


def test_python_m_g5net_is_the_command(tmp_path):
    done = _g5net("--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == f"g5net {g5net.__version__}"


def test_a_g5net_home_without_the_folders_is_an_error_naming_them(tmp_path):
    (tmp_path / "configs").mkdir()
    done = _g5net("stats", "x", env={home.ENV: str(tmp_path)})
    assert done.returncode == 2
    assert (f"g5net stats: error: g5net's own files are not where it looks: $G5NET_HOME = "
            f"{tmp_path} has no workloads/, kernels/, disk-images/, studies/, examples/;") in done.stderr


def test_g5net_home_names_another_copy_of_the_folders(tmp_path):
    for name in home.DIRS:
        (tmp_path / name).symlink_to(REPO / name)
    done = _g5net("doctor", "--json", env={home.ENV: str(tmp_path)})
    assert f'"files": "{tmp_path}"' in done.stdout


def test_a_run_records_the_checkout_revision():
    # Read once a process (a sweep's runs name the commit it started from):
    # read afresh here, since a commit made while the suite runs moves HEAD.
    home.revision.cache_clear()
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    record = run_record.begin("0" * 64, "t", {})
    assert record["g5net_version"] == g5net.__version__
    assert record["g5net_revision"] in (head, head + "-dirty")
