"""The commands of ``python -m core``: each one's arguments, and the module and function that run it, imported
only when that command runs (so a command's start costs what it reads, not what every command reads).

A new command: a function here adding its parser (``sub.add_parser``) with ``func=lazy(".module", "cmd_x")``,
listed in COMMANDS; the module imports its codecs and ``core.cli.output`` for printing, exit codes and
``UsageError``.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

ENTRY_HELP = "nested model name, ASCII case-insensitive, or #N for entry N (default: the archive's only model)"
JSON_HELP = "print JSON instead of text (default: text)"
FORCE_HELP = "replace a read-only output (default: refuse)"


def lazy(module: str, function: str) -> Callable[[argparse.Namespace], int]:
    """The command ``function`` of ``module`` (relative to this package), imported when it runs."""
    def run(args: argparse.Namespace) -> int:
        return getattr(importlib.import_module(module, __package__), function)(args)

    run.__qualname__ = f"{module.lstrip('.')}.{function}"
    return run


def _sample(args: argparse.Namespace) -> int:
    """``sample``: at given times (poses), or along a controller's clip (clips) with --clip."""
    return lazy(".clips", "cmd_sample_clip")(args) if args.clip is not None else lazy(".poses", "cmd_sample")(args)


def add_file_commands(sub: argparse._SubParsersAction) -> None:
    """info, validate, roundtrip, list, extract, texture."""
    p = sub.add_parser("info", help="entries of a file; nodes and counts of its models")
    p.add_argument("file", help="a model, an archive, a unit file, a controller, a map or mission file; a folder: "
                                "every file below it that the tool reads")
    p.add_argument("--entry", help=ENTRY_HELP)
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=lazy(".archive", "cmd_info"))

    p = sub.add_parser("validate", help="check files; exit 1 when any has an error")
    p.add_argument("files", nargs="+", help="models, archives, libraries, .ctl, .dat, .cpt, .ndp files, maps and "
                                          "missions (Land.msh, Land.map, Land1.wea, Land2.wea, data.tma); a "
                                          "folder: every such file below it, with a summary line")
    p.add_argument("--strict", action="store_true", help="warnings fail too: the strict profile (default: only "
                                                         "errors fail, the retail profile)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=lazy(".archive", "cmd_validate"))

    p = sub.add_parser("roundtrip", help="decode and rewrite in memory; exit 1 unless byte-identical")
    p.add_argument("files", nargs="+", help="files as validate takes them; a folder: every such file below it, "
                                          "with a summary line")
    p.set_defaults(func=lazy(".archive", "cmd_roundtrip"))

    p = sub.add_parser("list", help="entries of an archive")
    p.add_argument("archive", help="an NRes archive (.rlb, .lib) or a model")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=lazy(".archive", "cmd_list"))

    p = sub.add_parser("extract", help="write one entry's payload to a file")
    p.add_argument("archive", help="the archive to read")
    p.add_argument("name", help="the entry's name, or #N for entry N")
    p.add_argument("-o", "--output", required=True, help="the file to write (its folder must exist)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=lazy(".archive", "cmd_extract"))

    p = sub.add_parser("texture", help="one texture of a library as a picture (PNG, TGA, BMP, ...)")
    p.add_argument("library", help="a texture library (Textures.lib, LightMap.lib)")
    p.add_argument("name", help="the texture's entry name, or #N for entry N")
    p.add_argument("-o", "--output", required=True,
                   help="the picture to write; its extension names the format (.png, .tga, .bmp, .tif, ...)")
    p.add_argument("--mip", type=int, default=0, help="mip level, 0 for full size")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=lazy(".archive", "cmd_texture"))


