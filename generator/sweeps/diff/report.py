"""Render a sweep diff: the JSON document, plain text and the Markdown comment."""

from __future__ import annotations

import math
from typing import Any, Mapping

from generator.words import plural
from generator.model import FORMAT_VERSION
from generator.sweeps.diff.changes import (
    CANDIDATE,
    DIFF_MARKER,
    IMPROVEMENT,
    REGRESSION,
    VERDICT_ORDER,
    Change,
    KernelDiff,
    SweepDiff,
    _size,
    fmt_pct,
    fmt_x,
)
from generator.sweeps.snapshot import ENVIRONMENT_KEYS


def counts_text(old: Mapping[str, int], new: Mapping[str, int]) -> str:
    """``WIN 4 → 3, PARITY 0, HEADROOM 9 → 10``: every verdict present on either side."""
    parts = []
    for v in VERDICT_ORDER:
        a, b = old.get(v, 0), new.get(v, 0)
        if a or b:
            parts.append(f"{v} {a}" if a == b else f"{v} {a} → {b}")
    return ", ".join(parts) or "no verdicts"


def headline(d: SweepDiff) -> str:
    """One line: regressions / improvements, verdict counts, the biggest moves."""
    reg, imp = len(d.regressions), len(d.improvements)
    not_candidate = sum(1 for k in d.regressions if CANDIDATE not in k.movers)
    parts = [f"{plural(reg, 'regression')}"
             + (f" ({not_candidate} by {'a baseline' if not_candidate == 1 else 'baselines'} alone)" if not_candidate else "")
             + f", {plural(imp, 'improvement')}"
             if reg or imp else "no significant change of any kernel's standing"]
    compared = d.comparison_changes
    if compared:
        parts.append(f"{plural(len(compared), 'comparison change')} (not the candidate's): " + ", ".join(
            _comparison_move(k) for k in compared))
    slower = [c for k in d.kernels if k.standing != REGRESSION for c in k.shape_regressions]
    if slower:  # in kernels that did not regress as a whole (those say so above)
        parts.append(f"{plural(len(slower), 'shape')} slower beyond {'its' if len(slower) == 1 else 'their'} noise "
                     f"in {plural(len({c.slug for c in slower}), 'kernel')} that held {'its' if len({c.slug for c in slower}) == 1 else 'their'} geomean")
    parts.append(f"verdicts {counts_text(d.old_counts, d.new_counts)}")
    moves = d.biggest_moves()
    if moves:
        parts.append("biggest moves: " + ", ".join(
            f"{k.name} {fmt_x(k.headline_change.old)} → {fmt_x(k.headline_change.new)} ({fmt_pct(k.headline_change.ratio)})"
            for k in moves))
    return " · ".join(parts)


def _comparison_move(k: KernelDiff) -> str:
    """``moe_gemm 157.59x → 2.93x (-98.1%) with aiter now passes (was failed) on 3 shapes``."""
    g = k.headline_change
    move = f" {fmt_x(g.old)} → {fmt_x(g.new)} ({fmt_pct(g.ratio)})" if g is not None and g.significant \
        and g.ratio is not None and k.comparison_only else ""
    checked = next((c.causes[0].detail for c in k.of_kind("shape-status") if c.item == "check" and c.causes), "")
    what = "; ".join(x for x in (checked, next((c.causes[0].detail for c in k.of_kind("comparison") if c.causes), "")) if x)
    return f"{k.name}{move}" + (f" with {what}" if what else "")


def failing_lines(d: SweepDiff, strict: bool = False, max_rows: int = 20) -> list[str]:
    """What ``--fail-on-regression`` fails on, one line per kernel then per shape (empty: nothing)."""
    kernels, shapes = d.failing(strict)
    by_slug: dict[str, list[Change]] = {}
    for c in shapes:
        by_slug.setdefault(c.slug or "", []).append(c)
    lines = []
    for k in d.kernels:
        mine = by_slug.get(k.slug, [])
        if k not in kernels and not mine:
            continue
        g = k.headline_change
        whole = f": {fmt_x(g.old)} → {fmt_x(g.new)} ({fmt_pct(g.ratio)})" if k in kernels and g is not None else ""
        causes = k.shown_causes[1]
        lines.append(f"regressed: {k.name} ({k.slug}){whole}; {plural(len(mine), 'shape')} slower"
                     + (f" [{'; '.join(c.text for c in causes)}]" if causes else ""))
        for c in mine[:max_rows]:
            lines.append(f"  {k.label(c)}: {c.text}  [{c.cause_text}]")
        if len(mine) > max_rows:
            lines.append(f"  ... and {plural(len(mine) - max_rows, 'more shape')}")
    return lines


