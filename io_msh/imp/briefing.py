"""The briefing flythrough in Blender (the sources' suggested mapping): each waypoint is two Empties,
where the camera stands and where it looks, the camera one carrying the waypoint's other keys as custom
properties (EdgeType, WaitType, the times, the flags, TextResID, ...), which is what Export Parkan Map writes
back. Beside them a camera, aimed at a look-at Empty, plays the flythrough as the game does (core.briefing.play):
linear edges as linear keys, splines as Bezier, jumps as a cut at half time, a flyaround's orbit baked; the
fade as the camera's ``fade`` property; each subtitle as a timeline marker. The path the camera's eye takes is
drawn as a curve (``briefing path``, a spline between cuts): the camera plays along it by its keys, as a Follow
Path constraint would move it by distance and not by the game's times."""

from __future__ import annotations

import bpy
import numpy as np

from ...core.briefing.cfg import FLAG_KEYS, INTEGER_KEYS, KEYS, TEXT_KEYS, Waypoint
from ...core.briefing.play import orbit
from ..com import compat
from .briefing_plan import BriefingPlan

BRIEFING = "msh_briefing"                # on the map's collection: briefing.cfg's bytes as read
BRIEFING_NAME = "msh_briefing_name"      # its name as found in the mission's folder
BRIEFING_POINTS = "msh_briefing_points"  # "N camera", "N target" -> the Empties of waypoint N
BRIEFING_AS_SHOWN = "msh_briefing_as_shown"  # "N" -> the waypoint's values as Blender held them after the import
WAYPOINT = "msh_briefing_waypoint"       # on a waypoint's Empties: its index
POSITIONS = ("CameraX", "CameraY", "CameraZ", "TargetX", "TargetY", "TargetZ")
ORBIT_STEPS = 24  # keys per revolution of a flyaround
FADE = "fade"     # on the briefing camera: the black overlay's percent (FadePercent), animated
INTERPOLATION = {name: bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items[name].value
                 for name in ("CONSTANT", "LINEAR", "BEZIER")}


def property_keys() -> tuple[str, ...]:
    """The keys a waypoint's camera Empty carries as custom properties (all but the positions)."""
    return tuple(key for key in KEYS if key not in POSITIONS)


def property_value(point: Waypoint, key: str):
    if key in TEXT_KEYS:
        return point.text(key)
    if key in FLAG_KEYS:
        return point.flag(key)
    if key in INTEGER_KEYS:
        number = point.number(key)
        return int(number) if number == int(number) else number
    return point.number(key)


def build_briefing(context, top, collection, plan: BriefingPlan) -> None:
    points = {}
    for index, point in enumerate(plan.briefing.waypoints):
        camera = _empty(collection, f"{point.name} camera", point.camera, "CONE", index)
        camera.rotation_euler = (3.14159265 / 2, 0.0, 0.0)
        for key in property_keys():
            if key in point.values:
                camera[key] = property_value(point, key)
        target = _empty(collection, f"{point.name} target", point.target, "SPHERE", index)
        points[f"{index} camera"], points[f"{index} target"] = camera, target
    _flythrough(context, collection, plan)
    top[BRIEFING] = plan.data
    top[BRIEFING_NAME] = plan.name
    top[BRIEFING_POINTS] = points
    top[BRIEFING_AS_SHOWN] = {str(i): shown_values(points[f"{i} camera"], points[f"{i} target"])
                              for i in range(len(plan.briefing.waypoints))}


def shown_values(camera, target) -> dict:
    """A waypoint as its Empties hold it: the positions (world), and the camera Empty's properties."""
    values = {key: float(v) for key, v in zip(POSITIONS, (*world_matrix(camera).translation,
                                                          *world_matrix(target).translation), strict=True)}
    for key in property_keys():
        if key in camera:
            value = camera[key]
            values[key] = value if isinstance(value, (str, bool, int, float)) else _plain(value)
    return values


