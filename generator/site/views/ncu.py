"""The Nsight Compute profile summary panel."""

from __future__ import annotations

import re
from typing import Any

from generator.model import record
from generator.site.views.base import DASH, KernelData, SiteContext, sort_key
from generator.site.views.overview import Fact
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel
from generator.site.views.roofline import bound_zh
from generator.site.views.speed import ProviderCell


# ---- NVIDIA profile summary

@record
class NcuStageRow:
    kernel: str
    shape: str
    duration: str
    tensor_core: str
    dram: str
    occupancy: str
    bottleneck: str
    key_issue: str
    bottleneck_zh: str = ""


@record
class NcuOpportunity:
    """One of Nsight Compute's rules: led by what its metric shows (ours), then its own words, attributed."""

    rank: str
    lead: str
    attribution: str
    title: str
    advice: str


@record
class NcuBaselineRow:
    shape: str
    model: str
    stage: str
    dtype: str
    profiled: bool
    candidate: str
    cells: list[ProviderCell]
    best: str
    speedup: str
    css: str


@record
class NcuView:
    """The Nsight Compute profile summary (``generator.analyze.ncu_summary.ncu_summary``)."""

    provenance: str
    configuration: list[tuple[str, list[Fact]]]
    stages: list[NcuStageRow]
    bottleneck: str
    bottleneck_css: str
    root_cause: str
    locality: str
    opportunities: list[NcuOpportunity]
    candidate: str
    providers: list[str]
    baseline: list[NcuBaselineRow]
    unit: str
    notes: list[str]
_CLASS_CSS = {"win": "o-win", "parity": "o-parity", "headroom": "o-loss", "loss": "o-loss"}


def ncu_view(d: dict[str, Any]) -> NcuView:
    """Display values of an NCU summary dict (already display-ready strings, mostly)."""
    def txt(v: Any) -> str:
        return DASH if v is None or v == "" else v if isinstance(v, str) else str(v)
    conf = []
    for c in d.get("configuration") or []:
        title = txt(c.get("shape")) + (f" (launch {c.get('launch')})" if len(d.get("configuration") or []) > 1 else "")
        conf.append((title, [Fact(txt(p.get("name")), txt(p.get("value"))) for p in c.get("params") or []]))
    stages = [NcuStageRow(txt(st.get("kernel")), txt(st.get("shape")), txt(st.get("duration")),
                          txt(st.get("tensor_core")), txt(st.get("dram")), txt(st.get("achieved_occupancy")),
                          txt(st.get("bottleneck")), txt(st.get("key_issue")), bound_zh(txt(st.get("bottleneck"))))
              for st in d.get("stages") or []]
    b = d.get("bottleneck") or {}
    opps = [NcuOpportunity(txt(o.get("rank")), o.get("lead") or DASH, o.get("attribution") or DASH, txt(o.get("title")),
                           txt(o.get("advice"))) for o in d.get("opportunities") or []]
    base = d.get("baseline") or {}
    providers = [str(p) for p in base.get("providers") or []]
    rows = []
    for r in base.get("rows") or []:
        cells = []
        for p in providers:
            c = (r.get("baselines") or {}).get(p) or {}
            ok = c.get("status") == "ok"
            css = "t-ok" if ok else ("t-fail" if c.get("status") in ("failed", "oom", "incorrect") else "t-na")
            if p == r.get("best_baseline"):
                css += " t-best"
            cells.append(ProviderCell(txt(c.get("text")), css, "" if ok else txt(c.get("status")), sort_key(c.get("us"))))
        rows.append(NcuBaselineRow(txt(r.get("shape")), txt(r.get("model")), txt(r.get("stage")), txt(r.get("dtype")),
                                   bool(r.get("profiled")), txt(r.get("candidate")), cells, txt(r.get("best_baseline")),
                                   txt(r.get("speedup")), _CLASS_CSS.get(str(r.get("class")), "")))
    prov = d.get("provenance") or {}
    return NcuView(
        provenance=txt(prov.get("text")) if isinstance(prov, dict) else txt(prov),
        configuration=conf, stages=stages, bottleneck=txt(b.get("title")),
        bottleneck_css=re.sub(r"[^a-z0-9-]+", "-", str(b.get("kind", "")).lower()),
        root_cause=b.get("root_cause") or "", locality=b.get("locality") or "",
        opportunities=opps, candidate=txt(base.get("candidate")), providers=providers, baseline=rows,
        unit=txt(base.get("unit")), notes=[str(n) for n in d.get("notes") or []],
    )


@register_panel("ncu", "Profile summary (Nsight Compute)", 15)
def _ncu_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> NcuView | None:
    return ncu_view(k.ncu_summary) if k.ncu_summary else None