def environment_summary(d: SweepDiff) -> str:
    """The measured environment changes of all kernels: ``rocm 7.2.0 → 7.3.0 (2 kernels)``."""
    seen: dict[str, list[str]] = {}
    for k in d.kernels:
        for c in k.of_kind("provenance"):
            if c.item in ENVIRONMENT_KEYS:
                seen.setdefault(c.text, []).append(k.slug)
    return ", ".join(f"{text} ({plural(len(slugs), 'kernel')})" for text, slugs in seen.items())


def diff_document(d: SweepDiff) -> dict[str, Any]:
    """The ``diff --json`` document."""
    return {
        "format_version": FORMAT_VERSION,
        "kind": "kernel-atlas-diff",
        "old": {"label": d.old_label, "verdict_counts": d.old_counts},
        "new": {"label": d.new_label, "verdict_counts": d.new_counts},
        "options": {"min_change": d.options.min_change, "stall_points": d.options.stall_points,
                    "renames": [list(p) for p in d.options.renames]},
        "headline": headline(d),
        "environment": environment_summary(d),
        "regressions": [k.slug for k in d.regressions],
        "shape_regressions": [[c.slug, c.shape_id] for c in d.shape_regressions],
        "improvements": [k.slug for k in d.improvements],
        "comparison_changes": [k.slug for k in d.comparison_changes],
        "candidate_regressions": [k.slug for k in d.failing()[0]],
        "candidate_shape_regressions": [[c.slug, c.shape_id] for c in d.failing()[1]],
        "kernels": [k.to_json() for k in d.kernels if k.changes],
        "unchanged": [k.slug for k in d.kernels if not k.changes],
        "provenance": [c.to_json() for c in d.provenance],
        "notes": list(d.notes),
    }


def render_text(d: SweepDiff, max_rows: int = 20) -> str:
    """The terminal report: headline, significant changes per kernel, then a summary of the rest."""
    lines = [f"{d.old_label} → {d.new_label}: {headline(d)}"]
    env = environment_summary(d)
    if env:
        lines.append("environment: " + env)
    for k in d.notable:
        lines.append("")
        shapes = significant_shapes(k)
        lines.append(f"{k.name} ({k.slug}): " + "; ".join(_kernel_line(k, shapes)))
        for c in shapes[:max_rows]:
            lines.append(f"  {k.label(c)}: {c.text}  [{c.cause_text}]")
        if len(shapes) > max_rows:
            lines.append(f"  ... and {plural(len(shapes) - max_rows, 'more shape')}")
        subject, causes = k.shown_causes
        if causes:
            subject = "shape moves" if subject == "shapes" else f"{subject} change"
            lines.append(f"  cause of the {subject}: {'; '.join(c.text for c in causes)}")
    quiet = [k for k in d.kernels if k.changes and not k.significant]
    if quiet:
        lines.append("")
        lines.append("within noise or provenance only: " + ", ".join(k.slug for k in quiet))
    lines += [f"note: {n}" for n in d.notes]
    return "\n".join(lines) + "\n"


def _kernel_line(k: KernelDiff, shapes: list[Change]) -> list[str]:
    """A notable kernel's changes beyond noise; where only shapes moved, how many, and its headline number's
    move within noise (so the line never ends empty)."""
    parts = [c.text for c in k.significant if c.kind not in ("shape", "shape-status")]
    if parts:
        return parts
    parts = [f"{plural(len(shapes), 'shape')} beyond {'its' if len(shapes) == 1 else 'their'} noise"]
    g = k.headline_change
    if g is not None and not g.significant:
        parts.append(f"within noise: {g.text}")
    return parts


