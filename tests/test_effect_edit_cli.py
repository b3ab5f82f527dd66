"""``python -m core effect``: an FXID effect of an archive edited in place through its named fields, its emitter
blocks copied, its material or sound renamed. Every byte an edit does not name is kept (the effect's unnamed words,
every other entry), the archive is written whole through the write path or not at all, and what cannot be written
is refused naming the field, with nothing written; killed at any step of its write, the archive is the old or the
new one."""

from __future__ import annotations

import struct

import pytest
from fixtures import run_cli as run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_writers_killed import Kit, core, killed_at_every_step

from core.authoring import effects as E
from core.container.nres import Archive
from core.effects.fxid import FIELDS, parse_fxid

EFFECT = "synth_exp"


@pytest.fixture
def archive(tmp_path):
    path = tmp_path / "effects.rlb"
    path.write_bytes(E.effects_archive().to_bytes())
    return path


def entries(path) -> dict[str, bytes]:
    return {e.name_str: bytes(e.data) for e in Archive.parse(path.read_bytes())}


def changed_offsets(old: bytes, new: bytes) -> list[int]:
    assert len(old) == len(new)
    return [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]


def test_a_named_field_changes_its_bytes_only_and_every_other_entry_is_kept(capsys, archive):
    before = entries(archive)
    effect = parse_fxid(before[EFFECT])
    at, fmt = FIELDS[7]["particle_count"]
    start = 60 + at  # emitter 0 (a burst) follows the 60-byte header
    code, out, err = run(capsys, "effect", archive, EFFECT, "--set", "0.particle_count=12,40", "--set", "duration=2.5")
    assert code == 0 and "wrote" in out, err
    after = entries(archive)
    assert {k: v for k, v in after.items() if k != EFFECT} == {k: v for k, v in before.items() if k != EFFECT}
    edited = parse_fxid(after[EFFECT])
    assert edited.emitters[0].get("particle_count") == (12, 40) and edited.get("duration") == 2.5
    size = struct.calcsize(fmt)
    allowed = set(range(start, start + size)) | set(range(8, 12))  # the counts, the header's duration
    assert set(changed_offsets(before[EFFECT], after[EFFECT])) <= allowed
    assert len(edited.emitters) == len(effect.emitters)


def test_a_copied_block_is_the_donors_bytes_and_a_renamed_material_keeps_the_rest(capsys, archive):
    before = parse_fxid(entries(archive)[EFFECT])
    code, out, err = run(capsys, "effect", archive, EFFECT, "--copy", "4@1", "--copy", "0",
                         "--reference", "3=Material.lib/NEW_GLOW")
    assert code == 0, err
    after = parse_fxid(entries(archive)[EFFECT])
    assert len(after.emitters) == len(before.emitters) + 2
    assert bytes(after.emitters[1].raw) == bytes(before.emitters[4].raw)
    assert bytes(after.emitters[-1].raw) == bytes(before.emitters[0].raw)
    assert after.emitters[3].reference == ("Material.lib", "NEW_GLOW")  # before's emitter 2, moved up by the copy
    code, out, err = run(capsys, "validate", archive)
    assert code == 0 and "0 errors" in out


@pytest.mark.parametrize("args, words", [
    (["--set", "0.window=1"], "takes 2 values"),
    (["--set", "0.window=a,b"], "is not a number list"),
    (["--set", "0.nosuch=1"], "'nosuch' is not a named field"),
    (["--set", "99.window=0,1"], "the effect has 9 emitters"),
    (["--set", "count=3"], "'count' is not a header field"),
    (["--set", "flags=1.5"], "is not a whole number"),
    (["--set", "0.particle_count=-1,2"], "particle_count"),
    (["--set", "flags=99999999999"], "header field 'flags'"),
    (["--set", "duration=1e40"], "header field 'duration'"),
    (["--set", "0.window=1e40,1"], "window"),
    (["--copy", "x"], "write N"),
    (["--copy", "0@50"], "the effect has 9 emitters"),
    (["--copy", "40"], "no emitter 40"),
    (["--reference", "8=Material.lib/X"], "names no material or sound"),
    (["--reference", "0=nothing"], "N=ARCHIVE/MEMBER"),
])
def test_what_cannot_be_written_is_refused_naming_it_and_nothing_is_written(capsys, archive, args, words):
    before = archive.read_bytes()
    code, out, err = run(capsys, "effect", archive, EFFECT, *args)
    assert code in (1, 2) and words in out + err, (out, err)
    assert archive.read_bytes() == before


