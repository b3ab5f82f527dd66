"""Writers of one file at once (core.disk.write_files): each reads the file, then replaces it only if it is still as
read (``read_as``), else reads again. Checking and replacing must be one step against the other writers (the batch
tool's workers exporting into one archive): else two find the file unchanged and the second replaces the first's
write, which is lost."""

import multiprocessing
import os

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


def test_a_lock_left_by_a_writer_that_died_is_taken_over(tmp_path):
    path = tmp_path / "units.rlb"
    path.write_bytes(b"0")
    lock = tmp_path / f".units.rlb{LOCK_SUFFIX}"
    lock.mkdir()
    os.utime(lock, (0, 0))  # long ago
    increment(str(path), 1)
    assert path.read_bytes() == b"1" and os.listdir(tmp_path) == ["units.rlb"]


def test_a_stale_lock_is_broken_once_and_a_live_one_never(tmp_path):
    """Two writers that found one lock stale: the first breaks it and makes its own; the second decides again
    under the breaker (not on what it saw before) and leaves the first's live lock alone."""
    lock = tmp_path / f".units.rlb{LOCK_SUFFIX}"
    lock.mkdir()
    os.utime(lock, (0, 0))
    assert disk._break_if_stale(lock) and not lock.exists()
    lock.mkdir()  # the first writer's own lock, fresh
    assert not disk._break_if_stale(lock) and lock.is_dir()
    assert os.listdir(tmp_path) == [lock.name]


def test_a_breaker_left_by_a_writer_killed_in_it_is_left_for_the_user(tmp_path, monkeypatch):
    """A breaker is never broken (two writers could then both break the lock): one left by a writer killed in
    its microseconds makes the next writers wait, then refuse naming it; removed, the next write goes through."""
    path = tmp_path / "units.rlb"
    path.write_bytes(b"0")
    lock = tmp_path / f".units.rlb{LOCK_SUFFIX}"
    breaker = tmp_path / f"{lock.name}{disk.BREAKER}"
    for folder in (lock, breaker):
        folder.mkdir()
        os.utime(folder, (0, 0))
    assert not disk._break_if_stale(lock) and lock.exists() and breaker.exists()
    monkeypatch.setattr(disk, "LOCK_WAIT", 0.2)
    with pytest.raises(OSError, match=f"left {lock.name} or {breaker.name} beside it: remove them"):
        write_files([(str(path), b"1")])
    breaker.rmdir()
    write_files([(str(path), b"1")])
    assert path.read_bytes() == b"1" and os.listdir(tmp_path) == ["units.rlb"]


def test_a_stale_lock_that_cannot_be_removed_ends_in_an_error_not_a_loop(tmp_path, monkeypatch):
    path = tmp_path / "units.rlb"
    path.write_bytes(b"0")
    lock = tmp_path / f".units.rlb{LOCK_SUFFIX}"
    lock.mkdir()
    (lock / "something").write_bytes(b"")  # rmdir fails: not empty
    os.utime(lock, (0, 0))
    monkeypatch.setattr(disk, "LOCK_WAIT", 0.2)
    with pytest.raises(OSError, match="another export has been writing it"):
        write_files([(str(path), b"1")])
    assert path.read_bytes() == b"0"
