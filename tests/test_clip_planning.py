"""The planner runs every anchor's search side by side; each search must make the same
float32 sums and the same lowest-index choices as the one-search-at-a-time Dijkstra it replaced."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from core.animation.controller.graph import plan_cycles, plan_path, plan_paths

F32 = np.float32


def reference_path(live: np.ndarray, source: int, target: int) -> list[int] | None:
    """The planner as it was before: one search, one settled state per numpy step."""
    a = len(live)
    if not (0 <= source < a and 0 <= target < a):
        return None
    dist = live[:, source].copy()
    prev = np.full(a, source)
    done = np.zeros(a, bool)
    if source != target:
        done[source] = True
    while True:
        open_dist = np.where(done, F32(np.inf), dist)
        v = int(np.argmin(open_dist))
        if not np.isfinite(open_dist[v]):
            return None
        if v == target:
            break
        done[v] = True
        via = dist[v] + live[:, v]
        better = (via < dist) & ~done
        dist = np.where(better, via, dist)
        prev[better] = v
    path = [target]
    while prev[path[-1]] != source and len(path) <= a:
        path.append(int(prev[path[-1]]))
    return path[::-1]


# Costs from a few values, so that ties (equal sums reached two ways) are common, with no-edges among them;
# 0.1 and 0.7 make float32 sums whose rounding depends on the order they are added in.
COSTS = st.sampled_from([0.0, 0.1, 0.2, 0.7, 1.0, 3.0, 1e-30, 1e30, np.inf])


@st.composite
def graphs(draw, most: int = 12):
    a = draw(st.integers(1, most))
    values = draw(st.lists(COSTS, min_size=a * a, max_size=a * a))
    return np.array(values, F32).reshape(a, a)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(graphs(), st.data())
def test_side_by_side_searches_plan_as_one_search_at_a_time(live, data):
    a = len(live)
    sources = data.draw(st.lists(st.integers(-1, a), min_size=1, max_size=2 * a))
    targets = data.draw(st.lists(st.integers(-1, a), min_size=len(sources), max_size=len(sources)))
    assert plan_paths(live, sources, targets) == [reference_path(live, s, t) for s, t in zip(sources, targets)]
    assert plan_cycles(live, list(range(a))) == [reference_path(live, s, s) for s in range(a)]


def test_a_large_dense_graph_with_every_state_an_anchor_plans_as_before():
    rng = np.random.default_rng(7)
    live = (rng.integers(1, 20, (200, 200)) * F32(0.1)).astype(F32)
    live[rng.random(live.shape) < 0.3] = np.inf
    assert plan_cycles(live, list(range(200))) == [reference_path(live, s, s) for s in range(200)]
    assert plan_path(live, 3, 150) == reference_path(live, 3, 150)
