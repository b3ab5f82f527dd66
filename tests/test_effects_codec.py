"""Effects: ``.exp`` explosions and FXID effects read strictly and tolerantly, written back byte for byte, edited
in named fields only (the unnamed bytes, editor garbage included, carried), new emitter blocks only as copies;
the controller records and damage rows that attach effects to a model; the chain .ndp -> .exp -> FXID ->
material or sound (world digest section 2)."""

import struct
import tracemalloc

import numpy as np
import pytest

from core.animation.controller.codec import ACTION
from core.authoring import effects as E
from core.effects import attach, exp, fxid, library
from core.errors import FormatError
from core.unit.cpt import points_of
from core.unit.ndp import table_of

EFFECTS = E.sample_effects()
EXPLOSIONS = E.sample_explosions()


# ------------------------------------------------------------------ .exp
@pytest.mark.parametrize("name", sorted(EXPLOSIONS))
def test_every_sample_explosion_reads_and_writes_back_identically(name):
    data = EXPLOSIONS[name]
    explosion, findings = exp.read_exp(data, name)
    assert len(data) == exp.SIZE == 792 and findings == []
    assert explosion.to_bytes() == data


def test_an_explosion_names_its_fields_and_slots_in_surface_order():
    round_ = exp.parse_exp(EXPLOSIONS["synth_round.exp"])
    assert (round_.kind, round_.damage, round_.radius, round_.placement) == (2, 1.0, 2.0, 7)
    assert round_.filled == list(range(12))
    assert [round_.slot(i)[1] for i in range(1, 12)] == [f"synth_exp_{t}" for t in exp.SURFACE_TAGS]
    assert exp.parse_exp(EXPLOSIONS["synth_quiet.exp"]).filled == []
    summary = exp.parse_exp(EXPLOSIONS["synth_blast_b.exp"]).summary()
    assert summary["kind_meaning"] == "area blast" and summary["damage"] == 800_000.0


def test_an_explosion_of_another_size_is_refused_naming_the_file():
    for size in (0, 791, 793):
        with pytest.raises(FormatError) as caught:
            exp.parse_exp(EXPLOSIONS["synth_round.exp"].ljust(size, b"\0")[:size], "weapon.rlb:x.exp")
        assert str(caught.value).startswith("weapon.rlb:x.exp: exp: error:") and "792" in str(caught.value)
        assert exp.validate_exp(bytes(size))[0].is_error


def test_editing_an_explosion_changes_only_the_fields_edited():
    data = bytearray(EXPLOSIONS["synth_round.exp"])
    data[12:16] = struct.pack("<I", 0x7FC00123)       # garbage in an unread word
    data[24 + 20:24 + 32] = b"\0tail bytes\0"          # bytes after slot 0's archive name
    explosion = exp.parse_exp(bytes(data))
    explosion.set("damage", 1.0)                       # the value read: keeps its bytes
    explosion.set_slot(0, "effects.rlb", "synth_exp")  # the names read
    assert explosion.to_bytes() == bytes(data)
    explosion.set("damage", 250.0)
    explosion.set_slot(0, "EFFECTS.RLB", "synth_exp_mt")
    out = explosion.to_bytes()
    assert struct.unpack_from("<f", out, 4)[0] == 250.0 and out[12:16] == bytes(data[12:16])
    assert out[24 + 20:24 + 32] == bytes(data[24 + 20:24 + 32])        # the archive name's tail kept
    changed = [i for i in range(792) if out[i] != data[i]]
    assert all(4 <= i < 8 or 24 <= i < 24 + 64 for i in changed)
    with pytest.raises(FormatError):
        explosion.set_slot(0, "a" * 32, "m")
    with pytest.raises(FormatError):
        explosion.set("unread", 2.0)


