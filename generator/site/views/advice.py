"""The optimization plan panel: findings with their evidence."""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

from markupsafe import Markup

from generator.analyze.message import sentence
from generator.model import CaptureAnalysis, record
from generator.site import i18n, wording
from generator.site.views.base import DASH, KernelData, SiteContext, fmt_pct
from generator.site.views.index_row import IndexRow
from generator.site.views.panel import register_panel
from generator.site.views.source import isa_href, isa_pc_href
from generator.site.wording import Seg


# ---- advice

@record
class Link:
    text: str
    href: str
    sep: str = ""  # printed before it: ", " after the first of a list


@record
class EvidenceItem:
    """One piece of a finding's evidence: a label, a text and links to ISA rows.

    ``label_zh`` is the label's 中文 (catalogue key ``finding.ev.<key>``) as HTML, made once per key: labels
    recur (sweep25's pages show 2,190 evidence items, 1,684 of them with a label in 中文), and with
    ``Link.sep`` in place of the template's ``loop.last`` this took the kernel pages' HTML from 0.26 s to
    0.245 s of a cold build's CPU (issue 41, sweep25). The text is data unless ``text_key`` (yes / no) or
    ``text_zh`` (counted records, "+N more") words it.
    """

    label: str
    text: str
    links: list[Link]
    label_zh: Markup = Markup("")
    text_key: str = ""
    text_zh: str = ""


@record
class FindingView:
    title: str
    detector: str
    share: str
    share_of: str  # the catalogue key of what the share is of: stalls, or (the launcher) a call
    priority: str
    suggestion: str
    summary: str
    evidence: list[EvidenceItem]
    flagged: bool
    anchor: str = ""  # element id on the advice panel (``advice-c<i>-f<j>``): the diagnosis links here
    acts: str = ""  # the share the plan ranks it by, when its suggestion leaves part of its share as it is
    #: the 中文 of title, summary and suggestion (``wording.segments``), when the finding is worded by key
    title_zh: list[Seg] | None = None
    summary_zh: list[Seg] | None = None
    suggestion_zh: list[Seg] | None = None
    #: the checked fact of the hot path the suggestion rests on (``Finding.premise``), English and 中文
    premise: str = ""
    premise_zh: list[Seg] | None = None
    #: what it rests on: its stall cycles of the capture's, instructions, waves sampled (issue 31)
    rests: str = ""
    rests_zh: list[Seg] | None = None


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


@lru_cache(maxsize=1024)
def _label_zh(key: str) -> Markup:
    """The 中文 of an evidence label (``finding.ev.<key>``) as HTML, its Latin runs data; empty without one."""
    k = f"finding.ev.{key}"
    return wording.html(wording.runs(i18n.zh(k))) if k in i18n.catalogue("zh") else Markup("")


def evidence_items(ev: Any, isa: str | None, limit: int = 12) -> list[EvidenceItem]:
    """Readable evidence: scalars and short lists inline, PCs as links into the ISA page ``isa``
    (``views.source.isa_href``), nested records counted."""
    if not isinstance(ev, dict):
        return [EvidenceItem("", str(ev), [])] if ev else []
    out = []
    for key, v in ev.items():
        if key in ("summary", "detail"):  # the summary is shown above; the detail is the title's, for the sweep page
            continue
        label, lk = str(key).replace("_", " "), _label_zh(str(key))
        is_pc = str(key).endswith(("pc", "pcs", "pc_index"))
        if is_pc and isa and isinstance(v, int) and not isinstance(v, bool):
            out.append(EvidenceItem(label, "", [Link(str(v), isa_pc_href(isa, v))], lk))
        elif is_pc and isa and isinstance(v, list) and all(isinstance(x, int) for x in v):
            more = f"+{len(v) - limit} more" if len(v) > limit else ""
            out.append(EvidenceItem(label, more, [Link(str(x), isa_pc_href(isa, x), ", " if j else "")
                                                      for j, x in enumerate(v[:limit])], lk,
                                    text_zh=i18n.zh("advice.more", n=len(v) - limit) if more else ""))
        elif isinstance(v, bool):
            out.append(EvidenceItem(label, _scalar(v), [], lk, text_key="advice.yes" if v else "advice.no"))
        elif isinstance(v, (str, int, float)) or v is None:
            out.append(EvidenceItem(label, DASH if v is None else _scalar(v), [], lk))
        elif isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) for x in v):
            text = ", ".join(_scalar(x) for x in v[:limit]) + (f" (+{len(v) - limit} more)" if len(v) > limit else "")
            out.append(EvidenceItem(label, text, [], lk))
        elif isinstance(v, dict) and all(isinstance(x, (str, int, float, bool)) or x is None for x in v.values()):
            out.append(EvidenceItem(label, ", ".join(f"{k_}={_scalar(x)}" for k_, x in v.items()), [], lk))
        elif isinstance(v, list):
            out.append(EvidenceItem(label, i18n.en("advice.records", n=len(v)), [], lk,
                                    text_zh=i18n.zh("advice.records", n=len(v))))
    return out


def _zh(said: Any, part: str) -> list[Seg] | None:
    m = said.get(part) if isinstance(said, dict) else None
    return wording.segments("zh", m) if m else None


