"""Optimization advice: recognize known hotspot patterns in an ATT analysis, rank a plan.

An expert reads a stall table by asking, for each wait, *what it waits for*. This
module does the same on the instruction list of a ``CaptureAnalysis``:

* every ``s_waitcnt`` is tied to the memory operations it completes (the counters
  are FIFO: ``vmcnt(N)`` completes all but the N youngest outstanding VMEM ops), and
  its stall is blamed on the *youngest* of them, the one that arrives last;
* registers written by those operations lead to their first consumer (an MFMA, a
  scaling multiply, an LDS read...), which names the pattern (DOMAIN §1.4).

Detectors are small functions registered in ``DETECTORS`` (``registry.py``, in the
claiming order ``registry.ORDER``), one module per family: ``flags``, ``memory``,
``sync`` (LDS, scalar loads, barrier), ``streaming``, ``limits``. Each takes a
``KernelView`` (the analysis plus derived facts and an optional ``AdviceContext``)
and the instruction positions already claimed by earlier detectors, and returns
``Finding``s. ``advise`` runs them in registry order so that a stall cycle is
explained once, by the most specific pattern, and ranks the result:

* *pattern* findings own stall cycles; they are ranked by the share of all
  stall cycles their suggestion acts on (highest first; ``registry.acted_share``);
* *limit* findings (occupancy, grid size) own no stall cycles (share 0.0); they
  follow the patterns, by priority;
* *flagged* findings (the decorator-line artifact, framework intrinsic lines) say
  how to read the line table; they are not ranked.

Example (flash_attn_func, primary capture): the four ``s_waitcnt vmcnt(0)`` right
after the ``buffer_load_dwordx4 ... lds`` tile loads hold 25.0 % of all stall
cycles -> "s_waitcnt vmcnt(0) drains after DMA-to-LDS loads", ranked first; the
occupancy finding says 248 VGPRs give 2 waves/SIMD and a third needs <= 168.
"""

from __future__ import annotations

from generator.analyze.advice import flags, hazards, limits, memory, profiled, streaming, sync  # noqa: F401  (register)
from generator.analyze.advice.basis import capture_rest, group_basis, group_msg, plan_basis, rests_msg, rests_on
from generator.analyze.advice.context import context_for
from generator.analyze.advice.launch import launch_finding, with_launch
from generator.analyze.advice.sweep import LAUNCH_KEY, OTHER_CONFIG, PROFILE
from generator.analyze.advice.memory import RUN_MIN_LOADS
from generator.analyze.advice.mfma import MfmaNote, mfma_annotations
from generator.analyze.advice.registry import (
    DETECTORS, MIN_SHARE, ORDER, PRIORITIES, Detector, Finding, advise, detector, format_plan, get_detector,
    pattern_priority, rank,
)
from generator.analyze.advice.streaming import bandwidth
from generator.analyze.advice.sweep import (
    LIMITER_TITLES, SweepFinding, sweep_findings, why_not_winning, why_not_winning_message,
)
from generator.analyze.advice.sync import AT_ONCE
from generator.analyze.advice.view import AdviceContext, KernelView, is_framework_path, short_loc

#: Sweep groups read from the campaigns alone, resting on no capture.
CAMPAIGN_KEYS = (PROFILE, OTHER_CONFIG)

__all__ = [
    "CAMPAIGN_KEYS",
    "AT_ONCE", "DETECTORS", "LIMITER_TITLES", "MIN_SHARE", "ORDER", "PRIORITIES", "RUN_MIN_LOADS", "AdviceContext",
    "LAUNCH_KEY", "launch_finding", "with_launch", "Detector", "Finding", "KernelView", "MfmaNote", "SweepFinding", "advise", "bandwidth", "context_for",
    "detector", "format_plan", "get_detector", "is_framework_path", "mfma_annotations", "pattern_priority", "rank",
    "short_loc", "sweep_findings", "why_not_winning", "why_not_winning_message",
    "capture_rest", "group_basis", "group_msg", "plan_basis", "rests_msg", "rests_on",
]