def test_unusual_explosion_values_are_warnings_and_kept():
    explosion = exp.explosion_of(9, float("nan"), 2.0, 12, [("effects.rlb", "")])
    found, findings = exp.read_exp(explosion.to_bytes(), "odd.exp")
    messages = " | ".join(f.message for f in findings)
    assert not any(f.is_error for f in findings)
    assert "hit kind 9" in messages and "not finite" in messages and "placement 12" in messages
    assert "archive or a member but not both" in messages
    assert found.to_bytes() == explosion.to_bytes()


# ------------------------------------------------------------------ FXID
@pytest.mark.parametrize("name", sorted(EFFECTS))
def test_every_sample_effect_reads_strictly_and_writes_back_identically(name):
    data = EFFECTS[name]
    effect = fxid.parse_fxid(data, name)
    assert effect.to_bytes() == data and fxid.validate_fxid(data) == []


def test_the_ten_emitter_types_have_their_lengths_and_name_pairs():
    effect = fxid.parse_fxid(EFFECTS["synth_exp"])
    assert [e.type for e in effect.emitters] == [7, 10, 3, 4, 9, 5, 8, 2, 1]
    assert {t: v[1] for t, v in fxid.TYPES.items()} == {1: 224, 2: 148, 3: 200, 4: 204, 5: 112, 6: 4, 7: 208,
                                                         8: 248, 9: 208, 10: 208}
    refs = [e.reference for e in effect.emitters]
    assert refs[-1] is None and refs[-2] == ("sounds.lib", "synth_boom.wav")
    assert refs[4] == ("Material.lib", "SYNTH_GLOW_ANIM") and refs[0] == ("Material.lib", "SYNTH_GLOW")
    assert [e.window for e in effect.emitters][2] == pytest.approx((0.01, 0.5))
    light = effect.emitters[-1]
    assert light.get("colour_start") == (3.0, 2.0, 0.0, 1.0) and (light.get("range_start"), light.get("range_end")) \
        == (30.0, 3.0)
    assert effect.emitters[0].word & fxid.DEPTH_OFF_IN_VIEW and effect.emitters[0].get("particle_count") == (4, 5)
    summary = effect.summary()
    assert summary["mode_meaning"] == "once" and summary["switch_name"] == "Explode"
    assert summary["flag_names"] == ["delete at end", "stay where it went off", "run while hidden"]


def test_the_retail_extremes_read():
    assert len(fxid.parse_fxid(EFFECTS["synth_most"]).emitters) == E.MOST_EMITTERS == 81
    assert fxid.parse_fxid(EFFECTS["synth_none"]).emitters == []
    long = fxid.parse_fxid(EFFECTS["synth_long_names"]).emitters[0].reference
    assert long == ("x" * 31, "x" * 31)
    assert sorted(fxid.parse_fxid(EFFECTS[f"synth_mode_{m}"]).mode for m in E.SHIPPED_MODES) == \
        sorted(E.SHIPPED_MODES)


def test_bytes_after_the_last_block_are_refused_strictly_and_kept_tolerantly():
    data = EFFECTS["synth_exp"] + b"\x01\x02\x03"
    with pytest.raises(FormatError) as caught:
        fxid.parse_fxid(data, "effects.rlb:synth_exp")
    assert "effects.rlb:synth_exp: fxid: error: 3 bytes follow the last of the 9 emitters" in str(caught.value)
    effect, findings = fxid.read_fxid(data)
    assert effect.to_bytes() == data and [f.is_error for f in findings] == [False]
    assert fxid.validate_fxid(data)[0].is_error


def test_a_block_that_cannot_be_walked_is_an_error_naming_its_index():
    data = bytearray(EFFECTS["synth_exp"])
    second = 60 + 208
    data[second] = 11
    with pytest.raises(FormatError) as caught:
        fxid.read_fxid(bytes(data), "fx")
    assert caught.value.findings[0].index == 1 and "type 11, none of 1-10" in str(caught.value)
    with pytest.raises(FormatError) as caught:
        fxid.read_fxid(EFFECTS["synth_exp"][:-1], "fx")
    assert caught.value.findings[0].index == 8 and "runs past the end" in str(caught.value)


