"""Export: the scene read back (readback, with poses, meshes and skin) into plain data (scene_model), the
F-curves evaluated in numpy (fcurves), untouched animation recognised (unedited), the decisions in plain
Python (plan, materials), and the files written as one transaction (export); the export run up to the
write, for its refusals and warnings (check)."""
