"""A stand-in for ``blender -b --factory-startup -P SCRIPT -- ARGS``: there is no Blender binary here.

Runs SCRIPT with the bpy wheel loaded and Blender's argument convention in
sys.argv, so that scripts see exactly what Blender would give them.
    python tests/blender_standin.py -b --factory-startup -P io_msh/batch/__main__.py -- import ...
"""

import runpy
import sys

import bpy  # noqa: F401  Blender runs -P scripts with bpy loaded

if __name__ == "__main__":
    args = sys.argv[1:]
    script = args[args.index("-P") + 1]
    sys.argv = ["blender", *args]
    runpy.run_path(script, run_name="__main__")
