import pytest

from core.authoring.build import build_model
from core.authoring.synth import sample_archive, sample_model


@pytest.fixture(scope="session")
def sample_msh() -> bytes:
    return build_model(sample_model()).to_bytes()


@pytest.fixture(scope="session")
def sample_rlb(sample_msh) -> bytes:
    return sample_archive(sample_msh).to_bytes()


@pytest.fixture
def blender():
    """Blender with the extension registered and an empty scene before and after the test."""
    import blender_env

    blender_env.register()
    blender_env.clean_scene()
    yield blender_env
    blender_env.clean_scene()
