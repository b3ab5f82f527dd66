"""Import: the plan in plain Python (plan, animation), then the Blender data made from it in one pass
(build, materials)."""
