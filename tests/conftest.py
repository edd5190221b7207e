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
