"""The data and provenance panel."""

from __future__ import annotations


from generator.model import record
from generator.site.views.base import KernelData, SiteContext, not_said_by_captures
from generator.site.views.overview import Fact
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel


@record
class DataView:
    links: list[Fact]
    missing: list[str]
    broken: list[str]
    notes: list[str]


@register_panel("data", "Data and provenance", 90)
def _data_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> DataView:
    links = [
        Fact("this page as JSON", f"api/kernels/{k.slug}.json", "data.json", href=f"../../api/kernels/{k.slug}.json"),
        Fact("badge", f"badges/{k.slug}.svg", "data.badge", href=f"../../badges/{k.slug}.svg"),
        Fact("pull-request snippet", f"pr/{k.slug}.md", "data.pr", href=f"../../pr/{k.slug}.md"),
        Fact("all kernels as JSON", "api/index.json", "data.index", href="../../api/index.json"),
    ]
    if k.bundle_rel:
        links.append(Fact("bundle in the sweep", k.bundle_rel, "data.bundle"))
    if k.score is not None and k.score.path:
        links.append(Fact("campaign in the sweep", k.score.path, "data.campaign"))
    return DataView(links, not_said_by_captures(k.missing), list(k.broken), list(k.notes))
