"""Shared test fixtures: the real MI350X sweep beside the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SWEEP = SHARED / "mi350x-sweep"


@pytest.fixture(scope="session")
def sweep() -> Path:
    """The real shared sweep; skip with a reason when it is not beside the repo."""
    if not (SWEEP / "examples").is_dir():
        pytest.skip("the shared MI350X sweep is absent (expected at ../shared/mi350x-sweep)")
    return SWEEP
