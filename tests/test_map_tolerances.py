"""Never refuse what the game ships, for the maps (docs/refusing-checks.md, "Maps"): the three map checks the
retail check made with a tolerance allow it (a face inside its cell's box within 0.1 % of cell 0's width, stream
14 = 1.0 within 1e-6, the water one height within 0.001), refused only beyond it; the three no source measured
(a face its own neighbour, an areal of fewer than 3 vertices, an areal its own neighbour) are warnings: the
bytes are carried, ``validate`` passes, ``roundtrip`` is byte for byte, and the strict profile refuses and says
so. The maps come from core.authoring.map_retail."""

import json

import numpy as np
import pytest
from fixtures import run_cli as run
from map_fixtures import LAND_MSH, write_sample

from core.authoring import map_retail as R
from core.authoring.maps import sample_map_files
from core.map import landmsh as L
from core.map.arealmap import ArealMap
from core.map.validate import ALPHA_SLACK, BOX_SLACK, WATER_SPREAD, box_slack, validate_areal_map, validate_land

TOLERANCES = R.tolerance_cases()
WARNINGS = R.warning_cases()
WORDS = {"box": "outside its cell's box", "alpha": "alpha is not 1.0", "water": "water vertices lie at"}
WARNED = {"face_self_neighbour": ("Res21", "face is its own neighbour"),
          "areal_two_vertices": ("ArealMap", "areal has fewer than 3 vertices"),
          "areal_no_vertices": ("ArealMap", "areal has fewer than 3 vertices"),
          "areal_self_neighbour": ("ArealMap", "areal is its own neighbour")}


def findings_of(name: str, data: bytes):
    if name.endswith(".msh"):
        return validate_land(L.LandMesh.parse(data))
    return validate_areal_map(ArealMap.parse(data))


def test_the_tolerances_are_the_retail_checks():
    assert (BOX_SLACK, ALPHA_SLACK, WATER_SPREAD) == (0.001, 1e-6, 1e-3)
    mesh = L.LandMesh.parse(sample_map_files()[LAND_MSH])
    width = float(mesh.cells["box_max"][0][0]) - float(mesh.cells["box_min"][0][0])
    assert width == 100.0 and box_slack(mesh) == pytest.approx(0.1)


@pytest.mark.parametrize("case", sorted(TOLERANCES))
def test_each_tolerance_at_its_edge_passes_within_and_refuses_beyond(case):
    """The float32 closest to the tolerance on its inner side passes; the next one out is an error."""
    name, data, refused = TOLERANCES[case]
    words = WORDS[case.split("_")[0]]
    hits = [f for f in findings_of(name, data) if words in f.message]
    if refused:
        assert [f.severity for f in hits] == ["error"], hits
    else:
        assert not hits and not [f for f in findings_of(name, data) if f.is_error]


def _below(edit):
    mesh = L.LandMesh.parse(sample_map_files()[LAND_MSH])
    edit(mesh)
    return validate_land(L.LandMesh.parse(mesh.to_bytes()))


def test_half_of_each_tolerance_passes_and_twice_it_is_refused():
    def box(factor):
        def edit(mesh):
            vertex = R.interior_vertex(mesh)
            mesh.positions[vertex, 2] = np.float32(float(mesh.cells["box_max"][0][2]) + factor * box_slack(mesh))
        return edit

    def alpha(factor):
        def edit(mesh):
            two = (mesh.faces["material"] >> 8) != L.NO_SECOND
            untouched = np.setdiff1d(np.arange(len(mesh.positions)), mesh.faces["verts"][two].ravel())
            mesh.streams[L.ALPHA][untouched[0]] = np.float32(1.0 - factor * ALPHA_SLACK)
        return edit

    def water(factor):
        def edit(mesh):
            cell = np.repeat(np.arange(len(mesh.cells)), mesh.cells["count"].astype(np.int64))
            vertex = R.interior_vertex(mesh, int(cell[mesh.water_faces()][0]))
            mesh.positions[vertex, 2] = np.float32(float(mesh.positions[vertex, 2]) + factor * WATER_SPREAD)
        return edit

    for kind, edit in (("box", box), ("alpha", alpha), ("water", water)):
        assert not [f for f in _below(edit(0.5)) if WORDS[kind] in f.message], kind
        assert [f.severity for f in _below(edit(2.0)) if WORDS[kind] in f.message] == ["error"], kind


def test_a_nan_alpha_is_still_refused():
    def edit(mesh):
        two = (mesh.faces["material"] >> 8) != L.NO_SECOND
        untouched = np.setdiff1d(np.arange(len(mesh.positions)), mesh.faces["verts"][two].ravel())
        mesh.streams[L.ALPHA][untouched[0]] = np.nan
    assert [f.severity for f in _below(edit) if WORDS["alpha"] in f.message] == ["error"]


@pytest.mark.parametrize("case", sorted(WARNINGS))
def test_what_no_source_measured_is_a_warning_and_the_bytes_are_carried(case):
    name, data = WARNINGS[case]
    found = [(f.stream, f.severity, f.message) for f in findings_of(name, data)]
    stream, words = WARNED[case]
    assert found == [(stream, "warning", words)]
    decoded = L.LandMesh.parse(data) if name.endswith(".msh") else ArealMap.parse(data)
    assert decoded.to_bytes() == data


@pytest.mark.parametrize("case", sorted(WARNINGS))
def test_validate_passes_roundtrip_keeps_every_byte_and_the_strict_profile_refuses(tmp_path, capsys, case):
    name, data = WARNINGS[case]
    root = write_sample(tmp_path, {name: data})
    path = root / name
    code, out, _ = run(capsys, "validate", path)
    assert code == 0 and "refused" not in out
    code, out, _ = run(capsys, "roundtrip", path)
    assert code == 0 and "identical" in out and path.read_bytes() == data
    code, out, _ = run(capsys, "validate", "--strict", path)
    assert code == 1 and "INVALID: 0 errors, 1 warnings (refused by the strict profile)" in out
    code, out, _ = run(capsys, "validate", "--strict", "--json", path)
    assert code == 1 and json.loads(out)["files"][0]["refused_by"] == "strict"
    code, out, _ = run(capsys, "validate", "--json", path)
    assert code == 0 and json.loads(out)["files"][0]["refused_by"] is None


@pytest.mark.parametrize("case", sorted(TOLERANCES))
def test_validate_refuses_only_beyond_a_tolerance_naming_the_retail_profile(tmp_path, capsys, case):
    name, data, refused = TOLERANCES[case]
    root = write_sample(tmp_path, {name: data})
    code, out, _ = run(capsys, "validate", root / name)
    assert code == (1 if refused else 0)
    assert ("refused by the retail profile" in out) == refused
    code, out, _ = run(capsys, "roundtrip", root / name)
    assert code == 0 and (root / name).read_bytes() == data
