"""Shared by import, export and batch: the MSH-to-Blender value mapping (conversion), the Blender version
differences (compat) and the custom property names of the scene contract (props)."""
