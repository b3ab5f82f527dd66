"""The transition graph the planner runs over (dragonee/openparkan docs/24-motion.md 2.3): the costs as the
game scales them at load, the cheapest runs of states Dijkstra finds in them, and which states the anchors
reach. Arrays only, so that both the codec's validator and the clips build on it."""

from __future__ import annotations

import numpy as np

F32 = np.float32
NO_EDGE = np.float32(1_000_000)  # a cost at or above it is no edge
PLAN_LIMIT = 512  # the most states the planner is run over; retail: about 217 in a_a_l3.ctl, the largest of the 531
#                   (222 496 bytes), 105 in the hero r_h_02 (spec/retail-envelope.md 9)


def live_costs(states: np.ndarray, file_costs: np.ndarray) -> np.ndarray:
    """The costs the planner uses, float32 (A, A), row = destination, ``inf`` = no edge, of a controller's
    state records and cost table.

    At load the game scales each cost by (1 + g_v + g_s) (2.3): g_v is the largest, over the *source's*
    switched-on velocity axes, of |centre of the destination's box - the source's minimum|; g_s the same for
    spin. Decision: the 1e6 no-edge threshold is applied to the scaled cost (the planner reads the scaled
    table); a negative or non-finite cost, or one that scales to NaN, is no edge.
    """
    file_costs = np.asarray(file_costs, F32)
    with np.errstate(all="ignore"):
        gaps = [_gap(states, name, bit) for name, bit in (("velocity", 0x1), ("spin", 0x10))]
        live = file_costs * ((F32(1) + gaps[0]) + gaps[1])
        bad = ~np.isfinite(file_costs) | (file_costs < 0) | ~(live < NO_EDGE)
    return np.where(bad, F32(np.inf), live).astype(F32)


def _gap(states: np.ndarray, name: str, first_bit: int) -> np.ndarray:
    """(A, A) float32: [to, source] -> max over the source's switched-on axes of |centre(to) - min(source)|."""
    low, high = states[f"{name}_min"].astype(F32), states[f"{name}_max"].astype(F32)
    centre = (low + high) * F32(0.5)
    on = np.stack([(states["boxes"] & (first_bit << k)) != 0 for k in range(3)], axis=-1)  # (A, 3)
    gap = np.zeros((len(states), len(states)), F32)
    for k in range(3):  # one axis at a time keeps the temporaries at the table's size
        axis = np.abs(centre[:, None, k] - low[None, :, k])
        gap = np.where(on[None, :, k], _max_nan(gap, axis), gap)
    return gap


def _max_nan(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """max that lets NaN through (a NaN box makes the edge unusable rather than free)."""
    return np.where(np.isnan(b) | (b > a), b, a)


def plan_path(live: np.ndarray, source: int, target: int) -> list[int] | None:
    """The cheapest run of states from ``source`` to ``target`` (Dijkstra over ``live``), without ``source``
    and ending with ``target``; ``source == target`` gives the cycle back. None when there is none.

    Decisions: the table's diagonal is an edge like any other (an anchor whose diagonal is its cheapest way
    back is a one-state clip, as standing needs); costs add up in float32; of equal costs the lowest state
    index is settled first.
    """
    return plan_paths(live, [source], [target])[0]


def plan_cycle(live: np.ndarray, anchor: int) -> list[int] | None:
    """The states an anchor queues to come back to itself (2.3), ending with the anchor."""
    return plan_path(live, anchor, anchor)


def plan_cycles(live: np.ndarray, anchors: list[int]) -> list[list[int] | None]:
    """``plan_cycle`` of every anchor, in one pass."""
    return plan_paths(live, anchors, anchors)


def plan_paths(live: np.ndarray, sources, targets) -> list[list[int] | None]:
    """``plan_path`` of each (source, target) pair. The searches run side by side, one row of an array each,
    so that a step of all of them is one numpy operation; each row makes the same float32 sums and the same
    choices as a search on its own would."""
    a = len(live)
    sources = np.asarray(sources, np.int64).reshape(-1)
    targets = np.asarray(targets, np.int64).reshape(-1)
    paths: list[list[int] | None] = [None] * len(sources)
    rows = np.flatnonzero((sources >= 0) & (sources < a) & (targets >= 0) & (targets < a))
    src, tgt = sources[rows], targets[rows]
    by_source = np.ascontiguousarray(live.T)  # [source, destination]
    key = by_source[src]                      # [search, state]: the cost of reaching an open state; inf once settled
    prev = np.repeat(src[:, None], a, axis=1)
    open_ = np.ones(key.shape, bool)
    away = np.flatnonzero(src != tgt)         # a path, not a cycle: the source itself is never entered again
    open_[away, src[away]] = False
    key[away, src[away]] = np.inf
    running = np.arange(len(rows))            # the search each row of key stands for
    while len(running):
        n = np.arange(len(running))
        v = np.argmin(key, axis=1)            # the cheapest open state; of equal costs the lowest index
        cost = key[n, v]
        stop = ~np.isfinite(cost) | (v == tgt[running])
        if stop.any():
            for r in np.flatnonzero(stop & np.isfinite(cost)):
                g = running[r]
                path = [int(tgt[g])]
                while prev[r, path[-1]] != src[g] and len(path) <= a:
                    path.append(int(prev[r, path[-1]]))
                paths[rows[g]] = path[::-1]
            go = ~stop
            running, v, cost = running[go], v[go], cost[go]
            key, prev, open_ = key[go], prev[go], open_[go]
            n = n[:len(running)]
        open_[n, v] = False
        key[n, v] = np.inf
        via = by_source[v]
        via += cost[:, None]
        better = via < key
        better &= open_
        np.copyto(key, via, where=better)
        np.copyto(prev, v[:, None], where=better)
    return paths


def reachable_from_anchors(live: np.ndarray, anchors: list[int]) -> np.ndarray:
    """bool (A,): the states some anchor reaches through edges (anchors included)."""
    a = len(live)
    reached = np.zeros(a, bool)
    reached[anchors] = True
    frontier = list(anchors)
    edges = np.isfinite(live)  # [to, source]
    while frontier:
        fresh = edges[:, frontier].any(axis=1) & ~reached
        reached |= fresh
        frontier = [int(i) for i in np.flatnonzero(fresh)]
    return reached
