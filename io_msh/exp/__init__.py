"""Export: the scene read back (readback, with poses, meshes and skin) into plain data (scene_model), the
F-curves evaluated in numpy (fcurves), untouched animation recognised (unedited), the poses at the exported
frames a bounded block at a time (frames), the decisions in plain Python (plan, materials), the files written
as one transaction (export), the export run up to the write for its refusals and warnings (check), and an
edited clip written into the timeline (clip_timeline)."""
