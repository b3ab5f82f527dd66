"""``python -m core`` on files as they are: ``info``, ``list``, ``extract``, ``texture``, ``validate`` and
``roundtrip``. A unit, controller or map file is handed to its own module, imported only then."""

from __future__ import annotations

import argparse
import io
import os
import sys

from ..appearance.mat0 import MAT0_TYPE_ID, material_of
from ..appearance.texm import TEXM_TYPE_ID, parse_texm
from ..container.nres import Entry
from ..disk import read_input
from ..errors import ERROR, FormatError, SelectionError
from ..files import Container, open_container, validate_container
from ..msh import streams as S
from ..msh.model import Model
from .kinds import (
    OBJECTS,
    UNDERSTOOD,
    has_interiors,
    is_controller,
    is_explosion,
    is_font_file,
    is_ground_plan,
    is_mission_world_file,
    is_rsli_file,
    is_text_map_file,
    is_unit_file,
)
from .output import EXIT_BAD_DATA, EXIT_OK, EXIT_USAGE, UsageError, emit, emit_json, out


def _type_name(type_id: int) -> str:
    raw = type_id.to_bytes(4, "little")
    if type_id >= 0x100 and all(32 <= b < 127 for b in raw):
        return raw.decode("ascii")
    return f"Res{type_id}" if type_id < 0x100 else f"{type_id:#x}"


def _entries(container: Container) -> list[dict]:
    index = {id(e): i for i, e in enumerate(container.archive.entries)}
    return [{
        "index": i, "name": e.name_str, "type": e.type_id, "type_name": _type_name(e.type_id),
        "size": e.size, "attr1": e.attr1, "attr2": e.attr2, "attr3": e.attr3, "model": e.is_model,
        "alias_of": None if e.alias_of is None else index[id(e.alias_of)],
        "unreadable": None if e.unreadable is None else e.unreadable.message,
    } for i, e in enumerate(container.archive.entries)]


def _record_errors(container: Container, source: str) -> bool:
    """Print the directory records a tolerant read could not read (one line each); True when there are any."""
    errors = [f for f in container.archive.findings if f.is_error]
    for finding in errors:
        emit(finding.format(source), file=sys.stderr)
    return bool(errors)


def _node_summary(model: Model) -> list[dict]:
    nodes = []
    keys_before = -1
    for i, node in enumerate(model.nodes):
        fallback, map_start = int(node["fallback_key"]), int(node["map_start"])
        nodes.append({
            "index": i, "name": model.node_name(i),
            "parent": None if node["parent"] == S.NO_INDEX else int(node["parent"]),
            "map_start": None if map_start == S.NO_INDEX else map_start, "fallback_key": fallback,
            "key_count": max(0, fallback - keys_before), "flags": int(node["flags"]),
        })
        keys_before = max(keys_before, fallback)
    return nodes


def _model_summary(model: Model) -> dict:
    slots = model.slots
    return {
        "name": model.name, "node_count": model.node_count, "node_stride": model.node_stride,
        "frame_count": model.frame_count, "key_count": len(model.keys), "map_word_count": len(model.map_words),
        "slot_count": len(slots), "batch_count": len(model.batches), "vertex_count": model.vertex_count,
        "triangle_count": len(model.triangles), "index_count": len(model.indices),
        "streams": [e.type_id for e in model.archive.entries],
        "nodes": _node_summary(model),
    }


def _model_lines(summary: dict) -> list[str]:
    lines = [f"model {summary['name']}: {summary['node_count']} nodes (stride {summary['node_stride']}), "
             f"frame_count {summary['frame_count']}, {summary['key_count']} keys, "
             f"{summary['slot_count']} slots, {summary['batch_count']} batches, "
             f"{summary['vertex_count']} vertices, {summary['triangle_count']} triangles",
             f"  streams: {' '.join(_type_name(t) for t in summary['streams'])}",
             "  node  parent  map_start  fallback  keys  name"]
    for n in summary["nodes"]:
        parent = "-" if n["parent"] is None else n["parent"]
        map_start = "-" if n["map_start"] is None else n["map_start"]
        lines.append(f"  {n['index']:4}  {parent!s:>6}  {map_start!s:>9}  {n['fallback_key']:8}  "
                     f"{n['key_count']:4}  {n['name'] or ''}")
    return lines