def significant_shapes(k: KernelDiff) -> list[Change]:
    """A kernel's shape changes beyond noise: regressions first, the biggest first, else ledger order."""
    moved = [c for c in k.significant if c.kind in ("shape", "shape-status")]
    return sorted(moved, key=lambda c: (0 if c.direction == REGRESSION else 1,
                                        -(_size(c.ratio) if c.ratio else math.inf)))


def _md(text: Any) -> str:
    """Escape a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def kernel_link(k: KernelDiff, site_url: str | None) -> str:
    """``[Softmax](https://site/kernels/softmax/)``; relative ``kernels/<slug>/`` without a site URL."""
    base = (site_url.rstrip("/") + "/") if site_url else ""
    if k.status == "removed":
        return f"{_md(k.name)} (`{k.slug}`)"
    return f"[{_md(k.name)}]({base}kernels/{k.slug}/)"


def _verdict_cell(k: KernelDiff) -> str:
    if k.old_verdict == k.new_verdict:
        return k.new_verdict or "—"
    return f"{k.old_verdict or '—'} → **{k.new_verdict or '—'}**"


def _geomean_cell(k: KernelDiff) -> str:
    """The "Verdict ratio" cell: the ratio each side's verdict rests on (never the geomean vs any baseline
    under that name: where the two sides do not read it on one basis, both ratios, no percentage)."""
    g = k.headline_change
    if g is None:
        return fmt_x(k.new_ratio if k.status != "removed" else k.old_ratio)
    if g.kind != "verdict_ratio":
        return f"{fmt_x(k.old_ratio)} → {fmt_x(k.new_ratio)}"
    text = f"{fmt_x(g.old)} → {fmt_x(g.new)}"
    if g.ratio is not None:
        if not g.significant:
            text += f" ({fmt_pct(g.ratio)}, noise)"
        elif k.comparison_only:
            text += f" ({fmt_pct(g.ratio)}, comparison)"
        else:
            text += f" ({fmt_pct(g.ratio)})"
    return text


def _shapes_cell(k: KernelDiff) -> str:
    moved = [c for c in k.significant if c.kind in ("shape", "shape-status")]
    down = sum(1 for c in moved if c.direction == REGRESSION and not c.comparison_only)
    up = sum(1 for c in moved if c.direction == IMPROVEMENT and not c.comparison_only)
    compared = sum(1 for c in moved if c.comparison_only)
    if not moved:
        return "—"
    return f"{down} ↓ {up} ↑ of {k.n_shapes_both}" + (f", {compared} by the comparison" if compared else "")


def _hotspot_cell(k: KernelDiff) -> str:
    shifts = [c for c in k.of_kind("hotspot") if c.significant]
    return "; ".join(_md(c.text) for c in shifts) or "—"


def render_markdown(d: SweepDiff, site_url: str | None = None, marker: bool = True, max_rows: int = 20) -> str:
    """The pull-request comment: marker, headline, a table of significant changes, the rest folded."""
    lines = [DIFF_MARKER] if marker else []
    lines.append(f"### Kernel Atlas: `{_md(d.old_label)}` → `{_md(d.new_label)}`")
    lines.append("")
    lines.append(f"**{headline(d)}**")
    env = environment_summary(d)
    if env:
        lines.append("")
        lines.append("Environment changed: " + _md(env))
    notable = d.notable
    if notable:
        lines += ["", "| Kernel | Verdict | Verdict ratio | Shapes beyond noise | Hotspot | Cause |",
                  "|---|---|---|---|---|---|"]
        for k in notable:
            cause = "; ".join(_md(c.text) for c in k.shown_causes[1]) or "—"
            if k.status in ("new", "removed"):
                cause = k.status
            lines.append(f"| {kernel_link(k, site_url)} | {_verdict_cell(k)} | {_geomean_cell(k)} | "
                         f"{_shapes_cell(k)} | {_hotspot_cell(k)} | {cause} |")
    lines += _details_shapes(d, site_url, max_rows)
    lines += _details_noise(d, site_url)
    lines += _details_new_removed(d, site_url, max_rows)
    lines += _details_provenance(d, site_url)
    if d.notes:
        lines += ["", *[f"- {_md(n)}" for n in d.notes]]
    lines += ["", f"<sub>A change counts when it beats the measured noise (p90/p10) and "
                  f"{d.options.min_change * 100:g}%; hotspot shifts: top stall type, occupancy, or the stall "
                  f"ratio by {d.options.stall_points * 100:g} points.</sub>"]
    return "\n".join(lines) + "\n"


def _fold(summary: str, body: list[str]) -> list[str]:
    """A ``<details>`` block (nothing when the body is empty)."""
    if not body:
        return []
    return ["", "<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>"]


def _details_shapes(d: SweepDiff, site_url: str | None, max_rows: int) -> list[str]:
    """Per-shape changes beyond noise, per kernel, with args."""
    body: list[str] = []
    total = 0
    for k in d.notable:
        shapes = significant_shapes(k)
        if not shapes:
            continue
        total += len(shapes)
        body += [f"**{kernel_link(k, site_url)}**", "", "| Shape | Speedup | Change | Cause |", "|---|---|---|---|"]
        for c in shapes[:max_rows]:
            speed = f"{fmt_x(c.old)} → {fmt_x(c.new)}" if c.kind == "shape" else _md(c.text)
            change = fmt_pct(c.ratio) if c.ratio is not None else ("↑" if c.direction == IMPROVEMENT else "↓")
            body.append(f"| `{_md(k.label(c))}` | {speed} | {change} | {_md(c.cause_text)} |")
        if len(shapes) > max_rows:
            body.append(f"| … and {len(shapes) - max_rows} more | | | |")
        body.append("")
    return _fold(f"Per-shape changes beyond noise ({total})", body[:-1] if body else body)


def _details_noise(d: SweepDiff, site_url: str | None) -> list[str]:
    """Geomean and shape moves that stay within the noise, and minor hotspot moves."""
    body = []
    for k in d.kernels:
        quiet = [c for c in k.changes if not c.significant and c.kind in ("verdict_ratio", "geomean", "shape", "hotspot")]
        if not quiet:
            continue
        g = [c for c in quiet if c.kind in ("verdict_ratio", "geomean")]
        shapes = [c for c in quiet if c.kind == "shape"]
        hot = [c for c in quiet if c.kind == "hotspot"]
        parts = [c.text for c in g + hot]
        if shapes:
            parts.append(f"{plural(len(shapes), 'shape')} moved within noise")
        body.append(f"- {kernel_link(k, site_url)}: {_md('; '.join(parts))}")
    return _fold(f"Within noise or below the thresholds ({plural(len(body), 'kernel')})", body)


def _details_new_removed(d: SweepDiff, site_url: str | None, max_rows: int) -> list[str]:
    """New and removed kernels and shapes."""
    body = []
    for k in d.kernels:
        for c in k.of_kind("kernel-new", "kernel-removed", "kernel-renamed"):
            body.append(f"- {kernel_link(k, site_url)}: {_md(c.text)}")
        for kind, word in (("shape-new", "new"), ("shape-removed", "removed")):
            shapes = k.of_kind(kind)
            if shapes:
                listed = ", ".join(f"`{_md(k.label(c))}`" for c in shapes[:max_rows])
                more = f" and {len(shapes) - max_rows} more" if len(shapes) > max_rows else ""
                body.append(f"- {kernel_link(k, site_url)}: {plural(len(shapes), word + ' shape')}: {listed}{more}")
    return _fold(f"New and removed ({len(body)})", body)


def _details_provenance(d: SweepDiff, site_url: str | None) -> list[str]:
    """Sweep and per-kernel provenance changes."""
    body = [f"- sweep: {_md(c.text)}" for c in d.provenance]
    for k in d.kernels:
        prov = k.of_kind("provenance")
        if prov:
            body.append(f"- {kernel_link(k, site_url)}: {_md('; '.join(c.text for c in prov))}")
    return _fold(f"Provenance changes ({len(body)})", body)
