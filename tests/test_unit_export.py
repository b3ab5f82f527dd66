"""File > Export > Parkan Unit through the real operators: an unchanged unit writes back
byte for byte; an edited part goes into its archive; a part moved to another socket of its parent rewrites
attach (children in the game's order) and re-imports where it was shown."""

import numpy as np
import pytest
from test_unit_import import import_unit, node_worlds
from unit_fixtures import loader, write_game

from core.authoring import units
from core.container.nres import Archive
from core.msh.model import Model
from core.unit.dat import parse_dat
from core.unit.edit import with_attach
from core.unit.mount import unit_world_matrices
from core.unit.resolve import resolve_unit


def export_unit(bpy, path, **options):
    assert bpy.ops.export_scene.parkan_unit(filepath=str(path), **options) == {"FINISHED"}


def test_an_unchanged_unit_writes_back_byte_for_byte(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    dat, parts = tmp_path / units.UNIT_DAT, tmp_path / units.PARTS
    before = {p: p.read_bytes() for p in (dat, parts)}
    import_unit(bpy, dat)
    out = tmp_path / "out.dat"
    export_unit(bpy, out)
    assert out.read_bytes() == before[dat]
    export_unit(bpy, dat)
    assert {p: p.read_bytes() for p in (dat, parts)} == before


def test_an_edited_part_is_written_into_its_archive_and_the_rest_is_kept(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    parts = tmp_path / units.PARTS
    source = Archive.parse(parts.read_bytes())
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    mesh = next(o for o in roots[5].children_recursive if o.type == "MESH")
    mesh.data.vertices[0].co.z += 0.3
    export_unit(bpy, tmp_path / "out.dat")
    written = Archive.parse(parts.read_bytes())
    changed = [e.name_str for e, s in zip(written.entries, source.entries) if bytes(e.data) != bytes(s.data)]
    assert changed == ["e_tur_mt_01.msh"]
    old = Model.parse(source.find("e_tur_mt_01.msh").data).positions.astype(np.float64)
    new = Model.parse(written.find("e_tur_mt_01.msh").data).positions.astype(np.float64)
    moved = np.abs(new[:, None, :] - (old[None, :, :] + [0, 0, 0.3])).max(axis=2).min(axis=1) < 1e-5
    kept = np.abs(new[:, None, :] - old[None, :, :]).max(axis=2).min(axis=1) < 1e-6
    assert moved.any() and (moved | kept).all()
    assert (tmp_path / "out.dat").read_bytes() == (tmp_path / units.UNIT_DAT).read_bytes()


def test_a_part_moved_to_another_socket_rewrites_attach_and_reimports_as_shown(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    files = units.unit_files()
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    # the two guns of turret L swap sockets: gl01 (component 3) to Base_RU_01, gl02 (component 4) to Base_LU_01
    for component, bone in ((3, "Base_RU_01"), (4, "Base_LU_01")):
        roots[component].parent.constraints["Mount"].subtarget = bone
    bpy.context.scene.frame_set(10)
    shown = {roots[c]["msh_unit_display"]: node_worlds(roots[c]) for c in (3, 4)}
    out = tmp_path / "UNITS" / "SYNTH" / "moved.dat"
    export_unit(bpy, out)
    tree = parse_dat(out.read_bytes())
    source = parse_dat(files[units.UNIT_DAT])
    assert [c.display for c in tree.components][3:5] == ["Gun LL (gl02)", "Gun LL (gl01)"]  # by ascending socket
    assert [c.attach for c in tree.components][3:5] == [2, 3]
    # every other byte of every component is as read
    expected, _order = with_attach(source, {3: 3, 4: 2}, {2, 3, 4, 5, 6})
    assert out.read_bytes() == expected.to_bytes()
    # the scene now describes the file written: component indices follow the new order
    assert roots[3]["msh_unit_component"] == 4 and roots[4]["msh_unit_component"] == 3
    # re-import: each gun is where the scene showed it, and where the mounting rule puts it
    blender.clean_scene()
    again = import_unit(bpy, out)
    bpy.context.scene.frame_set(10)
    unit = resolve_unit(tree, Archive.parse(files[units.OBJECTS]), loader(files))
    rule = unit_world_matrices(unit.assembly, unit.animations(), [10], normalize=True)
    for component in (3, 4):
        now = node_worlds(again[component])
        before = shown[again[component]["msh_unit_display"]]
        for node in (1, 2):
            assert np.abs(now[node] - before[node]).max() < 1e-5
            assert np.abs(now[node] - rule[unit.assembly.owner.index((component, node)), 0]).max() < 1e-5


def test_a_part_moved_onto_another_parts_node_is_refused_and_nothing_is_written(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    constraint = roots[3].parent.constraints["Mount"]
    constraint.target, constraint.subtarget = roots[0], "Base_TM"
    out = tmp_path / "out.dat"
    with pytest.raises(RuntimeError, match=r"hangs on 'synth_chassis\.msh' 'Base_TM', not on a node of its parent"):
        bpy.ops.export_scene.parkan_unit(filepath=str(out))
    assert not out.exists()


def test_a_unit_in_a_folder_whose_name_is_not_utf8_exports_its_edited_part(blender, tmp_path):
    """The unit's and its parts' paths are kept as bytes too (io_msh.com.props.store_path): a folder named in
    Windows-1251 (b'\\xc8\\xe3\\xf0\\xe0', 'Игра') does not decode as UTF-8, and its text form cannot be opened."""
    import os

    bpy = blender.bpy
    folder = tmp_path / os.fsdecode(b"\xc8\xe3\xf0\xe0")
    folder.mkdir()
    write_game(folder)
    parts = folder / units.PARTS
    source = Archive.parse(parts.read_bytes())
    roots = import_unit(bpy, folder / units.UNIT_DAT)
    mesh = next(o for o in roots[5].children_recursive if o.type == "MESH")
    mesh.data.vertices[0].co.z += 0.3
    export_unit(bpy, folder / units.UNIT_DAT)
    written = Archive.parse(parts.read_bytes())
    assert [e.name_str for e, s in zip(written.entries, source.entries) if bytes(e.data) != bytes(s.data)] == \
        ["e_tur_mt_01.msh"]
