"""Score multi-shape timings: per shape a speedup, per kernel numbers and one verdict.

Implements ``VERDICTS.md``. The rules, with the math:

* Rows of one (shape, provider): the last *usable* row (status ``ok``, ``correct`` true,
  ``median_us`` > 0) counts; if none is usable, the last row (so a placeholder written
  after a real measurement never hides it).
* Candidate: the configured provider (``flydsl``). Baselines: every other provider
  whose row is usable. Best baseline: the lowest ``median_us``; ties go to the one whose
  row comes first in the file.
* ``speedup = best baseline us / candidate us`` (> 1: the candidate is faster). A shape
  is *measured* when the candidate is usable and a best baseline exists, *measurable*
  when some baseline is usable. A *hard failure* is a measurable shape whose candidate
  status is failed, oom or incorrect; a *harness failure* is a shape where no provider
  is usable and at least one failed (nobody is blamed).
* ``geomean = exp(mean ln s)`` over measured shapes; ``weighted = exp(sum w ln s / sum w)``
  over measured shapes with weight ``w > 0`` (``baseline_time_weight``, else
  ``traffic_weight``; the key order is configuration), None when no shape has one.
  Per baseline, per stage and per model (an ``a|b`` shape counts for each) likewise,
  as ``[geomean, n]``.
* wins / parity / losses: measured shapes with ``s >= win``, ``headroom <= s < win``,
  ``s < headroom`` (1.05 / 0.95 by default).
* Verdict, by the evidence ladder (rule 12; ``verdict_basis`` names the rung that decided):
  ``failures`` (BLOCKED: no measured shape, or hard failures outnumber measured shapes);
  ``shapes`` (the geomean of verdict baseline / candidate over the *verdict shapes*: measured,
  with a comparable baseline, not at the timing floor; WIN / PARITY / HEADROOM by the
  thresholds, except that a WIN against the reference provider alone goes on); ``pair`` (the
  profiling sweep's headline pair); ``floor`` (every comparable shape at the floor: PARITY);
  ``bound`` (only non-comparable baselines remain: a loss against them is HEADROOM); ``none``
  (BLOCKED, "no like-for-like baseline"). ``verdict_value`` is the ratio that decided.
  Thresholds apply to unrounded values (0.949 is HEADROOM though it prints 0.95x); a
  value within 1e-9 (relative) of a threshold counts as reaching it, so that a ratio
  such as 1.05 does not fall below 1.05 through floating-point rounding alone.
* Comparable baseline (rule 10): a usable baseline row whose scope flags agree with the
  candidate's and that was timed the same way (equal ``timing_method`` or either unknown;
  methods that differ compare ``eager_median_us`` to ``eager_median_us`` when both rows carry
  it). The *verdict baseline* of a shape is the comparable one the candidate does worst against.
* Timing floor (rule 11): the lowest usable ``median_us`` of the sweep's classic campaigns (a
  campaign read alone: its own; ``[verdicts] floor_us`` overrides); a shape is *at the floor*
  when the candidate and its verdict baseline both run below 1.25 x it.
* Noise: per measured shape the larger of ``p90/p10`` of the candidate and of the best
  baseline; the kernel's noise is the median over shapes (noise within one run, shown per shape).
* How sure (rule 14, ``intervals``): the 90 % shape bootstrap of the verdict geomean (``verdict_ci``),
  and over the model shapes alone (``verdict_ci_models``); the verdict is *uncertain* when an
  interval reaches across its threshold.
* Two clocks (rule 13, ``clocks``): the kernel clock (graph replay) decides; beside it the launch
  overhead (the call gap where the work is too small to hide the launch path), the launch-bound
  shapes and the headline pair's clock; a pair on the call clock decides nothing, and a campaign
  timed on the call clock only is BLOCKED with its ``call_geomean``.
* ``reference_only``: the best baseline of every measured shape is the reference
  provider (``pytorch`` unless configured or named by ``baseline_matrix.yaml``).
* Suspect reference (rule 7): the candidate is incorrect and so is another provider that
  is not the reference; the check, not the candidate, is the likely culprit, so the shape
  is counted in ``suspect_reference`` and is not a hard failure.
* Like-for-like (rule 8): a baseline row is like-for-like with the candidate's row when
  their ``includes_layout_conversion`` and ``includes_jit`` flags agree (an empty flag is
  unknown and agrees). A measured shape whose best baseline is not like-for-like has a
  *scope mismatch*; ``like_for_like_geomean = [geomean(best like-for-like baseline us /
  candidate us), n]`` over measured shapes that have one; ``not_like_for_like`` when
  ``2 * scope_mismatch_shapes > n_measured``.
* Above the roof (rule 9): a usable row whose ``effective_gbps`` exceeds 1.10 x the
  device's HBM peak, or whose ``effective_tflops`` exceeds 0.95 x the dense peak of its dtype
  (bf16/fp16, fp8/fp8_e4m3), is flagged (``above_roof``: sorted ``[shape_id, provider]``
  pairs), never dropped.

A campaign with a ledger but no results file gets the status ``UNTIMED`` instead of a
verdict: BLOCKED would claim the candidate fails to run, when nothing was run at all.

The package, by job: ``rules`` (the pure rules above), ``clocks`` (rule 13), ``intervals``
(rule 14), ``shapes`` (one shape),
``kernel`` (``KernelScore``: one kernel's numbers and words), ``aggregate`` (``summarize``:
one kernel over its shapes), ``headline`` (the published
pair, ``kernels.json``), ``sweep`` (campaigns, folders, the sweep and its document).

Public API (used by the site builder): ``score_campaign``, ``score_sweep``,
``KernelScore``, ``ShapeResult``, ``ProviderResult``, ``HeadlinePair``,
``campaign_for_bundle``, ``read_kernels_json``, ``headline_for_campaign`` and the pure
rule functions (``pick_row``, ``best_baseline``, ``geomean``, ``weighted_geomean``,
``classify_speedup``, ``decide_ladder``).
"""

