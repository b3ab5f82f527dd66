"""Writers of one file at once (core.disk.write_files): each reads the file, then replaces it only if it is still as
read (``read_as``), else reads again. Checking and replacing must be one step against the other writers (the batch
tool's workers exporting into one archive): else two find the file unchanged and the second replaces the first's
write, which is lost."""

import multiprocessing
import os

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
