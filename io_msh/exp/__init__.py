"""Export: the scene read back as plain data (readback, F-curves evaluated by fcurves, untouched animation
recognised by unedited), the decisions in plain Python (plan, materials), and the files written (export)."""
