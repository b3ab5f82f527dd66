"""Import: the plan in plain Python (plan, animation, clips), then the Blender data made from it in one pass
(build, materials, clip_actions)."""
