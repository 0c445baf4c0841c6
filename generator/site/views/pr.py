"""The verdict badge and the pull-request snippet of a kernel."""

from __future__ import annotations

from dataclasses import dataclass

from generator.site import charts
from generator.site.views.base import KernelData, SiteContext, md_text
from generator.site.views.kernel import pr_snippet
from generator.site.views.overview import IndexRow


# ---------------------------------------------------------------- badge and PR snippet

@dataclass
class BadgeView:
    """The verdict badge (``badges/<slug>.svg``): label and value boxes, sizes in px."""

    label: str
    value: str
    title: str
    color: str
    width: int
    left: int
    right: int
    left_x: float
    right_x: float


def _text_px(text: str) -> int:
    """Approximate width of 11px Verdana text (wide glyphs count double)."""
    return int(sum(7 if ord(ch) < 0x2E80 else 12 for ch in text) + 10)


def badge_view(row: IndexRow) -> BadgeView:
    """Badge of one kernel: verdict on the left, the ratio it rests on and its basis on the right."""
    label = row.verdict_label
    if row.ratio is not None:
        value = row.ratio_text + (f" \u00b7 {row.verdict_basis}" if row.basis_text else "")
        if row.verdict_basis == "shapes" and row.verdict_geomean:
            value += f" \u00b7 {row.verdict_geomean[1]} shapes"
    else:
        value = "no data" if row.verdict is None else label.lower()
        label = "verdict"
    color = charts.VERDICT_COLORS.get(row.verdict or "", "#8c959f")
    left, right = _text_px(label), _text_px(value)
    flags = f" ({'; '.join(row.flags)})" if row.flags else ""
    basis = f", {row.basis_text}" if row.basis_text else ""
    sure = f" ({row.interval_title})" if row.interval_title else ""  # rule 14
    launch = f"; {row.launch_title}" if row.launch_title else ""  # rule 13: the launcher beside the kernel verdict
    if row.blocked_reason:
        value = row.blocked_reason
    return BadgeView(label=label, value=value,
                     title=f"{row.name}: {row.verdict_label} {row.ratio_text}{basis}{sure}{flags}{launch}",
                     color=color, width=left + right, left=left, right=right,
                     left_x=left / 2, right_x=left + right / 2)


@dataclass
class PrView:
    """``pr/<slug>.md``: the snippet and a small table, every value inert Markdown."""

    snippet: str
    rows: list[tuple[str, str]]


def pr_view(k: KernelData, row: IndexRow, ctx: SiteContext) -> PrView:
    """The pull-request Markdown of one kernel."""
    rows = [("verdict", md_text(row.verdict_label)), ("verdict ratio", md_text(row.ratio_text)),
            ("basis", md_text(row.basis_text or (row.verdict_basis or "\u2014"))),
            ("shapes interval", md_text(row.interval_title or "\u2014")),
            ("launch overhead", md_text(row.launch_title or "\u2014")),
            ("geomean vs any baseline", md_text(row.geomean_text)),
            ("wins", md_text(row.wins_text)), ("weighted geomean", md_text(row.weighted_text)),
            ("failures", md_text(row.failures_text)), ("best baseline", md_text(row.best_baseline_text))]
    if k.score is not None and k.score.worst is not None:
        rows.append(("worst shape", md_text(k.score.worst_text)))
    if row.at_floor:
        rows.append(("at the timing floor", md_text(f"{row.at_floor} shapes (left out of the verdict)")))
    if row.blocked_reason:
        rows.append(("blocked", md_text(row.blocked_reason)))
    if row.severity:
        rows.append(("severity", md_text(f"{row.severity['level']}: {row.severity['detail']}")))
    if row.flags:
        rows.append(("flags", md_text("; ".join(row.flags))))
    if row.top_stall:
        rows.append(("top stall type", md_text(f"{row.top_stall} (stall ratio {row.stall_ratio_text})")))
    if row.occupancy is not None:
        rows.append(("occupancy", md_text(f"{row.occupancy_text}, limited by {row.limiter_text}")))
    if row.headline_note:
        rows.append(("headline pair", md_text(row.headline_note)))
    for m in row.missing:
        rows.append(("missing", md_text(m)))
    return PrView(snippet=pr_snippet(row, ctx.base_url), rows=rows)
