"""The verdict badge and the pull-request snippet of a kernel."""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

from generator.model import record
from generator.site import charts
from generator.site.views.base import KernelData, SiteContext, md_text
from generator.site.views.kernel import pr_snippet
from generator.site.views.index_row import IndexRow


# ---------------------------------------------------------------- badge and PR snippet

@record
class BadgeView:
    """The verdict badge (``badges/<slug>.svg``): the verdict word on the left, what it rests on (its
    ratio, or a BLOCKED kernel's reason) on the right; sizes in px, each text's measured width
    (``text_px``) given as its ``textLength`` so that it fills its box in any font."""

    label: str
    value: str
    title: str
    color: str
    width: int
    left: int
    right: int
    left_x: float
    right_x: float
    left_text: float = 0.0  # the measured width of each text
    right_text: float = 0.0


#: The advance widths of the badge's font.
WIDTHS_FILE = Path(__file__).resolve().parent.parent.parent / "data" / "badge_widths.json"
#: The badge's text: 11 px, and the padding each side of a text in its box.
BADGE_FONT_PX, BADGE_PAD = 11, 6


@functools.lru_cache(maxsize=1)
def _widths() -> tuple[dict[str, int], int, int]:
    """(character -> advance width, units per em, the widest advance) of DejaVu Sans
    (``generator/data/badge_widths.json``, made by ``tests/data/make_badge_widths.py``), read as a file beside
    the package as ``device_peaks`` reads its table: ``importlib.resources`` imported ``zipfile`` and its
    readers in each build worker, 5 ms apiece (issue 41)."""
    doc = json.loads(WIDTHS_FILE.read_text(encoding="utf-8"))
    widths = {k: int(v) for k, v in doc["widths"].items()}
    return widths, int(doc["units_per_em"]), max(widths.values())


def text_px(text: str, size: float = BADGE_FONT_PX) -> float:
    """The width of ``text`` at ``size`` px in the badge's font, from its advance widths; a character the
    table lacks counts as its widest (a CJK one as a full em), so that the box is never too small."""
    widths, units, widest = _widths()
    total = sum(widths.get(ch, units if ord(ch) >= 0x2E80 else widest) for ch in text)
    return round(total * size / units, 2)


def badge_view(row: IndexRow) -> BadgeView:
    """Badge of one kernel: the verdict word on the left (BLOCKED too); on the right the ratio it rests
    on and its basis, or a BLOCKED kernel's reason; the title says it whole."""
    label = row.verdict_label
    if row.verdict == "BLOCKED" and row.blocked_reason:
        value = row.blocked_reason
    elif row.ratio is not None:
        value = row.ratio_text + (f" \u00b7 {row.verdict_basis}" if row.basis_text else "")
        if row.verdict_basis == "shapes" and row.verdict_geomean:
            value += f" \u00b7 {row.verdict_geomean[1]} shapes"
    else:
        value = "capture only" if row.verdict is None else "ledger only" if row.verdict == "UNTIMED" else "no ratio"
    color = charts.VERDICT_COLORS.get(row.verdict or "", "#8c959f")
    lt, rt = text_px(label), text_px(value)
    left, right = math.ceil(lt) + 2 * BADGE_PAD, math.ceil(rt) + 2 * BADGE_PAD
    flags = f" ({'; '.join(row.flags)})" if row.flags else ""
    basis = f", {row.basis_text}" if row.basis_text and row.basis_text != value else ""
    sure = f" ({row.interval_title})" if row.interval_title else ""  # rule 14
    launch = f"; {row.launch_title}" if row.launch_title else ""  # rule 13: the launcher beside the kernel verdict
    said = row.ratio_text if row.ratio is not None else value
    return BadgeView(label=label, value=value,
                     title=f"{row.name}: {label} {said}{basis}{sure}{flags}{launch}",
                     color=color, width=left + right, left=left, right=right,
                     left_x=left / 2, right_x=left + right / 2, left_text=lt, right_text=rt)


@record
class PrView:
    """``pr/<slug>.md``: the snippet and a small table, every value inert Markdown."""

    snippet: str
    rows: list[tuple[str, str]]


def pr_view(k: KernelData, row: IndexRow, ctx: SiteContext) -> PrView:
    """The pull-request Markdown of one kernel."""
    rows = [("verdict", md_text(row.verdict_label)), ("verdict ratio", md_text(row.ratio_text)),
            ("basis", md_text(row.basis_text or (row.verdict_basis or "\u2014"))),
            ("shapes interval", md_text(row.interval_title or "\u2014")),
            ("launcher", md_text(row.launch_title or "\u2014")),
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
        held = f"limited by {row.limiter_text}" if row.cap_binds else row.limiter_text
        rows.append(("occupancy", md_text(f"{row.occupancy_text}, {held}")))
    if row.headline_note:
        rows.append(("headline pair", md_text(row.headline_note)))
    for m in row.missing:
        rows.append(("missing", md_text(m)))
    return PrView(snippet=pr_snippet(row, ctx.base_url), rows=rows)
