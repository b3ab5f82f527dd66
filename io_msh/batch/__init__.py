"""Headless batch conversion: many .msh/.rlb files (or folders) at once.

Usable both ways:
    blender -b --factory-startup -P io_msh/batch/__main__.py -- COMMAND ...
    .venv/bin/python io_msh/batch COMMAND ...              (the bpy wheel)

Commands:
    import INPUT... -o DIR [--node-mode M] [--animation A] [--slots S] [--stage N] [--lod N] [--game-folder D]
    export BLEND... -o DIR [--keys K]                                     every model root to .msh
    convert INPUT... -o DIR --format glb|fbx|blend [import options]       through Blender's exporters
            [--clips [--root-motion IN_PLACE|MOVING|BOTH] [--no-material-animation]]  clips as named animations
    thumbnails INPUT... -o DIR [--size PX]                                a PNG per model + contact_sheet.png
    textures LIB... -o DIR                                                a PNG per texture of a library
    library GAME_FOLDER -o LIB.blend [--size PX] [--rebuild]              every model and unit as an asset
Every command takes --jobs N (at most N Blender processes, never more than items) and --warnings-as-errors.
A bad file is skipped with its reason; the run goes on; exit 1 when any file failed (or warned, with
--warnings-as-errors), 2 for usage errors and when the inputs hold nothing to convert, 130 on Ctrl-C, else 0.

Modules: ``cli`` (the command line and the run), ``items`` (what to convert, and where to), ``pool`` (the
worker processes), ``results`` (an item's outputs moved into place, its lines printed), ``worker`` (the work
a worker does in Blender), ``pictures`` (thumbnails and the contact sheet), ``scene`` (the worker's scene
between items), ``clip_export`` (convert --clips); ``__main__`` runs it as a script.
"""
