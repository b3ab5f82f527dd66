"""Never refuse what the game ships, for the largest map (spec/retail-envelope.md 10, 12, 13, 15): the map and
mission core.authoring.map_retail writes at the retail extremes, with every flag value seen, pass ``validate``
(the strict profile too: not even a warning) and ``roundtrip`` byte for byte."""

import json

import numpy as np
import pytest
from fixtures import run_cli as run

from core.authoring import map_retail as R
from core.map import landmsh as L
from core.map.arealmap import ArealMap
from core.map.tma import parse_tma
from core.map.validate import validate_areal_map, validate_land, validate_mission

FOLDER = f"DATA/MAPS/{R.LARGEST}/"
MISSION = f"MISSIONS/{R.LARGEST}/data.tma"


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return R.largest_map_files()


@pytest.fixture(scope="module")
def game(tmp_path_factory, files):
    root = tmp_path_factory.mktemp("largest")
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def test_the_generator_writes_the_retail_extremes(files):
    mesh = L.LandMesh.parse(files[FOLDER + "Land.msh"])
    assert (mesh.across, mesh.squares) == (16, 256)                      # the largest retail grid
    assert len(mesh.positions) == 12_544 > 11_125                        # PROL, the most vertices
    assert len(mesh.faces) == 18_944 > 9_500
    assert set(mesh.faces["surface"].tolist()) == {0, 2, 16, 18}         # every retail surface word
    assert ((mesh.faces["flags"] & L.FLAG_BED) != 0).any()
    draw = mesh.streams[L.DRAW_ORDER]
    assert set(draw["flags"].tolist()) == {0x48, 0x58, 0xC8, 0xD8}       # four values, as on retail
    assert (draw["extra"] != 0).any()
    areal_map = ArealMap.parse(files[FOLDER + "Land.map"])
    assert len(areal_map.areals) == 1_024 > 900
    assert {len(a.polygon) for a in areal_map.areals} == {14}            # the most vertices seen (SC_3)
    assert int(areal_map.grid_counts.max()) == R.MOST_IN_A_CELL == 20
    assert (areal_map.across, areal_map.down) == (128, 128)
    flags = np.array([a.header["flags"] for a in areal_map.areals])
    assert set(flags[:, 0].tolist()) == {0, 1}
    assert set(flags[:, 2].tolist()) == set(range(1, 30)) | {240, 242}
    mission = parse_tma(files[MISSION])
    assert len(mission.objects) == R.LARGEST_OBJECTS == 864
    scales = {float(o.scale[0]) for o in mission.objects if o.is_scenery}
    assert min(scales) == pytest.approx(0.2) and max(scales) == pytest.approx(21.0)
    assert any(o.kind == 1 and o.scale[0] != 1 for o in mission.objects)
    assert set(mission.lodes["type"].tolist()) == {0x10001000, 0}


def test_every_check_passes_without_a_finding(files):
    assert validate_land(L.LandMesh.parse(files[FOLDER + "Land.msh"])) == []
    assert validate_areal_map(ArealMap.parse(files[FOLDER + "Land.map"])) == []
    assert validate_mission(parse_tma(files[MISSION])) == []


def test_validate_strict_and_roundtrip_refuse_nothing_and_keep_every_byte(capsys, game, files):
    code, out, err = run(capsys, "validate", "--strict", "--json", game)
    report = json.loads(out)
    assert code == 0, err
    assert all(f["refused_by"] is None and not f["findings"] for f in report["files"])
    code, out, err = run(capsys, "roundtrip", game)
    assert code == 0 and f"{len(files)} files: {len(files)} identical, 0 not" in out, (out, err)
    assert all((game / name).read_bytes() == data for name, data in files.items())
