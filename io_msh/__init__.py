"""Blender side of the extension: the mapping of MSH data to Blender data and back.

Subpackages, as glTF-Blender-IO's ``blender/imp``, ``exp`` and ``com``: ``imp`` (import),
``exp`` (export), ``com`` (what both share), ``ui`` (operators and preferences); ``batch``
is the headless batch tool.
"""


def register() -> None:
    from .imp import bone_renames
    from .ui import operators, panel

    operators.register()
    panel.register()
    bone_renames.register()


def unregister() -> None:
    from .imp import bone_renames
    from .ui import operators, panel

    bone_renames.unregister()
    panel.unregister()
    operators.unregister()
