"""Hostile hall ways and ground plans: flipped bytes, edge values in counts and truncations never raise anything
but FormatError naming the file and the stream; a count never sizes an allocation past the bytes there; whatever
reads tolerantly writes back as read. INTERIOR_SWEEP_EXAMPLES soaks more."""

import os
import struct
import time
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.authoring import interiors as I
from core.errors import FormatError
from core.interior import bas as B
from core.interior import hallway as H
from core.msh.model import Model

EXAMPLES = int(os.environ.get("INTERIOR_SWEEP_EXAMPLES", "200"))
FILES = {**{f"fortif.rlb:{n}.bas": ("bas", d) for n, d in I.extreme_plans().items()},
         "fortif.rlb:synth_hall.msh": ("hallway", I.building_model().to_bytes())}
EDGES = [0, 1, 2, 3, 26, 0xFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x7FC00001]


def decode(kind: str, data: bytes, source: str) -> None:
    if kind == "bas":
        B.validate_bas(data)
        plan, _ = B.read_bas(data, source)
        assert plan.to_bytes() == data
        plan.summary()
        B.parse_bas(data, source)
    else:
        model = Model.parse(data, source)
        graph, _ = H.hallway_of(model, tolerant=True)
        entry = model.stream(17)
        assert graph.to_bytes() == bytes(entry.data)
        graph.summary()
        H.hallway_of(model)


@settings(derandomize=True, max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutated_interiors_give_only_format_errors_naming_where(data):
    source = data.draw(st.sampled_from(sorted(FILES)))
    kind, original = FILES[source]
    blob = bytearray(original)
    model = Model.parse(original) if kind == "hallway" else None
    for _ in range(data.draw(st.integers(0, 4))):
        choice = data.draw(st.integers(0, 2))
        if choice == 0:
            at = data.draw(st.integers(0, len(blob) - 1))
            blob[at] ^= 1 << data.draw(st.integers(0, 7))
        elif kind == "bas":  # the counts: contour count, corner count, and the words after the inner ring
            spot = data.draw(st.sampled_from([0, 4, len(blob) - 4 - 12 * 9, len(blob) // 2]))
            blob[spot:spot + 4] = struct.pack("<I", data.draw(st.sampled_from(EDGES)))
        else:  # stream 17's attr1 / attr2 / attr3 in the directory, or a link's end
            entry = model.stream(17)
            directory = len(original) - 64 * len(model.archive.entries)
            row = directory + 64 * model.archive.entries.index(entry)
            spot = data.draw(st.sampled_from([row + 4, row + 8, row + 16]))
            blob[spot:spot + 4] = struct.pack("<I", data.draw(st.sampled_from(EDGES)))
    if kind == "bas" and data.draw(st.booleans()):
        blob = blob[:data.draw(st.integers(0, len(blob)))]
    start = time.perf_counter()
    tracemalloc.start()
    try:
        decode(kind, bytes(blob), source)
    except FormatError as exc:
        text = str(exc)
        assert text.startswith(source), text
        if kind == "bas":
            assert ": bas" in text, text
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 20 * len(original) + 1_000_000
    assert time.perf_counter() - start < 2.0


def test_every_truncation_of_a_plan_reads_tolerantly_and_is_refused_strictly():
    data = I.extreme_plans()["corners_26"]
    for size in range(len(data)):
        plan, _ = B.read_bas(data[:size])
        assert plan.to_bytes() == data[:size] and not plan.editable
        try:
            B.parse_bas(data[:size], "p.bas")
        except FormatError as exc:
            assert str(exc).startswith("p.bas: bas"), exc
        else:
            raise AssertionError(f"{size} bytes read")


def test_huge_counts_are_refused_before_allocating():
    data = bytearray(I.extreme_plans()["traced"])
    graph = I.hallway().to_bytes()
    for count in (27, 2 ** 20, 2 ** 31, 2 ** 32 - 1):
        for spot in (0, 4):
            data[spot:spot + 4] = struct.pack("<I", count)
            tracemalloc.start()
            _, findings = B.read_bas(bytes(data))
            H.read_hallway(graph, count, count)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            assert findings and peak < 200_000, (count, peak)
