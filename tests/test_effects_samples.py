"""samples/effects holds what core.authoring.effects makes (scripts/make_sample.py writes it; tests/test_main_job.py
checks samples/ as a whole): an effect library and the explosions naming its effects, which read strictly, write
back byte for byte and resolve each other."""

from pathlib import Path

from core.authoring import effects as E
from core.container.nres import Archive
from core.effects import exp, fxid, library

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "effects"


def test_the_effect_samples_are_what_the_generator_makes():
    assert sorted(p.name for p in SAMPLES.iterdir()) == sorted(E.sample_files())
    for name, data in E.sample_files().items():
        assert (SAMPLES / name).read_bytes() == data, name


def test_the_effect_samples_read_write_back_and_resolve():
    effects = Archive.parse((SAMPLES / "effects.rlb").read_bytes())
    explosions = Archive.parse((SAMPLES / "weapon.rlb").read_bytes())
    assert library.validate_members(effects) == library.validate_members(explosions) == []
    types = set()
    for entry in effects:
        effect = fxid.parse_fxid(entry.data, entry.name_str)
        assert effect.to_bytes() == bytes(entry.data)
        types |= {e.type for e in effect.emitters}
    assert types == set(fxid.SHIPPED_TYPES)
    archives = library.Archives(lambda name: (SAMPLES / name).read_bytes() if (SAMPLES / name).is_file() else None)
    for entry in explosions:
        slots, _ = library.resolve_explosion(exp.parse_exp(entry.data), archives, entry.name_str)
        assert all(slot["found"] for slot in slots), entry.name_str
