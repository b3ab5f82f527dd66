"""core.write_path: what every writer's files go through (what was read, which targets of which kind, the
unedited left alone, the whole set or nothing), and core.disk's recovery of a set a killed writer left half
replaced."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures import static_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.authoring.maps import map_files, synthetic_land, synthetic_mission
from core.disk import (
    ChangedError,
    InputError,
    InterruptedSetError,
    journal_of,
    read_input,
    read_with_state,
    recovery_notes,
    write_files,
)
from core.kinds import kind_of
from core.write_path import UNREAD, Target, write, written_here

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def model_bytes() -> bytes:
    return static_model()


def _land() -> bytes:
    return map_files()["Land.msh"]


def _mission() -> bytes:
    return synthetic_mission(synthetic_land()[0]).to_bytes()


def test_kinds_are_told_from_the_bytes(model_bytes):
    assert kind_of(b"") == "empty"
    assert kind_of(model_bytes) == "model"
    assert kind_of(_land()) == "land"
    assert kind_of(_mission()) == "mission"
    assert kind_of(b"glTF\x02\x00\x00\x00") == "glb"
    assert kind_of(b'{"asset": {"version": "2.0"}}') == "gltf"
    assert kind_of(b"BLENDER-v405") == "blend"
    assert kind_of(b"hello") == "other"


def test_an_rsli_archive_is_a_kind_of_its_own_replaced_only_by_another(tmp_path):
    """gamefont.rlb and sprites.lib are no NRes and no "other data": a member extracted over one is refused."""
    from core.authoring.rsli import rsli_files

    font, sprites = rsli_files()["gamefont.rlb"], rsli_files()["sprites.lib"]
    assert kind_of(font) == kind_of(sprites) == "rsli"
    path = tmp_path / "gamefont.rlb"
    path.write_bytes(font)
    with pytest.raises(InputError, match="holds an RsLi archive"):
        write([Target(str(path), b"Texm" + bytes(40), owned=True)])
    assert path.read_bytes() == font
    assert write([Target(str(path), sprites, owned=True)]).written == [str(path)]


def test_an_unedited_file_is_not_written_and_another_programs_change_is_kept(tmp_path):
    path = tmp_path / "a.wea"
    path.write_bytes(b"as imported")
    read = path.read_bytes()
    path.write_bytes(b"changed by another program")
    result = write([Target(str(path), read, read=read)])
    assert result.unchanged == [str(path)] and result.written == []
    assert path.read_bytes() == b"changed by another program"


def test_an_edited_file_changed_since_it_was_read_is_refused_and_nothing_is_written(tmp_path):
    first, second = tmp_path / "a.wea", tmp_path / "b.wea"
    first.write_bytes(b"one")
    second.write_bytes(b"two")
    reads = {p: p.read_bytes() for p in (first, second)}
    second.write_bytes(b"another program")
    with pytest.raises(ChangedError) as caught:
        write([Target(str(first), b"one edited", read=reads[first]),
               Target(str(second), b"two edited", read=reads[second])])
    assert caught.value.filename == str(second)
    assert (first.read_bytes(), second.read_bytes()) == (b"one", b"another program")
    written = write([Target(str(second), b"two edited", read=reads[second])], replace_changed=True)
    assert written.written == [str(second)] and second.read_bytes() == b"two edited"


def test_what_this_process_wrote_is_no_change_of_another_program_even_after_an_undo(tmp_path):
    """Write the edit, then (as after Ctrl+Z) the scene's unedited bytes against the import's read: the file
    goes back to them, for the file on disk is this process's own write."""
    path = tmp_path / "a.wea"
    path.write_bytes(b"as imported")
    read = path.read_bytes()
    write([Target(str(path), b"edited", read=read)])
    assert path.read_bytes() == b"edited"
    assert written_here(path)
    result = write([Target(str(path), read, read=read)])
    assert result.written == [str(path)] and path.read_bytes() == b"as imported"


def test_a_file_of_another_kind_is_never_replaced(tmp_path, model_bytes):
    mission = tmp_path / "data.tma"
    mission.write_bytes(_mission())
    before = mission.read_bytes()
    with pytest.raises(InputError, match="holds a mission") as caught:
        write([Target(str(mission), _land(), owned=True)])
    assert caught.value.filename == str(mission) and mission.read_bytes() == before
    model = tmp_path / "tank.msh"
    model.write_bytes(model_bytes)
    with pytest.raises(InputError, match="holds a model"):
        write([Target(str(model), b'{"asset": {"version": "2.0"}}', owned=True)])
    assert model.read_bytes() == model_bytes


