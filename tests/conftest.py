"""Fixtures shared by the whole suite."""

import pytest
from hypothesis import HealthCheck, settings

# Property tests check properties, not speed: on a loaded 2-core CI machine generating inputs
# can be slow, which must not fail a test.
settings.register_profile("compoworld", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("compoworld")


@pytest.fixture(scope="session")
def local_model():
    """The bundled SmolLM2-135M-Instruct ``(model, tokenizer)``, loaded once per test session.

    Shared: tests must not train or modify it in place (``copy.deepcopy`` it first).
    """
    from compoworld.models import load_local_model

    return load_local_model()
