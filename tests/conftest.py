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


@pytest.fixture(scope="session")
def site_env(sweep):
    """The build's gathering environment over the shared sweep, and its kernel plans by slug."""
    from generator.analyze import verdicts
    from generator.config import load_config
    from generator.read import discover
    from generator.site import gather, plan

    swp = discover.discover(sweep)
    cfg = load_config(swp.root)
    kj = verdicts.load_kernels_json(swp.root)
    mods = {n: plan.optional(n) for n in plan.OPTIONAL}
    plans = {p.slug: p for p in plan.plan_kernels(swp, cfg, kj)}
    return gather.Env(swp.root, cfg, kj, mods, lambda msg: None, verdicts.sweep_floor(swp.root, cfg)), plans


@pytest.fixture(scope="session")
def kernel(site_env):
    """``kernel(slug) -> (KernelData, IndexRow)`` of the shared sweep, gathered once per session."""
    from generator.site import gather
    from generator.site.views import base, overview

    cache = {}

    def get(slug):
        if slug not in cache:
            env, plans = site_env
            k, _ = gather.gather_kernel(plans[slug], env)
            cache[slug] = (k, overview.index_row(k, base.SiteContext()))
        return cache[slug]
    return get
