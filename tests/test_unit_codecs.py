"""The unit codecs (.dat trees, objects.rlb records, .cpt, .ndp) write back byte for
byte, and hostile inputs give findings, never another exception, with memory not driven by counts."""

import struct
import tracemalloc

import numpy as np
import pytest

from core.authoring import units
from core.container.nres import Archive
from core.errors import FormatError
from core.unit import objects
from core.unit.cpt import parse_cpt, validate_cpt
from core.unit.dat import COMPONENT_SIZE, Component, UnitTree, parse_dat, tree_parents, validate_dat
from core.unit.ndp import parse_ndp, validate_ndp
from core.unit.objects import lookup, tag_id, validate_objects
from core.unit.resolve import resolve_unit

MB = 2 ** 20


@pytest.fixture(scope="module")
def files():
    return units.unit_files()


@pytest.fixture(scope="module")
def parts(files):
    return Archive.parse(files[units.PARTS])


def errors(findings):
    return [f.message for f in findings if f.is_error]


def peak_of(call):
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ----------------------------------------------------------------- round trips
def test_dat_round_trip_keeps_bytes_after_each_nul(files):
    for name in (units.UNIT_DAT, units.FORT_DAT):
        data = files[name]
        tree = parse_dat(data)
        assert tree.to_bytes() == data
        assert validate_dat(data) == []
    tree = parse_dat(files[units.UNIT_DAT])
    assert tree.components[0].display_raw[14:] != bytes(32 - 14), "the synthetic root carries bytes after its NUL"
    assert [c.record for c in tree.components] == ["synth_chassis", "i_eng_m_df", "e_tur_lt_01", "e_gun_ll_01",
                                                   "e_gun_ll_01", "e_tur_mt_01", "e_gun_mc_01", "i_c01_clip"]
    assert tree.parents() == [None, 0, 0, 2, 2, 0, 5, 6]
    assert tree.components[0].display == "Шасси (sh01)"


def test_dat_edit_rewrites_only_the_edited_name(files):
    data = files[units.UNIT_DAT]
    tree = parse_dat(data)
    tree.components[2].set_record("E_TUR_LT_02")
    out = tree.to_bytes()
    start = 8 + 2 * COMPONENT_SIZE + 32
    changed = [i for i in range(len(data)) if data[i] != out[i]]
    assert changed and all(start <= i < start + 12 for i in changed)
    with pytest.raises(FormatError, match="at most 31 bytes"):
        tree.components[0].set_record("x" * 32)
    with pytest.raises(FormatError, match="code page 1251"):
        tree.components[0].set_record("\u4e2d")


def test_cpt_ndp_and_records_round_trip(files, parts):
    for entry in parts.entries:
        name = entry.name.decode()
        if name.endswith(".cpt"):
            assert parse_cpt(entry.data).to_bytes() == bytes(entry.data)
            assert validate_cpt(entry.data) == []
        elif name.endswith(".ndp"):
            assert parse_ndp(entry.data).to_bytes() == bytes(entry.data)
            assert validate_ndp(entry.data) == []
    records = Archive.parse(files[units.OBJECTS])
    for entry in records.entries:
        assert objects.parse_record(entry).to_bytes() == bytes(entry.data)
    assert validate_objects(records) == []
    assert records.to_bytes() == files[units.OBJECTS]
    chassis = parse_cpt(parts.find("synth_chassis.cpt").data)
    assert chassis.names == ["CameraCenter", "Foot"]
    assert chassis.points["node"].tolist() == [0, 3]
    table = parse_ndp(parts.find("synth_chassis.ndp").data)
    assert len(table) == 4 and table.row(3)["flags"] == 0x20


def test_objects_rlb_has_every_tag_of_the_digest(files):
    records = Archive.parse(files[units.OBJECTS])
    tags = {objects.tag_text(e.type_id) for e in records.entries}
    assert tags == {"STAT", "INTO", "EXTO", "BULL", "WPNS", "BTLU", "FORT", "SUNO"}
    for entry in records.entries:
        record = objects.parse_record(entry)
        assert len(record.slots) in objects.SLOT_COUNTS[record.tag]


# ----------------------------------------------------------------- lookup
def test_lookup_is_case_insensitive_picks_slots_by_extension_and_follows_redirects(files):
    records = Archive.parse(files[units.OBJECTS])
    found = lookup(records, "E_Tur_LT_01", ".cpt")
    assert found.slot.member == "e_tur_lt_01.cpt" and found.slot.archive == units.PARTS and not found.findings
    fort = lookup(records, "SYNTH_FORT", ".msh")
    assert fort.slot.member == "synth_fort_base.msh" and fort.chain == ["synth_fort", "synth_fort_base"]
    assert lookup(records, "synth_fort", ".bas").chain == ["synth_fort"]
    missing = lookup(records, "no_such_unit", ".msh")
    assert missing.slot is None and errors(missing.findings) == ["no record 'no_such_unit'"]