def test_a_huge_count_is_refused_before_anything_is_allocated():
    data = bytearray(EFFECTS["synth_exp"])
    data[0:4] = struct.pack("<I", 0xFFFFFFFF)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as caught:
            fxid.read_fxid(bytes(data), "fx")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "emitter count 4294967295 needs at least" in str(caught.value) and peak < 1_000_000


def test_named_fields_edit_in_place_and_everything_else_is_carried():
    data = EFFECTS["synth_exp"]
    effect = fxid.parse_fxid(data)
    sprite = effect.emitters[2]
    for name, value in sprite.fields.items():   # the values read, garbage NaNs included: no byte changes
        sprite.set(name, value)
    effect.set("duration", effect.get("duration"))
    effect.set("scale", effect.get("scale"))
    assert effect.to_bytes() == data
    sprite.set("window", (0.1, 0.4))
    sprite.set_reference("Material.lib", "SYNTH_SMOKE")
    effect.set("mode", 2)
    out = effect.to_bytes()
    start = 60 + 208 + 208
    changed = sorted({i for i in range(len(out)) if out[i] != data[i]})
    assert all(i in range(4, 8) or i in range(start + 32, start + 40) or i in range(start + 168, start + 200)
               for i in changed), changed
    assert out[start + 168 + 12:start + 200] == data[start + 168 + 12:start + 200]  # the member name's tail kept
    with pytest.raises(FormatError, match="not a named field of a sprite emitter"):
        sprite.set("colour_start", (1, 1, 1, 1))
    with pytest.raises(FormatError, match="not a header field"):
        effect.set("count", 3)
    with pytest.raises(FormatError, match="names no material or sound"):
        effect.emitters[-1].set_reference("Material.lib", "X")


def test_new_blocks_are_copies_and_the_count_follows():
    effect = fxid.parse_fxid(EFFECTS["synth_exp"])
    donor = fxid.parse_fxid(EFFECTS["synth_most"])
    copy = effect.copy_emitter(0, at=0)
    effect.copy_emitter(3, source=donor)
    assert copy.raw == effect.emitters[1].raw and copy is not effect.emitters[1]
    out = effect.to_bytes()
    again = fxid.parse_fxid(out)
    assert len(again.emitters) == 11 and struct.unpack_from("<I", out)[0] == 11
    assert bytes(again.emitters[-1].raw) == bytes(donor.emitters[3].raw)
    del effect.emitters[:]
    assert fxid.parse_fxid(effect.to_bytes()).emitters == []
    with pytest.raises(FormatError, match="no emitter 20"):
        effect.copy_emitter(20)


def test_unusual_effect_values_are_warnings_and_kept():
    blocks = [E.emitter_block(3, (0.7, 0.2)), E.emitter_block(6), E.emitter_block(2, reference=("sounds.lib", ""))]
    data = E.effect_bytes(blocks, mode=3 + 30, duration=-1.0)
    effect, findings = fxid.read_fxid(data, "odd")
    messages = [f.message for f in findings]
    assert not any(f.is_error for f in findings) and effect.to_bytes() == data
    assert any("time mode 33" in m for m in messages) and any("duration -1.0" in m for m in messages)
    assert [f.index for f in findings if "window" in f.message] == [0]
    assert [f.index for f in findings if "type-6" in f.message] == [1]
    assert [f.index for f in findings if "names no sound" in f.message] == [2]


# ------------------------------------------------------------------ attachments and the chain
def _record(action: int, v=(0, 0, 0, 0), archive: str = "", member: str = "") -> np.ndarray:
    r = np.zeros((), ACTION)
    r["values"][3] = action
    r["values"][4:8] = v
    r["archive"], r["member"] = archive.encode(), member.encode()
    return r