def _library_summaries(container: Container) -> tuple[list[dict], list[dict]]:
    """Every Texm and MAT0 entry, decoded (or with the reason it does not decode)."""
    textures, materials = [], []
    for entry in container.archive.entries:
        kind = {TEXM_TYPE_ID: textures, MAT0_TYPE_ID: materials}.get(entry.type_id)
        if kind is None or entry.alias_of is not None or entry.unreadable is not None:
            continue
        try:
            decoded = parse_texm(entry.data) if entry.type_id == TEXM_TYPE_ID else material_of(entry)
            kind.append({"name": entry.name_str, **decoded.summary()})
        except FormatError as exc:
            kind.append({"name": entry.name_str, "error": exc.findings[0].message})
    return textures, materials


def _library_lines(textures: list[dict], materials: list[dict]) -> list[str]:
    lines = []
    for t in textures:
        lines.append(f"texture {t['name']}: " + (t["error"] if "error" in t else
                     f"{t['width']}x{t['height']} format {t['format']}, {t['mips']} mips"
                     + (f", {len(t['rects'])} Page rects" if t["rects"] is not None else "")))
    for m in materials:
        lines.append(f"material {m['name']}: " + (m["error"] if "error" in m else
                     f"{m['blend'].lower()}{', lit skin' if m['lit_skin'] else ''}, {len(m['phases'])} phases, "
                     f"textures {', '.join(sorted({p['texture'] for p in m['phases'] if p['texture']})) or '-'}"))
    return lines


def _pick_models(container: Container, entry: str | None) -> tuple[list[Model], list[tuple[Entry, FormatError]]]:
    """The models asked for, and an error for each model entry that does not read (the others still do)."""
    if container.is_model or entry is not None:
        return [container.open_model(entry)], []
    models, failures = container.open_models()
    return [m for _, m in models], failures


def _expanded(paths: list[str]) -> tuple[list[str], bool]:
    """The files named, a folder standing for the files below it that the commands understand (recursively, in
    name order); and whether any folder was given (then a summary line is printed)."""
    out, folders = [], False
    for path in paths:
        if not os.path.isdir(path):
            out.append(path)
            continue
        folders = True
        for root, dirs, files in os.walk(path):
            dirs.sort()
            out += [os.path.join(root, f) for f in sorted(files) if f.lower().endswith(UNDERSTOOD)]
    return out, folders