def _redirecting(pairs: list[tuple[str, str]]) -> Archive:
    archive = Archive()
    for key, target in pairs:
        archive.add(key, units._slot(units.OBJECTS, target) + units._slot(units.PARTS, f"{key}.bas"),
                    tag_id("FORT"))
    return archive


def test_redirect_cycles_self_references_long_chains_and_missing_targets_are_findings():
    cycle = _redirecting([("a", "B"), ("b", "a")])
    found = lookup(cycle, "a", ".msh")
    assert found.slot is None and any("cycle" in m for m in errors(found.findings))
    itself = _redirecting([("self", "SELF")])
    assert any("cycle" in m for m in errors(lookup(itself, "self", ".msh").findings))
    assert any("cycle" in m for m in errors(validate_objects(itself)))
    chain = _redirecting([("r0", "r1"), ("r1", "r2"), ("r2", "r3"), ("r3", "r4"), ("r4", "r5")])
    assert any("more than 3 redirects" in m for m in errors(lookup(chain, "r0", ".msh").findings))
    dangling = _redirecting([("lonely", "nowhere")])
    assert "no record 'nowhere' (redirected from 'lonely')" in errors(lookup(dangling, "lonely", ".msh").findings)


def test_record_payloads_that_are_not_slots():
    archive = Archive()
    archive.add("broken", bytes(65), tag_id("EXTO"))
    archive.add("short", bytes(64), tag_id("EXTO"))
    archive.add("odd", bytes(64), tag_id("ZZZZ"))
    archive.add("unterminated", b"x" * 64 * 5, tag_id("INTO"))
    findings = validate_objects(archive)
    assert any("not a whole number of 64-byte slots" in m for m in errors(findings))
    messages = [f.message for f in findings]
    assert any("1 slots, EXTO has 5" in m for m in messages)
    assert any("tag ZZZZ" in m for m in messages)
    # no source measured a NUL-less slot name: a warning, the 32 bytes read as the name
    assert any("no NUL" in f.message for f in findings if not f.is_error)
    assert any("not a whole number" in m for m in errors(lookup(archive, "broken", ".msh").findings))


# ----------------------------------------------------------------- hostile trees
def _dat(counts: list[int], tail: bytes = b"") -> bytes:
    tree = UnitTree(units.UNIT_TYPE, [Component.new(f"part{i}", 0, -1 if i == 0 else 0, children=c)
                                      for i, c in enumerate(counts)])
    return tree.to_bytes() + tail


def test_tree_child_counts_past_the_end_negative_and_huge():
    assert tree_parents([2, 1, 0, 0]) == ([None, 0, 1, 0], [])
    assert errors(validate_dat(_dat([3, 0]))) == ["child count 3 runs past the end: 1 components follow"]
    assert errors(validate_dat(_dat([1, 5]))) == ["child count 5 runs past the end: 0 components follow"]
    assert "negative child count -1" in errors(validate_dat(_dat([1, -1])))
    assert errors(validate_dat(_dat([1, 0, 0])))[0].startswith("component lies outside the root's tree")
    for huge in (0x7FFFFFFF, -0x80000000):
        findings, peak = peak_of(lambda huge=huge: validate_dat(_dat([huge, 0])))
        assert str(huge) in errors(findings)[0] and len(findings) <= 2 and peak < MB
    assert errors(validate_dat(_dat([0], b"\x01\x02"))) == ["2 bytes after the last whole 112-byte component"]
    assert parse_dat(_dat([0], b"\x01\x02")).to_bytes() == _dat([0], b"\x01\x02")
    with pytest.raises(FormatError, match="child count 9"):
        parse_dat(_dat([9, 0])).parents()


def test_dat_that_is_no_tree_at_all():
    assert errors(validate_dat(b"")) == ["0 bytes: a unit tree starts with an 8-byte header"]
    assert errors(validate_dat(b"\xf1\xf0\0\0\0\x80\0\0")) == ["no components: a unit needs at least its root"]
    assert "bad magic" in errors(validate_dat(b"NRes" + bytes(200)))[0]
    with pytest.raises(FormatError):
        parse_dat(b"\xf1\xf0")


def test_a_component_naming_its_own_parent_and_a_record_redirecting_to_itself(files):
    tree = units.unit_tree()
    tree.components[1].set_record("synth_chassis")
    assert any("its own parent's record" in f.message for f in validate_dat(tree.to_bytes()))
    records = _redirecting([("loop", "loop")])
    unit = resolve_unit(UnitTree(units.UNIT_TYPE, [Component.new("loop", 0)]), records, lambda name: None)
    assert any("cycle" in f.message for f in unit.findings if f.is_error)
    assert unit.parts[0].missing and unit.assembly.node_count == 0


