"""A directory built under a temporary name and published whole
(g5net/machine/staged_dir.py): a reader sees the old one or the new one."""

from __future__ import annotations

import errno
import threading
from pathlib import Path

import pytest

from g5net.machine import staged_dir
from g5net.runs import rundir
from g5net.runs.rundir import RunDir


def _write(folder: Path, version: int, files: int = 20) -> None:
    for i in range(files):
        (folder / f"part-{i}").write_text(str(version))


def _versions(folder: Path) -> set[str]:
    return {p.read_text() for p in folder.iterdir()}


def test_a_new_directory_is_published_and_nothing_else_is_left(tmp_path: Path):
    final = tmp_path / "made" / "results"
    with staged_dir.staged(final) as tmp:
        assert tmp.parent == final.parent and tmp.name.startswith(f"{staged_dir.TMP_PREFIX}results-")
        assert not final.exists()
        _write(tmp, 1)
    assert _versions(final) == {"1"} and len(list(final.iterdir())) == 20
    assert [p.name for p in final.parent.iterdir()] == ["results"]
    assert final.stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "renamed-aside"])
def test_an_old_directory_is_replaced_and_removed(tmp_path: Path, monkeypatch, exchange: bool):
    if not exchange:  # a file system or C library without RENAME_EXCHANGE
        monkeypatch.setattr(staged_dir, "_renameat2", None)
    final = tmp_path / "results"
    for version in (1, 2):
        with staged_dir.staged(final) as tmp:
            _write(tmp, version, files=20 if version == 1 else 5)
    assert _versions(final) == {"2"} and len(list(final.iterdir())) == 5
    assert [p.name for p in tmp_path.iterdir()] == ["results"]


def test_a_failed_build_leaves_the_old_directory_as_it_was(tmp_path: Path):
    final = tmp_path / "results"
    with staged_dir.staged(final) as tmp:
        _write(tmp, 1)
    with pytest.raises(KeyboardInterrupt):
        with staged_dir.staged(final) as tmp:
            _write(tmp, 2, files=3)
            raise KeyboardInterrupt
    assert _versions(final) == {"1"} and len(list(final.iterdir())) == 20
    assert [p.name for p in tmp_path.iterdir()] == ["results"]


def test_a_reader_never_finds_the_directory_missing_or_half(tmp_path: Path):
    """Replaced 200 times while another thread reads it: with removal and
    rename in two steps, the reader would catch the moment between."""
    final = tmp_path / "results"
    with staged_dir.staged(final) as tmp:
        _write(tmp, 0)
    seen: list[str] = []
    done = threading.Event()

    def read() -> None:
        # One path lookup each: the last file written, there whenever the directory is whole.
        while not done.is_set():
            if not (final / "part-19").is_file():
                seen.append("missing or half")
                return

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for version in range(1, 201):
            with staged_dir.staged(final) as tmp:
                _write(tmp, version)
    finally:
        done.set()
        reader.join()
    assert seen == []
    assert _versions(final) == {"200"}


def test_publishing_gives_up_when_others_keep_replacing_and_a_run_gives_way(tmp_path: Path, monkeypatch):
    """Each try finds another process's directory landed first (as on a file
    system without the exchange, under many committers of one run id): publish
    gives up saying so; a run commit then keeps the complete run of its id that stands."""
    store, run_id = tmp_path / "runs", "ef" * 32
    theirs = rundir.begin(store, "probe", run_id)
    theirs.write_json(theirs.run_json, {"status": "done", "who": "theirs"})
    rundir.commit(theirs, store, "probe", run_id)
    ours = rundir.begin(store, "probe", run_id)
    ours.write_json(ours.run_json, {"status": "done", "who": "ours"})

    def landed_first(a: Path, b: Path) -> None:
        raise OSError(errno.ENOTEMPTY, "Directory not empty", str(b))
    monkeypatch.setattr(staged_dir, "_exchange", landed_first)
    final = store / rundir.dir_name("probe", run_id)
    with pytest.raises(OSError, match="other processes kept replacing it"):
        staged_dir.publish(ours.path, final)
    assert RunDir(ours.path).read_run()["who"] == "ours"  # left as it was
    assert rundir.commit(ours, store, "probe", run_id).read_run()["who"] == "theirs"
    assert [p.name for p in store.iterdir()] == [final.name]