def test_an_existing_file_neither_read_nor_owned_is_left_alone(tmp_path):
    other = tmp_path / "Land.map"
    other.write_bytes(b"another tree's map")
    with pytest.raises(InputError, match="not one the export read"):
        write([Target(str(other), b"ours")])
    assert other.read_bytes() == b"another tree's map"
    assert write([Target(str(other), b"ours")], replace_unread=True).written == [str(other)]
    assert write([Target(str(other), b"ours again")]).written == [str(other)]  # this process's own file now
    fresh = tmp_path / "new.wea"
    assert write([Target(str(fresh), b"new", read=UNREAD)]).written == [str(fresh)]


def test_a_read_only_target_needs_force(tmp_path):
    path = tmp_path / "a.wea"
    path.write_bytes(b"old")
    path.chmod(0o444)
    if os.access(path, os.W_OK) and os.geteuid() != 0:
        pytest.skip("the file system ignores permission bits")
    with pytest.raises(PermissionError):
        write([Target(str(path), b"new", owned=True)])
    assert path.read_bytes() == b"old"
    write([Target(str(path), b"new", owned=True)], force=True)
    assert path.read_bytes() == b"new"


# ------------------------------------------------------------------ a set killed between two replacements
KILLER = """
import os, signal, sys
sys.path.insert(0, {root!r})
from core import disk
count = [0]
real = os.replace
def replace(src, dst, *a, **k):
    real(src, dst, *a, **k)
    if str(dst).endswith({suffix!r}):
        count[0] += 1
        if count[0] == {after}:
            os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
disk.write_files([(p, p.encode() + b" new") for p in {paths!r}])
"""


def _killed_writer(paths: list[str], after: int) -> None:
    names = tuple(Path(p).name for p in paths)
    script = KILLER.format(root=str(ROOT), paths=paths, after=after, suffix=names[0][-3:])
    process = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert process.returncode == -signal.SIGKILL, process.stderr.decode()


def _set(tmp_path, n: int) -> list[str]:
    paths = []
    for i in range(n):
        path = tmp_path / f"f{i}.wea"
        path.write_bytes(f"old {i}".encode())
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("after", [1, 2])
def test_a_set_killed_between_two_replacements_is_put_back_by_the_next_read(tmp_path, after):
    paths = _set(tmp_path, 3)
    _killed_writer(paths, after)
    assert Path(paths[0]).read_bytes().endswith(b" new")  # the kill left the set half replaced
    assert journal_of(paths[0]).exists()
    recovery_notes()
    assert read_input(paths[2]) == b"old 2"
    assert [Path(p).read_bytes() for p in paths] == [f"old {i}".encode() for i in range(3)]
    assert any("put back" in note for note in recovery_notes())
    assert sorted(os.listdir(tmp_path)) == ["f0.wea", "f1.wea", "f2.wea"]  # no journal, backup or temporary


def test_a_set_killed_after_its_last_replacement_keeps_the_new_files(tmp_path):
    paths = _set(tmp_path, 2)
    _killed_writer(paths, 2)
    write_files([(paths[1], b"later")])  # the next write of one of them finds the journal
    assert Path(paths[0]).read_bytes().endswith(b" new") and Path(paths[1]).read_bytes() == b"later"
    assert sorted(os.listdir(tmp_path)) == ["f0.wea", "f1.wea"]


def test_a_set_one_of_whose_files_changed_since_the_kill_is_named_and_left(tmp_path):
    paths = _set(tmp_path, 3)
    _killed_writer(paths, 1)
    Path(paths[0]).write_bytes(b"another program")  # the file the writer replaced, changed since
    with pytest.raises(InterruptedSetError) as caught:
        read_input(paths[2])
    message = str(caught.value)
    assert "f0.wea" in message and "changed since" in message and ".old.tmp" in message
    journal = json.loads(journal_of(paths[0]).read_bytes())
    backup = next(e["backup"] for e in journal["files"] if e["target"].endswith("f0.wea"))
    assert Path(backup).read_bytes() == b"old 0"  # as the message says, the old contents are kept
    assert Path(paths[0]).read_bytes() == b"another program" and Path(paths[2]).read_bytes() == b"old 2"


@settings(max_examples=int(os.environ.get("WRITE_PATH_EXAMPLES", "12")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(2, 4), after=st.integers(1, 4), changed=st.booleans())
def test_any_kill_between_replacements_leaves_a_whole_set(tmp_path_factory, n, after, changed):
    """Whatever replacement the kill lands after, the next read gives every file old or every file new."""
    folder = tmp_path_factory.mktemp("set")
    paths = _set(folder, n)
    after = min(after, n)
    _killed_writer(paths, after)
    if changed:  # a later write of the whole set through the write path recovers it first
        reads = [read_with_state(p) for p in paths]
        write([Target(p, b"third", read=state) for p, (_data, state) in zip(paths, reads, strict=True)])
        assert [Path(p).read_bytes() for p in paths] == [b"third"] * n
    else:
        contents = [read_input(p) for p in paths]
        assert contents in ([f"old {i}".encode() for i in range(n)], [p.encode() + b" new" for p in paths])
    assert not [name for name in os.listdir(folder) if name.startswith(".")]
