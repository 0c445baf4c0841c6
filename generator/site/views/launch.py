"""The launch path panel: each kernel call's host API time, queue time and kernel time, measured from a
trace that joins the launch to its kernel (``analyze.launchpath``), beside VERDICTS rule 13's launch
overhead, which two clocks give only by difference."""

from __future__ import annotations


from generator.model import record
from generator.site import i18n
from generator.site.views.base import KernelData, SiteContext
from generator.site.views.overview import Fact
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel

#: Kernels of the trace shown (the busiest first).
SHOWN = 8


@record
class LaunchRow:
    kernel: str
    full: str
    api: str
    calls: str
    api_us: str
    queue_us: str
    kernel_us: str
    total_us: str
    css: str


@record
class LaunchView:
    facts: list[Fact]
    rows: list[LaunchRow]
    source: str


def _us(ns: float) -> str:
    return f"{ns / 1000:,.2f}"


def _short(name: str) -> str:
    from generator.analyze.kernel_table import short_kernel_name
    return short_kernel_name(name)


def _named(path: dict) -> str:
    """A path's kernel, with its grid where the kernel's calls launch several (one path per grid)."""
    grid = path.get("grid")
    return _short(path["kernel"]) + (f" (grid {'x'.join(str(g) for g in grid)})" if grid else "")


@register_panel("launch", "Launch path (measured)", 52, "panel.launch")
def _launch_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> LaunchView | None:
    rs = k.runstats or {}
    paths = rs.get("launch") or []
    if not paths:
        return None
    own = (rs.get("traced") or {}).get("name") or ""
    first = next((p for p in paths if own and p["kernel"] == own), paths[0])
    facts = [Fact.of("launch.measured", "launch.v.measured", kernel=_named(first), api=first["api"],
                     api_us=_us(first["api_ns"]), queue_us=_us(first["queue_ns"]), kernel_us=_us(first["kernel_ns"]),
                     calls=first["calls"])]
    lo, path = row.launch_overhead_us, row.launch_path_us
    if lo:  # rule 13's call gap, named as launch overhead only where its reading allows (``clocks.launch_reading``)
        at_least = row.launch_reading == "launch"
        facts.append(Fact.of("launch.rule13" if at_least else "launch.rule13.gap",
                             "launch.v.rule13" if at_least else "launch.v.rule13.gap", us=f"{lo[0]:+.1f}", n=lo[1],
                             path=f"{path[0]:+.1f}" if path else "\u2014", measured=_us(first["api_ns"] + first["queue_ns"])))
    rows = [LaunchRow(_named(p), p["kernel"], p["api"], str(p["calls"]), _us(p["api_ns"]), _us(p["queue_ns"]),
                      _us(p["kernel_ns"]), _us(p["total_ns"]), "traced" if p is first else "")
            for p in paths[:SHOWN]]
    return LaunchView(facts, rows, i18n.en("launch.source", files=(rs.get("sources") or {}).get("launch", "")))