# --------------------------------------------------------------------- commands
def cmd_info(args: argparse.Namespace) -> int:
    """One file's entries and models; for a folder, every file below it that the tool reads, and a summary."""
    if not os.path.isdir(args.file):
        return _info_file(args)
    files, _ = _expanded([args.file])
    worst, failed = EXIT_OK, 0
    payloads: list[dict] | None = [] if args.json else None
    for path in files:
        try:
            code = _info_file(argparse.Namespace(**{**vars(args), "file": path, "json_sink": payloads}))
        except FormatError as exc:
            emit(exc.describe(path), file=sys.stderr)
            code = EXIT_USAGE if isinstance(exc, SelectionError) else EXIT_BAD_DATA
        except OSError as exc:
            emit(f"{path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            code = EXIT_USAGE
        failed += code != EXIT_OK
        worst = max(worst, code)
    if payloads is not None:
        emit_json({"path": args.file, "files": payloads})
    emit(f"{args.file}: {len(files)} files, {len(files) - failed} read, {failed} with problems",
          file=sys.stderr if args.json else sys.stdout)
    return worst


def _info_file(args: argparse.Namespace) -> int:
    if is_mission_world_file(args.file):
        from . import world

        return world.info_file(args)
    if is_text_map_file(args.file):  # a mission or a map's material list
        from . import map as map_cli

        return map_cli.info(args, None, out)
    if is_controller(args.file):  # its states, clips and channels, as ``clips`` prints them without a model
        from .clips import cmd_clips

        return cmd_clips(argparse.Namespace(**{**vars(args), "ctl": None, "speed": None}))
    if is_unit_file(args.file) and os.path.basename(args.file).lower() != OBJECTS:
        from . import unit

        return unit.info_file(args)
    if is_rsli_file(args.file) or is_font_file(args.file):  # told by its first bytes, or a bare font
        from . import rsli

        return rsli.info_file(args, out)
    if is_explosion(args.file):  # a bare .exp: its fields and slots
        from . import effects

        return effects.info_file(args, out)
    if is_ground_plan(args.file):  # a bare .bas: its form and rings
        from . import interior

        return interior.info_file(args, out)
    container = open_container(args.file, tolerant=True)
    if container.map_kind is not None:  # a Land.msh or a Land.map
        from . import map as map_cli

        return map_cli.info(args, container, out)
    models, failures = _pick_models(container, args.entry)
    textures, materials = _library_summaries(container)
    payload = {"path": args.file, "kind": "model" if container.is_model else "archive",
               "entries": _entries(container), "models": [_model_summary(m) for m in models],
               "unreadable_models": [{"name": entry.name_str, "findings": [f.as_dict() for f in exc.findings]}
                                     for entry, exc in failures],
               "textures": textures, "materials": materials}
    lines = [f"{args.file}: {payload['kind']}, {len(container.archive)} entries"]
    lines += [f"  {e['index']:3}  {e['type_name']:>6}  {e['size']:9}  {e['attr1']:6} {e['attr2']:6} {e['attr3']:4}  "
              f"{e['name']}" for e in payload["entries"]]
    for summary in payload["models"]:
        lines += _model_lines(summary)
    lines += _library_lines(textures, materials)
    if any(e["type_name"] in ("FXID", "EXPL") for e in payload["entries"]):  # effects and explosions
        from . import effects

        payload["effects"], effect_lines = effects.archive_effects(container.archive)
        lines += effect_lines
    if has_interiors(container.archive, models):  # hall ways and ground plans
        from . import interior

        payload["interiors"], interior_lines = interior.interiors(container.archive, models)
        lines += interior_lines
    out(args, payload, lines)
    bad_records = _record_errors(container, args.file)
    for entry, exc in failures:
        if entry.unreadable is None:  # an unreadable record is named once, above
            emit(exc.describe(args.file), file=sys.stderr)
    return EXIT_BAD_DATA if failures or bad_records else EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    if is_rsli_file(args.archive):
        from . import rsli

        return rsli.list_file(args, out)
    container = open_container(args.archive, tolerant=True)
    entries = _entries(container)
    lines = [f"{e['index']:3}  {e['type_name']:>6}  {e['size']:9}  {'model' if e['model'] else '':5}  {e['name']}"
             + ("  (unreadable)" if e["unreadable"] else "") for e in entries]
    out(args, {"path": args.archive, "entries": entries}, lines)
    return EXIT_BAD_DATA if _record_errors(container, args.archive) else EXIT_OK


def _not_the_input(output: str, source: str) -> None:
    """-o must not name the file being read: it would be replaced by one of its entries."""
    try:
        same = os.path.samefile(output, source)
    except OSError:  # no such output yet (or not comparable): the writer says what is wrong with it
        return
    if same:
        raise UsageError(f"-o {output} is the file being read ({source}); name another file")


def cmd_extract(args: argparse.Namespace) -> int:
    _not_the_input(args.output, args.archive)
    if is_rsli_file(args.archive):  # the member unpacked
        from . import rsli

        emit(rsli.extract(args))
        return EXIT_OK
    container = open_container(args.archive, tolerant=True)
    entry = container.find_entry(args.name)
    if entry is None:
        raise SelectionError.single("entry", None, f"no entry named {args.name!r} (#N picks entry N)", args.archive)
    from ..write_path import Target, write  # only the commands that write load the write path

    write([Target(args.output, bytes(container.payload(entry)), owned=True)], force=args.force)
    emit(f"{args.archive}: wrote {entry.name_str} ({entry.size} bytes) to {args.output}")
    return EXIT_OK


def cmd_texture(args: argparse.Namespace) -> int:
    """One texture of a library as a picture in the format the output's extension names (Pillow; the only
    command that needs it)."""
    try:
        from PIL import Image
    except ImportError:
        raise UsageError("writing pictures needs Pillow (pip install pillow)") from None
    _not_the_input(args.output, args.library)
    # An -o that is a folder is refused by the writer, naming it; any other -o names its format.
    picture_format = "PNG" if os.path.isdir(args.output) else _picture_format(Image, args.output)
    from . import rsli

    shown = rsli.picture(args.library, args.name, args.mip)  # an RsLi member, a font's atlas; None: a Texm entry
    if shown is not None:
        from ..write_path import Target, write

        write([Target(args.output, _encoded(Image.fromarray(shown[1], "RGBA"), picture_format, args.output),
                      owned=True)], force=args.force)
        emit(f"{args.library}: wrote {shown[0]} ({shown[1].shape[1]}x{shown[1].shape[0]}) to {args.output}")
        return EXIT_OK
    container = open_container(args.library, tolerant=True)
    entry = container.find_entry(args.name)
    if entry is None:
        raise SelectionError.single("entry", None, f"no texture named {args.name!r} (#N picks entry N)", args.library)
    if entry.type_id != TEXM_TYPE_ID:
        raise SelectionError.single("entry", container.archive.entries.index(entry),
                                    f"{entry.name_str} is a {_type_name(entry.type_id)} entry, not a texture (Texm)",
                                    args.library)
    data = container.payload(entry)
    try:
        texture = parse_texm(data)
        if not 0 <= args.mip < texture.mip_count:
            raise UsageError(f"--mip {args.mip}: {entry.name_str} has mip levels 0..{texture.mip_count - 1}")
        rgba = texture.decode(args.mip)
    except FormatError as exc:  # the entry named in every finding (a format the game does not read, ...)
        raise FormatError([f.located(entry.name_str) for f in exc.findings], args.library) from None
    picture = _encoded(Image.fromarray(rgba, "RGBA"), picture_format, args.output)
    from ..write_path import Target, write

    write([Target(args.output, picture, owned=True)], force=args.force)  # same rules as every other output
    emit(f"{args.library}: wrote {entry.name_str} mip {args.mip} ({rgba.shape[1]}x{rgba.shape[0]}) "
          f"to {args.output}")
    return EXIT_OK


def _picture_format(image_module, output: str) -> str:
    """The Pillow format the output's extension names; a usage error for one Pillow cannot write."""
    suffix = os.path.splitext(output)[1].lower()
    image_module.init()
    name = image_module.registered_extensions().get(suffix)
    if not suffix or name not in image_module.SAVE:
        known = sorted(e for e, f in image_module.registered_extensions().items() if f in image_module.SAVE)
        raise UsageError(f"-o {output}: cannot write {suffix or 'a file without an extension'}; name a picture "
                         f"file Pillow writes ({', '.join(known)})")
    return name


def _encoded(image, picture_format: str, output: str) -> bytes:
    """The picture's bytes; without its alpha channel for a format that has none (JPEG)."""
    for picture in (image, image.convert("RGB")):
        out = io.BytesIO()
        try:
            picture.save(out, format=picture_format)
            return out.getvalue()
        except (OSError, ValueError, KeyError):
            continue
    raise UsageError(f"-o {output}: Pillow cannot write this texture as {picture_format}")


def _file_findings(path: str) -> list:
    """Every finding of one file: a unit file, a controller, or a container (an archive or a bare model)."""
    if is_unit_file(path):
        from .unit import validate_file

        return validate_file(path)
    if is_controller(path):
        from .clips import validate_ctl

        return validate_ctl(path)
    if is_explosion(path):
        from .effects import validate_file

        return validate_file(path)
    if is_ground_plan(path):
        from .interior import validate_file

        return validate_file(path)
    if is_mission_world_file(path):
        from .world import validate_file

        return validate_file(path)
    if is_text_map_file(path):
        from ..map.folder import validate_text_file

        return validate_text_file(path)
    from . import rsli

    if is_rsli_file(path) or is_font_file(path):
        return rsli.validate_file(path)
    container = open_container(path, tolerant=True)
    return validate_container(container) + rsli.archive_font_findings(container.archive)


def _rewritten_file(path: str, data: bytes) -> bytes:
    """The file's bytes decoded and written again, by the codec its kind takes."""
    if is_unit_file(path):
        from .unit import rewritten_file

        return rewritten_file(path, data)
    if is_controller(path):
        from .clips import rewritten_ctl

        return rewritten_ctl(data, path)
    if is_explosion(path):
        from .effects import rewritten_file

        return rewritten_file(path, data)
    if is_ground_plan(path):
        from .interior import rewritten_file

        return rewritten_file(path, data)
    if is_mission_world_file(path):
        from .world import rewritten_file

        return rewritten_file(path, data)
    if is_text_map_file(path):
        from ..map.folder import rewritten_text_file

        return rewritten_text_file(path, data)
    if is_rsli_file(path) or is_font_file(path):
        from . import rsli

        return rsli.rewritten_file(path, data)
    from .roundtrip import rewritten  # the codecs of every entry: only roundtrip needs them

    return rewritten(open_container(path))


def cmd_validate(args: argparse.Namespace) -> int:
    results, worst = [], EXIT_OK
    files, folders = _expanded(args.files)
    for path in files:
        try:
            findings = _file_findings(path)
        except FormatError as exc:
            findings = exc.findings
        except OSError as exc:
            emit(f"{path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            worst = EXIT_USAGE
            continue
        errors = sum(f.is_error for f in findings)
        warnings = len(findings) - errors
        valid = errors == 0 and not (args.strict and warnings)
        if not valid and worst == EXIT_OK:
            worst = EXIT_BAD_DATA
        refused_by = None if valid else "retail" if errors else "strict"  # docs/refusing-checks.md
        results.append({"path": path, "valid": valid, "errors": errors, "warnings": warnings,
                        "refused_by": refused_by, "findings": [f.as_dict() for f in findings]})
        if not args.json:
            for f in findings:
                emit(f.format(path), file=sys.stderr if f.severity == ERROR else sys.stdout)
            state = "valid" if valid else "INVALID"
            refused = "" if valid else f" (refused by the {refused_by} profile)"
            emit(f"{path}: {state}: {errors} errors, {warnings} warnings{refused}")
    if args.json:
        emit_json({"files": results})
    if folders:
        valid = sum(r["valid"] for r in results)
        emit(f"{len(files)} files: {valid} valid, {len(results) - valid} invalid, "
              f"{len(files) - len(results)} unreadable", file=sys.stderr if args.json else sys.stdout)
    return worst


def cmd_roundtrip(args: argparse.Namespace) -> int:
    from .roundtrip import describe_offset, first_difference

    worst, identical = EXIT_OK, 0
    files, folders = _expanded(args.files)
    for path in files:
        try:
            data = read_input(path)
            written = _rewritten_file(path, data)
        except OSError as exc:
            emit(f"{path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            worst = EXIT_USAGE
            continue
        except FormatError as exc:
            emit(exc.describe(path), file=sys.stderr)
            worst = max(worst, EXIT_BAD_DATA)
            continue
        offset = first_difference(data, written)
        if offset is None:
            emit(f"{path}: identical ({len(data)} bytes)")
            identical += 1
            continue
        worst = max(worst, EXIT_BAD_DATA)
        emit(f"{path}: DIFFERS at byte {offset} ({describe_offset(data, offset)}); "
              f"{len(data)} bytes read, {len(written)} written", file=sys.stderr)
    if folders:
        emit(f"{len(files)} files: {identical} identical, {len(files) - identical} not")
    return worst
