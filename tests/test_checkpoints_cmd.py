"""`g5net checkpoints list|prune` over checkpoints laid out as the gem5 engine
lays them out (engines/gem5/checkpoints.py: its Checkpoint names every file),
in a cache of the test's own; a real gem5 boot's checkpoint is listed by
tests/test_gem5_run.py."""

import fcntl
import json
import os
import time

import pytest

from g5net import cli
from g5net.engines.gem5 import checkpoints
from g5net.engines.gem5.config_files import configs_digest

DAY = 86400


def _checkpoint(configs: str, mb: int, used_days_ago: float) -> checkpoints.Checkpoint:
    """A complete checkpoint of the current format: gem5's m5.cpt of `mb` MB and boot.json."""
    state = checkpoints.boot_state([], "image-digest", "gem5-digest", configs, switched=False)
    ckpt = checkpoints.Checkpoint.of(state)
    ckpt.cpt.mkdir(parents=True)
    (ckpt.cpt / "m5.cpt").write_bytes(b"\0" * (mb << 20))
    ckpt.meta.write_text(json.dumps({"key": ckpt.key, "wall_s": 300.0, "state": state}))
    then = time.time() - used_days_ago * DAY
    ckpt.used.touch()
    os.utime(ckpt.used, (then, then))
    os.utime(ckpt.meta, (then, then))
    return ckpt


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("G5NET_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _listed(capsys):
    assert cli.main(["checkpoints", "list", "--json"]) == 0
    return {c["key"]: c for c in json.loads(capsys.readouterr().out)}


def test_list_says_size_age_and_what_made_each(cache, capsys):
    old = _checkpoint("other-configs", 2, used_days_ago=40)
    new = _checkpoint(configs_digest(boot=True), 1, used_days_ago=1)
    listed = _listed(capsys)
    assert set(listed) == {old.key, new.key}
    assert listed[old.key]["size_bytes"] >= 2 << 20 and listed[new.key]["size_bytes"] >= 1 << 20
    assert listed[old.key]["unused_days"] == pytest.approx(40, abs=0.01)
    assert listed[old.key]["made_by"]["configs"] == "other-configs"
    # Stale: made by other configs (and, here, another gem5) than this g5net's.
    assert not listed[old.key]["current"]


def test_prune_removes_what_every_criterion_picks_and_no_more(cache, capsys):
    old = _checkpoint("other-configs", 1, used_days_ago=40)
    stale_recent = _checkpoint("more-configs", 1, used_days_ago=1)
    assert cli.main(["checkpoints", "prune", "--stale", "--older-than", "30", "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["removed"] == [old.key]
    assert old.path.exists()
    assert cli.main(["checkpoints", "prune", "--stale", "--older-than", "30"]) == 0
    assert "removed 1 checkpoints" in capsys.readouterr().out
    assert not old.path.exists() and stale_recent.path.exists()


def test_max_size_removes_the_least_recently_used_first(cache, capsys):
    a = _checkpoint("c1", 3, used_days_ago=10)
    b = _checkpoint("c2", 3, used_days_ago=5)
    c = _checkpoint("c3", 3, used_days_ago=1)
    assert cli.main(["checkpoints", "prune", "--max-gib", str(5 / 1024), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["removed"] == [a.key, b.key] and out["freed_bytes"] >= 6 << 20
    assert c.path.exists() and not a.path.exists() and not b.path.exists()


def test_a_checkpoint_in_use_is_kept(cache, capsys):
    busy = _checkpoint("c1", 1, used_days_ago=10)
    lock = cache / "locks" / f"{checkpoints.lock_name(busy.key)}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_SH)  # as a run restoring it holds it
        assert cli.main(["checkpoints", "prune", "--older-than", "1"]) == 0
    assert f"kept {busy.key[:12]}: a run is booting or restoring it now" in capsys.readouterr().out
    assert busy.path.exists()


def test_prune_asks_for_a_criterion(cache, capsys):
    assert cli.main(["checkpoints", "prune"]) == 2
    assert "say which to remove" in capsys.readouterr().err
    assert cli.main(["checkpoints", "prune", "--unused"]) == 2
    assert "--unused needs --for SPEC" in capsys.readouterr().err