def test_a_member_that_is_missing_or_no_effect_is_refused(capsys, archive, tmp_path):
    code, out, err = run(capsys, "effect", archive, "nothing_here", "--set", "duration=1")
    assert code == 1 and "'nothing_here' is not in the archive" in out + err
    weapon = tmp_path / "weapon.rlb"
    weapon.write_bytes(E.explosions_archive().to_bytes())
    member = Archive.parse(weapon.read_bytes()).entries[0].name_str
    code, out, err = run(capsys, "effect", weapon, member, "--set", "duration=1")
    assert code == 1 and "is not an effect (FXID)" in out + err


def test_another_program_writing_meanwhile_refuses_and_an_output_elsewhere_leaves_the_source(
        capsys, archive, tmp_path, monkeypatch):
    from core.cli import effect_edit

    other = archive.read_bytes() + b""
    real = effect_edit.parse_fxid

    def meanwhile(data, source=""):  # another program replaces the archive between the read and the write
        archive.write_bytes(other[:-4] + b"\0\0\0\0" if other[-4:] != b"\0\0\0\0" else other[:-4] + b"\1\1\1\1")
        return real(data, source)

    monkeypatch.setattr(effect_edit, "parse_fxid", meanwhile)
    code, out, err = run(capsys, "effect", archive, EFFECT, "--set", "duration=3")
    assert code != 0 and "changed on disk" in out + err
    monkeypatch.undo()
    source = archive.read_bytes()
    out_path = tmp_path / "edited.rlb"
    code, out, err = run(capsys, "effect", archive, EFFECT, "--set", "duration=3", "-o", out_path)
    assert code == 0 and archive.read_bytes() == source
    assert parse_fxid(entries(out_path)[EFFECT]).get("duration") == 3.0
    code, out, err = run(capsys, "effect", out_path, EFFECT, "--set", "duration=3")
    assert code == 0 and "unchanged" in out


BURST_VECTORS = ("position_low", "position_high", "size_low", "size_high", "fade")
edits = st.lists(st.one_of(
    st.tuples(st.just("copy"), st.integers(0, 8), st.none() | st.integers(0, 9)),
    st.tuples(st.just("set"), st.sampled_from(BURST_VECTORS),  # edges too: NaN, infinities, float32's extremes
              st.lists(st.floats(width=32) | st.sampled_from([3.4028234663852886e38, -0.0, 1e-45]),
                       min_size=3, max_size=3)),
    st.tuples(st.just("header"), st.sampled_from(["duration", "jitter"]), st.floats(width=32)),
    st.tuples(st.just("too big"), st.sampled_from(["duration", "0.fade"]), st.sampled_from([1e39, -3.5e38])),
), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits)
def test_careless_edit_sequences_reach_the_file_and_nothing_else_changes(capsys, tmp_path_factory, steps):
    path = tmp_path_factory.mktemp("fx") / "effects.rlb"
    path.write_bytes(E.effects_archive().to_bytes())
    others = {k: v for k, v in entries(path).items() if k != EFFECT}
    model = parse_fxid(entries(path)[EFFECT])
    for step in steps:
        if step[0] == "copy":
            _, block, at = step
            at = None if at is None else min(at, len(model.emitters))
            model.copy_emitter(block, at=at)
            args = ["--copy", f"{block}" if at is None else f"{block}@{at}"]
        elif step[0] == "set":
            _, field, values = step
            bursts = [i for i, e in enumerate(model.emitters) if e.type in (7, 10)]
            block = bursts[len(bursts) // 2]
            model.emitters[block].set(field, values)
            args = ["--set", f"{block}.{field}=" + ",".join(repr(v) for v in values)]
        elif step[0] == "too big":  # past float32: refused, nothing written
            _, field, value = step
            before = path.read_bytes()
            value_text = f"{value!r}" if field == "duration" else f"{value!r},0,0"
            code, out, err = run(capsys, "effect", path, EFFECT, "--set", f"{field}={value_text}")
            assert code == 1 and "too large" in out + err and path.read_bytes() == before
            continue
        else:
            _, field, value = step
            model.set(field, value)
            args = ["--set", f"{field}={value!r}"]
        code, out, err = run(capsys, "effect", path, EFFECT, *args)
        assert code == 0, (args, out, err)
        now = entries(path)
        assert now[EFFECT] == model.to_bytes(), args
        assert {k: v for k, v in now.items() if k != EFFECT} == others


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    return Kit(tmp_path_factory.mktemp("killed"))


def test_effect_killed_at_every_step_of_its_write_leaves_the_old_archive_or_the_new(kit, tmp_path):
    folder = tmp_path / "game"
    folder.mkdir()
    path = folder / "effects.rlb"
    path.write_bytes(E.effects_archive().to_bytes())
    killed_at_every_step(kit, core("effect", path, EFFECT, "--copy", "0", "--set", "duration=4"), path, folder)