def add_pose_commands(sub: argparse._SubParsersAction) -> None:
    """sample (and clips beside it), blend, rewrite."""
    p = sub.add_parser("sample", help="the runtime's pose of nodes at given times")
    p.add_argument("file", help="a model or an archive")
    p.add_argument("--entry", help=ENTRY_HELP)
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--times", help="comma-separated times (negative: --times=-1,0.5); one of --times, "
                                       "--frames or --clip is required (no default)")
    group.add_argument("--frames", help="A:B[:STEP], times A, A+STEP, ... below B (default STEP: 1)")
    p.add_argument("--nodes", help="comma-separated node indices (default: all)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=_sample)
    _add_clip_options(sub, p, group)

    p = sub.add_parser("blend", help="the runtime's blended matrix of one node")
    p.add_argument("file", help="a model or an archive")
    p.add_argument("--entry", help=ENTRY_HELP)
    p.add_argument("--node", type=int, required=True, help="the node's index")
    p.add_argument("--ta", type=float, required=True, help="time of the first pose")
    p.add_argument("--tb", type=float, required=True, help="time of the second pose")
    p.add_argument("--weight", type=float, required=True, help="weight of the second pose, 0 to 1")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=lazy(".poses", "cmd_blend"))

    p = sub.add_parser("rewrite", help="read and write a file (--canonical: rebuild every map)")
    p.add_argument("input", help="the model or archive to read")
    p.add_argument("output", help="the file to write (its folder must exist; an archive is written whole)")
    p.add_argument("--entry", help="the one nested model to rewrite, ASCII case-insensitive, or #N for entry N; "
                                   "the others are written as read (default: every model)")
    p.add_argument("--canonical", action="store_true",
                   help="rebuild every frame map by the canonical rules (default: keep them as read)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=lazy(".poses", "cmd_rewrite"))


def _add_clip_options(sub: argparse._SubParsersAction, sample: argparse.ArgumentParser, times) -> None:
    """``sample`` gains ``--clip N --step S`` (an alternative to --times/--frames) and ``--ctl``, ``--speed``;
    and the ``clips`` command is added."""
    times.add_argument("--clip", type=int, help="a clip of the controller, as the clips command lists them; "
                                                "with --step (no default)")
    sample.add_argument("--step", type=float, help="with --clip: the step (integer part) and its phase (fraction); "
                                                   "required with --clip (no default)")
    sample.add_argument("--ctl", help="the controller (default: STEM.ctl beside the model, or the archive's CTLD)")
    sample.add_argument("--speed", type=float, help="with --clip: speed in m/s (default: the anchor's box centre)")

    p = sub.add_parser("clips", help="a controller's states and clips: frames, duration in ms, stride")
    p.add_argument("file", help="a model (or archive) with its controller, or a .ctl")
    p.add_argument("--ctl", help="the controller (default: STEM.ctl beside the model, or the archive's CTLD)")
    p.add_argument("--entry", help="nested model name, ASCII case-insensitive, or #N for entry N (default: the "
                                   "archive's only model)")
    p.add_argument("--speed", type=float, help="speed in m/s for every clip (default: each anchor's box centre)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text (default: text)")
    p.set_defaults(func=lazy(".clips", "cmd_clips"))


def add_unit_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("unit", help="a unit (.dat): its tree, each part's files, and what is missing")
    p.add_argument("file", help="the unit file (.dat)")
    p.add_argument("--game", help="game folder holding objects.rlb (default: the nearest one above the unit)")
    p.add_argument("--strict", action="store_true", help="warnings fail too: the strict profile (default: only "
                                                         "errors fail, the retail profile)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text (default: text)")
    p.set_defaults(func=lazy(".unit", "cmd_unit"))


def add_map_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("map", help="a map (grid, faces, materials, water) or a mission (clans, objects, its map, "
                                   "what is missing)")
    p.add_argument("file", help="a mission's data.tma or its folder; a map's Land.msh (or another of its files) or "
                                "its folder")
    p.add_argument("--game", help="game folder the mission's paths start from (default: the nearest folder above "
                                  "the mission where its map is found)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text (default: text)")
    p.set_defaults(func=lazy(".map", "cmd_map"))


def add_effect_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("effect", help="edit an FXID effect's named fields in place, or copy its emitter blocks")
    p.add_argument("archive", help="the archive holding the effect (effects.rlb)")
    p.add_argument("member", help="the effect's name in the archive")
    p.add_argument("--copy", action="append", metavar="N[@AT]",
                   help="add a copy of emitter N at the end, or inserted at position AT (done before --set; "
                        "repeatable; the only way to add an emitter)")
    p.add_argument("--set", action="append", metavar="[N.]FIELD=VALUE",
                   help="a header field, or emitter N's named field (a vector as 1,2,3; repeatable)")
    p.add_argument("--reference", action="append", metavar="N=ARCHIVE/MEMBER",
                   help="the material (Material.lib/NAME) or sound (sounds.lib/x.wav) emitter N names (repeatable)")
    p.add_argument("--output", "-o", help="the archive to write (default: the archive read, in place)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=lazy(".effect_edit", "cmd_effect"))


def add_replace_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replace", help="give one member of an RsLi archive new bytes and repack it, every other "
                                       "member's packed bytes kept")
    p.add_argument("archive", help="the RsLi archive (gamefont.rlb, sprites.lib)")
    p.add_argument("member", help="the member's name (case-insensitive), or #N for member N")
    p.add_argument("file", help="the file holding the member's new, unpacked bytes")
    p.add_argument("--method", choices=("lzss", "deflate"),
                   help="pack it as LZSS (0x040) or Deflate (0x100), the two methods shipped archives use "
                        "(default: the member's own)")
    p.add_argument("--output", "-o", help="the archive to write (default: the archive read, in place)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=lazy(".rsli", "cmd_replace"))


COMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (
    add_file_commands, add_pose_commands, add_unit_command, add_map_command, add_effect_command,
    add_replace_command)
