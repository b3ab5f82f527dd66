"""Control-point flags with the top bit set (0x80000000, seen on retail points) made Import
Unit fail with "OverflowError: Python int too large to convert to C int". Every u32 word a unit import keeps in a
custom property (the .cpt point flags, the .ndp row flags) is stored with props.store_u32 and reads back exactly
(props.stored_u32); an unchanged Export Unit writes the .dat and the parts archive (.cpt, .ndp) byte for byte,
in both node modes."""

import importlib
import tempfile
from pathlib import Path

import numpy as np
import pytest
from fixtures import load_extension
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_unit_import import import_unit
from unit_fixtures import write_game

from core.authoring import units
from core.unit.cpt import parse_cpt
from core.unit.ndp import parse_ndp

load_extension()
P = importlib.import_module("io_msh_ext.io_msh.com.props")
unit_import = importlib.import_module("io_msh_ext.io_msh.imp.unit")
errors = importlib.import_module("io_msh_ext.core.errors")

TOP_BITS = (0x80000000, 0x80000001, 0xC0000000, 0xFFFFFFFF, 0xFFFF0000, 0x7FFFFFFF, 0)
WORDS = 24  # more than the synthetic unit's points (18) and rows (28) per kind: each gets its own word
u32 = st.one_of(st.integers(0, 0xFFFFFFFF), st.sampled_from(TOP_BITS))
LOW, HIGH = [1 << bit for bit in range(16)], [1 << bit for bit in range(16, 32)]  # 16 words: every point and
#                                                                                  row takes one, each bit shows


def flagged(point_words: list[int], row_words: list[int]) -> tuple[dict[str, bytes], dict, dict]:
    """The synthetic unit's files with the k-th point (row) of each .cpt (.ndp), in archive order, flagged with
    the next word; and the words by (model stem, index) for the check."""
    archive = units.parts_archive()
    points, rows = {}, {}
    p = r = 0
    for entry in archive.entries:
        stem, _, suffix = entry.name_str.rpartition(".")
        if suffix == "cpt":
            cpt = parse_cpt(entry.data)
            for k in range(len(cpt)):
                cpt.points["flags"][k] = points[stem, k] = point_words[p % len(point_words)]
                p += 1
            entry.data = cpt.to_bytes()
        elif suffix == "ndp":
            ndp = parse_ndp(entry.data)
            for k in range(len(ndp)):
                rows[stem, k] = row_words[r % len(row_words)]
                ndp.rows["flags"][k] = np.array([rows[stem, k]], np.uint32).view(np.int32)[0]  # the same 32 bits
                r += 1
            entry.data = ndp.to_bytes()
    files = units.unit_files()
    files[units.PARTS] = archive.to_bytes()
    return files, points, rows


def check_round_trip(blender, folder: Path, files: dict, points: dict, rows: dict, node_mode: str) -> None:
    bpy = blender.bpy
    blender.clean_scene()
    write_game(folder, files)
    dat, parts = folder / units.UNIT_DAT, folder / units.PARTS
    before = {p: p.read_bytes() for p in (dat, parts)}
    roots = import_unit(bpy, dat, node_mode=node_mode)
    stems = {c: r[P.MODEL].rpartition(".")[0] for c, r in roots.items()}
    shown = [o for o in bpy.data.objects if P.CONTROL_POINT in o]
    assert shown
    for obj in shown:
        stem = stems[obj["msh_cpt_component"]]
        assert P.stored_u32(obj, "msh_cpt_flags") == points[stem, obj[P.CONTROL_POINT]], obj.name
    checked = 0
    for component, root in roots.items():
        for handle in unit_import.node_handles(root).values():
            if "msh_ndp_row" in handle:
                assert P.stored_u32(handle, "msh_ndp_flags") == rows[stems[component], handle["msh_ndp_row"]]
                checked += 1
    assert checked
    out = folder / "out.dat"
    assert bpy.ops.export_scene.parkan_unit(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == before[dat]
    assert parts.read_bytes() == before[parts]  # every .cpt and .ndp (and model) as it was


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
@settings(derandomize=True, max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(point_words=st.lists(u32, min_size=WORDS, max_size=WORDS), row_words=st.lists(u32, min_size=WORDS,
                                                                                      max_size=WORDS))
@example(point_words=LOW, row_words=HIGH)
@example(point_words=HIGH, row_words=LOW)
def test_every_flag_bit_of_points_and_damage_rows_round_trips(blender, node_mode, point_words, row_words):
    files, points, rows = flagged(point_words, row_words)
    with tempfile.TemporaryDirectory(prefix="io_msh_flags_") as folder:
        check_round_trip(blender, Path(folder), files, points, rows, node_mode)


class Holder(dict):
    name = "Point"


@given(word=u32)
@settings(derandomize=True, max_examples=200)
def test_a_u32_word_reads_back_exactly_and_fits_a_blender_int(word):
    holder = Holder()
    P.store_u32(holder, "w", word)
    assert -(1 << 31) <= holder["w"] < (1 << 31)  # what an ID property int holds
    assert P.stored_u32(holder, "w") == word


def test_a_hand_edited_word_is_refused_naming_the_property_and_its_holder():
    for bad in ("five", 2.5, 1 << 40, True):
        with pytest.raises(errors.FormatError, match=r"property w on Point holds .*, not a 32-bit word"):
            P.stored_u32(Holder(w=bad), "w")
    assert P.stored_u32(Holder(), "w", 7) == 7
    with pytest.raises(ValueError):
        P.store_u32(Holder(), "w", -1)