from __future__ import annotations

from generator.analyze.verdicts.headline import (
    KERNELS_JSON,
    HeadlinePair,
    bundles_for_campaign,
    campaign_for_bundle,
    entry_campaign,
    headline_for_campaign,
    headline_note,
    headline_pair,
    kernel_entries,
    load_kernels_json,
    read_kernels_json,
)
from generator.analyze.verdicts.aggregate import spread_of, summarize
from generator.analyze.verdicts.kernel import KernelScore
from generator.analyze.verdicts.rules import (
    ABOVE_ROOF_FACTOR,
    ABOVE_ROOF_TEXT,
    BASES,
    BLOCKED,
    COMPARED_SCOPE_FLAGS,
    FAILED_STATUSES,
    HEADROOM,
    PARITY,
    THRESHOLD_EPS,
    UNTIMED,
    VERDICTS,
    WIN,
    Thresholds,
    best_baseline,
    classify_speedup,
    effective_status,
    geomean,
    is_incorrect,
    is_suspect_reference,
    Roofs,
    at_floor,
    common_times,
    decide_ladder,
    timing_floor,
    verdict_baseline,
    like_for_like,
    median,
    pick_row,
    plural,
    reaches,
    split_geomeans,
    spread,
    verdict_of_speedup,
    weighted_geomean,
)
from generator.analyze.verdicts.shapes import ProviderResult, ShapeResult, args_text, score_shape
from generator.analyze.verdicts.sweep import (
    device_roofs,
    score_campaign,
    score_folder,
    score_sweep,
    sweep_floor,
    sweep_numbers,
    sweep_replay_cost,
    verdicts_document,
)

__all__ = [
    "ABOVE_ROOF_FACTOR", "ABOVE_ROOF_TEXT", "BLOCKED", "COMPARED_SCOPE_FLAGS", "FAILED_STATUSES", "HEADROOM", "HeadlinePair",
    "KERNELS_JSON", "KernelScore", "PARITY", "ProviderResult", "ShapeResult", "THRESHOLD_EPS", "Thresholds",
    "UNTIMED", "VERDICTS", "WIN", "args_text", "best_baseline", "bundles_for_campaign",
    "campaign_for_bundle", "classify_speedup", "effective_status", "entry_campaign",
    "geomean", "headline_for_campaign", "headline_note", "headline_pair", "is_incorrect",
    "is_suspect_reference", "kernel_entries", "like_for_like", "load_kernels_json", "median",
    "pick_row", "plural", "reaches", "read_kernels_json", "score_campaign", "score_folder", "score_shape",
    "score_sweep", "split_geomeans", "spread", "spread_of", "summarize", "verdict_of_speedup",
    "verdicts_document", "weighted_geomean", "BASES", "Roofs", "at_floor", "common_times", "decide_ladder",
    "device_roofs", "sweep_floor", "sweep_numbers", "sweep_replay_cost", "timing_floor", "verdict_baseline",
]
