"""File > Import > Parkan Game as Asset Library: the batch tool's ``library`` command (io_msh/batch/library.py) run
on a chosen game folder, as a process of its own (the batch tool sits above the interface in the layers,
docs/layout.md), the library then added to the Asset Browser's libraries. Every file is written by that process, through
the one write path (core.write_path): the library named here is the user's choice, replaced only when it is a
library the command wrote and still the file the run read; this operator writes nothing itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import bpy
from bpy.props import BoolProperty, IntProperty, StringProperty

from . import registration
from .translations import report

LIBRARY_FOLDER = "Parkan asset library"  # made in the game folder unless the dialog names another .blend
LIBRARY_FILE = "Parkan.blend"
MAX_SIZE = 4096  # the batch tool's --size limit (io_msh/batch/pictures.py)
SCRIPT = Path(__file__).resolve().parent.parent / "batch" / "__main__.py"


class PARKAN_OT_asset_library(bpy.types.Operator):
    bl_idname = "import_scene.parkan_asset_library"
    bl_label = "Build Parkan Asset Library"
    bl_description = ("Make a Blender asset library of a game folder: every model and every unit as a collection "
                      "asset with its preview, description, tags and catalogue (only what changed is made again)")
    bl_options = {"REGISTER"}

    directory: StringProperty(subtype="DIR_PATH", description="The game folder", options={"HIDDEN", "SKIP_SAVE"})
    filter_folder: BoolProperty(default=True, options={"HIDDEN"})
    library: StringProperty(name="Library", subtype="FILE_PATH",
                            description="The library .blend to write (empty: Parkan asset library/Parkan.blend in "
                                        "the game folder)")
    jobs: IntProperty(name="Processes", default=max(1, (os.cpu_count() or 2) // 2), min=1, max=64,
                      description="Blender processes making assets at once")
    size: IntProperty(name="Preview Size", default=256, min=16, max=MAX_SIZE, description="Preview pixels")
    rebuild: BoolProperty(name="Make Every Asset Again", default=False,
                          description="Make every asset again, not only those whose sources changed")
    add_library: BoolProperty(name="Add to Asset Libraries", default=True,
                              description="Add the library's folder to Preferences > File Paths > Asset Libraries")

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        folder = bpy.path.abspath(self.directory)
        if not os.path.isdir(folder):
            report(self, "ERROR", f"{folder}: not a folder")
            return {"CANCELLED"}
        output = bpy.path.abspath(self.library) if self.library else os.path.join(folder, LIBRARY_FOLDER, LIBRARY_FILE)
        arguments = ["library", folder, "-o", output, "--jobs", str(self.jobs), "--size", str(self.size),
                     *(["--rebuild"] if self.rebuild else [])]
        try:
            code, printed = run_batch(context, arguments)
        except OSError as exc:
            report(self, "ERROR", f"cannot start a Blender process: {exc.strerror or exc}")
            return {"CANCELLED"}
        errors = [line.removeprefix("batch: error: ") for line in printed.splitlines()
                  if line.startswith("batch: error: ")]
        if code == 2 or errors:
            report(self, "ERROR", errors[-1] if errors else printed.strip()[-500:])
            return {"CANCELLED"}
        for line in printed.splitlines():
            if line.startswith("  failed: "):
                report(self, "WARNING", line.removeprefix("  failed: "))
        refused = re.search(r"^library: FAILED: (.*)$", printed, re.M)
        if refused:  # the library or its catalogue file could not be written (the write path refused or failed)
            report(self, "ERROR", f"The library run failed: {refused.group(1)}")
            return {"CANCELLED"}
        counts = re.search(r"^summary: (\d+) of \d+ assets made, (\d+) unchanged, (\d+) failed", printed, re.M)
        if counts is None or not os.path.isfile(output):
            failed = counts.group(3) if counts else "?"
            report(self, "ERROR", f"No asset library was written: {failed} failure(s)")
            return {"CANCELLED"}
        made, kept, failed = counts.groups()
        if self.add_library:
            add_asset_library(context, os.path.dirname(output))
        if "is up to date" in printed:
            report(self, "INFO", f"{output} is up to date: {kept} asset(s)")
        else:
            report(self, "INFO", f"Wrote {output}: {made} asset(s) made, {kept} unchanged, {failed} failed")
        return {"FINISHED"}


def run_batch(context, arguments: list[str]) -> tuple[int, str]:
    """The batch tool's exit code and what it printed; its ``[n/N]`` lines move the progress indicator."""
    manager = context.window_manager
    lines = []
    manager.progress_begin(0, 100)
    try:
        with subprocess.Popen(batch_command(arguments), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace") as process:
            for line in process.stdout:
                lines.append(line)
                done = re.match(r"\[(\d+)/(\d+)\]", line)
                if done:
                    manager.progress_update(100 * int(done[1]) // max(1, int(done[2])))
        return process.returncode, "".join(lines)
    finally:
        manager.progress_end()


def batch_command(arguments: list[str]) -> list[str]:
    """The batch tool: this Blender running its script, or this Python with the bpy wheel."""
    binary = bpy.app.binary_path
    if binary and not binary.endswith("python"):
        return [binary, "-b", "--factory-startup", "-P", str(SCRIPT), "--", *arguments]
    return [sys.executable, str(SCRIPT), *arguments]


def add_asset_library(context, folder: str) -> None:
    """The folder as one of the Asset Browser's libraries, unless it is one already."""
    libraries = context.preferences.filepaths.asset_libraries
    wanted = os.path.normcase(os.path.abspath(folder))
    if any(os.path.normcase(os.path.abspath(bpy.path.abspath(lib.path))) == wanted for lib in libraries):
        return
    libraries.new(name="Parkan", directory=folder)


def menu_import(self, context):
    self.layout.operator(PARKAN_OT_asset_library.bl_idname, text="Parkan Game as Asset Library")


def register() -> None:
    registration.register([PARKAN_OT_asset_library], imports=[menu_import])


def unregister() -> None:
    registration.unregister([PARKAN_OT_asset_library], imports=[menu_import])
