"""The import rule of the package layout (docs/layout.md): each package imports only from the layers below
it and from itself; core never imports Blender or io_msh."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lowest first. A module may import its own package and the packages of lower layers, nothing else.
LAYERS = [
    ["core.errors"],
    ["core.disk"],
    ["core.container"],
    ["core.msh", "core.appearance"],
    ["core.animation"],
    ["core.unit", "core.map"],
    ["core.effects"],
    ["core.files", "core.authoring"],
    ["core.kinds"],
    ["core.write_path"],
    ["core.model_controller"],
    ["core.cli"],
    ["core.__init__", "core.__main__"],
    ["io_msh.com"],
    ["io_msh.imp"],
    ["io_msh.exp"],
    ["io_msh.ui"],
    ["io_msh.batch"],  # registers the extension's classes in its workers, as Blender would
    ["io_msh.__init__"],
]
LAYER_OF = {unit: n for n, units in enumerate(LAYERS) for unit in units}
BLENDER = {"bpy", "bpy_extras", "mathutils", "blf", "gpu", "bmesh", "idprop"}


def unit_of(module: str) -> str:
    """The layout unit a dotted module belongs to: its subpackage, or itself for a top-level module."""
    parts = module.split(".")
    for size in (2, 1):
        if ".".join(parts[:size]) in LAYER_OF:
            return ".".join(parts[:size])
    raise AssertionError(f"{module} is in no layer of the layout: add it to LAYERS and docs/layout.md")


def modules() -> dict[str, Path]:
    found = {}
    for package in ("core", "io_msh"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts)] = path
    return found


def imports(module: str, path: Path) -> list[tuple[int, str]]:
    """(line, absolute dotted name) of every import in the module, relative ones resolved."""
    package = module.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                prefix = ".".join([*base, node.module] if node.module else base)
            else:
                prefix = node.module
            # ``from . import x`` may name a module: count each name as prefix.name when that is a module
            out += [(node.lineno, f"{prefix}.{alias.name}") for alias in node.names]
    return out


def test_every_import_follows_the_layers():
    known = modules()
    broken = []
    for module, path in sorted(known.items()):
        mine = unit_of(module)
        for line, name in imports(module, path):
            top = name.split(".")[0]
            if mine.startswith("core") and (top in BLENDER or top == "io_msh" or ".io_msh" in name):
                broken.append(f"{path.relative_to(ROOT)}:{line}: core imports {name}")
                continue
            if top not in ("core", "io_msh"):
                continue
            target = name if name in known else name.rpartition(".")[0]  # ``from m import name`` -> m
            target = target if target in known else f"{target}.__init__"  # a package's own names
            theirs = unit_of(target)
            if theirs != mine and LAYER_OF[theirs] >= LAYER_OF[mine]:
                broken.append(f"{path.relative_to(ROOT)}:{line}: {mine} (layer {LAYER_OF[mine]}) imports {target} "
                              f"({theirs}, layer {LAYER_OF[theirs]})")
    assert not broken, "imports against the layout rule:\n" + "\n".join(broken)


def test_the_rule_catches_an_upward_import(tmp_path):
    """The checker itself: an import from a higher layer is found."""
    module = tmp_path / "m.py"
    module.write_text("from ..exp.plan import ExportOptions\nfrom ...core.msh import streams\n")
    found = imports("io_msh.imp.m", module)
    assert [name for _line, name in found] == ["io_msh.exp.plan.ExportOptions", "core.msh.streams"]
    assert LAYER_OF[unit_of("io_msh.exp.plan")] > LAYER_OF[unit_of("io_msh.imp.m")]