def test_controller_records_attach_effects_to_a_node_three_points_or_the_sphere():
    group = np.array([_record(3, (2, 0, 0, 7), "effects.rlb", "synth_exp"),
                      _record(10, (7, 2, 0, 0)), _record(14, (7, 4, 0, 0)),
                      _record(4, (11, 12, 13, 8), "effects.rlb", "synth_mode_4"),
                      _record(18, (8, 0, 0, 0)),
                      _record(5, (0, 0, 0, 9), "effects.rlb", "synth_mode_1"),
                      _record(27, (3, 0, 0, 0), "weapon.rlb", "synth_round.exp")], ACTION)
    found = attach.attachments_of([np.zeros(0, ACTION), group])
    assert [(a.group, a.record, a.place) for a in found] == [(1, 0, "node"), (1, 3, "points"), (1, 5, "sphere"),
                                                             (1, 6, "explode")]
    on_node, on_points, on_sphere, explode = found
    assert (on_node.node, on_node.effect_id, on_node.start_mode, on_node.time_node) == (2, 7, 2, 4)
    assert on_points.points == (11, 12, 13) and on_points.node is None and on_points.start_mode is None
    assert on_sphere.effect_id == 9 and explode.node == 3 and explode.member == "synth_round.exp"
    assert on_node.summary() == {"group": 1, "record": 0, "action": 3, "place": "node", "archive": "effects.rlb",
                                 "member": "synth_exp", "node": 2, "effect_id": 7, "start_mode": 2, "time_node": 4}


def test_a_three_point_frame_is_their_centroid_and_their_vectors():
    points = points_of([("fx_d", 0, 0, (0, 0, 0), (2, 0, 0)), ("fx_w", 0, 0, (3, 0, 0), (0, 1, 0)),
                        ("fx_h", 0, 0, (0, 3, 0), (0, 0, 0.5))])
    origin, axes = attach.points_frame(points, (0, 1, 2))
    assert origin.tolist() == [1.0, 1.0, 0.0] and axes.tolist() == [[2, 0, 0], [0, 1, 0], [0, 0, 0.5]]
    with pytest.raises(FormatError, match="control point 5"):
        attach.points_frame(points, (0, 1, 5))


def test_the_chain_from_a_damage_row_to_materials_and_sounds_resolves():
    table = table_of([(0, 100.0, 1.0, "weapon.rlb", "synth_round.exp"), (0, 1e6, 1.0, "", "")])
    assert attach.node_explosions(table) == {0: ("weapon.rlb", "synth_round.exp")}
    files = {"weapon.rlb": E.explosions_archive().to_bytes(), "effects.rlb": E.effects_archive().to_bytes()}
    archives = library.Archives(lambda name: files.get(name.lower()))
    entry = archives.entry("WEAPON.RLB", "Synth_Round.exp")
    slots, findings = library.resolve_explosion(exp.parse_exp(entry.data), archives, "synth_round.exp")
    assert [s["found"] for s in slots] == [True] * 12
    assert {(r["archive"], r["found"]) for r in slots[0]["references"]} == {("Material.lib", False),
                                                                             ("sounds.lib", False)}
    assert findings and all(not f.is_error for f in findings)   # the libraries are not loaded: warnings only
    files["material.lib"] = files["sounds.lib"] = _library(["SYNTH_GLOW", "SYNTH_GLOW_ANIM", "synth_boom.wav"])
    archives = library.Archives(lambda name: files.get(name.lower()))
    assert library.resolve_explosion(exp.parse_exp(entry.data), archives)[1] == []


def _library(names):
    from core.container.nres import Archive
    archive = Archive()
    for name in names:
        archive.add(name, b"x", 0)
    return archive.to_bytes()


def test_an_archive_of_effects_is_validated_member_by_member():
    archive = E.effects_archive()
    assert library.has_effects(archive) and library.validate_members(archive) == []
    archive.add("broken", EFFECTS["synth_exp"] + b"\0", fxid.FXID_TYPE_ID)
    archive.add("short.exp", bytes(10), exp.EXP_TYPE_ID)
    findings = library.validate_members(archive)
    assert [(f.where, f.is_error) for f in findings] == [("broken", True), ("short.exp", True)]


