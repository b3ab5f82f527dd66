"""The extension's preferences: where the game's libraries are, when they are not beside the models."""

from __future__ import annotations

import bpy
from bpy.props import StringProperty

# The extension's own package (the parent of io_msh), which Blender keys add-on preferences by.
PACKAGE = __package__.rsplit(".", 2)[0]  # the extension package, two levels above io_msh.ui


class ParkanMshPreferences(bpy.types.AddonPreferences):
    bl_idname = PACKAGE

    game_folder: StringProperty(
        name="Game Folder", subtype="DIR_PATH", default="",
        description="Folder holding Material.lib, Textures.lib and LightMap.lib, searched after the model's "
                    "own folder and its parents")

    def draw(self, context):
        self.layout.prop(self, "game_folder")


def game_folder(context) -> str:
    """The game folder set in the preferences, or '' (also when the extension is not enabled as an add-on)."""
    addon = context.preferences.addons.get(PACKAGE)
    return addon.preferences.game_folder if addon is not None and addon.preferences is not None else ""
