"""MAT0 (section 6), WEAR (section 8) and the batch -> WEAR -> MAT0 -> Texm chain (digest facts 8, 14-18)."""

import os
import struct
import time

import numpy as np
import pytest

from core.appearance.mat0 import ADD, BLEND, MAT0_TYPE_ID, OPAQUE, parse_mat0, texture_name_problem, validate_mat0
from core.appearance.resolve import Libraries, find_libraries, resolve_looks
from core.appearance.wear import parse_wear, validate_wear
from core.authoring.synth import material_entry, sample_libraries
from core.container.nres import Archive, Entry
from core.disk import SETTLED_NS, names_in
from core.errors import FormatError
from core.files import open_container, validate_container

PHASE = bytes([10, 20, 30, 50, 200, 100, 50, 255, 1, 2, 3, 4, 5, 6, 7, 8, 3, 0xFE]) + b"BODY.0".ljust(16, b"\0")


def mat0(attr2: int, phases=(PHASE,), anims=()) -> bytes:
    head = struct.pack("<HH", len(phases), len(anims))
    meta = b""
    if attr2 >= 2:
        meta += bytes([7, 9])
    if attr2 >= 3:
        meta += struct.pack("<I", 0x3F000000)
    if attr2 >= 4:
        meta += struct.pack("<I", 0xDEADBEEF)
    body = b"".join(phases)
    for header, keys in anims:
        body += struct.pack("<IH", header, len(keys)) + b"".join(struct.pack("<3H", *k) for k in keys)
    return head + meta + body


@pytest.mark.parametrize("attr2", [0, 1, 2, 3, 4, 6])
def test_every_header_version_round_trips_with_its_meta_fields(attr2):
    data = mat0(attr2, anims=[(0x11, [(0, 10, 0xABCD), (0, 20, 7)])])
    material = parse_mat0(data, attr1=0x10, attr2=attr2)
    assert material.to_bytes() == data
    expected_meta = {0: (255, 255, 0x3F800000, 0), 2: (7, 9, 0x3F800000, 0), 3: (7, 9, 0x3F000000, 0)}
    meta = (material.meta_a, material.meta_b, material.meta_c, material.meta_d)
    assert meta == expected_meta.get(attr2, expected_meta[0] if attr2 < 2 else (7, 9, 0x3F000000, 0xDEADBEEF))
    assert material.animations[0].keys["k2"].tolist() == [0xABCD, 7]  # opaque, kept


def test_phase_bytes_mean_what_the_device_gets():
    material = parse_mat0(mat0(6), attr1=0x12)  # nibble 4: alpha blend; bit 1: lit skin
    assert material.blend == BLEND and material.lit_skin
    r, g, b, a = material.diffuse()
    assert (round(r * 255), round(g * 255), round(b * 255)) == (200, 100, 50)
    assert a == pytest.approx(0.5)  # the ambient alpha p[3] x 0.01, not the diffuse alpha
    assert material.texture_name() == "BODY.0" and material.cell() == -2


@pytest.mark.parametrize(("attr1", "blend"), [(0, OPAQUE), (2 << 2, OPAQUE), (4 << 2, BLEND), (5 << 2, BLEND),
                                              (8 << 2, ADD), (3 << 2, OPAQUE)])
def test_blend_mode_comes_from_the_attr1_nibble(attr1, blend):
    assert parse_mat0(mat0(6), attr1=attr1).blend == blend


@pytest.mark.parametrize(("data", "message"), [
    (struct.pack("<HH", 0, 20), "at most 19"),
    (mat0(6)[:-3], "runs past"),
    (mat0(6) + b"\0", "follow the last animation block"),
    (mat0(6, anims=[(0, [(0, 1, 2)])])[:-2], "keys at byte"),
])
def test_bad_materials_are_refused(data, message):
    with pytest.raises(FormatError, match=message):
        parse_mat0(data, attr2=6)


