"""The REPORT.md panel: the two checked claims (occupancy, wave states) above the report as written."""

from __future__ import annotations


from markupsafe import Markup

from generator.analyze.message import from_json
from generator.model import record
from generator.site.views.base import KernelData, SiteContext
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel
from generator.site.wording import Said, said

#: Catalogue key of each kind of checked claim (``analyze.report_checks``).
WHAT_KEYS = {"occupancy": "report.check.occupancy", "wave states": "report.check.states"}


@record
class CheckRow:
    """One checked claim: its kind (catalogue key), the report's line, our value, the verdict, why."""

    what_key: str
    report: str
    computed: str
    holds: bool
    why: Said | None

    @property
    def css(self) -> str:
        return "good" if self.holds else "bad"

    @property
    def mark_key(self) -> str:
        return "report.holds" if self.holds else "report.differs"


@record
class ReportView:
    """The report panel: checks first, then the report's HTML (sanitized at gathering)."""

    checks: list[CheckRow]
    html: Markup


def check_rows(checks: list[dict]) -> list[CheckRow]:
    """Display rows of ``KernelData.report_checks``."""
    return [CheckRow(WHAT_KEYS[c["what"]], c["report"], c["computed"], c["holds"],
                     said(from_json(c["why"])) if c.get("why") else None) for c in checks]


@register_panel("report", "REPORT.md", 70)
def _report_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> ReportView | None:
    if not k.report_html:
        return None
    return ReportView(check_rows(k.report_checks), Markup(k.report_html))


@register_panel("campaign_reports", "Campaign reports", 71)
def _campaign_reports_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> list[tuple[str, Markup]] | None:
    """The campaign folder's Markdown reports (``BENCHMARK_REPORT.md``, ``REPORT_<suite>.md``), sanitized."""
    return [(name, Markup(html)) for name, html in k.campaign_reports] or None
