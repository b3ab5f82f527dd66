"""File > Import > Parkan Game as Asset Library: the batch tool's ``library`` command (io_msh.batch.library) run
from Blender on a chosen game folder, the library then added to the Asset Browser's libraries."""

from __future__ import annotations

import argparse
import contextlib
import io
import os

import bpy
from bpy.props import BoolProperty, IntProperty, StringProperty

from ..batch.library import LibrarySummary, run_library
from ..batch.pictures import MAX_SIZE
from .translations import report

LIBRARY_FOLDER = "Parkan asset library"  # made in the game folder unless the dialog names another .blend
LIBRARY_FILE = "Parkan.blend"


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
        args = argparse.Namespace(command="library", game_folder=folder, output=output, rebuild=self.rebuild,
                                  size=self.size, jobs=self.jobs, timeout=600, warnings_as_errors=False)
        summary = LibrarySummary()
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):  # the batch tool's progress lines: the report says the outcome
            code = run_library(args, summary)
        if code == 2:
            report(self, "ERROR", summary.error)
            return {"CANCELLED"}
        for line in summary.failed:
            report(self, "WARNING", line)
        if summary.failed and not os.path.isfile(output):
            report(self, "ERROR", f"No asset library was written: {len(summary.failed)} failure(s)")
            return {"CANCELLED"}
        if self.add_library:
            add_asset_library(context, os.path.dirname(output))
        if summary.up_to_date:
            report(self, "INFO", f"{output} is up to date: {summary.kept} asset(s)")
        else:
            report(self, "INFO", f"Wrote {output}: {summary.made} asset(s) made, {summary.kept} unchanged, "
                                  f"{len(summary.failed)} failed")
        return {"FINISHED"}


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
    bpy.utils.register_class(PARKAN_OT_asset_library)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    bpy.utils.unregister_class(PARKAN_OT_asset_library)
