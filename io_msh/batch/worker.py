"""The work a batch worker does in Blender: one item at a time, read from its standard input, its result
written to the result pipe."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from .items import UNIT_SUFFIX, Item, Result, safe, without_suffix
from .maps import is_map_file, load_map, render_map_thumbnail
from .pictures import contact_sheet, render_thumbnail, save_png
from .pool import PROGRESS_TAG, RESULT_FD_VARIABLE, RESULT_TAG
from .scene import clean_scene


def worker_main() -> int:
    """The worker side of WorkerPool: the arguments, then one item per line on stdin; a result line for each
    on the result pipe (or stdout), always starting on a fresh line."""
    args = argparse.Namespace(**json.loads(sys.stdin.readline()))
    fd = os.environ.pop(RESULT_FD_VARIABLE, "")
    worker = Worker(args, fd)
    try:
        for line in sys.stdin:
            result = worker.process(Item(**json.loads(line)))
            worker.send(RESULT_TAG + json.dumps(asdict(result)))
    finally:
        worker.close()
    return 0


class Worker:
    """Does the items of one command in this Blender process, one clean scene each.

    Each item's files are written into its stage folder under plain ASCII names (Blender's file paths are
    UTF-8: a file name that is not is reached through a symbolic link of an ASCII name); the parent then
    moves them onto their outputs."""

    def __init__(self, args, fd: str = "") -> None:
        import bpy

        self.args, self.fd = args, fd
        self.bpy = bpy
        self.warnings: list[str] = []
        self.written: list[str] = []  # files an item wrote in place (export --into-source), not staged
        self.note = ""  # the result's message when it wrote nothing (no model matches --models)
        self.stage = ""
        self.links = tempfile.mkdtemp(prefix="io_msh_names_")
        bpy.context.preferences.filepaths.save_version = 0  # no .blend1 backups next to the outputs
        # Nothing of ours is registered: the items call the import and export functions, never our operators, and
        # loading the interface's modules (all of io_msh) was a third of a worker's start.
        if args.command == "convert" and args.format in ("glb", "fbx"):
            import addon_utils

            addon_utils.enable("io_scene_gltf2" if args.format == "glb" else "io_scene_fbx", default_set=False)

    def send(self, line: str) -> None:
        """A line to the parent: on the result pipe (or stdout), always starting on a fresh line."""
        data = ("\n" + line + "\n").encode("ascii")
        if self.fd:
            while data:
                data = data[os.write(int(self.fd), data):]
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.flush()

    def tell(self, text: str) -> None:
        """A step of a long item done (the parent prints it, and gives the item's next step --timeout anew)."""
        self.send(PROGRESS_TAG + json.dumps(text))

    def close(self) -> None:
        clean_scene(self.bpy)
        shutil.rmtree(self.links, ignore_errors=True)

    def process(self, item: Item) -> Result:
        start = time.perf_counter()
        self.warnings, self.written, self.note = [], [], ""
        try:
            _injected_fault(item)
            clean_scene(self.bpy)  # nothing of the start-up scene (its cube, camera, light) or the last item
            Path(item.stage).mkdir(parents=True, exist_ok=True)
            self.stage = self.blender_path(item.stage)
            staged = getattr(self, f"_{item.kind or self.args.command}")(item)
            pairs = tuple((str(Path(item.stage) / name), wanted) for name, wanted in staged)
            for (path, wanted) in pairs:
                if not Path(path).is_file():
                    raise ValueError(f"nothing was written to {wanted}")
            return Result(item.label, True, self.note, time.perf_counter() - start, tuple(self.written),
                          tuple(self.warnings), pairs)
        except Exception as exc:  # one bad file must not stop the run
            return Result(item.label, False, self._reason(exc, item), time.perf_counter() - start,
                          tuple(self.written), warnings=tuple(self.warnings))
        finally:
            clean_scene(self.bpy)
            for link in os.listdir(self.links):
                os.unlink(os.path.join(self.links, link))

    def _reason(self, exc: Exception, item: Item) -> str:
        """The failure in plain words: a core error's findings, one per line; of a Python traceback (an operator
        such as the glTF exporter failing) only its last line; the stage folder's files named as the outputs."""
        import re

        from ...core.errors import FormatError

        if isinstance(exc, FormatError):
            text = exc.describe(item.source)
        elif isinstance(exc, OSError) and exc.filename:
            text = f"{exc.filename}: {exc.strerror or exc}"
        else:
            text = operator_error(str(exc)) or type(exc).__name__
        for folder in {self.stage, item.stage} - {""}:
            text = re.sub(re.escape(folder) + r"/[^\s'\"]*", lambda _: item.output, text)
        return text

    @contextlib.contextmanager
    def writing(self, name: str, output: str):
        """Around a Blender writer: its failure, or a file it left incomplete (Blender's own writers do not
        all report a full disk), becomes "cannot write OUTPUT: reason"."""
        try:
            yield
            incomplete = _incomplete(self.staged(name))
        except Exception as exc:  # an operator's RuntimeError, an OSError of a Python writer
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else operator_error(str(exc))
            raise ValueError(f"cannot write {output}: {reason}") from None
        if incomplete:
            raise ValueError(f"cannot write {output}: {incomplete}")

    def blender_path(self, path: str | Path) -> str:
        """``path`` as Blender can take it: itself, or an ASCII symbolic link to it when it is not UTF-8."""
        text = str(path)
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            suffix = Path(text).suffix if Path(text).suffix.isascii() else ""
            link = os.path.join(self.links, f"{len(os.listdir(self.links))}{suffix}")
            os.symlink(os.path.abspath(text), link)
            return link

    def staged(self, name: str) -> str:
        return os.path.join(self.stage, name)

    def load(self, item: Item, **overrides) -> list:
        """Import the item's model (an archive's entry by its index: names may repeat or look like patterns);
        returns its import plans, each with its options (a unit: its plan, io_msh.imp.unit_plan.UnitPlan)."""
        from mathutils import Matrix

        from ...core.errors import FormatError
        from ..com import compat
        from ..imp.build import import_plans
        from ..imp.plan import ImportOptions, plan_file

        options = {"node_mode": getattr(self.args, "node_mode", "ARMATURE"),
                   "animation": getattr(self.args, "animation", "FAITHFUL"),
                   "slots": getattr(self.args, "slots", "CHOSEN"), "stage": getattr(self.args, "stage", 0),
                   "lod": int(getattr(self.args, "lod", "0"))}
        options.update(overrides)
        if is_map_file(item.source):
            load_map(self, item)
            return
        folder = getattr(self.args, "game_folder", "")
        options = ImportOptions(**options, game_folders=(folder,) if folder else (),
                                entry_indices=None if item.index is None else (item.index,),
                                name_bytes=compat.node_name_bytes(options["node_mode"]))
        if item.source.lower().endswith(UNIT_SUFFIX):
            return [self._load_unit(item, options)]
        try:
            plans = plan_file(item.source, options)
        except FormatError as exc:
            raise ValueError(exc.describe(item.source)) from None
        self.warnings += [warning for plan in plans for warning in plan.warnings]
        import_plans(self.bpy.context, plans, Matrix.Identity(4))
        return plans

    def _load_unit(self, item: Item, options):
        """Import a unit tree assembled (io_msh.imp.unit): every part at its socket; returns its plan."""
        from mathutils import Matrix

        from ...core.errors import FormatError
        from ..imp.unit import import_unit
        from ..imp.unit_plan import plan_unit

        try:
            plan = plan_unit(item.source, options)
        except FormatError as exc:
            raise ValueError(exc.describe(item.source)) from None
        self.warnings += plan.warnings
        import_unit(self.bpy.context, plan, Matrix.Identity(4))
        return plan

    def _import(self, item: Item) -> list[tuple[str, str]]:
        self.load(item)
        with self.writing("0.blend", item.output):
            self.bpy.ops.wm.save_as_mainfile(filepath=self.staged("0.blend"), copy=True)
        return [("0.blend", item.output)]

    def _convert(self, item: Item) -> list[tuple[str, str]]:
        ops = self.bpy.ops
        name = f"0.{self.args.format}"
        clips = getattr(self.args, "clips", False)
        if clips and self.args.format != "blend":
            from .clip_export import convert_with_clips

            if convert_with_clips(self, item, self.staged(name)):
                return [(name, item.output)]
            # a unit none of whose parts has clips: written as without --clips (warned)
        elif clips:  # a .blend: the clips as the import's NLA strips (a unit's on each part with a controller)
            self.load(item, clips="NLA", root_motion="MOVING" if self.args.root_motion == "MOVING" else "IN_PLACE")
        else:
            self.load(item)
        with self.writing(name, item.output):
            if self.args.format == "glb":
                from ..com.compat import gltf_convert_options

                # A unit's mounted parts follow their sockets through constraints: baked, so the file moves too.
                ops.export_scene.gltf(**gltf_convert_options(self.staged(name),
                                                             baked=item.source.lower().endswith(UNIT_SUFFIX)))
            elif self.args.format == "fbx":
                from ..imp.materials import textures_for_fbx

                with textures_for_fbx(self.bpy.data.materials):  # FBX follows no Mix node: textures go straight in
                    ops.export_scene.fbx(filepath=self.staged(name), bake_anim=True, embed_textures=True,
                                         path_mode="COPY")
            else:
                ops.wm.save_as_mainfile(filepath=self.staged(name), copy=True)
        return [(name, item.output)]

    def _export(self, item: Item) -> list[tuple[str, str]]:
        """Every model root of the .blend (several: one file each, named after the model), with the material
        list the exporter writes beside it; the exporter's warnings are the item's."""
        from ...core.errors import FormatError, printable
        from ..exp.export import export_to_file
        from ..imp.plan import matching_models

        bpy = self.bpy
        bpy.ops.wm.open_mainfile(filepath=self.blender_path(item.source))
        roots = [o for o in bpy.data.objects if "msh_model" in o]
        if not roots:
            raise ValueError("the .blend holds no model root (an object with msh_model)")
        patterns = getattr(self.args, "models", "")
        if patterns:
            wanted = set(matching_models([str(o["msh_model"]) for o in roots], patterns))
            roots = [o for o in roots if str(o["msh_model"]) in wanted]
            if not roots:
                self.note = f"nothing exported: no model matches --models {patterns!r}"
                return []
        options = self._export_options()
        if getattr(self.args, "into_source", False):
            self._into_source(sorted(roots, key=lambda o: o.name), options)
            return []
        staged: list[tuple[str, str]] = []
        for n, root in enumerate(sorted(roots, key=lambda o: o.name)):
            target = Path(item.output)
            model = printable(str(root["msh_model"]))
            if len(roots) > 1:  # several models (even of one name): one file each; the parent makes names unique
                target = target.with_name(f"{target.stem}_{safe(without_suffix(model))}.msh")
            for obj in bpy.context.view_layer.objects:
                obj.select_set(obj == root)
            bpy.context.view_layer.objects.active = root
            where = f"{model}: " if len(roots) > 1 else ""
            try:
                result = export_to_file(bpy.context, self.staged(f"{n}.msh"), options)
            except FormatError as exc:
                raise ValueError("\n".join(where + line for line in exc.describe("").splitlines())) from None
            self.warnings += [where + warning for warning in result.warnings]
            staged.append((f"{n}.msh", str(target)))
            if os.path.exists(self.staged(f"{n}.wea")):
                staged.append((f"{n}.wea", str(target.with_suffix(".wea"))))
        return staged

    def _export_options(self):
        from ...core.animation.keys import Tolerance
        from ..exp.plan import ExportOptions

        args = self.args
        return ExportOptions(keys=args.keys, tolerance=Tolerance(getattr(args, "position_tolerance", 1e-4),
                                                                 getattr(args, "rotation_tolerance", 0.05)),
                             frame_range=getattr(args, "frame_range", "ACTION"),
                             end_frame=getattr(args, "end_frame", 0),
                             replace_changed=getattr(args, "replace_changed", False))

    def _into_source(self, roots: list, options) -> None:
        """Export every model of the .blend back into the file it was imported from, as the export dialog
        writes it (the archive's entry it came from, by index, with its material list), all of the item's files
        as one transaction: all of them, or none. With --warnings-as-errors a warning leaves every source as it
        was. Another worker writing the same archive meanwhile makes the write refuse (ChangedError): the export
        then reads the archives again, a few times."""
        from ...core.disk import ChangedError
        from ...core.errors import FormatError, printable
        from ...core.write_path import UNREAD, Target, write
        from ..exp.export import export_into_sources

        for attempt in range(8):
            try:
                files, read_as, warnings = export_into_sources(self.bpy.context, roots, options)
            except FormatError as exc:
                raise ValueError(exc.describe("")) from None
            if getattr(self.args, "warnings_as_errors", False) and warnings:
                self.warnings += warnings
                raise ValueError(f"{len(warnings)} warning(s), treated as errors (--warnings-as-errors): "
                                 f"{', '.join(printable(path) for path, _ in files)} left as it was")
            # Each source belongs to the model exported into it, and its bytes are the file as just read with the
            # models put in: it is replaced only while it is still the file read.
            targets = [Target(path, data, read=read_as.get(path, UNREAD), owned=True, spliced=True)
                       for path, data in files]
            try:
                write(targets, force=options.force)
                break
            except ChangedError:
                if attempt == 7:
                    raise
                time.sleep(0.05 * (attempt + 1))
        self.warnings += warnings
        self.written += [path for path, _ in files]

    def _sheet(self, item: Item) -> list[tuple[str, str]]:
        pictures = [(self.blender_path(path), label) for path, label in json.loads(item.source)]
        with self.writing("0.png", item.output):
            contact_sheet(pictures, Path(self.staged("0.png")), self.args.size)
        return [("0.png", item.output)]

    def _thumbnails(self, item: Item) -> list[tuple[str, str]]:
        self.load(item, animation="NONE", slots="CHOSEN")
        render = render_map_thumbnail if is_map_file(item.source) else render_thumbnail
        with self.writing("0.png", item.output):
            render(self.bpy, Path(self.staged("0.png")), self.args.size)
        return [("0.png", item.output)]

    def _asset(self, item: Item) -> list[tuple[str, str]]:  # batch library (io_msh.batch.library_worker)
        from .library_worker import build_asset

        return build_asset(self, item)

    def _library_index(self, item: Item) -> list[tuple[str, str]]:
        from .library_worker import read_index

        return read_index(self, item)

    def _library_merge(self, item: Item) -> list[tuple[str, str]]:
        from .library_worker import merge

        return merge(self, item)

    def _textures(self, item: Item) -> list[tuple[str, str]]:
        from ...core.disk import read_input
        from ...core.fonts.pictures import picture_rgba

        rgba = picture_rgba(read_input(item.source), item.index, item.source)  # a texture or a font's atlas
        with self.writing("0.png", item.output):
            save_png(self.bpy, rgba, Path(self.staged("0.png")))
        return [("0.png", item.output)]


def operator_error(text: str) -> str:
    """An operator's error as one line: of a Python traceback (``Error: Python: Traceback ...``) its last line,
    the exception (``OSError: [Errno 27] File too large``), without Blender's ``Location:`` line."""
    text = text.strip().removeprefix("Error: ")
    marker = "Traceback (most recent call last):"
    if marker in text:
        tail = [line for line in text.split(marker, 1)[1].splitlines()
                if line.strip() and not line.startswith((" ", "\t")) and not line.lower().startswith("location:")]
        text = tail[-1] if tail else "an exporter failed"
    return text


def _incomplete(path: str) -> str:
    """Why a file Blender wrote is incomplete, or "" (a .blend ends with its ENDB block, or the zstd
    seek table when compressed; a PNG with its IEND chunk). Other formats are written by Python, which raises."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            head = handle.read(4)
            handle.seek(max(0, size - 32))
            tail = handle.read()
    except OSError as exc:
        return exc.strerror or str(exc)
    if path.endswith(".blend"):
        complete = tail.endswith(b"\xb1\xea\x92\x8f") if head == b"\x28\xb5\x2f\xfd" else b"ENDB" in tail
    elif path.endswith(".png"):
        complete = tail.endswith(b"IEND\xaeB`\x82")
    else:
        return ""
    return "" if complete else "the file was left incomplete (is the disk full, or a file size limit reached?)"


FAULT_VARIABLE = "IO_MSH_BATCH_FAULT"


def _injected_fault(item: Item) -> None:
    """For the tests of the worker pool: ``IO_MSH_BATCH_FAULT=crash:TEXT`` (or ``hang:TEXT``) makes a worker die
    (or stall) on an item whose label contains TEXT."""
    kind, _, text = os.environ.get(FAULT_VARIABLE, "").partition(":")
    if text and text in item.label:
        if kind == "crash":
            os._exit(3)
        if kind == "hang":
            time.sleep(3600)
