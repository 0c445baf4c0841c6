"""The optimization plan panel: findings with their evidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.site.views.base import DASH, KernelData, SiteContext, fmt_pct
from generator.site.views.overview import IndexRow
from generator.site.views.panel import register_panel
from generator.site.views.source import isa_href


# ---- advice

@dataclass
class Link:
    text: str
    href: str


@dataclass
class EvidenceItem:
    """One piece of a finding's evidence: a label, a text and links to ISA rows."""

    label: str
    text: str
    links: list[Link]


@dataclass
class FindingView:
    title: str
    detector: str
    share: str
    priority: str
    suggestion: str
    summary: str
    evidence: list[EvidenceItem]
    flagged: bool
    anchor: str = ""  # element id on the advice panel (``advice-c<i>-f<j>``): the diagnosis links here


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def evidence_items(ev: Any, isa: str | None, limit: int = 12) -> list[EvidenceItem]:
    """Readable evidence: scalars and short lists inline, PCs as links into the ISA page ``isa``
    (``views.source.isa_href``), nested records counted."""
    if not isinstance(ev, dict):
        return [EvidenceItem("", str(ev), [])] if ev else []
    out = []
    for key, v in ev.items():
        if key == "summary":
            continue
        label = str(key).replace("_", " ")
        is_pc = str(key).endswith(("pc", "pcs", "pc_index"))
        if is_pc and isa and isinstance(v, int) and not isinstance(v, bool):
            out.append(EvidenceItem(label, "", [Link(str(v), f"{isa}#pc{v}")]))
        elif is_pc and isa and isinstance(v, list) and all(isinstance(x, int) for x in v):
            more = f"+{len(v) - limit} more" if len(v) > limit else ""
            out.append(EvidenceItem(label, more, [Link(str(x), f"{isa}#pc{x}") for x in v[:limit]]))
        elif isinstance(v, (str, int, float, bool)) or v is None:
            out.append(EvidenceItem(label, DASH if v is None else _scalar(v), []))
        elif isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) for x in v):
            text = ", ".join(_scalar(x) for x in v[:limit]) + (f" (+{len(v) - limit} more)" if len(v) > limit else "")
            out.append(EvidenceItem(label, text, []))
        elif isinstance(v, dict) and all(isinstance(x, (str, int, float, bool)) or x is None for x in v.values()):
            out.append(EvidenceItem(label, ", ".join(f"{k_}={_scalar(x)}" for k_, x in v.items()), []))
        elif isinstance(v, list):
            out.append(EvidenceItem(label, f"{len(v)} records (in the JSON)", []))
    return out


def finding_view(f: dict[str, Any], isa: str | None = None) -> FindingView:
    """Display values of one advice finding (``Finding.to_json()``); PCs link into the ISA page ``isa``."""
    ev = f.get("evidence")
    share = f.get("stall_share")
    return FindingView(
        title=str(f.get("title", "")),
        detector=str(f.get("detector", "")),
        share=fmt_pct(share) if isinstance(share, (int, float)) and share > 0 else "",
        priority=str(f.get("priority", "")),
        suggestion=str(f.get("suggestion", "")),
        summary=str(ev.get("summary", "")) if isinstance(ev, dict) else "",
        evidence=evidence_items(ev, isa),
        flagged=bool(f.get("flagged")),
    )


@dataclass
class AdviceView:
    capture: str
    href: str
    findings: list[FindingView]


@register_panel("advice", "Optimization plan", 60)
def _advice_panel(k: KernelData, row: IndexRow, ctx: SiteContext) -> list[AdviceView] | str | None:
    if not any(c.analysis for c in k.captures):
        return None
    if all(c.findings is None for c in k.captures if c.analysis):
        return "The advice stage is not available in this build, so there is no ranked plan."
    order = sorted(range(len(k.captures)), key=lambda i: not k.captures[i].is_primary)
    out = []
    for i in order:
        c = k.captures[i]
        if c.analysis is None or c.findings is None:
            continue
        title = (c.name if not c.label or c.label == c.name else f"{c.label} \u00b7 {c.name}") \
            + (" (primary)" if c.is_primary else "")
        views = [finding_view(f, isa_href(i)) for f in c.findings]
        for j, v in enumerate(views):
            v.anchor = f"advice-c{i}-f{j}"
        out.append(AdviceView(title, f"#c{i}", views))
    return out
