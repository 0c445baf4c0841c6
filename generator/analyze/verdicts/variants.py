"""Which provider is the candidate, which are baselines and which are variants (VERDICTS "Inputs").

A campaign of the second layout times several FlyDSL variants (forced tilings, a dispatcher)
beside the libraries. The candidate is the configured one (``[campaigns.<op>] candidate``), else
the sweep's candidate (``flydsl``) when the campaign has it, else ``auto`` (a dispatcher is what
users call), else none: the campaign is BLOCKED, asking for the configuration. Providers named
after a library are baselines; every other provider is a *variant*: never a baseline, shown with
its own ``[geomean, n]`` of verdict baseline time / variant time over the shapes where both are
usable and timed alike (rule 10's ``common_times``).

These rules apply to campaigns of the second layout (``read/campaign_suite.py``); in the classic
layout the configured candidate is judged and every other provider is a baseline (only
``[campaigns.<op>] candidate`` applies to both).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from generator.read.campaign_suite import DISPATCHER  # the dispatcher a campaign without the candidate is judged by

#: Library providers by exact name, and by the start of their name (``aiter_asm``, ``ck_tile``, ...).
LIBRARIES = frozenset({"hipblaslt", "rocblas", "triton", "gluon", "pytorch", "cudnn", "flashinfer"})
LIBRARY_PREFIXES = ("aiter", "ck", "torch", "cublas")


def is_library(provider: str) -> bool:
    """True for a provider named after a library (a baseline)."""
    name = provider.lower()
    return name in LIBRARIES or name.startswith(LIBRARY_PREFIXES)


def choose_candidate(providers: Sequence[str], configured: str | None, default: str) -> str | None:
    """The campaign's candidate: ``configured`` (``[campaigns.<op>] candidate``), else ``default``
    when present (or when nothing was timed), else ``auto`` when present; None otherwise."""
    if configured:
        return configured
    if default in providers or not providers:
        return default
    return DISPATCHER if DISPATCHER in providers else None


def variants_of(providers: Iterable[str], candidate: str) -> list[str]:
    """The providers that are neither the candidate nor a library, in first-seen order."""
    return [p for p in dict.fromkeys(providers) if p != candidate and not is_library(p)]
