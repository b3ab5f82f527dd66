"""Never refuse what the game ships, in Blender, for the largest map (core.authoring.map_retail): the largest
retail grid with more vertices and faces than any retail map, 1 024 areals of 14 vertices, a lookup cell naming
20, 864 placements, and every face, draw, areal and placement flag value seen, go through File > Import >
Parkan Map and an untouched File > Export > Parkan Map: nothing refused, every file byte for byte. The map is
large, so the module imports it once (a module fixture) and each test reads that one import."""

import time
from pathlib import Path

import pytest

from core.authoring import map_retail as R
from core.map.landmsh import LandMesh
from core.map.tma import parse_tma

MISSION = f"MISSIONS/{R.LARGEST}/data.tma"
LAND = f"DATA/MAPS/{R.LARGEST}/Land.msh"


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The largest map's game folder, imported once through the operator: (root, files before, output, seconds)."""
    import blender_env

    blender_env.register()
    blender_env.clean_scene()
    root = tmp_path_factory.mktemp("largest")
    for name, data in R.largest_map_files().items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    before = snapshot(root)
    start = time.perf_counter()
    result = blender_env.bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION))
    seconds = time.perf_counter() - start
    yield root, before, result, seconds
    blender_env.clean_scene()


def test_the_largest_map_imports_with_every_placement(imported):
    import blender_env

    bpy = blender_env.bpy
    _root, before, result, seconds = imported
    assert result == {"FINISHED"}
    mesh = LandMesh.parse(before[LAND])
    level0 = next(o for o in bpy.data.objects if o.get("msh_map_level") == 0)
    assert len(level0.data.polygons) == mesh.level_split == 18_432
    assert len(level0.data.vertices) == len(mesh.positions) == 12_544
    placed = [o for o in bpy.data.objects if "msh_map_record" in o]
    assert len(placed) == len(parse_tma(before[MISSION]).objects) == R.LARGEST_OBJECTS
    print(f"largest map imported in {seconds:.1f} s")


def test_an_untouched_export_of_the_largest_map_writes_every_file_back(imported):
    import blender_env

    bpy = blender_env.bpy
    root, before, result, _seconds = imported
    assert result == {"FINISHED"}
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    assert snapshot(root) == before
