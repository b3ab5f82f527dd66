"""The export check: what an export of the model would refuse or change, found by the export's own checks
(read-back, plan, libraries) with nothing written. The Parkan panel shows it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from ...core.errors import FormatError
from ...core.msh.model import Model
from ..com import props as P
from .export import _library_files, plan_export
from .plan import ExportOptions, refuse_oversized
from .scene_model import SceneModel
from .state_edits import state_edits

# A Python string literal as the export's messages quote names ({name!r}).
_QUOTED = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*\"""")


@dataclass
class CheckLine:
    """One thing the export would refuse (ERROR) or change (WARNING), and the names it quotes."""

    level: str
    message: str
    names: tuple[str, ...] = ()


@dataclass
class ExportCheck:
    root: str | None                 # the model's root object, when one was found
    lines: list[CheckLine] = field(default_factory=list)
    model: Model | None = None       # what the export would write, when it would

    @property
    def refused(self) -> bool:
        return any(line.level == "ERROR" for line in self.lines)


def check_export(context, options: ExportOptions | None = None, collection: str | None = None) -> ExportCheck:
    """Run the export up to the point where it would write: every refusal it gives is an ERROR line, every
    warning a WARNING line. A part too large for MSH is listed for every such part (the export stops at the
    first)."""
    options = options or ExportOptions()
    found: list[CheckLine] = []

    def parts_of(scene: SceneModel) -> None:
        for mesh in scene.meshes:
            try:
                refuse_oversized(mesh)
            except FormatError as exc:
                found.extend(_errors(exc))

    root = None
    try:
        root, result = plan_export(context, options, collection, parts_of)
        state_edits(root, result.model)  # an edited controller state the game cannot take
        _library_files(result.materials, options, {})
    except FormatError as exc:
        found.extend(line for line in _errors(exc) if line not in found)
        return ExportCheck(root.name if root is not None else _root_name(context), found)
    found.extend(CheckLine("WARNING", text, quoted_names(text)) for text in result.warnings)
    return ExportCheck(root.name, found, result.model)


def _errors(exc: FormatError) -> list[CheckLine]:
    return [CheckLine("ERROR", f.message, quoted_names(f.message)) for f in exc.findings if f.is_error]


def _root_name(context) -> str | None:
    obj = context.active_object
    while obj is not None and P.MODEL not in obj:
        obj = obj.parent
    return obj.name if obj is not None else None


def quoted_names(message: str) -> tuple[str, ...]:
    """The names a message quotes, in order (objects, bones, materials)."""
    out = []
    for literal in _QUOTED.findall(message):
        try:
            out.append(str(ast.literal_eval(literal)))
        except (ValueError, SyntaxError):
            continue
    return tuple(out)
