"""Import: the plan in plain Python (plan, animation, clips, material_keys), then the Blender data made from it
in one pass (build, materials, clip_actions, material_animation)."""
