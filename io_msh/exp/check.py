"""The export check: what an export of the model would refuse or change, found by the export's own checks
(read-back, plan, libraries) with nothing written. The Parkan panel shows it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from ...core.errors import FormatError
from ...core.msh.model import Model
from ..com import props as P
from .check_cache import PlanMemo, cache_for
from .export import ModelRead, editing, library_files, model_steps, plan_read, root_in_collection
from .plan import ExportOptions, ExportResult, refuse_oversized
from .readback import find_root
from .scene_model import SceneModel
from .state_edits import state_edits

# A Python string literal as the export's messages quote names ({name!r}).
_QUOTED = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*\"""")
CHANGES_NAMED = 8  # the nodes a change line names; the others are counted


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


def check_export(context, options: ExportOptions | None = None, collection: str | None = None,
                 cache: bool = False) -> ExportCheck:
    """Run the export up to the point where it would write: every refusal it gives is an ERROR line, every
    warning a WARNING line. A part too large for MSH is listed for every such part (the export stops at the
    first). With ``cache``, what the last check of the model read and planned is reused where it provably did
    not change (io_msh.exp.check_cache); the result is the same."""
    kept = None
    curves = meshes = None
    active = context.active_object
    # Edit Mode holds its changes out of the data until the read leaves it: nothing is read ahead then
    if cache and collection is None and (active is None or active.mode != "EDIT"):
        root = _cached_root(context)
        if root is not None:
            kept = cache_for(context, root.name)
            kept.start()
            curves = kept.read_curves(root)
            meshes = kept.read_meshes(context, root)
    job = CheckJob(context, options, collection, curves, meshes, kept.memo if kept is not None else None)
    job.plan()
    if kept is not None:
        kept.done()
        kept.memo.next_check()
    return job.finish()


def _cached_root(context):
    """The model a cached check reads ahead (``reads_ahead``): the one the export takes."""
    try:
        root = find_root(context)
    except FormatError:
        return None
    return root if reads_ahead(root) else None


def reads_ahead(root) -> bool:
    """Whether a check may read the model's curves and meshes ahead of the export's read: imported, without clips
    (whose curves are read through the export's timeline copies), none of its objects in Edit Mode (their data is
    not what they show: the read refuses them, or leaves the mode first)."""
    return P.MODEL in root and not root.get(P.CLIPS) and not editing(root)


class CheckJob:
    """``check_export`` in three parts: the scene read (``__init__``, on Blender's main thread), the planning
    (``plan``: plain Python, no Blender data, so the panel's live check runs it in a worker thread while Blender
    stays responsive), and what needs Blender again (``finish``, main thread). ``curves``, ``meshes``: the root's
    ``read_curves`` and ``read_mesh`` of its mesh objects, when already read (the live check reads them in
    slices); ``memo``: what the last check planned (io_msh.exp.check_cache). With ``stepped`` the scene read is
    left to ``read_step``, a part at a time (export.model_steps: the live check runs one per timer step)."""

    def __init__(self, context, options: ExportOptions | None = None, collection: str | None = None,
                 curves: list | None = None, meshes: dict | None = None, memo: PlanMemo | None = None,
                 stepped: bool = False) -> None:
        self.options = options or ExportOptions()
        self.memo = memo
        self.found: list[CheckLine] = []
        self.root = None
        self.error: FormatError | None = None
        self.result: ExportResult | None = None
        self.read: ModelRead | ExportResult | None = None
        self.fallback = _root_name(context)
        self.reading = None
        try:
            self.root = root_in_collection(collection) if collection else find_root(context)
            self.reading = model_steps(context, self.root, self.options, curves, meshes, pause=stepped)
        except FormatError as exc:
            self.error = exc
        if not stepped:
            while not self.read_step():
                pass

    def read_step(self) -> bool:
        """The next part of the scene read; True once the read ended (or failed: ``error``)."""
        if self.reading is None:
            return True
        try:
            next(self.reading)
            return False
        except StopIteration as stop:
            self.read = stop.value
        except FormatError as exc:
            self.error = exc
        self.reading = None
        return True

    def parts_of(self, scene: SceneModel) -> None:
        for mesh in scene.meshes:
            try:
                refuse_oversized(mesh)
            except FormatError as exc:
                self.found.extend(_errors(exc))

    def plan(self) -> None:
        if self.error is not None:
            return
        try:
            self.result = plan_read(self.read, self.options, self.parts_of, self.memo)
            library_files(self.result.materials, self.options, {})
        except FormatError as exc:
            self.error = exc

    def finish(self) -> ExportCheck:
        found = self.found
        edits = []
        if self.error is None:
            try:
                edits = state_edits(self.root, self.result.model)  # an edited state the game cannot take
            except FormatError as exc:
                self.error = exc
        if self.error is not None:
            found.extend(line for line in _errors(self.error) if line not in found)
            return ExportCheck(self.root.name if self.result is not None else self.fallback, found)
        found.extend(CheckLine("WARNING", text, quoted_names(text)) for text in self.result.warnings)
        found.extend(CheckLine("WARNING", text, quoted_names(text)) for text in changes(self.read, self.result, edits))
        return ExportCheck(self.root.name, found, self.result.model)


def changes(read: ModelRead | ExportResult | None, result: ExportResult, edits: list) -> list[str]:
    """What the export would change that no warning names: the nodes whose tracks it rewrites (as its report
    counts them) and the controller states edited. A model rebuilt from the scene (every node new) has its own
    warning."""
    out = []
    nodes = read.scene.nodes if isinstance(read, ModelRead) else []
    edited = [i for i in result.edited_nodes if i < len(nodes)]
    if edited and not (result.geometry_rebuilt and len(edited) == len(nodes)):
        names = ", ".join(repr(nodes[i].handle) for i in edited[:CHANGES_NAMED])
        if len(edited) > CHANGES_NAMED:
            out.append(f"{len(edited)} node track(s) rewritten: {names} and {len(edited) - CHANGES_NAMED} more")
        else:
            out.append(f"{len(edited)} node track(s) rewritten: {names}")
    if edits:
        out.append(f"{len(edits)} controller state field(s) edited: the controller is written too")
    return out


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
