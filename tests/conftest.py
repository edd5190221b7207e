"""Shared test fixtures: the repository root, and an environment for subprocesses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo_root() -> Path:
    """The repository's root folder."""
    return ROOT


@pytest.fixture
def subprocess_env() -> dict[str, str]:
    """The environment for a child Python: this checkout first on its path, jax on CPU."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.pop("JITCHECK_DEBUG", None)
    return env


def _register_hypothesis_profiles() -> None:
    """Two hypothesis profiles: "ci" (small, the default) and "dev" (larger, for local runs).

    Pick one with ``HYPOTHESIS_PROFILE=dev pytest`` (or pytest's ``--hypothesis-profile dev``).
    Neither has a deadline: a test never depends on machine speed. A test's own
    ``@settings`` still wins over the profile for the values it names.
    """
    from hypothesis import HealthCheck, settings

    quiet = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
    settings.register_profile("ci", max_examples=10, deadline=None, print_blob=True, suppress_health_check=quiet)
    settings.register_profile("dev", max_examples=100, deadline=None, print_blob=True, suppress_health_check=quiet)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


_register_hypothesis_profiles()
