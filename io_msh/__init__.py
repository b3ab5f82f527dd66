"""Blender side of the extension: operators, and the mapping of MSH data to Blender data.

``plan`` decides everything in plain Python; ``importer`` creates the Blender
data; ``conversion`` holds the MSH-to-Blender value mapping; ``compat`` the
Blender version differences; ``operators`` the UI entry points.
"""


def register() -> None:
    from . import operators

    operators.register()


def unregister() -> None:
    from . import operators

    operators.unregister()