def world_matrix(obj):
    """Where ``obj`` stands: its world matrix, or, for an object the view layer does not evaluate (in no
    collection of the scene, or in an excluded one, whose ``matrix_world`` a move does not update), its
    parents' chain of local matrices."""
    if obj.name in bpy.context.view_layer.objects:
        return obj.matrix_world
    if obj.parent is None:
        return obj.matrix_basis
    return world_matrix(obj.parent) @ obj.matrix_parent_inverse @ obj.matrix_basis


def _plain(value):
    """A property Blender holds as an array, a group or a datablock, as a value none of the keys' kinds is (a
    list or a dict, or its description)."""
    for convert in ("to_list", "to_dict"):
        if hasattr(value, convert):
            return getattr(value, convert)()
    return [repr(value)]


def _empty(collection, name: str, location, shape: str, index: int):
    empty = bpy.data.objects.new(name, None)
    empty.empty_display_type = shape
    empty.empty_display_size = 2.0
    empty.location = location
    empty[WAYPOINT] = index
    collection.objects.link(empty)
    empty.matrix_world = empty.matrix_basis  # placed now: the export reads world positions
    return empty


def _flythrough(context, collection, plan: BriefingPlan) -> None:
    scene = context.scene
    fps = scene.render.fps / scene.render.fps_base
    camera = bpy.data.objects.new("briefing camera", bpy.data.cameras.new("briefing camera"))
    look = bpy.data.objects.new("briefing look-at", None)
    for made in (camera, look):
        collection.objects.link(made)
    aim = camera.constraints.new("TRACK_TO")
    aim.target, aim.track_axis, aim.up_axis = look, "TRACK_NEGATIVE_Z", "UP_Y"
    path, fade = _path(plan), _fade(plan)
    camera[FADE] = float(fade.values()[0])
    eye = compat.ChannelTarget(bpy.data.actions.new("briefing camera"), camera, "briefing camera")
    _animate(eye, path.frames(fps), path.values(0), path.kinds, "location")
    _animate(eye, fade.frames(fps), fade.values(), fade.kinds, f'["{FADE}"]')
    aimed = compat.ChannelTarget(bpy.data.actions.new("briefing look-at"), look, "briefing look-at")
    _animate(aimed, path.frames(fps), path.values(1), path.kinds, "location")
    collection.objects.link(_path_curve(camera, path, fps))
    last = int(np.ceil(max(path.frames(fps)[-1], fade.frames(fps)[-1])))
    if scene.frame_end < last:
        scene.frame_end = last
    points = plan.briefing.waypoints
    for stop in plan.played:
        subtitle = points[stop.index].text("TextResID")
        if subtitle:
            scene.timeline_markers.new(f"{points[stop.index].name} {subtitle}", frame=round(1 + stop.arrive * fps))


