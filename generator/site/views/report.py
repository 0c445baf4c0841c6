"""The REPORT.md panel."""

from __future__ import annotations

from markupsafe import Markup

from generator.site.views.base import KernelData, SiteContext
from generator.site.views.overview import IndexRow
from generator.site.views.panel import register_panel


# ---- report and data

@register_panel("report", "REPORT.md", 70)
def _report_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> Markup | None:
    return Markup(k.report_html) if k.report_html else None


@register_panel("campaign_reports", "Campaign reports", 71)
def _campaign_reports_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> list[tuple[str, Markup]] | None:
    """The campaign folder's Markdown reports (``BENCHMARK_REPORT.md``, ``REPORT_<suite>.md``), sanitized."""
    return [(name, Markup(html)) for name, html in k.campaign_reports] or None
