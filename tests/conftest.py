"""Shared test fixtures: the real MI350X sweep beside the checkout, else its slice in the repo.

Without ``../shared/mi350x-sweep`` (a fresh clone), ``sweep`` is ``tests/data/mi350x-slice``
(made by ``tests/data/make_slice.py``: a few real bundles and campaigns, unchanged), and the tests
marked ``full_sweep`` (they need what the slice leaves out) skip, saying so.
``KERNEL_ATLAS_TEST_SLICE=1`` runs on the slice even where the whole sweep is there.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SWEEP = SHARED / "mi350x-sweep"
SLICE = REPO / "tests" / "data" / "mi350x-slice"
ON_SLICE = os.environ.get("KERNEL_ATLAS_TEST_SLICE") == "1" or not (SWEEP / "examples").is_dir()
FULL_SWEEP_REASON = ("needs the whole shared MI350X sweep (../shared/mi350x-sweep); "
                     "tests/data/mi350x-slice holds only a part of it")


def in_slice(path: str, *values):
    """A parameter of a test over real items: marked ``full_sweep`` when the slice lacks ``path``
    (a folder or file under the sweep), so that the items the slice holds still run without ../shared."""
    return pytest.param(*values, marks=[] if (SLICE / path).exists() else [pytest.mark.full_sweep])


def pytest_configure(config):
    config.addinivalue_line("markers", f"full_sweep: {FULL_SWEEP_REASON}")


def pytest_collection_modifyitems(config, items):
    """Skip the tests marked ``full_sweep`` when only the slice is there (before any fixture is set up)."""
    if ON_SLICE:
        skip = pytest.mark.skip(reason=FULL_SWEEP_REASON)
        for item in items:
            if item.get_closest_marker("full_sweep") is not None:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def sweep() -> Path:
    """The real shared sweep, else its slice in the repo; skip with a reason when neither is there."""
    if not ON_SLICE:
        return SWEEP
    if not (SLICE / "examples").is_dir():
        pytest.skip("the shared MI350X sweep is absent (expected at ../shared/mi350x-sweep) and so is its slice "
                    "(make it with python3 tests/data/make_slice.py)")
    return SLICE


def gather_env(root: Path):
    """The build's gathering environment over the sweep at ``root``, and its kernel plans by slug (in plan order)."""
    from generator.analyze import verdicts
    from generator.config import load_config
    from generator.read import discover
    from generator.site import gather, plan

    swp = discover.discover(root)
    cfg = load_config(swp.root)
    kj = verdicts.load_kernels_json(swp.root)
    mods = {n: plan.optional(n) for n in plan.OPTIONAL}
    plans = {p.slug: p for p in plan.plan_kernels(swp, cfg, kj)}
    return gather.Env(swp.root, cfg, kj, mods, lambda msg: None, verdicts.sweep_floor(swp.root, cfg)), plans



@pytest.fixture(scope="module")
def primaries(sweep):
    """bundle name -> (analysis, bundle) of every bundle's primary capture (once per test module: a test may
    change what it is given)."""
    from generator.analyze import analysis
    from generator.read import discover

    return {r.bundle.name: (r.analyses[0], r.bundle) for r in analysis.analyze_sweep(discover.discover(sweep))
            if r.is_primary and r.analyses}

@pytest.fixture(scope="session")
def site_env(sweep):
    """The build's gathering environment over the shared sweep, and its kernel plans by slug."""
    return gather_env(sweep)


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


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory) -> Path:
    """The default site: the NVIDIA demo sweep of ``bundles/`` (5 kernels), built once per session."""
    from generator.site import build

    if not (REPO / "bundles" / "examples" / "gemm").is_dir():
        pytest.skip("the NVIDIA demo sweep (bundles/) is absent")
    out = tmp_path_factory.mktemp("demo") / "site"
    build.build_site(REPO / "bundles", out, progress=False)
    return out


def primary_findings(kernel, slug):
    """(the primary capture's findings as the site shows them, that capture's name), from the ``kernel`` fixture."""
    k, _ = kernel(slug)
    return k.primary.findings, k.primary.name


def one_finding(found, detector):
    """The one finding of ``detector`` among ``found`` (the test fails on none or several)."""
    (f,) = [f for f in found if f["detector"] == detector]
    return f
