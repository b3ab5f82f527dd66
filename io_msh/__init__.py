"""Blender side of the extension: operators and the mapping of MSH data to Blender data.

Import and export operators arrive with their issues; until then the
extension registers nothing.
"""

CLASSES: tuple = ()


def register() -> None:
    import bpy

    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister() -> None:
    import bpy

    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
