"""The kernel page's CI panel: the CI series whose op is this kernel (``SiteContext.ci_series``, filled by
``generator.site.ci_site`` when the build has ``--ci``), each linked to its trend page."""

from __future__ import annotations

from generator.site.views.base import KernelData, SiteContext
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel


@register_panel("ci", "CI benchmark stream", 85)
def _ci_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> list | None:
    """``[(runner, op, series, regressed on main, href from the kernel page)]``, or None (no panel)."""
    links = ctx.ci_series.get(k.slug)
    return [(runner, op, n, regs, "../../" + href) for runner, op, n, regs, href in links] if links else None
