"""The export check in steps short enough to run on a timer while the artist works: the same
``CheckJob`` as the Check button, its result the same, but Blender is never held for long.

1. The F-curves are read (``read_curve``, ``read_evaluation``) a slice per step, for at most ``budget`` seconds
   each. Nothing of Blender is kept between steps: each step finds the curves again and goes on where the last one
   stopped, and the caller drops the check when the scene changed in between (its change counter).
2. The meshes are read (``read_mesh``) a slice per step too, from the user's depsgraph (the read uses them when it
   reads from it, as it does when the model shows frame 0; not for a model with slider drivers, which the read
   mutes).
3. The rest of the scene is read (``CheckJob``: poses at the first frame, what the read needs of the meshes beyond
   their evaluated data), with the curves and meshes read ahead, a part per step (``CheckJob.read_step``).
4. The planning (the runtime comparison, the key reduction, the model's bytes) is plain Python on what was read:
   it runs in a worker thread, started in a step of its own, while the timer only looks whether it is done.
5. What needs Blender again (the controller states) runs in a last step.

A model with clips reads its curves through the timeline copies the export makes (``timeline_as_exported``),
so its curves and meshes are read in step 3 with the rest.

Steps 1, 2 and 4 keep what the last check (live, or the Check button) read and planned where it provably did not
change (io_msh.exp.check_cache), and leave what they read and planned there for the next one.
"""

from __future__ import annotations

import threading
import time

import bpy

from ...core.errors import FormatError
from ..com.curves import node_fcurves
from ..com.hierarchy import descendants
from ..com.sliders import slider_drivers
from .check import CheckJob, ExportCheck, reads_ahead
from .check_cache import CheckCache, cache_for
from .plan import ExportOptions

# The time a step reads curves or meshes for, seconds: about half a 60 Hz frame (16.7 ms), as the step ends only
# after the curve or mesh it is reading.
BUDGET = 0.008


class LiveCheck:
    """One live check of the model under ``root_name``; ``step`` runs the next piece of it."""

    def __init__(self, root_name: str, options: ExportOptions, stamp: int, budget: float = BUDGET) -> None:
        self.root_name, self.options, self.stamp, self.budget = root_name, options, stamp, budget
        self.curves: list | None = []
        self.count: int | None = None
        self.curves_read = False
        self.meshes: dict | None = {}   # read_mesh by object name, from the user's depsgraph
        self.meshes_read = False
        self.unread: set[str] = set()
        self.job: CheckJob | None = None
        self.ahead = False   # the job reads what was read ahead, a part per step
        self.read_done = False
        self.thread: threading.Thread | None = None
        self.failure: BaseException | None = None
        self.longest = 0.0   # the longest step so far, seconds (the benchmark prints it)
        self.longest_cpu = 0.0  # the main thread's processor time in it (the step with no other process running)
        self.kept: CheckCache | None = None  # what the last checks of the model read and planned

    def step(self, context, on_read=None) -> ExportCheck | None:
        """The next piece; the check's result once the last one ran, else None (call again)."""
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            return self._step(context, on_read)
        finally:
            self.longest = max(self.longest, time.perf_counter() - start)
            self.longest_cpu = max(self.longest_cpu, time.thread_time() - cpu)

    @property
    def waiting(self) -> bool:
        """Whether the planning thread is still running."""
        return self.thread is not None and self.thread.is_alive()

    def _step(self, context, on_read) -> ExportCheck | None:
        if self.job is None:
            root = bpy.data.objects.get(self.root_name)
            ahead = root is not None and reads_ahead(root)
            if ahead and self.kept is None:
                self.kept = cache_for(context, self.root_name)
                self.kept.start()
            if ahead and not self.curves_read:
                self.curves_read = self._read_curves(root)
                return None
            if ahead and self.meshes is not None and not self.meshes_read:
                if slider_drivers(root):  # the read mutes them: the meshes it reads are not the ones shown now
                    self.meshes = None
                else:
                    self.meshes_read = self._read_meshes(context, root)
                    return None  # the rest of the read is a step of its own
            self.job = CheckJob(context, self.options, curves=self.curves if ahead else None,
                                meshes=self.meshes if ahead else None, memo=self.kept.memo if ahead else None,
                                stepped=ahead)
            self.ahead = ahead
        if self.thread is None:
            if not self.job.read_step():
                return None
            if not self.read_done:  # the planning thread starts in the next step
                self.read_done = True
                return None
            if self.ahead:
                self.kept.done()
            if on_read is not None:
                on_read()
            self.thread = threading.Thread(target=self._plan, name="io_msh live check", daemon=True)
            self.thread.start()
            return None
        if self.waiting:
            return None
        if self.failure is not None:
            raise self.failure
        if self.kept is not None:
            self.kept.memo.next_check()
        return self.job.finish()

    def _read_curves(self, root) -> bool:
        """Read curves for at most ``budget`` seconds; True once every curve is read."""
        start = time.perf_counter()
        where = list(node_fcurves(root))
        if self.count is None:
            self.count = len(where)
        elif self.count != len(where):  # changed under us without a depsgraph update: read them all again
            self.curves, self.count = [], len(where)
        for fcurve, target, owner, path in where[len(self.curves):]:
            self.curves.append(self.kept.curve(fcurve, target, owner, path))
            if time.perf_counter() - start > self.budget:
                break
        return len(self.curves) == len(where)

    def _read_meshes(self, context, root) -> bool:
        """Read meshes for at most ``budget`` seconds; True once every mesh object is read. One that cannot
        be read is left to the read step, which refuses it as the export does."""
        start = time.perf_counter()
        depsgraph = context.evaluated_depsgraph_get()
        for obj in descendants(root):
            if obj.type != "MESH" or obj.name in self.meshes or obj.name in self.unread:
                continue
            try:
                self.meshes[obj.name] = self.kept.mesh(obj, depsgraph)
            except FormatError:
                self.unread.add(obj.name)
            if time.perf_counter() - start > self.budget:
                return False
        return True

    def _plan(self) -> None:
        try:
            self.job.plan()
        except BaseException as exc:  # handed to the main thread by the next step
            self.failure = exc