def test_material_validation_checks_texture_names_and_animation_phases():
    long_name = PHASE[:18] + b"ABCDEFGHIJKLMNOP"
    entry = Entry(MAT0_TYPE_ID, 0, 6, 0, b"M".ljust(36, b"\0"), mat0(6, phases=(long_name,), anims=[(0, [(3, 0, 0)])]))
    messages = [(f.severity, f.message) for f in validate_mat0(entry)]
    assert ("warning", "texture name fills all 16 bytes without a NUL") in messages
    assert any(s == "error" and "refers to phase 3" in m for s, m in messages)
    assert texture_name_problem("NODOT") and texture_name_problem("A.~")
    assert not texture_name_problem("A.Z9") and not texture_name_problem("BODY.0")


WEAR = b"3\r\n0 HULL\r\n5 GLASS PANE\r\n2 DEFAULT\r\n\r\nLIGHTMAPS\r\n1\r\n0 LM_HOUSE\r\n"


def test_wear_rows_are_looked_up_by_position_and_kept_byte_for_byte():
    wear = parse_wear(WEAR)
    assert wear.materials == ["HULL", "GLASS PANE", "DEFAULT"] and wear.lightmaps == ["LM_HOUSE"]
    assert wear.to_bytes() == WEAR


def test_a_changed_wear_list_is_written_canonically_with_the_blank_line_before_lightmaps():
    wear = parse_wear(WEAR)
    wear.materials.append("NEW")
    text = wear.to_bytes()
    assert text == b"4\r\n0 HULL\r\n5 GLASS PANE\r\n2 DEFAULT\r\n3 NEW\r\n\r\nLIGHTMAPS\r\n1\r\n0 LM_HOUSE\r\n"
    assert parse_wear(text).materials[3] == "NEW" and validate_wear(text) == []
    wear.materials.append("日本")
    with pytest.raises(FormatError, match="code page 1251"):
        wear.to_bytes()


@pytest.mark.parametrize(("text", "message"), [
    (b"0\r\n", "Illegal wear length"),
    (b"2\r\n0 A\r\n", "expected '<id> <material name>'"),
    (b"1\r\n0 A\r\n\r\nLIGHTMAPS\r\n-1\r\n", "Illegal lightmaps length"),
    (b"1\r\n0 A\r\nrubbish\r\n", "unexpected text"),
])
def test_bad_wear_lists_name_the_line(text, message):
    with pytest.raises(FormatError, match=message):
        parse_wear(text)
    assert validate_wear(text)[0].is_error


def test_a_lightmap_count_of_0_and_a_tab_between_id_and_name_are_read_and_kept():
    """No source says whether a LIGHTMAPS count of 0 ships; fparkan splits retail rows on any whitespace."""
    text = b"2\r\n0\tA\r\n1  B\r\n\r\nLIGHTMAPS\r\n0\r\n"
    wear = parse_wear(text)
    assert wear.materials == ["A", "B"] and wear.lightmaps == [] and wear.to_bytes() == text
    assert [(f.severity, f.message) for f in validate_wear(text)] == [
        ("warning", "LIGHTMAPS section with a count of 0 (kept as read)")]


def test_lightmaps_without_a_blank_line_warn_about_the_buffer_parser():
    findings = validate_wear(b"1\r\n0 A\r\nLIGHTMAPS\r\n1\r\n0 L\r\n")
    assert [f.severity for f in findings] == ["warning"] and "buffer parser" in findings[0].message


# --------------------------------------------------------------------- the chain
@pytest.fixture
def game(tmp_path):
    folder = tmp_path / "game"
    (folder / "units").mkdir(parents=True)
    for name, archive in sample_libraries().items():
        (folder / name.upper()).write_bytes(archive.to_bytes())  # file names compare case-insensitively
    return folder


