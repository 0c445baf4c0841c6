"""Compare two sweep snapshots: what changed, whether it is real, and who caused it.

Pure functions: ``diff_snapshots(old, new, options) -> SweepDiff``, then one renderer per
output (``render_text``, ``render_markdown``, ``diff_document``). No file is read here.

The package, by job: ``changes`` (the diff's objects and their text), ``rules`` (significance and
attribution), ``compare`` (kernels and the sweep), ``report`` (JSON, text, Markdown).

When a change is real (the math)
--------------------------------
Every timing comparison is a ratio ``r = new / old`` (a geomean, a shape's speedup, a
candidate or baseline time). Its noise is the measured run-to-run spread: the kernel's
``noise`` (median over shapes of the larger ``p90/p10`` of candidate and best baseline)
for a geomean, the shape's own ``noise`` for a shape, the larger of the OLD and NEW
values. A change is *significant* when

    |ln r| > T,   T = ln max(noise_old, noise_new, 1 + min_change)

so it must beat both the noise and a relative floor (``min_change``, 2 % by default: a
steady 1 % drift is not news even on a very quiet kernel). Verdict changes are always
listed; one whose geomean change does not beat ``T`` is attributed to noise.

Who caused it (attribution)
---------------------------
speedup = best baseline time / candidate time, so a speedup ratio is
``r = b / c`` with ``c = cand_new / cand_old`` and ``b = base_new / base_old`` (for a
kernel: the geomeans of ``c`` and ``b`` over shapes measured on both sides). A side
*moved* when its ratio beats ``T``. Then, in order:

* the candidate moved and its commit changed: **candidate** (``flydsl a -> b``);
* the baseline moved and that provider's library commit changed: **baseline**;
* either side moved and the environment changed (GPU, arch, ROCm, driver, torch,
  triton; torch and triton also version the ``pytorch`` and ``triton`` baselines):
  **environment**;
* a side moved with none of these recorded: **unexplained** (rerun to rule out noise);
* the change does not beat ``T``: **noise**.

Before those, the **comparison**: a shape's best baseline changed because a baseline was added,
removed, or started or ceased to pass (``ShapePoint.baseline_status``; "ok" is passing). Then the
speedup moved with neither side's own time, so the baseline's ratio is not tested on that shape nor
counted in the kernel's ``b``. A kernel's cause is the summary of its shapes' (``kernel_known_causes``:
the baselines' status moves, the shapes the candidate now passes or no longer passes), and is
"unexplained" only when nothing names one. Every cause says who moved (``Cause.sides``: candidate,
baseline, comparison, check); a move that is the comparison's alone is no regression or improvement (it is
listed as a comparison change), and ``--fail-on-regression`` fails only on moves the candidate is among.

The **check**: a shape the candidate starts (or ceases) to pass the correctness check on, where a
baseline at the same commit does the same on the same shape, moved by the check itself (the harness's
tolerance), neither kernel (``rules.check_movers``). A commit or environment value one side does not
record is unknown there, not a change (``rules.changed``): a sweep without docs/data/kernels.json
names no candidate commit, and that is no "commit — → 7255fff8" cause.

Hotspot shifts (primary capture): the top stall type or the occupancy (waves per SIMD,
limiter) changed, or the stall ratio moved by at least ``stall_points`` (5 percentage
points by default); a single ATT capture has no measured noise, so these are facts, not
tests. They are attributed to a changed candidate commit or environment when there is one.
"""

from __future__ import annotations

from generator.sweeps.diff.changes import (
    BASELINE,
    CANDIDATE,
    COMPARISON,
    DIFF_MARKER,
    ENVIRONMENT,
    IMPROVEMENT,
    NEUTRAL,
    NOISE,
    PROVIDER_ENVIRONMENT,
    REGRESSION,
    UNEXPLAINED,
    VERDICT_ORDER,
    VERDICT_RANK,
    Cause,
    Change,
    DiffOptions,
    KernelDiff,
    SweepDiff,
    fmt_pct,
    fmt_x,
    shape_text,
    unique_labels,
)
from generator.sweeps.diff.compare import (
    diff_hotspot,
    diff_kernel,
    diff_kernel_provenance,
    comparison_facts,
    diff_shapes,
    diff_snapshots,
    diff_sweep_provenance,
    rename_hints,
)
from generator.sweeps.diff.report import (
    counts_text,
    diff_document,
    environment_summary,
    failing_lines,
    headline,
    kernel_link,
    render_markdown,
    render_text,
    significant_shapes,
)
from generator.sweeps.diff.rules import (
    attribute,
    baseline_commit,
    beats,
    comparable_baselines,
    direction_of,
    environment_changes,
    provider_name,
    ratio_of,
    shape_comparison,
    status_moves,
    threshold_factor,
    verdict_direction,
)

__all__ = [
    "BASELINE", "CANDIDATE", "COMPARISON", "Cause", "comparison_facts", "failing_lines", "shape_comparison",
    "status_moves", "unique_labels", "Change", "DIFF_MARKER", "DiffOptions", "ENVIRONMENT", "IMPROVEMENT",
    "KernelDiff", "NEUTRAL", "NOISE", "PROVIDER_ENVIRONMENT", "REGRESSION", "SweepDiff", "UNEXPLAINED",
    "VERDICT_ORDER", "VERDICT_RANK", "attribute", "baseline_commit", "beats", "comparable_baselines",
    "counts_text", "diff_document", "diff_hotspot", "diff_kernel", "diff_kernel_provenance", "diff_shapes",
    "diff_snapshots", "diff_sweep_provenance", "direction_of", "environment_changes", "environment_summary",
    "fmt_pct", "fmt_x", "headline", "kernel_link", "provider_name", "ratio_of", "rename_hints",
    "render_markdown", "render_text", "shape_text", "significant_shapes", "threshold_factor",
    "verdict_direction",
]
