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
    ["core.container", "core.rsli"],
    ["core.msh", "core.appearance"],
    ["core.animation"],
    ["core.unit", "core.map", "core.sky", "core.briefing", "core.interior"],
    ["core.effects", "core.fonts"],
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


def import_targets(module: str, tree: ast.Module, known: dict[str, Path]) -> list[tuple[int, str, str | None, str]]:
    """(line, module imported, name taken from it or None, local name) of every import of core or io_msh in the
    module, function-level ones included; ``from package import name`` imports the module package.name when
    there is one."""
    package = module.split(".")[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, package_or_module(alias.name, known), None, alias.asname or alias.name)
                    for alias in node.names if alias.name.split(".")[0] in ("core", "io_msh")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                prefix = ".".join([*base, node.module] if node.module else base)
            else:
                prefix = node.module or ""
            if prefix.split(".")[0] not in ("core", "io_msh"):
                continue
            for alias in node.names:
                local = alias.asname or alias.name
                full = package_or_module(f"{prefix}.{alias.name}", known)
                if full in known:
                    out.append((node.lineno, full, None, local))
                else:
                    out.append((node.lineno, package_or_module(prefix, known), alias.name, local))
    return out


def package_or_module(name: str, known: dict[str, Path]) -> str:
    return name if name in known or f"{name}.__init__" not in known else f"{name}.__init__"


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of core and io_msh it imports."""
    known = modules()
    graph: dict[str, set[str]] = {module: set() for module in known}
    for module, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        graph[module] |= {target for _line, target, _name, _local in import_targets(module, tree, known)
                          if target in known and target != module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def enter(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)

    for root in sorted(graph):
        if root in index:
            continue
        enter(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    enter(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def test_no_import_circle():
    """No module reaches itself through imports, function-level ones included (a codec does not import what
    plans with it; a command line does not import the commands that import it)."""
    found = circles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(component) for component in found)


def test_the_circle_check_finds_circles():
    graph = {"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": {"e"}, "e": {"d"}, "f": {"a"}, "g": set()}
    assert circles(graph) == [["a", "b", "c"], ["d", "e"]]


def test_the_circle_check_reads_function_level_imports(tmp_path):
    module = tmp_path / "codec.py"
    module.write_text("def validate():\n    from .clips import plan\n")
    known = {"core.x.codec": module, "core.x.clips": module}
    assert import_targets("core.x.codec", ast.parse(module.read_text()), known) == [
        (2, "core.x.clips", "plan", "plan")]


# The model export's stages (docs/export-pipeline.md), in order: each takes the earlier stages' data. A stage's
# module imports the modules of its own stage and earlier ones, and helpers (io_msh.exp modules of no stage)
# that reach no later stage.
EXPORT_STAGES = [
    ["options", "scene_model"],                                   # what is asked; the plain data read into
    ["fcurves", "skin", "unedited", "frames", "poses", "meshes", "readback", "scene_read"],  # the scene read
    ["materials", "node_decisions"],                              # per node untouched, edited or new
    ["track_authoring"],                                          # the new tracks
    ["assemble"],                                                 # the model: spliced or built
    ["plan"],                                                     # the stages run in order
    ["export"],                                                   # the files written
]


def stage_breaks(graph: dict[str, set[str]], stages: list[list[str]], package: str) -> list[str]:
    """Every import of a stage module that reaches a later stage, directly or through helpers."""
    stage_of = {f"{package}.{name}": n for n, names in enumerate(stages) for name in names}
    found = []
    for module, n in sorted(stage_of.items()):
        seen, work = set(), [(target, target) for target in graph.get(module, ())]
        while work:
            target, via = work.pop()
            if target in seen or not target.startswith(f"{package}."):
                continue
            seen.add(target)
            if target in stage_of:
                if stage_of[target] > n:
                    found.append(f"{module} (stage {n}) imports {target} (stage {stage_of[target]})"
                                 + (f" through {via}" if via != target else ""))
                continue
            work += [(further, via) for further in graph.get(target, ())]
    return sorted(found)


def test_export_stages_import_only_earlier_stages():
    graph = import_graph()
    missing = [name for names in EXPORT_STAGES for name in names if f"io_msh.exp.{name}" not in graph]
    assert not missing, f"export stages without a module: {missing}"
    found = stage_breaks(graph, EXPORT_STAGES, "io_msh.exp")
    assert not found, "export stages importing a later stage:\n" + "\n".join(found)


def test_the_stage_check_finds_later_stages():
    graph = {"p.a": {"p.b"}, "p.b": {"p.helper"}, "p.helper": {"p.c"}, "p.c": {"p.a", "q.x"}, "q.x": {"p.c"}}
    assert stage_breaks(graph, [["a"], ["b"], ["c"]], "p") == [
        "p.a (stage 0) imports p.b (stage 1)", "p.b (stage 1) imports p.c (stage 2) through p.helper"]


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(module: str, path: Path, known: dict[str, Path]) -> list[str]:
    """The private names this module takes from another module of core or io_msh: ``from m import _x``,
    ``import m._x`` and ``m._x`` on a module it imported."""
    tree = ast.parse(path.read_text(), str(path))
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found = []
    imported: dict[str, str] = {}  # local name -> the module it is bound to
    for line, target, name, local in import_targets(module, tree, known):
        if name is None:
            imported[local] = target
            if any(private(part) for part in target.removesuffix(".__init__").split(".")):
                found.append(f"{where}:{line}: imports the private module {target}")
        elif private(name) and target != module:
            found.append(f"{where}:{line}: imports {name} from {target}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            held = dotted(node.value)
            if held in imported and imported[held] != module:
                found.append(f"{where}:{node.lineno}: uses {imported[held]}.{node.attr}")
    return found


def dotted(node: ast.expr) -> str | None:
    """``a.b.c`` as the string, None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def test_no_private_name_crosses_modules():
    """What another module needs is public, named for what it does; ``_x`` stays in its module."""
    known = modules()
    found = [use for module, path in sorted(known.items()) for use in private_uses(module, path, known)]
    assert not found, "private names used by another module (make them public where they belong):\n" + \
        "\n".join(found)


def test_the_private_check_finds_both_forms(tmp_path):
    module = tmp_path / "check.py"
    module.write_text("from .export import _entry_named, read_model\nfrom . import meshes\n\n\ndef f():\n"
                      "    import core.authoring.units as U\n    return meshes._stored, U._files, U.__name__\n")
    known = {"io_msh.exp.check": module, "io_msh.exp.export": module, "io_msh.exp.meshes": module,
             "core.authoring.units": module}
    assert private_uses("io_msh.exp.check", module, known) == [
        "check.py:1: imports _entry_named from io_msh.exp.export",
        "check.py:7: uses io_msh.exp.meshes._stored", "check.py:7: uses core.authoring.units._files"]