# ----------------------------------------------------------------- hostile .cpt / .ndp
def test_cpt_and_ndp_counts_never_drive_memory():
    for data, check in ((struct.pack("<I", 0xFFFFFFFF), validate_cpt), (struct.pack("<i", 0x7FFFFFFF), validate_ndp),
                        (struct.pack("<I", 3) + bytes(68 * 3 - 1), validate_cpt),
                        (struct.pack("<i", 2) + bytes(76 * 2 + 1), validate_ndp)):
        findings, peak = peak_of(lambda data=data, check=check: check(data))
        assert len(errors(findings)) == 1 and "needs" in errors(findings)[0] and peak < MB
    assert errors(validate_ndp(struct.pack("<i", -4))) == ["negative row count -4"]
    assert errors(validate_cpt(b"\x01")) == ["1 bytes: a point list starts with a 4-byte count"]
    nan_point = struct.pack("<IIii", 1, 0, 0, 0) + struct.pack("<6f", np.nan, 0, 0, 0, 0, 0) + b"p".ljust(32, b"\0")
    # a non-finite value, a carrier past the mesh (retail chassis points have them) and a short damage table
    # (1 of 542 retail tables has no row per node) are warnings: the bytes are kept
    assert [(f.severity, "not finite" in f.message) for f in validate_cpt(nan_point)] == [("warning", True)]
    assert "node 0 is not a node" not in " ".join(f.message for f in validate_cpt(nan_point, node_count=1))
    carried = validate_cpt(struct.pack("<IIii", 1, 0, 0, 7) + bytes(24 + 32), node_count=1)
    assert [(f.severity, f.message.endswith("the point stays on its node")) for f in carried] == [("warning", True)]
    short = validate_ndp(struct.pack("<i", 0), node_count=3)
    assert [(f.severity, "rows for a model of" in f.message) for f in short] == [("warning", True)]


def test_random_mutations_give_findings_never_another_exception(files, parts):
    """Byte flips, truncations and stretched counts over every unit file: validators return findings and the
    resolver resolves or reports, never raises."""
    rng = np.random.default_rng(20)
    samples = {".dat": (files[units.UNIT_DAT], validate_dat), ".cpt": (bytes(parts.find("e_tur_lt_01.cpt").data),
                                                                       validate_cpt),
               ".ndp": (bytes(parts.find("e_tur_lt_01.ndp").data), validate_ndp)}
    for _suffix, (data, check) in samples.items():
        for _ in range(150):
            mutated = bytearray(data)
            for _flip in range(int(rng.integers(1, 6))):
                mutated[int(rng.integers(0, len(mutated)))] = int(rng.integers(0, 256))
            if rng.random() < 0.3:
                mutated = mutated[:int(rng.integers(0, len(mutated)))]
            assert isinstance(check(bytes(mutated)), list)
    records = files[units.OBJECTS]
    game = dict(files)
    for _ in range(60):
        mutated = bytearray(records)
        for _flip in range(int(rng.integers(1, 12))):
            mutated[int(rng.integers(16, len(mutated) - 64 * 12))] = int(rng.integers(0, 256))
        try:
            archive = Archive.parse(bytes(mutated))
        except FormatError:
            continue
        assert isinstance(validate_objects(archive), list)
        game[units.OBJECTS] = bytes(mutated)
        tree = parse_dat(files[units.UNIT_DAT])
        unit = resolve_unit(tree, archive, lambda name: game.get(name))
        assert isinstance(unit.findings, list)


def test_two_redirects_to_one_record_are_no_cycle():
    """A diamond (a -> b, a -> c, b -> d, c -> d) reads d once and reports nothing; d -> a is a cycle."""
    archive = Archive()
    for key, targets in (("a", ["b", "c"]), ("b", ["d"]), ("c", ["d"]), ("d", [])):
        payload = b"".join(units._slot(units.OBJECTS, t) for t in targets) or units._slot(units.PARTS, "d.bas")
        archive.add(key, payload.ljust(2 * 64, b"\0"), tag_id("FORT"))
    found = lookup(archive, "a", ".msh")
    assert found.slot is None and found.findings == [] and found.chain == ["a", "b", "d", "c"]
    assert validate_objects(archive) == []
    archive.replace("d", units._slot(units.OBJECTS, "A") + bytes(64))
    assert errors(lookup(archive, "a", ".msh").findings) == [
        "record 'A': redirects run in a cycle (a -> b -> d -> A)"]