class _Keys:
    """Keys along the flythrough: seconds, values, and the interpolation of the segment each key starts."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.rows: list = []
        self.names: list[str] = []

    def add(self, t: float, row, kind: str = "LINEAR") -> None:
        if self.times and t <= self.times[-1]:  # a key at the same time replaces the earlier one
            self.times.pop(), self.rows.pop(), self.names.pop()
        self.times.append(t), self.rows.append(row), self.names.append(kind)

    def frames(self, fps: float) -> np.ndarray:
        return 1.0 + np.asarray(self.times) * fps

    def values(self, column: int | None = None) -> np.ndarray:
        rows = np.asarray(self.rows, float)
        return rows if column is None else rows[:, column]

    @property
    def kinds(self) -> np.ndarray:
        return np.asarray([INTERPOLATION[k] for k in self.names], np.int32)


def _path(plan: BriefingPlan) -> _Keys:
    """The eye and the look-at (rows of (eye, target)) along the played stops."""
    points, keys = plan.briefing.waypoints, _Keys()
    for stop in plan.played:
        point = points[stop.index]
        keys.add(stop.arrive, (point.camera, point.target))
        eye = point.camera
        if point.text("WaitType").lower() in ("flyaround", "flyby") and point.number("RotateTime") > 0:
            dwell = stop.leave - stop.arrive
            steps = max(1, int(np.ceil(dwell / point.number("RotateTime") * ORBIT_STEPS)))
            for step in range(1, steps + 1):
                eye = orbit(point, point.camera, dwell * step / steps)
                keys.add(stop.arrive + dwell * step / steps, (eye, point.target))
        edge = point.text("EdgeType").lower()
        if stop.following is None:  # the last: the camera holds, then the briefing ends
            keys.add(stop.leave, (eye, point.target))
            keys.add(stop.end, (eye, point.target))
        elif edge == "jump":  # held for half the edge, then a cut (openparkan docs/21-briefing.md)
            after = points[stop.following]
            keys.add(stop.leave, (eye, point.target), "CONSTANT")
            keys.add((stop.leave + stop.end) / 2, (after.camera, after.target), "CONSTANT")
        else:
            keys.add(stop.leave, (eye, point.target), "BEZIER" if edge == "spline" else "LINEAR")
    return keys


def _fade(plan: BriefingPlan) -> _Keys:
    """FadePercent: on arriving at a stop, from its value to the next stop's over its FadeTime; a jump goes black
    over the first half of its edge and back to the next stop's value over the second."""
    points, keys = plan.briefing.waypoints, _Keys()
    for stop in plan.played:
        point = points[stop.index]
        after = points[stop.following] if stop.following is not None else point
        here, there = point.number("FadePercent"), after.number("FadePercent")
        keys.add(stop.arrive, here)
        if point.text("EdgeType").lower() == "jump" and stop.following is not None:
            keys.add(stop.leave, here)
            keys.add((stop.leave + stop.end) / 2, 100.0)
            keys.add(stop.end, there)
        elif point.number("FadeTime") > 0 and there != here:
            keys.add(stop.arrive + point.number("FadeTime"), there)
    return keys


def _path_curve(camera, path: _Keys, fps: float):
    """The eye's path, sampled from the camera's own curves at every frame between keys; a constant key (a
    jump's hold) ends a spline, and the next starts where the cut lands."""
    curves = sorted((fc for fc in compat.assigned_fcurves(camera) if fc.data_path == "location"),
                    key=lambda fc: fc.array_index)
    frames, kinds, eye = path.frames(fps), path.names, path.values(0)
    splines, points = [], []
    for i, start in enumerate(frames):
        points.append(eye[i])
        if i + 1 == len(frames):
            break
        if kinds[i] == "CONSTANT":
            splines.append(points)
            points = []
            continue
        inner = np.arange(np.floor(start) + 1, frames[i + 1])
        points.extend([[fc.evaluate(f) for fc in curves] for f in inner])
    splines.append(points)
    data = bpy.data.curves.new("briefing path", "CURVE")
    data.dimensions = "3D"
    for made in (s for s in splines if len(s) > 1):
        spline = data.splines.new("POLY")
        spline.points.add(len(made) - 1)
        with np.errstate(over="ignore", invalid="ignore"):  # a hostile file's numbers past float32, as the keys
            co = np.column_stack([np.asarray(made, np.float32), np.ones(len(made), np.float32)])
        spline.points.foreach_set("co", co.ravel())
    return bpy.data.objects.new("briefing path", data)


def _animate(target: compat.ChannelTarget, frames: np.ndarray, values: np.ndarray, kinds: np.ndarray,
             path: str) -> None:
    """Keys of ``path`` (one column of ``values`` per array index), each of its segment's interpolation."""
    columns = values.reshape(len(frames), -1)
    for axis in range(columns.shape[1]):
        series = columns[:, axis]
        fcurve = target.new_fcurve(path, axis, "Briefing")
        points = fcurve.keyframe_points
        points.add(len(frames))
        with np.errstate(over="ignore", invalid="ignore"):  # a hostile file's numbers past float32 become inf
            co = np.column_stack([frames, series]).astype(np.float32)
        points.foreach_set("co", co.ravel())
        points.foreach_set("interpolation", np.asarray(kinds, np.int32))
        fcurve.update()


__all__ = ["BRIEFING", "BRIEFING_AS_SHOWN", "BRIEFING_NAME", "BRIEFING_POINTS", "FADE", "POSITIONS", "WAYPOINT",
           "build_briefing", "property_keys", "property_value", "shown_values"]
