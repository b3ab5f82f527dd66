"""Never refuse what the game ships (spec/retail-envelope.md, docs/refusing-checks.md): the quirks and
extremes of the retail files, written by core.authoring.retail, pass ``validate``, ``unit`` and
``roundtrip`` byte for byte; the checks the retail files break warn and keep the values; a strict profile still
refuses and says so."""

import json

import numpy as np
import pytest
from test_cli import run

from core.animation.controller import clips_of, read_controller
from core.animation.tracks import read_animation, track_starts
from core.appearance.mat0 import ANIM_KEY, MAT0_TYPE_ID, AnimBlock, Material, material_of, phase, validate_mat0
from core.appearance.material_tracks import timeline
from core.appearance.texm import parse_texm
from core.authoring import retail, units
from core.container.nres import Archive, Entry, name_bytes
from core.model_controller import read_for_model
from core.msh.model import Model
from core.msh.validate import validate_model
from core.unit.cpt import parse_cpt, validate_cpt
from core.unit.dat import parse_dat, validate_dat
from core.unit.mount import mounted_points
from core.unit.resolve import resolve_unit


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return retail.retail_files()


@pytest.fixture
def game(tmp_path, files):
    for name, data in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    parts = Archive.parse(files[units.PARTS])
    for member in ("synth_chassis.cpt", "synth_chassis.ndp"):  # the quirk tables as loose files too
        (tmp_path / "TABLES").mkdir(exist_ok=True)
        (tmp_path / "TABLES" / member).write_bytes(bytes(parts.find(member).data))
    return tmp_path


def loader(files):
    by_name = {name.lower(): data for name, data in files.items()}
    return lambda name: by_name.get(name.replace("\\", "/").lower())


def resolved(files):
    return resolve_unit(parse_dat(files[retail.UNIT_DAT]), Archive.parse(files[units.OBJECTS]), loader(files))


# ----------------------------------------------------------------- the generators write what the digest lists
def test_the_generators_write_the_retail_extremes_and_quirks(files):
    legacy = Model.parse(files[f"MODELS/{retail.LEGACY_NAME}"])
    assert legacy.is_legacy and legacy.stream(1).attr3 == 24
    flags = Model.parse(files["MODELS/retail_flags.msh"])
    assert sorted(set(flags.nodes["flags"].tolist())) == [retail.INTERIOR, retail.COCKPIT, retail.SHELL]
    assert set(flags.batches["flags"].tolist()) == set(retail.BATCH_FLAGS)
    assert set(flags.triangles["flags"].tolist()) == set(retail.FACE_FLAGS)
    textures = Archive.parse(files["Textures.lib"])
    assert {parse_texm(e.data).format for e in textures.entries} == set(retail.TEXTURE_FORMATS)
    assert {parse_texm(e.data).flags4 for e in textures.entries} == {0, 32}
    materials = Archive.parse(files["Material.lib"])
    assert {e.attr1 for e in materials.entries} == set(retail.MATERIAL_ATTR1)
    tracks = [b.header for e in materials.entries for b in material_of(e).animations]
    assert {h & 7 for h in tracks} == set(retail.TRACK_MODES) and {h >> 3 for h in tracks} == set(retail.TRACK_MASKS)
    assert max(len(material_of(e).phases) for e in materials.entries) == retail.MOST_PHASES
    odd = Model.parse(files["MODELS/retail_odd_keys.msh"]).keys["rot"]
    assert odd[1].tolist() == [0, 0, 0, 0] and odd[2].tolist() == [20000, 20000, 0, 0]
    controller = files["MODELS/a_a_l3.ctl"]
    assert len(controller) == retail.LONGEST_BYTES == 222_496
    assert read_controller(controller)[0].counts == (217, 0, 2, 0, 1)
    assert [len(c.states) for c in clips_of(read_controller(controller)[0])] == [217]
    kinds = read_controller(files["MODELS/retail_walker.ctl"])
    assert [c.kind for c in kinds[0].components] == list(range(1, 31)) and not kinds[1]
    assert (kinds[0].contacts["flags"] == 0x20).all()
    points = parse_cpt(Archive.parse(files[units.PARTS]).find("synth_chassis.cpt").data)
    assert points.points["carrier"].tolist() == [0, 3, -1, 9, 0, 0] and points.points["node"][4] == 7
    assert (points.points["flags"] == retail.CPT_FLAGS).all()
    assert [c.record for c in parse_dat(files[retail.UNIT_DAT]).components].count(retail.MISSING_RECORD) == 1


