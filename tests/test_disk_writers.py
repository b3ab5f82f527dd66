"""Writers of one file at once (core.disk.write_files): each reads the file, then replaces it only if it is still as
read (``read_as``), else reads again. Checking and replacing must be one step against the other writers (the batch
tool's workers exporting into one archive): else two find the file unchanged and the second replaces the first's
write, which is lost."""

import multiprocessing
import os
from pathlib import Path

import pytest

from core import disk
from core.disk import LOCK_SUFFIX, ChangedError, read_with_state, write_files


def increment(path: str, times: int) -> None:
    """Add 1 to the number in the file, ``times`` times, as an export writes: read, then write if unchanged."""
    for _ in range(times):
        while True:
            data, state = read_with_state(path)
            try:
                write_files([(path, str(int(data) + 1).encode())], read_as={path: state})
                break
            except ChangedError:
                continue


def test_writers_of_one_file_at_once_lose_no_write(tmp_path):
    path = tmp_path / "units.rlb"
    path.write_bytes(b"0")
    writers = [multiprocessing.get_context("spawn").Process(target=increment, args=(str(path), 150))
               for _ in range(4)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(120)
    assert [writer.exitcode for writer in writers] == [0] * 4
    assert int(path.read_bytes()) == 600
    assert os.listdir(tmp_path) == ["units.rlb"]  # no temporary, backup or lock left


def stale_lock(folder, name: str = "owner.dead") -> Path:
    """A lock a writer that died left long ago: the folder with its file, older than LOCK_STALE."""
    lock = folder / f".units.rlb{LOCK_SUFFIX}"
    lock.mkdir()
    (lock / name).touch()
    os.utime(lock / name, (0, 0))
    return lock


def test_a_lock_left_by_a_writer_that_died_is_taken_over(tmp_path):
    path = tmp_path / "units.rlb"
    path.write_bytes(b"0")
    stale_lock(tmp_path)
    increment(str(path), 1)
    assert path.read_bytes() == b"1" and os.listdir(tmp_path) == ["units.rlb"]


def test_a_stale_lock_is_broken_once_and_a_live_one_never(tmp_path, monkeypatch):
    """Two writers find one lock stale. The first breaks it and takes the lock anew; the second, acting on what
    it saw before, claims the stale file by its name, finds it gone and leaves the first's live lock alone."""
    lock = stale_lock(tmp_path)
    seen = os.listdir(lock)  # the second writer's look, before the first acts
    assert disk._break_if_stale(lock) and not lock.exists()
    token = disk._take(lock, tmp_path / "units.rlb")  # the first writer's own lock, fresh
    monkeypatch.setattr(disk.os, "listdir", lambda _path: seen)
    assert disk._break_if_stale(lock)  # "try again": and the lock it finds then is live
    monkeypatch.undo()
    assert not disk._break_if_stale(lock) and os.listdir(lock) == [token]
    disk._release(lock, token)
    assert os.listdir(tmp_path) == []


def test_a_writer_killed_while_it_broke_a_stale_lock_blocks_no_one(tmp_path):
    """Killed after claiming the stale file (its claim left, as old), or after removing it (the folder left
    empty): the next writer takes the lock at once or after LOCK_STALE, never waits for the user."""
    path = tmp_path / "units.rlb"
    path.write_bytes(b"0")
    stale_lock(tmp_path, "claim.killed")
    increment(str(path), 1)
    (tmp_path / f".units.rlb{LOCK_SUFFIX}").mkdir()  # emptied, not removed
    increment(str(path), 1)
    assert path.read_bytes() == b"2" and os.listdir(tmp_path) == ["units.rlb"]


def test_a_lock_that_cannot_be_removed_ends_in_an_error_not_a_loop(tmp_path, monkeypatch):
    path = tmp_path / "units.rlb"
    path.write_bytes(b"0")
    lock = stale_lock(tmp_path)
    os.unlink(lock / "owner.dead")
    (lock / "a folder").mkdir()  # renamed as a claim, but no unlink removes it
    os.utime(lock / "a folder", (0, 0))
    monkeypatch.setattr(disk, "LOCK_WAIT", 0.2)
    with pytest.raises(OSError, match=f"left {lock.name} beside it: remove that folder"):
        write_files([(str(path), b"1")])
    assert path.read_bytes() == b"0" and sorted(os.listdir(tmp_path)) == [lock.name, "units.rlb"]


def test_temporaries_and_backups_a_killed_writer_left_are_removed_by_the_next_write(tmp_path):
    """Killed before its clean-up, a writer leaves ``.NAME.xxxxxxxx.tmp`` (its new bytes) or ``.old.tmp`` (a
    backup) beside the file: the next write of that file removes those older than ORPHAN_AGE, and nothing
    else (a younger one may be a live writer's; other names are not ours)."""
    path = tmp_path / "units.rlb"
    path.write_bytes(b"0")
    old = [tmp_path / ".units.rlb.k3j_x9a2.tmp", tmp_path / ".units.rlb.0a1b2c3d.old.tmp"]
    kept = [tmp_path / name for name in (".units.rlb.zzzzzzzz.tmp", ".units.rlb.notours.tmp",
                                         ".other.rlb.abcdefgh.tmp", "units.rlb.abcdefgh.tmp")]
    for file in [*old, *kept]:
        file.write_bytes(b"left")
    for file in [*old, *kept[1:]]:
        os.utime(file, (0, 0))
    write_files([(str(path), b"1")])
    assert path.read_bytes() == b"1"
    assert sorted(os.listdir(tmp_path)) == sorted(["units.rlb", *(f.name for f in kept)])
