"""What the file operators share (as Blender's own importers share ImportHelper and ExportHelper): an importer
of files one by one, each planned, then built whole or not at all; an exporter of one file through the one write
path, its refusal or failure reported. Each operator holds its properties and the calls that differ."""

from __future__ import annotations

from contextlib import nullcontext

from bpy_extras.io_utils import ExportHelper, ImportHelper

from ...core.errors import FormatError, printable
from ..exp.write_scene import as_shown
from . import dialog as D
from .translations import exported, report


class ImportFiles(ImportHelper):
    """Mixin of an import operator: every file chosen (or dropped) is planned by ``plan`` (nothing of the scene
    touched; a FormatError or OSError is reported and the file skipped), built by ``build`` (a failure leaves
    nothing of it), its plan's warnings reported, then ``imported`` tells what came in."""

    def invoke(self, context, event):
        return self.invoke_popup(context)

    def execute(self, context):
        """Every file chosen (or dropped), each imported whole or not at all."""
        paths = D.chosen_paths(self)
        if not paths:
            report(self, "ERROR", "No file to import")
        done = [self.import_file(context, path) for path in paths]
        return {"FINISHED"} if any(done) else {"CANCELLED"}

    def import_file(self, context, path: str) -> bool:
        try:
            plan = self.plan(context, path)
        except FormatError as exc:
            report(self, "ERROR", exc.describe(path))
            return False
        except OSError as exc:
            report(self, "ERROR", f"{printable(str(exc.filename or path))}: cannot read: {exc.strerror or exc}")
            return False
        if plan is None:  # refused before reading (``plan`` said why)
            return False
        try:
            self.build(context, plan)
        except Exception as exc:  # a Blender-side failure must not leave half a scene
            report(self, "ERROR", f"Import failed, nothing was kept: {type(exc).__name__}: {exc}")
            return False
        for line in plan.warnings:
            report(self, "INFO", line)
        self.imported(path, plan)
        return True

    def plan(self, context, path: str):
        """What the file makes (with its ``warnings``), or None when the dialog's choices refuse it (reported)."""
        raise NotImplementedError

    def build(self, context, plan) -> None:
        raise NotImplementedError

    def imported(self, path: str, plan) -> None:
        """Reports what the file brought in."""


class ExportFile(ExportHelper):
    """Mixin of an export operator: the file ``target`` makes of the dialog's path written by ``export`` (with
    Edit Mode's edits read and the mode the user was in put back, ``read_as_shown``), a refusal or failure
    reported, else ``written`` tells what was written."""

    read_as_shown = True

    def execute(self, context):
        path = self.target(self.filepath or self.source_path(context))  # a script may give no path
        if path is None:
            return {"CANCELLED"}
        with as_shown(context) if self.read_as_shown else nullcontext():
            result = exported(self, path, lambda: self.export(context, path))
        if result is None:
            return {"CANCELLED"}
        return self.written(path, result)

    def invoke(self, context, event):
        self.filepath = self.source_path(context) or self.filepath
        return super().invoke(context, event)

    def source_path(self, context) -> str:
        """The file the exported data came from, where the dialog starts (empty: none)."""
        return ""

    def target(self, filepath: str) -> str | None:
        """The file written for the path the dialog gave, None (reported) when there is none."""
        return filepath

    def export(self, context, path: str):
        raise NotImplementedError

    def written(self, path: str, result) -> set[str]:
        """Reports what was written; the operator's result."""
        raise NotImplementedError