# ----------------------------------------------------------------- control points and parts without a record
def test_a_point_without_a_carrier_stays_on_its_node_and_one_off_the_mesh_is_reported(files):
    unit = resolved(files)
    assert not [f for f in unit.findings if f.is_error]
    chassis = unit.assembly.parts[0]
    nodes, carriers, findings = mounted_points(unit.parts[0].points, chassis)
    assert nodes.tolist() == [0, 3, 3, 3, -1, 0] and carriers.tolist() == [0, 3, -1, -1, 0, 0]
    assert [f.severity for f in findings] == ["warning"] * 3
    assert {f.message.rsplit(": ", 1)[1] for f in findings} == {"the point stays on its node",
                                                                 "the point is not placed"}
    data = bytes(Archive.parse(files[units.PARTS]).find("synth_chassis.cpt").data)
    assert all(not f.is_error for f in validate_cpt(data, node_count=4))
    assert parse_cpt(data).to_bytes() == data


def test_a_component_naming_no_record_is_left_out_and_the_rest_is_assembled(files):
    unit = resolved(files)
    index = next(i for i, p in enumerate(unit.parts) if p.record == retail.MISSING_RECORD)
    assert unit.parts[index].missing == ["record"] and unit.assembly.parts[index] is None
    finding = next(f for f in unit.findings if f.index == index)
    assert (finding.severity, finding.message) == (
        "warning", f"no record {retail.MISSING_RECORD!r} in objects.rlb: the part is left out")
    mounted = [i for i, p in enumerate(unit.assembly.parts) if p is not None]
    assert len(mounted) == len(unit.parts) - 1 and unit.assembly.node_count == 16


def test_the_longest_controller_is_read_whole_and_plays_against_its_model(files):
    model = Model.parse(files["MODELS/a_a_l3.msh"])
    controller, findings = read_for_model(files["MODELS/a_a_l3.ctl"], "a_a_l3.ctl", model)
    assert not [f for f in findings if f.is_error] and controller.to_bytes() == files["MODELS/a_a_l3.ctl"]


def test_a_controller_with_indices_it_cannot_resolve_is_kept_whole(files):
    """Group indices past the groups and channels on nodes the model lacks: every state, channel and component
    is kept and each unresolved index is reported (no source published their ranges)."""
    model = Model.parse(files["MODELS/a_a_l3.msh"])
    controller = read_controller(files["MODELS/a_a_l3.ctl"])[0]
    controller.states["entry_group"][5] = 40
    controller.group_block[2] = 9
    controller.channels["node"][1] = 99
    data = controller.to_bytes()
    kept, findings = read_for_model(data, "bad.ctl", model)
    assert kept.to_bytes() == data and len(kept.states) == 217 and len(kept.channels) == 2
    assert sorted((f.stream, f.index) for f in findings) == [("channel", 1), ("groups", 2), ("state", 5)]
    assert all(not f.is_error for f in findings)
    assert [len(c.states) for c in clips_of(kept)] == [217]


# ----------------------------------------------------------------- what no source measured
def test_a_fallback_key_shared_with_an_earlier_node_reads_as_a_one_key_track(files):
    """read_animation required each fallback key to follow the previous node's; none of the sources measured
    that (retail-envelope 17): the node's track is its one fallback key, and every track lies in the pool."""
    model = Model.parse(files["UNMEASURED/shared_fallback.msh"])
    assert track_starts(model) == [0, 1, 0]
    tracks = read_animation(model).tracks
    assert [len(t) for t in tracks] == [1, 1, 1] and tracks[2].read_start == 0
    assert tracks[2].pos.tobytes() == model.keys[:1]["pos"].tobytes()


@pytest.mark.parametrize("name", sorted(retail.unmeasured_models()))
def test_what_no_source_measured_is_a_warning_and_kept(name, files):
    data = files[f"UNMEASURED/{name}"]
    model = Model.parse(data)
    found = validate_model(model)
    assert found and not [f.format() for f in found if f.is_error]
    assert model.reencoded().to_bytes() == data
    if not model.is_legacy:
        read_animation(model)  # the tracks decompose


