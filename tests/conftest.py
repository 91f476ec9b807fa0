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


@pytest.fixture(scope="session")
def local_ray():
    """A local Ray instance (2 CPUs), started once per test session and shut down at its end:
    starting Ray again in a process that shut it down is what Ray handles worst."""
    import gc

    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
        gc.collect()  # Ray's leftovers, finalized here rather than in some later test