def finding_view(f: dict[str, Any], isa: str | None = None) -> FindingView:
    """Display values of one advice finding (``Finding.to_json()``, with its ``i18n`` wording when the
    site kept it); PCs link into the ISA page ``isa``."""
    ev = f.get("evidence")
    share = f.get("stall_share")
    said = f.get("i18n")
    premise = f.get("premise")
    rests = said.get("rests_on") if isinstance(said, dict) else None
    return FindingView(
        title=str(f.get("title", "")),
        detector=str(f.get("detector", "")),
        share=fmt_pct(share) if isinstance(share, (int, float)) and share > 0 else "",
        share_of="advice.ofcall" if f.get("stall_unit") == "us" else "advice.ofstalls",
        acts=_acts(f),
        priority=str(f.get("priority", "")),
        suggestion=str(f.get("suggestion", "")),
        summary=str(ev.get("summary", "")) if isinstance(ev, dict) else "",
        evidence=evidence_items(ev, isa),
        flagged=bool(f.get("flagged")),
        title_zh=_zh(said, "title"),
        summary_zh=_zh(said, "summary"),
        suggestion_zh=_zh(said, "suggestion"),
        premise=wording.plain("en", premise) if premise else "",
        premise_zh=wording.segments("zh", premise) if premise else None,
        rests=wording.plain("en", rests) if rests else "",
        rests_zh=wording.segments("zh", rests) if rests else None,
    )


def _acts(f: dict[str, Any]) -> str:
    """The share a finding is ranked by (``acted_share``) when it is not the share it holds: pa's scalar-load
    waits hold 16.6% of the stalls, the suggestion leaves the first wait's 11.9% as it is and acts on 4.7%."""
    share, acted = f.get("stall_share"), f.get("acted_share")
    if not isinstance(share, (int, float)) or not isinstance(acted, (int, float)) or fmt_pct(acted) == fmt_pct(share):
        return ""
    return fmt_pct(acted)


#: The latest captures' finding views: (findings list, ISA page) -> views. The captures panel and the
#: advice panel show the same findings, so each is worded once; the list is held, so its id is not reused.
#: A few kernels' worth (oldest dropped first): holding more kept dead kernels' findings alive, and the
#: build's memory grew with the sweep (issue 25).
_VIEWS: dict[tuple[int, str], tuple[list[dict[str, Any]], list[FindingView]]] = {}
_VIEWS_KEPT = 16


def finding_views(findings: list[dict[str, Any]], isa: str) -> list[FindingView]:
    """:func:`finding_view` of each finding of a capture (shared: callers copy a view before changing it)."""
    key = (id(findings), isa)
    hit = _VIEWS.get(key)
    if hit is None or hit[0] is not findings:
        while len(_VIEWS) >= _VIEWS_KEPT:
            del _VIEWS[next(iter(_VIEWS))]
        hit = _VIEWS[key] = (findings, [finding_view(f, isa) for f in findings])
    return hit[1]


@record
class AdviceView:
    capture: str
    href: str
    findings: list[FindingView]
    primary: bool = False
    basis: str = ""  # a Sentence: the plan's shares are of the working waves (``plan_basis``)
    rests: wording.Said | None = None  # what the plan rests on (stall cycles, instructions, waves sampled)
    config: wording.Said | None = None  # the capture is another configuration than the timed rows (DOMAIN §1.7)


def plan_basis(a: CaptureAnalysis | None) -> str:
    """When the plan is ranked on the working waves (``advice.ranked_on``, DOMAIN §1.5), the basis of its
    shares in one sentence, "" otherwise (pa: the 8 working waves' 44,892 stall cycles, not all 56 waves' 70,036)."""
    w = a.waves_summary if a is not None else None
    if a is None or a.working is None or w is None:
        return ""
    return sentence("advice.basis.working", working=w.working, wc=f"{a.working.total_stall_cycles:,}",
                    early=w.early_exit, sampled=w.sampled, tc=f"{a.total_stall_cycles:,}")


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
        title = c.name if not c.label or c.label == c.name else f"{c.label} \u00b7 {c.name}"
        views = [dataclasses.replace(v, anchor=f"advice-c{i}-f{j}")
                 for j, v in enumerate(finding_views(c.findings, isa_href(i)))]
        out.append(AdviceView(title, f"#c{i}", views, c.is_primary, plan_basis(c.analysis) if views else "",
                              plan_rests(c.findings) if views else None,
                              config_said(k) if c.is_primary else None))
    return out


def config_said(k: KernelData) -> wording.Said | None:
    """The note of DOMAIN §1.7 above the primary capture's plan, when it is another configuration than the timed rows."""
    from generator.site.views import diagnosis

    return wording.said(diagnosis.config_msg(k.capture_config)) if diagnosis.other_config(k) else None


def plan_rests(findings: list[dict[str, Any]]) -> wording.Said | None:
    """"The plan rests on 12,412 stall cycles (17,856 cycles) of 207 instructions, 4 waves sampled." in both
    languages; None when the findings carry no basis."""
    from generator.analyze.advice.basis import capture_rest, rests_msg  # views need the advice stage only here

    rest = capture_rest(findings)
    if rest is None:
        return None

    return wording.said(rests_msg({key: v for key, v in rest.items() if key != "finding_stall_cycles"}))