def test_a_material_track_without_keys_holds_the_first_entry_and_is_a_warning():
    """Every retail track has a key; whether the game reads an empty one is not known: it no longer refuses."""
    material = Material(2, 6, 0)
    material.phases = np.array([phase((1, 0, 0, 1), "A.0"), phase((0, 1, 0, 1), "B.0")])
    material.animations = [AnimBlock(0, np.zeros(0, ANIM_KEY))]
    entry = Entry(MAT0_TYPE_ID, 2, 6, 0, name_bytes("EMPTY"), material.to_bytes())
    assert [(f.severity, f.message) for f in validate_mat0(entry)] == [
        ("warning", "animation block 0 has no keys: it holds the first entry")]
    times = timeline(material_of(entry).animations[0], [0, 500, 10_000])
    assert times.entry.tolist() == [0, 0, 0] and times.factor.tolist() == [0, 0, 0]
    assert material_of(entry).to_bytes() == entry.data


def test_unit_name_blocks_without_nul_empty_records_and_negative_attach_are_warnings():
    """No source measured these on IS (IS2 ships NUL-less blocks): the tree reads and writes back as it is."""
    tree = units.unit_tree()
    tree.components[1].record_raw = b"x" * 32
    tree.components[2].attach = -1
    tree.components[7].record_raw = bytes(32)
    data = tree.to_bytes()
    found = validate_dat(data)
    assert {(f.index, f.severity) for f in found} == {(1, "warning"), (2, "warning"), (7, "warning")}
    assert parse_dat(data).to_bytes() == data


# ----------------------------------------------------------------- the CLI over the whole folder
def test_validate_unit_and_roundtrip_refuse_nothing_and_keep_every_byte(capsys, game):
    code, out, err = run(capsys, "validate", game, "--json")
    results = json.loads(out)["files"]
    assert code == 0, err
    assert len(results) >= 11 and all(r["valid"] and r["errors"] == 0 for r in results)
    code, out, err = run(capsys, "roundtrip", game)
    assert code == 0, err
    assert f"{len(results)} files: {len(results)} identical, 0 not" in out
    code, out, err = run(capsys, "unit", game / retail.UNIT_DAT)
    assert code == 0, err
    assert "MISSING: record" in out and "the point stays on its node" in out and "error" not in out + err


def test_the_strict_profile_still_refuses_and_names_itself(capsys, game):
    code, out, err = run(capsys, "unit", "--strict", game / retail.UNIT_DAT)
    assert code == 1 and "refused by the strict profile: 3 warnings" in err
    code, out, _ = run(capsys, "validate", "--strict", game / "MODELS" / retail.LEGACY_NAME)
    assert code == 1 and "INVALID: 0 errors, 1 warnings (refused by the strict profile)" in out
    code, out, _ = run(capsys, "validate", "--strict", "--json", game / "MODELS" / retail.LEGACY_NAME)
    assert json.loads(out)["files"][0]["refused_by"] == "strict"
    code, out, _ = run(capsys, "validate", game / "MODELS" / retail.LEGACY_NAME, "--json")
    assert code == 0 and json.loads(out)["files"][0]["refused_by"] is None


def test_limits_admit_the_retail_extremes():
    """Every limit constant lies above the largest retail value it bounds (retail-envelope 15)."""
    from core.animation.controller.graph import PLAN_LIMIT
    from core.animation.tracks import MAX_FRAMES, MAX_KEYS
    from core.appearance.mat0 import MAX_ANIMATIONS
    from core.unit.objects import MAX_HOPS

    assert PLAN_LIMIT > retail.LONGEST_STATES       # about 217 states in a_a_l3.ctl
    assert MAX_KEYS > 34_049 and MAX_FRAMES > 124  # keys over all models; the longest published timeline
    assert MAX_ANIMATIONS >= 8 and MAX_HOPS >= 3    # MAT0 tracks; FORT redirects
    assert np.iinfo(np.uint16).max >= 11_125        # terrain vertices per map, u16 indices
