"""The fuzz targets' bodies: what any input must satisfy (issue: reliability).

Contract for any bytes: only core's FormatError escapes; a container that
parses is rewritten byte for byte. Used by scripts/fuzz.py (atheris) and by
tests/test_fuzz_corpus.py, which replays every input ever saved.
"""

from __future__ import annotations

import struct

import numpy as np

from core.animation.sampler import AnimationData, blend, sample, world_matrices_at
from core.animation.tracks import read_animation, write_animation
from core.cli.roundtrip import rewritten
from core.container.nres import Archive
from core.errors import FormatError
from core.files import read_container, validate_container


def nres_target(data: bytes) -> None:
    try:
        archive = Archive.parse(data, source="fuzz")
    except FormatError:
        return
    archive.find(b"x")
    archive.models()
    if archive.to_bytes() != data:
        raise AssertionError("an unedited archive did not rewrite byte for byte")
    archive.to_canonical_bytes()


def model_target(data: bytes) -> None:
    try:
        container = read_container(data, "fuzz")
        validate_container(container)
        if rewritten(container) != data:
            raise AssertionError("decoding and re-encoding every stream changed the bytes")
        names = [None] if container.is_model else [e.name_str for e in container.model_entries()]
        for name in names:
            model = container.open_model(name)
            anim = read_animation(model)
            write_animation(model, anim, rebuild=True)
    except FormatError:
        return


def sampler_target(data: bytes) -> None:
    """The first 16 bytes choose four times; the rest is a model."""
    if len(data) < 16:
        return
    times = np.frombuffer(data[:16], np.float32)
    try:
        container = read_container(data[16:], "fuzz")
        model = container.open_model(None if container.is_model else container.model_entries()[0].name_str
                                     if container.model_entries() else None)
        anim = AnimationData.from_model(model)
        sample(anim, np.concatenate([times, np.float32([0, 0.5, 1, 2.5, -1])]))
        world_matrices_at(anim, times[:2])
        if anim.node_count:
            (weight,) = struct.unpack("<f", data[:4])
            blend(anim, 0, float(times[1]), float(times[2]), weight)
    except FormatError:
        return


def rsli_target(data: bytes) -> None:
    """An RsLi archive: read strictly and tolerantly, validated, every member unpacked to at most its declared
    size; one that reads and may be written is written back byte for byte."""
    from core.rsli import Archive as RsLiArchive
    from core.rsli import validate_rsli

    for tolerant in (False, True):
        try:
            archive = RsLiArchive.parse(data, "fuzz", tolerant=tolerant)
        except FormatError:
            continue
        validate_rsli(archive)
        for member in archive:
            try:
                if len(member.data()) != member.size:
                    raise AssertionError("a member unpacked to other than its declared size")
            except FormatError:
                pass
        try:
            written = archive.to_bytes()
        except FormatError:
            continue
        if written != data:
            raise AssertionError("an unedited RsLi archive did not rewrite byte for byte")


TARGETS = {"nres": nres_target, "model": model_target, "sampler": sampler_target, "rsli": rsli_target}