def test_explosion_edits_are_spliced_into_their_archive_field_by_field():
    from core.effects.edit import edit_explosion

    archive = E.explosions_archive()
    archive.add("not_an_explosion", b"x", 0)
    before = archive.to_bytes()
    assert edit_explosion(archive, "SYNTH_ROUND.EXP", {"damage": 1.0, "kind": 2}) is False   # the values read
    assert archive.to_bytes() == before
    assert edit_explosion(archive, "synth_round.exp", {"damage": 3, "placement": 0}) is True
    edited = exp.parse_exp(archive.find("synth_round.exp").data)
    assert (edited.damage, edited.placement, edited.kind, edited.radius) == (3.0, 0, 2, 2.0)
    for member, fields, message in (
            ("missing.exp", {"damage": 1.0}, "explosion 'missing.exp' is not in the archive"),
            ("not_an_explosion", {"damage": 1.0}, r"is not an explosion \(EXPL\)"),
            ("synth_round.exp", {"unread": 1.0}, "'unread' is not an editable field"),
            ("synth_round.exp", {"kind": 2.5}, "kind must be a whole number, not 2.5"),
            ("synth_round.exp", {"radius": "big"}, "radius must be a number"),
            ("synth_round.exp", {"placement": 2 ** 31}, "does not fit an i32")):
        with pytest.raises(FormatError, match=message):
            edit_explosion(archive, member, fields, "weapon.rlb")
    assert exp.parse_exp(archive.find("synth_round.exp").data).to_bytes() == edited.to_bytes()


def test_an_explosion_plays_at_its_nodes_bounding_sphere_from_its_first_named_slot():
    from core.authoring.build import build_model
    from core.authoring.controllers import walker_model
    from core.effects.attach import node_spheres
    from core.msh.model import Model
    model = build_model(walker_model())
    spheres = node_spheres(model)
    assert spheres[2][0] == pytest.approx((0.0, 0.6, 0.0)) and set(spheres) == set(range(model.node_count))
    nodes = model.nodes.copy()
    nodes["slots"][2, 0], nodes["slots"][2, 3] = 0xFFFF, 1   # intact LOD 0 empty: the first slot it names
    nodes["slots"][3, 0] = 999                                # past the slot table: skipped, no sphere
    model.set_stream(1, nodes.tobytes())
    data = Model.parse(model.to_bytes())
    assert node_spheres(data)[2][0] == pytest.approx((0.0, 0.0, 0.2)) and 3 not in node_spheres(data)


def test_a_preview_takes_its_numbers_from_the_named_fields_and_garbage_as_defaults():
    from core.effects.preview import LEAST_SIZE, particle_preview, sprite_preview
    header = {"duration": 2.0}
    burst = {"type": 7, "window": [0.25, 0.5], "particle_count": [3, 4], "life_divisor": 0.5,
             "position_low": [0.0, 0.0, 0.0], "position_high": [0.0, 3.0, 4.0], "size_low": [0.2, 0.1, 0.0]}
    p = particle_preview(header, burst)
    assert (p.count, p.start, p.end, p.lifetime, p.speed, p.size) == (12, 0.5, 0.5, 0.5, 10.0, 0.2)
    stream = {"type": 8, "window": [0.0, 1.0], "interval": [0.1, 0.3], "ring_size": 10}
    p = particle_preview({"duration": "nan"}, stream)   # a garbage duration: 1 s
    assert (p.count, p.end, p.lifetime, p.size) == (5, 1.0, pytest.approx(2.0), LEAST_SIZE)
    s = sprite_preview(header, {"type": 9, "window": ["nan", 0.5], "size_low": [1.0, 2.0, 0.0],
                                "size_high": "garbage", "reference": ["Material.lib", "FX_A"]})
    assert (s.start, s.end, s.size_start, s.size_end, s.material) == (0.0, 1.0, 2.0, LEAST_SIZE, "FX_A")
    assert particle_preview(header, {"type": 3}) is None and sprite_preview(header, {"type": 7}) is None