def test_libraries_are_found_in_parent_folders_or_the_game_folder(game, tmp_path):
    found = find_libraries(game / "units" / "tank.rlb")
    assert {k: p.name for k, p in found.items()} == {
        "materials": "MATERIAL.LIB", "textures": "TEXTURES.LIB", "lightmaps": "LIGHTMAP.LIB"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert find_libraries(elsewhere / "a.msh") == {}
    assert set(find_libraries(elsewhere / "a.msh", [game])) == {"materials", "textures", "lightmaps"}


def test_folder_listings_are_reused_until_the_folder_changes(tmp_path):
    (tmp_path / "Tank.MSH").write_bytes(b"")
    assert names_in(tmp_path) == {"tank.msh": "Tank.MSH"}
    assert names_in(tmp_path) is not names_in(tmp_path)  # changed in the last 2 s: listed afresh each time
    settled = time.time_ns() - 10 * SETTLED_NS
    os.utime(tmp_path, ns=(settled, settled))
    assert names_in(tmp_path) is names_in(tmp_path)  # listed once
    (tmp_path / "tank.wea").write_bytes(b"")  # a new modification time: listed again
    assert names_in(tmp_path) == {"tank.msh": "Tank.MSH", "tank.wea": "tank.wea"}


def test_batch_words_resolve_through_wear_mat0_and_texm_with_the_runtime_fallbacks(game):
    wear = parse_wear(b"4\r\n0 SAMPLE_BODY\r\n1 GLASS\r\n2 MISSING\r\n3 GLOW\r\n"
                      b"\r\nLIGHTMAPS\r\n1\r\n0 LM_SAMPLE.0\r\n")
    looks, notes = resolve_looks([0xFF00, 0x0001, 0xFF02, 0xFF03, 0xFF09], wear,
                                 Libraries(find_libraries(game / "x.msh")))
    body, glass, missing, glow, beyond = (looks[w] for w in (0xFF00, 0x0001, 0xFF02, 0xFF03, 0xFF09))
    assert body.texture.entry == "BODY.0" and body.cell == (0.5, 0.0, 0.5, 1.0)  # cell 2: second Page rect
    assert glass.blend == BLEND and glass.lightmap.entry == "LM_SAMPLE.0" and glass.label == "GLASS + LM_SAMPLE.0"
    assert missing.material_entry == "DEFAULT" and missing.texture is None and missing.name == "MISSING"
    assert glow.blend == ADD
    assert beyond.name == "material_9" and beyond.material_entry is None
    assert any("'MISSING' is not in material.lib; the game uses DEFAULT" in n for n in notes)
    assert any("material 9 has no row" in n for n in notes)


def test_without_default_the_fallback_is_entry_0(game, tmp_path):
    folder = tmp_path / "nodefault"
    folder.mkdir()
    lib = Archive()
    for entry in (material_entry("FIRST", (1, 0, 0, 1)), material_entry("SECOND", (0, 1, 0, 1))):
        name, data, type_id, attrs = entry
        lib.add(name, data, type_id, **attrs)
    (folder / "Material.lib").write_bytes(lib.to_bytes())
    looks, _ = resolve_looks([0xFF00], parse_wear(b"1\r\n0 NOPE\r\n"), Libraries(find_libraries(folder / "m.msh")))
    assert looks[0xFF00].material_entry == "FIRST"


def test_validate_checks_library_entries_and_roundtrip_passes_them_through_their_codecs(game, capsys):
    from core.cli.main import main

    for name in ("MATERIAL.LIB", "TEXTURES.LIB", "LIGHTMAP.LIB"):
        container = open_container(game / name)
        assert validate_container(container) == []
        assert main(["roundtrip", str(game / name)]) == 0
    broken = Archive()
    broken.add("BAD.0", b"Texm" + bytes(40), int.from_bytes(b"Texm", "little"))
    (game / "broken.lib").write_bytes(broken.to_bytes())
    findings = validate_container(open_container(game / "broken.lib"))
    assert findings and findings[0].where == "BAD.0" and findings[0].is_error
    assert np.all([f.stream == "Texm" for f in findings])
