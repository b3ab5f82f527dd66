"""A height edit's bytes and findings are kept while its cost is cut (benchmarks/map_import.py measures it): the
edits below on the largest map (core.authoring.map_retail) give the Land.msh bytes and the validation they
gave when these digests were taken, with the code before the edited path was made to do only what an edit
needs."""

import hashlib

import numpy as np
import pytest

from core.authoring.map_retail import largest_land
from core.map import landmsh as L
from core.map.edit import edit_heights
from core.map.validate import validate_land


@pytest.fixture(scope="module")
def largest():
    return largest_land()


def _dry_level0(mesh: L.LandMesh) -> np.ndarray:
    """Level-0 vertices off the water, in order."""
    verts = mesh.faces["verts"][:mesh.level_split].astype(np.int64)
    used = np.unique(verts)
    water = np.unique(mesh.faces["verts"][mesh.water_faces()].astype(np.int64))
    return used[~np.isin(used, water)]


def _edits(mesh: L.LandMesh) -> dict[str, np.ndarray]:
    """Positions of each edit: every tenth dry level-0 vertex raised by one (as the benchmark raises them; their
    twins follow), one vertex lowered, a block of vertices set to one height, and water moved apart."""
    dry = _dry_level0(mesh)
    out = {}
    p = mesh.positions.copy()
    p[dry[::10], 2] += 1.0
    out["tenth raised"] = p
    p = mesh.positions.copy()
    p[dry[len(dry) // 2], 2] -= 3.5
    out["one lowered"] = p
    p = mesh.positions.copy()
    p[dry[:400], 2] = 7.25
    out["block flattened"] = p
    p = mesh.positions.copy()
    water = np.unique(mesh.faces["verts"][mesh.water_faces()].astype(np.int64))
    p[water[:3], 2] += 2.0
    out["water moved"] = p
    p = mesh.positions.copy()
    p[:, 2] += 0.5
    out["all raised"] = p
    return out


EXPECTED = {  # (Land.msh's sha256, that of the warnings, findings and moved vertices), each cut to 24 digits
    "tenth raised": ("f834a6307348b6cc8de7746a", "512ce56497e64bab806c758f"),     # 2011 moved, 761 of them twins
    "one lowered": ("0f6636dcafeadee8880198ec", "33cf49745cf1bfd87d7f9957"),      # 1 moved
    "block flattened": ("21ae8256883cc617dde873fd", "7b48cb9f97b41333e394bf94"),  # 463 moved, 63 twins
    "water moved": ("cfff6c068580891833bffec9", "6445ab0cb0eed75efd3bc115"),      # 8 moved, 5 twins
    "all raised": ("9009569edea0e538922e0525", "d70df9cc1c2511c62d44b273"),       # 12544 moved
}


def _digest(edit) -> tuple[str, str]:
    findings = "\n".join(f"{f.severity} {f.stream} {f.index} {f.message}" for f in validate_land(edit.mesh))
    return (hashlib.sha256(edit.mesh.to_bytes()).hexdigest()[:24], hashlib.sha256(
        ("\n".join(edit.warnings) + "|" + findings + "|" + ",".join(map(str, edit.moved.tolist()))).encode()
    ).hexdigest()[:24])


@pytest.mark.parametrize("name", ["tenth raised", "one lowered", "block flattened", "water moved", "all raised"])
def test_a_height_edit_of_the_largest_map_gives_the_bytes_it_gave(largest, name):
    edit = edit_heights(largest, _edits(largest)[name])
    assert len(edit.moved)
    assert _digest(edit) == EXPECTED[name]


def _broken(mesh: L.LandMesh) -> dict[str, L.LandMesh]:
    """Meshes breaking the adjacency, the boxes and the water, with warnings beside the errors."""
    from core.container.nres import Archive

    def copy():
        return L.LandMesh.from_archive(Archive.parse(mesh.to_bytes(), ""), "")

    out = {}
    m = copy()
    m.faces["neighbours"][5, 0] = len(m.faces) + 3          # a neighbour out of range
    out["out of range"] = m
    m = copy()
    linked = np.flatnonzero(m.faces["neighbours"][:, 1] != L.NONE)
    m.faces["neighbours"][linked[:7], 1] = m.faces["neighbours"][linked[7:14], 1]   # links that do not lead back
    m.faces["neighbours"][linked[20], 2] = linked[20]       # and a face its own neighbour (a warning)
    out["not mutual"] = m
    apart = edit_heights(mesh, _edits(mesh)["tenth raised"], twins=False).mesh   # twins apart: edge warnings
    apart.cells["box_max"][3, 2] -= 50.0                     # and a box its faces leave (an error)
    out["twins apart, box left"] = apart
    m = copy()
    water = np.unique(m.faces["verts"][m.water_faces()].astype(np.int64))
    m.positions[water[0], 2] += 1.0                          # water at two heights
    m.faces["neighbours"][0, 0] = m.faces["neighbours"][m.level_split + 1, 0]   # a link across the levels
    out["water apart"] = m
    return out


def test_errors_only_gives_the_errors_of_the_whole_check(largest):
    from core.authoring.map_retail import tolerance_cases, warning_cases

    meshes = dict(_broken(largest))
    meshes.update({name: edit_heights(largest, p).mesh for name, p in _edits(largest).items()})
    for name, (file, data, *_) in {**tolerance_cases(), **warning_cases()}.items():
        if file.endswith("Land.msh"):
            meshes[name] = L.LandMesh.parse(data, name)
    errors_seen = warnings_seen = 0
    for name, mesh in meshes.items():
        whole = validate_land(mesh)
        errors = [f for f in whole if f.severity == "error"]
        assert validate_land(mesh, errors_only=True) == errors, name
        errors_seen += bool(errors)
        warnings_seen += len(whole) > len(errors)
    assert errors_seen >= 6 and warnings_seen >= 3
