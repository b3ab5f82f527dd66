"""``core unit`` and Import Unit take time linear in the unit and memory that follows the tree.
Thousands of components name a few records: each record's files are read, and each part model planned, once;
the text output does not grow with the depth of a chain; a chain deeper than Python's recursion limit imports
with every part where the mounting rule puts it. benchmarks/unit_scale.py measures 1,000 / 4,000 / 20,000
components; here it runs at a tiny size."""

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
from fixtures import load_extension, run_cli
from test_unit_import import import_unit, node_worlds
from unit_fixtures import loader, write_game

from core.authoring import units
from core.container.nres import Archive
from core.msh.model import Model
from core.unit import resolve
from core.unit.mount import unit_world_matrices

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "unit_scale.py"
DEEP = sys.getrecursionlimit() + 100


def chain_files(count: int) -> dict[str, bytes]:
    files = units.unit_files()
    files[units.CHAIN_DAT] = units.chain_tree(count).to_bytes()
    return files


def test_components_naming_one_record_share_its_files_read_once(monkeypatch):
    parsed = []

    class Counted(Model):
        @classmethod
        def parse(cls, data, source=""):
            parsed.append(source)
            return Model.parse(data, source)

    monkeypatch.setattr(resolve, "Model", Counted)
    files = chain_files(2000)
    unit = resolve.resolve_unit(units.chain_tree(2000), Archive.parse(files[units.OBJECTS]), loader(files))
    assert sorted(parsed) == ["synth_parts.rlb:e_gun_ll_01.msh", "synth_parts.rlb:synth_chassis.msh"]
    assert unit.parts[1].model is unit.parts[1999].model and unit.parts[5].points is unit.parts[6].points
    assert not [f for f in unit.findings if f.is_error]
    assert unit.assembly.node_count == 4 + 2 * 1999  # each gun adds its barrel and muzzle


def test_the_text_of_a_deep_chain_does_not_grow_with_its_depth(capsys, tmp_path):
    write_game(tmp_path, chain_files(DEEP))
    code, out, _err = run_cli(capsys, "unit", str(tmp_path / units.CHAIN_DAT))
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith(" ")]  # the tree (not the findings)
    assert len(lines) > DEEP and max(map(len, lines)) < 160  # was: two spaces per level, 2,200 at the end
    assert any(line.lstrip().startswith(f"(depth {DEEP - 1}) [{DEEP - 1}] gun e_gun_ll_01") for line in lines)


def test_each_part_model_is_planned_once_however_many_parts_use_it(monkeypatch, tmp_path):
    load_extension()
    unit_plan = importlib.import_module("io_msh_ext.io_msh.imp.unit_plan")
    plan = importlib.import_module("io_msh_ext.io_msh.imp.plan")
    planned = []
    original = unit_plan.plan_model
    monkeypatch.setattr(unit_plan, "plan_model", lambda *a: planned.append(a[1].name_str) or original(*a))
    write_game(tmp_path, chain_files(1500))
    result = unit_plan.plan_unit(tmp_path / units.CHAIN_DAT, plan.ImportOptions())
    assert sorted(planned) == ["e_gun_ll_01.msh", "synth_chassis.msh"]
    assert len(result.parts) == 1500 and all(p.model is not None for p in result.parts)


def test_a_chain_deeper_than_the_recursion_limit_imports_with_each_part_on_its_socket(blender, tmp_path):
    bpy = blender.bpy
    files = chain_files(DEEP)
    write_game(tmp_path, files)
    roots = import_unit(bpy, tmp_path / units.CHAIN_DAT)
    assert sorted(roots) == list(range(DEEP))
    unit = resolve.resolve_unit(units.chain_tree(DEEP), Archive.parse(files[units.OBJECTS]), loader(files))
    expected = unit_world_matrices(unit.assembly, unit.animations(), [0.0], normalize=True)[:, 0]
    bpy.context.scene.frame_set(0)
    shown = {c: node_worlds(roots[c]) for c in (0, 1, DEEP // 2, DEEP - 1)}
    for unit_node, (component, part_node) in enumerate(unit.assembly.owner):
        if component in shown:  # float32 composition drifts with the depth: a bound of 4 float32 steps per level
            extent = max(1.0, float(np.abs(expected[unit_node][:3, 3]).max()))
            bound = 4 * (component + 1) * np.finfo(np.float32).eps * extent
            assert np.abs(shown[component][part_node] - expected[unit_node]).max() < bound, component


def test_the_benchmark_runs_at_a_tiny_size():
    result = subprocess.run([sys.executable, str(BENCHMARK), "--sizes", "4", "--timeout", "300"], capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    rows = [line for line in result.stdout.splitlines() if " MB " in line]
    assert len(rows) == 4, result.stdout  # core unit and Import Unit, chain and wide
    assert all("exit 0" in row for row in rows if row.startswith("core unit"))
    assert all("4 parts" in row for row in rows if row.startswith("Import Unit"))
