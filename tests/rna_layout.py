"""Drawing without a window: Blender draws panels and dialogs only with a user interface, so the draw code is
run against this layout, which checks every call against UILayout's own RNA definition (the function, its
parameter names, the icon, the property drawn, the operator and its properties) and records what would
show. Each function returns what Blender's does (a layout, a (header, body) pair, operator properties)."""

from __future__ import annotations

import bpy

_FUNCTIONS = bpy.types.UILayout.bl_rna.functions
_ATTRIBUTES = {p.identifier for p in bpy.types.UILayout.bl_rna.properties}
_ICONS = set(_FUNCTIONS["label"].parameters["icon"].enum_items.keys())
_LAYOUTS = {"row", "column", "box", "grid_flow", "split", "column_flow"}


class CheckedLayout:
    def __init__(self, drawn: list | None = None, open_panels: bool = True) -> None:
        object.__setattr__(self, "drawn", [] if drawn is None else drawn)
        object.__setattr__(self, "open_panels", open_panels)

    def __setattr__(self, name, value):
        assert name in _ATTRIBUTES, f"UILayout has no attribute {name!r}"
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        assert name in _FUNCTIONS, f"UILayout has no function {name!r}"
        function = _FUNCTIONS[name]
        inputs = [p.identifier for p in function.parameters if not p.is_output]

        def call(*args, **kwargs):
            assert len(args) <= len(inputs), f"{name}: too many arguments"
            given = dict(zip(inputs, args)) | kwargs
            unknown = set(given) - set(inputs)
            assert not unknown, f"UILayout.{name} has no parameter(s) {sorted(unknown)}"
            required = [p.identifier for p in function.parameters if not p.is_output and p.is_required]
            assert all(r in given for r in required), f"UILayout.{name}: missing {required}"
            if "icon" in given:
                assert given["icon"] in _ICONS, f"no icon {given['icon']!r}"
            return self._result(name, given)

        return call

    def _result(self, name: str, given: dict):
        if name in _LAYOUTS:
            return CheckedLayout(self.drawn, self.open_panels)
        if name == "panel":
            self.drawn.append(("panel", given["idname"]))
            return CheckedLayout(self.drawn, self.open_panels), (
                CheckedLayout(self.drawn, self.open_panels) if self.open_panels else None)
        if name == "label":
            self.drawn.append(("label", given.get("text", "")))
            return None
        if name == "prop":
            data, prop = given["data"], given["property"]
            if prop.startswith('["') and prop.endswith('"]'):  # a custom property, by its (escaped) path
                try:
                    data.path_resolve(prop)
                except ValueError:
                    raise AssertionError(f"{data!r} has no custom property {prop!r}") from None
            else:
                assert prop in data.bl_rna.properties, f"{data!r} has no property {prop!r}"
            self.drawn.append(("prop", prop))
            return None
        if name == "operator":
            category, op = given["operator"].split(".")
            rna = getattr(getattr(bpy.ops, category), op).get_rna_type()
            self.drawn.append(("operator", given["operator"], given.get("text")))
            return _OperatorProperties(rna, self.drawn)
        if name == "template_list":
            assert given["listtype_name"] in dir(bpy.types), f"no UIList {given['listtype_name']!r}"
            assert given["propname"] in given["dataptr"].bl_rna.properties
            assert given["active_propname"] in given["active_dataptr"].bl_rna.properties
            self.drawn.append(("list", given["propname"]))
            return None
        raise AssertionError(f"UILayout.{name} is not checked here yet")


class _OperatorProperties:
    def __init__(self, rna, drawn: list) -> None:
        object.__setattr__(self, "rna", rna)
        object.__setattr__(self, "drawn", drawn)

    def __setattr__(self, name, value):
        assert name in self.rna.properties, f"{self.rna.identifier} has no property {name!r}"
        self.drawn.append(("operator property", name, value))
