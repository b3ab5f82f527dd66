"""File > Export > Parkan Clips for Engines: the scene to .glb or .fbx through Blender's own
exporters, every model imported with Clips carrying each clip as it shows now, each channel's range and each
animated material as a named animation (io_msh.exp.engine_clips); a unit imported by Import Unit with Clips
goes out as ``batch convert --clips`` writes it, its mounts and parts without clips baked into each glTF
animation (io_msh.exp.engine_units); the scene is left as it was."""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import nullcontext

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from ...core.disk import read_input
from ...core.write_path import Target, write
from ..exp.engine_clips import clip_roots, engine_tracks, fbx_options, gltf_options
from ..exp.engine_materials import animated_materials, base_colour_held
from ..exp.write_scene import as_shown
from . import dialog as D
from . import registration
from .translations import report

SUFFIX = {"GLB": ".glb", "FBX": ".fbx"}


class EXPORT_SCENE_OT_parkan_clips(bpy.types.Operator, ExportHelper):
    bl_idname = "export_scene.parkan_clips"
    bl_label = "Export Parkan Clips for Engines"
    bl_description = ("Write the scene to .glb or .fbx with every clip of the models imported with Clips as a "
                      "named animation, each channel's range and each animated material too")
    bl_options = {"PRESET"}

    filename_ext = ".glb"
    filter_glob: StringProperty(default="*.glb;*.fbx", options={"HIDDEN"})
    force: D.force()
    file_format: EnumProperty(
        name="Format", default="GLB", description="The file written, by Blender's own exporter",
        items=(("GLB", "glTF Binary (.glb)", "Animations, with material animation as KHR_animation_pointer"),
               ("FBX", "FBX", "A take per animation; no material animation")))
    material_animation: BoolProperty(
        name="Material Animation", default=True,
        description=("glTF: animated materials as KHR_animation_pointer animations: the emission and the texture "
                     "cell, which Blender's own glTF importer reads back"))
    base_colour_animation: BoolProperty(
        name="Base Colour Animation", default=False,
        description=("glTF, with Material Animation: the animated base colour too, for readers that apply "
                     "KHR_animation_pointer to material factors (Babylon.js, Khronos' glTF Sample Viewer); "
                     "Blender's own glTF importer stops with an error on it"))

    def check(self, context):
        wanted = SUFFIX[self.file_format]
        stem, suffix = os.path.splitext(self.filepath)
        if suffix.lower() != wanted:
            self.filepath = (stem if suffix.lower() in SUFFIX.values() else self.filepath) + wanted
            return True
        return False

    def execute(self, context):
        with as_shown(context):  # Edit Mode's edits read, the mode the user was in (Pose Mode) put back
            return self.export(context)

    def export(self, context):
        import addon_utils

        path = self.filepath if os.path.splitext(self.filepath)[1] else self.filepath + SUFFIX[self.file_format]
        roots = clip_roots(context.scene.objects)
        if not roots:
            report(self, "ERROR", "no model with clips in the scene: import one as an armature with Clips: Actions "
                                  "or NLA Strips")
            return {"CANCELLED"}
        glb = self.file_format == "GLB"
        addon_utils.enable("io_scene_gltf2" if glb else "io_scene_fbx", default_set=False)
        try:  # Blender's exporter writes a temporary; the write path puts its bytes in place (core.write_path)
            scratch = tempfile.mkdtemp(prefix="io_msh_clips_")
        except OSError as exc:
            report(self, "ERROR", f"{path}: cannot write: {exc.strerror or exc}")
            return {"CANCELLED"}
        materials = self.material_animation and glb  # FBX carries no material animation
        temporary = os.path.join(scratch, "clips" + SUFFIX[self.file_format])
        try:  # a failed export, or a target refused (a model, read-only), leaves the file as it was
            with engine_tracks(roots, materials=materials, bake_units=glb) as names:
                if glb:
                    with nullcontext(0) if self.base_colour_animation else base_colour_held() as held:
                        bpy.ops.export_scene.gltf(**gltf_options(temporary, self.material_animation))
                else:
                    from ..imp.materials import textures_for_fbx

                    with textures_for_fbx(bpy.data.materials):
                        bpy.ops.export_scene.fbx(**fbx_options(temporary))
            write([Target(path, read_input(temporary), owned=True)], force=self.force)
        except (RuntimeError, OSError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc).strip().splitlines()[-1]
            report(self, "ERROR", f"{path}: cannot write: {reason}")
            return {"CANCELLED"}
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        # animations of one name (a channel's and its belt's) are one glTF animation; FBX: a take per track
        report(self, "INFO", f"Wrote {path}: {len(roots)} model(s), {len(dict.fromkeys(names))} animation(s)")
        for line in not_carried(self.file_format, self.material_animation, held if glb else 0):
            report(self, "WARNING" if line.startswith("FBX") else "INFO", line)
        return {"FINISHED"}


def not_carried(file_format: str, material_animation: bool, base_colours_held: int) -> list[str]:
    """What the file leaves out of the scene's animated materials, and why."""
    animated = animated_materials()
    if not animated:
        return []
    listed = ", ".join(animated)
    if file_format == "FBX":
        return [f"FBX carries no material animation: {len(animated)} animated material(s) not written ({listed})"]
    if not material_animation:
        return [f"Material Animation is off: {len(animated)} animated material(s) not written ({listed})"]
    if base_colours_held:
        return [f"the base colour of {base_colours_held} material(s) is not animated in the file (Base Colour "
                "Animation is off: Blender's glTF importer cannot read it)"]
    return []


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_parkan_clips.bl_idname, text="Parkan Clips for Engines (.glb, .fbx)")


def register() -> None:
    registration.register([EXPORT_SCENE_OT_parkan_clips], exports=[menu_export])


def unregister() -> None:
    registration.unregister([EXPORT_SCENE_OT_parkan_clips], exports=[menu_export])
