"""``python -m core``: inspect, validate, round-trip, sample and rewrite MSH models and archives.

Exit codes: 0 success, 1 bad data (or a failed check), 2 usage or I/O.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys

import numpy as np

from ..animation.sampler import BRANCHES, AnimationData, blend, sample
from ..animation.tracks import read_animation, write_animation
from ..appearance.mat0 import MAT0_TYPE_ID, material_of
from ..appearance.texm import TEXM_TYPE_ID, parse_texm
from ..container.nres import Entry
from ..disk import read_input, read_with_state
from ..errors import ERROR, FormatError, SelectionError, printable
from ..files import Container, open_container, read_container, validate_container
from ..msh import streams as S
from ..msh.model import Model
from ..write_path import UNREAD, Target, write
from . import clips as clips_cli
from . import map as map_cli
from . import unit
from .clips import CONTROLLER_SUFFIX, add_clip_commands, is_controller, rewritten_ctl, validate_ctl
from .roundtrip import describe_offset, first_difference, rewritten

EXIT_OK, EXIT_BAD_DATA, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141  # as shells report SIGINT and SIGPIPE (128 + signal)
FLOAT32_MAX = float(np.finfo(np.float32).max)  # times are float32 in the runtime: larger ones become infinity
VERSION = "0.1.0"  # the extension's version (blender_manifest.toml; a test keeps them equal)
# What validate, roundtrip and info read in a folder (recursively): models, archives and libraries, controllers,
# unit files.
UNDERSTOOD = (".msh", ".rlb", ".lib", *unit.UNIT_SUFFIXES, CONTROLLER_SUFFIX, *map_cli.SUFFIXES)
MAX_TIMES = 1_000_000  # sample: the most times one call takes
SAMPLE_CHUNK = 4096    # sample: times sampled and printed at once


class UsageError(Exception):
    pass


# --------------------------------------------------------------------- helpers
def _emit(text: str = "", file=None) -> None:
    """Print text with control characters and undecodable file-name bytes escaped, line by line."""
    print("\n".join(printable(line) for line in str(text).split("\n")), file=file or sys.stdout)


def _json_safe(value):
    """JSON has no NaN or Infinity: such floats are written as the strings "NaN", "Infinity", "-Infinity"."""
    if isinstance(value, float) and not np.isfinite(value):
        return "NaN" if np.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def _emit_json(payload) -> None:
    text = json.dumps(_json_safe(payload), indent=1, ensure_ascii=False, allow_nan=False)
    print(text.encode("utf-8", "backslashreplace").decode("utf-8"))  # a file name's undecodable bytes as \udcNN


def _out(args: argparse.Namespace, payload: dict, lines: list[str]) -> None:
    sink = getattr(args, "json_sink", None)
    if sink is not None:  # info on a folder: one JSON document for all its files, printed at the end
        sink.append(payload)
    elif getattr(args, "json", False):
        _emit_json(payload)
    else:
        _emit("\n".join(lines))


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
        _emit(finding.format(source), file=sys.stderr)
    return bool(errors)


def _f32(value) -> float:
    return float(np.float32(value))


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
            _emit(exc.describe(path), file=sys.stderr)
            code = EXIT_USAGE if isinstance(exc, SelectionError) else EXIT_BAD_DATA
        except OSError as exc:
            _emit(f"{path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            code = EXIT_USAGE
        failed += code != EXIT_OK
        worst = max(worst, code)
    if payloads is not None:
        _emit_json({"path": args.file, "files": payloads})
    _emit(f"{args.file}: {len(files)} files, {len(files) - failed} read, {failed} with problems",
          file=sys.stderr if args.json else sys.stdout)
    return worst


def _info_file(args: argparse.Namespace) -> int:
    if map_cli.is_text_map_file(args.file):  # a mission or a map's material list
        return map_cli.info(args, None, _out)
    if is_controller(args.file):  # its states, clips and channels, as ``clips`` prints them without a model
        return clips_cli.cmd_clips(argparse.Namespace(**{**vars(args), "ctl": None, "speed": None}))
    if unit.is_unit_file(args.file) and os.path.basename(args.file).lower() != unit.OBJECTS:
        return unit.info_file(args)
    container = open_container(args.file, tolerant=True)
    if container.map_kind is not None:  # a Land.msh or a Land.map
        return map_cli.info(args, container, _out)
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
    _out(args, payload, lines)
    bad_records = _record_errors(container, args.file)
    for entry, exc in failures:
        if entry.unreadable is None:  # an unreadable record is named once, above
            _emit(exc.describe(args.file), file=sys.stderr)
    return EXIT_BAD_DATA if failures or bad_records else EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    container = open_container(args.archive, tolerant=True)
    entries = _entries(container)
    lines = [f"{e['index']:3}  {e['type_name']:>6}  {e['size']:9}  {'model' if e['model'] else '':5}  {e['name']}"
             + ("  (unreadable)" if e["unreadable"] else "") for e in entries]
    _out(args, {"path": args.archive, "entries": entries}, lines)
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
    container = open_container(args.archive, tolerant=True)
    entry = container.find_entry(args.name)
    if entry is None:
        raise SelectionError.single("entry", None, f"no entry named {args.name!r} (#N picks entry N)", args.archive)
    write([Target(args.output, bytes(container.payload(entry)), owned=True)], force=args.force)
    _emit(f"{args.archive}: wrote {entry.name_str} ({entry.size} bytes) to {args.output}")
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
    write([Target(args.output, picture, owned=True)], force=args.force)  # same rules as every other output
    _emit(f"{args.library}: wrote {entry.name_str} mip {args.mip} ({rgba.shape[1]}x{rgba.shape[0]}) "
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
    if unit.is_unit_file(path):
        return unit.validate_file(path)
    if is_controller(path):
        return validate_ctl(path)
    if map_cli.is_text_map_file(path):
        return map_cli.validate_file(path)
    return validate_container(open_container(path, tolerant=True))


def _rewritten_file(path: str, data: bytes) -> bytes:
    """The file's bytes decoded and written again, by the codec its kind takes."""
    if unit.is_unit_file(path):
        return unit.rewritten_file(path, data)
    if is_controller(path):
        return rewritten_ctl(data, path)
    if map_cli.is_text_map_file(path):
        return map_cli.rewritten_file(path, data)
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
            _emit(f"{path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
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
                _emit(f.format(path), file=sys.stderr if f.severity == ERROR else sys.stdout)
            state = "valid" if valid else "INVALID"
            refused = "" if valid else f" (refused by the {refused_by} profile)"
            _emit(f"{path}: {state}: {errors} errors, {warnings} warnings{refused}")
    if args.json:
        _emit_json({"files": results})
    if folders:
        valid = sum(r["valid"] for r in results)
        _emit(f"{len(files)} files: {valid} valid, {len(results) - valid} invalid, "
              f"{len(files) - len(results)} unreadable", file=sys.stderr if args.json else sys.stdout)
    return worst


def cmd_roundtrip(args: argparse.Namespace) -> int:
    worst, identical = EXIT_OK, 0
    files, folders = _expanded(args.files)
    for path in files:
        try:
            data = read_input(path)
            out = _rewritten_file(path, data)
        except OSError as exc:
            _emit(f"{path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            worst = EXIT_USAGE
            continue
        except FormatError as exc:
            _emit(exc.describe(path), file=sys.stderr)
            worst = max(worst, EXIT_BAD_DATA)
            continue
        offset = first_difference(data, out)
        if offset is None:
            _emit(f"{path}: identical ({len(data)} bytes)")
            identical += 1
            continue
        worst = max(worst, EXIT_BAD_DATA)
        _emit(f"{path}: DIFFERS at byte {offset} ({describe_offset(data, offset)}); "
              f"{len(data)} bytes read, {len(out)} written", file=sys.stderr)
    if folders:
        _emit(f"{len(files)} files: {identical} identical, {len(files) - identical} not")
    return worst


def _parse_list(value: str | None, kind, what: str) -> list:
    if value is None:
        return []
    try:
        return [kind(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"bad {what} list: {value!r}") from None


def _times(args: argparse.Namespace) -> np.ndarray:
    if args.times is not None:
        times = _parse_list(args.times, float, "--times")
        if not np.all(np.isfinite(np.asarray(times, np.float32))):
            raise UsageError(f"--times {args.times!r}: every time must be a finite number (float32: "
                             f"magnitude below {FLOAT32_MAX:.6g})")
        return np.asarray(times, np.float32)
    parts = args.frames.split(":")
    try:
        start, stop = float(parts[0]), float(parts[1])
        step = float(parts[2]) if len(parts) > 2 else 1.0
    except (ValueError, IndexError):
        raise UsageError(f"--frames takes A:B[:STEP], got {args.frames!r}") from None
    if len(parts) > 3 or not np.all(np.isfinite([start, stop, step])):
        raise UsageError(f"--frames {args.frames!r}: A, B and STEP must be finite numbers")
    if step <= 0 or (stop - start) / step > MAX_TIMES:
        raise UsageError(f"--frames {args.frames!r}: step must be positive and give at most {MAX_TIMES} times")
    count = max(0, int(np.ceil((stop - start) / step - 1e-9)))
    times = (start + step * np.arange(count)).astype(np.float32)
    if not np.all(np.isfinite(times)):
        raise UsageError(f"--frames {args.frames!r}: every time must be finite in float32 "
                         f"(magnitude below {FLOAT32_MAX:.6g})")
    return times


def _nodes(args: argparse.Namespace, model: Model) -> list[int]:
    nodes = _parse_list(args.nodes, int, "--nodes") if args.nodes else list(range(model.node_count))
    bad = [n for n in nodes if not 0 <= n < model.node_count]
    if bad:
        raise UsageError(f"node {bad[0]} does not exist ({model.node_count} nodes)")
    return nodes


def cmd_sample(args: argparse.Namespace) -> int:
    """Streams: one node at a time, SAMPLE_CHUNK times at a time, so memory does not grow with the output."""
    model = open_container(args.file, tolerant=True).open_model(args.entry)
    data = AnimationData.from_model(model)
    times = _times(args)
    nodes = _nodes(args, model)
    if args.json:
        sys.stdout.write(f'{{"frame_count": {model.frame_count}, "nodes": [')
    else:
        _emit(f"frame_count {model.frame_count}")
    for position, n in enumerate(nodes):
        parent = int(data.parents[n])
        if args.json:
            head = json.dumps({"index": n, "name": model.node_name(n), "parent": None if parent == S.NO_INDEX
                               else parent}, ensure_ascii=False)[:-1]
            sys.stdout.write(("," if position else "") + f'\n{head}, "samples": [')
        else:
            _emit(f"node {n} {model.node_name(n) or ''}")
        for start in range(0, len(times), SAMPLE_CHUNK):
            chunk = times[start:start + SAMPLE_CHUNK]
            result = sample(data, chunk, [n])
            separator = ("," if start else "") + "\n" if args.json else ""
            sys.stdout.write(separator + _sample_lines(chunk, result, args.json))
        if args.json:
            sys.stdout.write("]}")
    if args.json:
        sys.stdout.write("]}\n")
    return EXIT_OK


def _sample_lines(times: np.ndarray, result, as_json: bool) -> str:
    """One chunk of ``sample`` output, formatted from whole arrays (floats shown as their float32 values)."""
    columns = (times.astype(np.float32).astype(np.float64).tolist(), result.key[0].tolist(),
               [BRANCHES[b] for b in result.branch[0].tolist()], result.rot[0].astype(np.float64).tolist(),
               result.pos[0].astype(np.float64).tolist())
    if not as_json:
        return "".join(f"  t={t:<10g} key={k:<5} {b:8} rot={r} pos={p}\n" for t, k, b, r, p in zip(*columns))
    rows = zip(*columns)
    finite = all(np.isfinite(a).all() for a in (times, result.rot, result.pos))
    if not finite:  # JSON has no NaN or Infinity (see _json_safe)
        return ",\n".join(json.dumps(_json_safe({"t": t, "key": k, "branch": b, "rot": r, "pos": p}),
                                      allow_nan=False) for t, k, b, r, p in rows)
    return ",\n".join(f'{{"t": {t!r}, "key": {k}, "branch": "{b}", "rot": {r}, "pos": {p}}}'
                       for t, k, b, r, p in rows)


def cmd_blend(args: argparse.Namespace) -> int:
    for option in ("ta", "tb", "weight"):
        if not np.isfinite(np.float32(getattr(args, option))):
            raise UsageError(f"--{option} {getattr(args, option)!r} is not a finite float32 number")
    if not 0.0 <= args.weight <= 1.0:
        raise UsageError(f"--weight {args.weight!r} is outside 0 to 1 (the second pose's share)")
    model = open_container(args.file, tolerant=True).open_model(args.entry)
    if not 0 <= args.node < model.node_count:
        raise UsageError(f"node {args.node} does not exist ({model.node_count} nodes)")
    matrix = blend(AnimationData.from_model(model), args.node, args.ta, args.tb, args.weight)
    values = None if matrix is None else [_f32(v) for v in matrix.reshape(-1)]
    lines = ["no pose (neither sample is taken)"] if values is None else [
        " ".join(f"{v:12.6g}" for v in values[r * 4:r * 4 + 4]) for r in range(4)]
    _out(args, {"matrix": values}, lines)
    return EXIT_OK


def cmd_rewrite(args: argparse.Namespace) -> int:
    data, state = read_with_state(args.input)
    container = read_container(data, args.input)
    if container.is_model:
        models = [(None, container.open_model())]
    elif args.entry:
        models = [(container._model_entry(args.entry), None)]
    else:
        models = [(e, None) for e in container.distinct_model_entries()]
    for entry, model in models:
        model = model or container.open_entry(entry)
        anim = read_animation(model)
        if args.canonical:
            anim.canonicalize()
        write_animation(model, anim)
        if entry is not None:
            entry.data = model.to_bytes()
    # Rewritten in place: refused when another program replaced the file since it was read (core.write_path)
    same = os.path.realpath(args.output) == os.path.realpath(args.input)
    done = write([Target(args.output, container.to_bytes(), read=state if same else UNREAD, owned=True,
                         spliced=True)], force=args.force)
    if not done.written:  # it already held these bytes (or, in place, the rewrite changes nothing)
        _emit(f"{args.input}: {args.output} unchanged: it already holds the rewritten file")
        return EXIT_OK
    _emit(f"{args.input}: wrote {args.output}{' (canonical maps)' if args.canonical else ''}")
    return EXIT_OK


# --------------------------------------------------------------------- parser
class _HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default, unless the help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if ("default" in text or action.default is None or action.default is False
                or action.default == argparse.SUPPRESS or not action.option_strings):
            return text
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


ENTRY_HELP = "nested model name, ASCII case-insensitive, or #N for entry N (default: the archive's only model)"
JSON_HELP = "print JSON instead of text (default: text)"
FORCE_HELP = "replace a read-only output (default: refuse)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m core", description="Inspect, validate, round-trip, sample and rewrite the "
                                                        "MSH models and NRes archives of Parkan: Iron Strategy.")
    parser.add_argument("--version", action="version", version=f"%(prog)s (io_msh) {VERSION}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="COMMAND", help="one of the commands below; COMMAND --help for its options")

    p = sub.add_parser("info", help="entries of a file; nodes and counts of its models")
    p.add_argument("file", help="a model, an archive, a unit file, a controller, a map or mission file; a folder: "
                                "every file below it that the tool reads")
    p.add_argument("--entry", help=ENTRY_HELP)
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("validate", help="check files; exit 1 when any has an error")
    p.add_argument("files", nargs="+", help="models, archives, libraries, .ctl, .dat, .cpt, .ndp files, maps and "
                                          "missions (Land.msh, Land.map, Land1.wea, Land2.wea, data.tma); a "
                                          "folder: every such file below it, with a summary line")
    p.add_argument("--strict", action="store_true", help="warnings fail too: the strict profile (default: only "
                                                         "errors fail, the retail profile)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("roundtrip", help="decode and rewrite in memory; exit 1 unless byte-identical")
    p.add_argument("files", nargs="+", help="files as validate takes them; a folder: every such file below it, "
                                          "with a summary line")
    p.set_defaults(func=cmd_roundtrip)

    p = sub.add_parser("list", help="entries of an archive")
    p.add_argument("archive", help="an NRes archive (.rlb, .lib) or a model")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("extract", help="write one entry's payload to a file")
    p.add_argument("archive", help="the archive to read")
    p.add_argument("name", help="the entry's name, or #N for entry N")
    p.add_argument("-o", "--output", required=True, help="the file to write (its folder must exist)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=cmd_extract)

    p = sub.add_parser("texture", help="one texture of a library as a picture (PNG, TGA, BMP, ...)")
    p.add_argument("library", help="a texture library (Textures.lib, LightMap.lib)")
    p.add_argument("name", help="the texture's entry name, or #N for entry N")
    p.add_argument("-o", "--output", required=True,
                   help="the picture to write; its extension names the format (.png, .tga, .bmp, .tif, ...)")
    p.add_argument("--mip", type=int, default=0, help="mip level, 0 for full size")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=cmd_texture)

    p = sub.add_parser("sample", help="the runtime's pose of nodes at given times")
    p.add_argument("file", help="a model or an archive")
    p.add_argument("--entry", help=ENTRY_HELP)
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--times", help="comma-separated times (negative: --times=-1,0.5); one of --times, "
                                       "--frames or --clip is required (no default)")
    group.add_argument("--frames", help="A:B[:STEP], times A, A+STEP, ... below B (default STEP: 1)")
    p.add_argument("--nodes", help="comma-separated node indices (default: all)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_sample)
    add_clip_commands(sub, p, group)

    p = sub.add_parser("blend", help="the runtime's blended matrix of one node")
    p.add_argument("file", help="a model or an archive")
    p.add_argument("--entry", help=ENTRY_HELP)
    p.add_argument("--node", type=int, required=True, help="the node's index")
    p.add_argument("--ta", type=float, required=True, help="time of the first pose")
    p.add_argument("--tb", type=float, required=True, help="time of the second pose")
    p.add_argument("--weight", type=float, required=True, help="weight of the second pose, 0 to 1")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_blend)

    p = sub.add_parser("rewrite", help="read and write a file (--canonical: rebuild every map)")
    p.add_argument("input", help="the model or archive to read")
    p.add_argument("output", help="the file to write (its folder must exist; an archive is written whole)")
    p.add_argument("--entry", help="the one nested model to rewrite, ASCII case-insensitive, or #N for entry N; "
                                   "the others are written as read (default: every model)")
    p.add_argument("--canonical", action="store_true",
                   help="rebuild every frame map by the canonical rules (default: keep them as read)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=cmd_rewrite)
    unit.add_parser(sub)
    map_cli.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        with np.errstate(all="ignore"):  # NaN or huge values in a file are data, not warnings on stderr
            return args.func(args)
    except KeyboardInterrupt:  # Ctrl-C: no traceback; core.disk has removed its temporaries
        _emit("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader left (``| head``): stop quietly, as other Unix tools do
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except UsageError as exc:
        _emit(f"usage error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SelectionError as exc:
        _emit(exc.describe(), file=sys.stderr)
        return EXIT_USAGE
    except FormatError as exc:
        source = (getattr(args, "file", None) or getattr(args, "input", None) or getattr(args, "archive", None)
                  or getattr(args, "library", ""))
        _emit(exc.describe(source), file=sys.stderr)
        return EXIT_BAD_DATA
    except OSError as exc:
        where = f"{printable(os.fsdecode(exc.filename))}: " if exc.filename else ""
        _emit(f"{where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        _emit(f"internal error ({type(exc).__name__}): {exc}; please report it with the file", file=sys.stderr)
        return EXIT_BAD_DATA


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush does not fail on the closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):  # stdout is not a file (captured in tests)
        pass
