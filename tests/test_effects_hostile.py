"""Hostile effect files: truncations, flipped bytes and edge values in counts and type words never raise anything
but FormatError, whose message names the file, the stream and (for a block) its index; a count never sizes an
allocation past the bytes there; whatever reads tolerantly writes back as read. EFFECTS_SWEEP_EXAMPLES soaks more."""

import os
import struct
import time
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.authoring import effects as E
from core.container.nres import Archive
from core.effects import exp, fxid, library
from core.errors import FormatError

EXAMPLES = int(os.environ.get("EFFECTS_SWEEP_EXAMPLES", "300"))
FILES = {**{f"effects.rlb:{n}": ("fxid", d) for n, d in E.sample_effects().items() if n != "synth_most"},
         **{f"weapon.rlb:{n}": ("exp", d) for n, d in E.sample_explosions().items()},
         "effects.rlb": ("archive", E.effects_archive().to_bytes())}
EDGES = [0, 1, 6, 10, 11, 0xFF, 0x100, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x7FC00001]


def decode(kind: str, data: bytes, source: str) -> None:
    """Every reading the library offers for the file, and a write back of what reads."""
    if kind == "fxid":
        fxid.validate_fxid(data)
        effect, _ = fxid.read_fxid(data, source)
        assert effect.to_bytes() == data
        for emitter in effect.emitters:
            emitter.summary()
        effect.summary()
        fxid.parse_fxid(data, source)
    elif kind == "exp":
        exp.validate_exp(data)
        explosion, _ = exp.read_exp(data, source)
        assert explosion.to_bytes() == data
        explosion.summary()
    else:
        archive = Archive.parse(data, source, tolerant=True)
        library.validate_members(archive)


@settings(derandomize=True, max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutated_effects_give_only_format_errors_naming_where(data):
    source = data.draw(st.sampled_from(sorted(FILES)))
    kind, original = FILES[source]
    blob = bytearray(original)
    for _ in range(data.draw(st.integers(0, 5))):
        if len(blob) < 4:
            break
        at = data.draw(st.integers(0, len(blob) - 4))
        choice = data.draw(st.integers(0, 2))
        if choice == 0:
            blob[at] ^= 1 << data.draw(st.integers(0, 7))
        elif choice == 1:
            blob[at:at + 4] = struct.pack("<I", data.draw(st.sampled_from(EDGES)))
        else:  # a count or a type word, where the walk reads them
            spot = data.draw(st.sampled_from([0, 4, 60, 60 + 208, 60 + 416]))
            if spot + 4 <= len(blob):
                blob[spot:spot + 4] = struct.pack("<I", data.draw(st.sampled_from(EDGES)))
    if data.draw(st.booleans()):
        blob = blob[:data.draw(st.integers(0, len(blob)))]
    if data.draw(st.integers(0, 4)) == 0:
        blob += bytes(data.draw(st.integers(1, 300)))
    start = time.perf_counter()
    tracemalloc.start()
    try:
        decode(kind, bytes(blob), source)
    except FormatError as exc:
        text = str(exc)
        assert text.startswith(source) or kind == "archive", text
        assert f": {kind}" in text or kind == "archive", text
        for finding in exc.findings:
            if "emitter" in finding.message and finding.message.split()[1].isdigit():
                assert finding.index == int(finding.message.split()[1]), finding
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 20 * len(original) + 1_000_000
    assert time.perf_counter() - start < 2.0


def test_every_truncation_of_an_effect_is_a_format_error():
    data = E.every_type_effect()
    for size in range(len(data)):
        try:
            fxid.read_fxid(data[:size], "fx")
        except FormatError as exc:
            assert str(exc).startswith("fx: fxid"), exc
        else:
            raise AssertionError(f"{size} bytes read")


def test_every_count_past_the_blocks_is_refused_before_allocating():
    data = bytearray(E.every_type_effect())
    for count in (10, 100, 2 ** 20, 2 ** 31, 2 ** 32 - 1):
        data[0:4] = struct.pack("<I", count)
        tracemalloc.start()
        try:
            fxid.read_fxid(bytes(data), "fx")
        except FormatError as exc:
            assert "emitter" in str(exc)
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        assert peak < 200_000, (count, peak)


@settings(derandomize=True, max_examples=max(EXAMPLES // 3, 20), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_a_hostile_controller_or_effect_library_gives_only_format_errors_when_effects_are_placed(data):
    """What an import asks of core (core.effects.scene.placed_effects): a controller that does not read is a
    FormatError; an effect library or member that does not read leaves that effect without parameters."""
    import numpy as np

    from core.authoring.controllers import walker_controller
    from core.effects.scene import placed_effects

    controller = walker_controller()
    controller.groups = [np.concatenate([controller.groups[0], E.attaching_group()])]
    files = {"effects.rlb": bytearray(E.effects_archive().to_bytes()),
             "weapon.rlb": bytearray(E.explosions_archive().to_bytes()), "ctl": bytearray(controller.to_bytes())}
    name = data.draw(st.sampled_from(sorted(files)))
    blob = files[name]
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(blob) - 4))
        blob[at:at + 4] = struct.pack("<I", data.draw(st.sampled_from(EDGES)))
    if data.draw(st.booleans()):
        del blob[data.draw(st.integers(0, len(blob))):]
    try:
        placed = placed_effects(bytes(files["ctl"]), "walker.ctl", lambda n: bytes(files[n.lower()])
                                if n.lower() in files else None)
    except FormatError as exc:
        assert name == "ctl" and str(exc).startswith("walker.ctl"), exc
        return
    for effect in placed:
        assert effect.params is not None or effect.problem
