"""One bad model entry does not keep an archive's other models from importing; a model's
material list is its own, never another model's whose name differs only in case."""

import importlib

import pytest
from fixtures import generated, load_extension
from test_import import roots, write
from test_import_behaviour import import_messages

from core.appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID, own_list, wear_entry
from core.container.nres import MODEL_TYPE_ID, Archive

load_extension()
plan = importlib.import_module("io_msh_ext.io_msh.imp.plan")


# --------------------------------------------------------------------- one bad entry
def test_a_corrupt_model_entry_is_named_and_the_good_ones_import(blender, tmp_path, capfd):
    bpy = blender.bpy
    archive = Archive()
    archive.add("good_a.msh", generated(3, node_count=3), MODEL_TYPE_ID)
    archive.add("broken.msh", generated(4, node_count=3)[:60], MODEL_TYPE_ID)  # cut short: does not parse
    archive.add("good_b.msh", generated(5, node_count=4), MODEL_TYPE_ID)
    path = write(tmp_path, "units.rlb", archive.to_bytes())
    out = import_messages(bpy, capfd, path)  # before: the whole archive was refused
    assert sorted(r["msh_model"] for r in roots(bpy)) == ["good_a.msh", "good_b.msh"]
    assert "units.rlb:broken.msh" in out and "(this model is not imported)" in out
    assert "first: " + str(path) + ":broken.msh" in out  # the summary names it first


def test_an_archive_whose_every_model_is_bad_is_refused_naming_them(blender, tmp_path):
    bpy = blender.bpy
    archive = Archive()
    archive.add("one.msh", b"junk" * 10, MODEL_TYPE_ID)
    archive.add("two.msh", b"more junk" * 10, MODEL_TYPE_ID)
    path = write(tmp_path, "bad.rlb", archive.to_bytes())
    with pytest.raises(RuntimeError, match=r"bad\.rlb:one\.msh(.|\n)*bad\.rlb:two\.msh"):
        bpy.ops.import_scene.parkan_msh(filepath=path)
    assert not roots(bpy)


# --------------------------------------------------------------------- whose material list
LIST_A = b"1\r\n0 FROM_UPPER\r\n"
LIST_B = b"1\r\n0 FROM_LOWER\r\n"


def test_a_loose_model_takes_its_exact_list_before_another_case(tmp_path):
    data = generated(3, node_count=2)
    (tmp_path / "A.msh").write_bytes(data)
    (tmp_path / "a.msh").write_bytes(data)
    (tmp_path / "a.wea").write_bytes(LIST_B)
    (tmp_path / "A.wea").write_bytes(LIST_A)
    for name, wanted in (("A.msh", LIST_A), ("a.msh", LIST_B)):
        (result,) = plan.plan_file(tmp_path / name, plan.ImportOptions())
        assert result.wear == wanted


def test_a_loose_model_never_takes_the_list_of_a_model_beside_it(tmp_path):
    data = generated(3, node_count=2)
    (tmp_path / "A.msh").write_bytes(data)
    (tmp_path / "a.wea").write_bytes(LIST_B)
    (result,) = plan.plan_file(tmp_path / "A.msh", plan.ImportOptions())
    assert result.wear == LIST_B  # the only list of its name in any case: the game's lookup takes it
    (tmp_path / "a.msh").write_bytes(data)  # now a.wea is a.msh's
    (result,) = plan.plan_file(tmp_path / "A.msh", plan.ImportOptions())
    assert result.wear is None


def test_an_archive_models_list_is_its_own(tmp_path):
    archive = Archive()
    data = generated(3, node_count=2)
    archive.add("A.msh", data, MODEL_TYPE_ID)
    archive.add("a.msh", data, MODEL_TYPE_ID)
    archive.add("a.wea", LIST_B, WEAR_TYPE_ID, **WEAR_ATTRS)
    assert wear_entry(archive, "a.msh").name == b"a.wea"
    assert wear_entry(archive, "A.msh") is None  # the archive's only list, but a.msh's
    archive.add("A.wea", LIST_A, WEAR_TYPE_ID, **WEAR_ATTRS)
    path = write(tmp_path, "units.rlb", archive.to_bytes())
    wears = {p.name: p.wear for p in plan.plan_file(path, plan.ImportOptions())}
    assert wears == {"A.msh": LIST_A, "a.msh": LIST_B}  # before: both took the first, a.wea


def test_the_list_rule():
    assert own_list(b"A.msh", [b"a.wea", b"A.wea"], [b"A.msh", b"a.msh"]) == 1
    assert own_list(b"A.msh", [b"a.wea"], [b"A.msh"]) == 0
    assert own_list(b"A.msh", [b"a.wea"], [b"A.msh", b"a.msh"]) is None
    assert own_list(b"Tank.msh", [b"tank.wea", b"TANK.wea"], [b"Tank.msh"]) is None  # two in other cases
    assert own_list(b"tank.msh", [b"units.wea"], [b"tank.msh"], only_one=True) == 0
    assert own_list(b"tank.msh", [b"tower.wea"], [b"tank.msh", b"TOWER.msh"], only_one=True) is None
