"""Sweep-level advice: findings grouped across kernels by headroom, and why a HEADROOM kernel loses."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from generator.analyze.advice.registry import PRIORITIES, Finding
from generator.analyze.advice.view import _pct, _waves, _waves_msg
from generator.analyze.message import Items, Msg, msg
from generator.model import CaptureAnalysis


@dataclass
class SweepFinding:
    """One line of the sweep's findings page: kernels that share a limiter or a pattern."""

    key: str  # "limiter:VGPR", "pattern:lds_dma_drain"
    kind: str  # limiter, pattern
    title: str
    kernels: list[str]
    per_kernel: dict[str, str]  # kernel -> display detail ("25.0 %", "2 waves/SIMD")
    headroom_share: float | None  # of the sweep's headroom (see sweep_findings)
    headroom_kernels: list[str]  # members that are HEADROOM
    text: str
    priority: str
    #: the same words by key (``advice.sweep.*``): "title", "body" (the text after "title: ") and "text"
    messages: dict[str, Msg] = field(default_factory=dict, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in (
            "key", "kind", "title", "kernels", "per_kernel", "headroom_share",
            "headroom_kernels", "text", "priority")}


def _why_parts(findings: list[Finding]) -> tuple[Finding | None, Finding | None, list[Finding]]:
    """(the most urgent limit, the streaming finding, the patterns) a why-not-winning reads."""
    prio = {p: k for k, p in enumerate(PRIORITIES)}
    limits = sorted((f for f in findings if f.kind == "limit"), key=lambda f: prio.get(f.priority, 9))
    patterns = [f for f in findings if f.kind == "pattern"]
    stream = next((f for f in patterns if f.detector == "streaming_roofline"), None)
    return (limits[0] if limits else None), stream, patterns


def why_not_winning(findings: list[Finding], analysis: CaptureAnalysis) -> str:
    """One or two sentences for a HEADROOM kernel: the limiter and the top evidence.

    The limiter is the most urgent limit finding (occupancy, grid, idle waves); a
    kernel streaming at the roofline is bound by bandwidth unless a limit of high or
    medium priority says otherwise; without either, the top stall type stands in.
    """
    lim, stream, patterns = _why_parts(findings)
    if lim is not None and (stream is None or lim.priority in ("high", "medium")):
        limiter = f"{lim.title} ({lim.summary})"
    elif stream is not None:
        limiter = f"memory bandwidth ({stream.summary})"
    else:
        occ = analysis.occupancy
        at = f" at {_waves(occ.waves_per_simd)}" if occ else ""
        limiter = f"stall cycles{at}, mostly {analysis.top_stall_type or 'none'}"
    top = next((f for f in patterns if f is not stream and f.priority in ("high", "medium")), None)
    text = f"Limiter: {limiter}."
    if top is not None:
        text += f" Top evidence: {top.title}, {_pct(top.stall_share)} of stall cycles ({top.summary})."
    return text


def _said(f: Finding, part: str) -> Msg | str:
    """A finding's message for ``part``, or its English as data when it has none."""
    return f.messages.get(part) or (f.summary if part == "summary" else getattr(f, part))


def why_not_winning_message(findings: list[Finding], analysis: CaptureAnalysis) -> Msg:
    """``why_not_winning`` as a message (``advice.why.*``): the same choice, worded by key."""
    lim, stream, patterns = _why_parts(findings)
    if lim is not None and (stream is None or lim.priority in ("high", "medium")):
        limiter = msg("advice.why.limit", title=_said(lim, "title"), summary=_said(lim, "summary"))
    elif stream is not None:
        limiter = msg("advice.why.bandwidth", summary=_said(stream, "summary"))
    else:
        occ = analysis.occupancy
        limiter = msg("advice.why.stalls", at=msg("advice.why.at", waves=_waves_msg(occ.waves_per_simd)) if occ else "",
                      type=analysis.top_stall_type or msg("advice.why.none"))
    top = next((f for f in patterns if f is not stream and f.priority in ("high", "medium")), None)
    if top is None:
        return msg("advice.why.text", limiter=limiter)
    return msg("advice.why.text.top", limiter=limiter, title=_said(top, "title"), share=_pct(top.stall_share),
               summary=_said(top, "summary"))


def _verdict_name(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, str):
        return v
    return getattr(v, "verdict", None)


def _deficit(verdict: Any, geomean: float | None) -> float:
    """ln(1/geomean) of a HEADROOM kernel (its log-time deficit), else 0."""
    name = _verdict_name(verdict)
    if geomean is None or geomean <= 0 or geomean >= 1:
        return 0.0
    if name is not None and name != "HEADROOM":
        return 0.0
    if name is None and geomean >= 0.95:
        return 0.0
    return math.log(1.0 / geomean)


_LIMIT_KEYS = {"vgpr_occupancy": "VGPR", "small_grid": "grid", "early_exit_waves": "idle waves"}
LIMITER_TITLES = {"VGPR": "VGPR-bound occupancy", "LDS": "LDS-bound occupancy", "SGPR": "SGPR-bound occupancy",
                  "grid": "Grid too small to fill the GPU", "idle waves": "Waves launched without work",
                  "memory bandwidth": "Streaming at the memory roofline"}
#: Findings below this priority stay on their kernel's page, not on the sweep's.
SWEEP_PRIORITIES = ("high", "medium")


def _limiter_key(f: Finding) -> str | None:
    """The sweep-level limiter a finding stands for, or None for a plain pattern."""
    if f.detector == "lds_sgpr_occupancy":
        return str(f.evidence.get("limiter"))
    if f.detector == "streaming_roofline":
        return "memory bandwidth"
    if f.kind == "limit":
        return _LIMIT_KEYS.get(f.detector, f.detector)
    return None


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _and_msg(names: list[str]) -> Msg | str:
    """``_and`` as a message: ``a, b and c``."""
    return names[0] if len(names) == 1 else msg("advice.sweep.and", names=names[:-1], last=names[-1])


def _joined(items: list[Msg]) -> Items:
    """Items joined by "; " (``advice.sweep.sep``): one flat list, whatever the number of kernels."""
    return Items(tuple(items), "advice.sweep.sep")


def _detail(f: Finding) -> tuple[str, Msg | str]:
    """A limiter member's detail ("2 waves/SIMD, free 80 VGPRs"), in English and as a message."""
    if f.evidence.get("detail"):
        text = str(f.evidence["detail"])
        return text, f.messages.get("detail") or text
    return f.title, f.messages.get("title") or f.title


#: Catalogue keys of the limiter titles (``advice.sweep.limiter.*``).
LIMITER_KEYS = {"VGPR": "vgpr", "LDS": "lds", "SGPR": "sgpr", "grid": "grid", "idle waves": "idle",
                "memory bandwidth": "bandwidth"}


def _words(title_m: Msg | str, members: list[Msg], tail: Msg | str) -> dict[str, Msg]:
    """A sweep finding's messages: its title, its body and the whole text ("title: body")."""
    title_m = title_m if isinstance(title_m, Msg) else msg("advice.sweep.data", text=title_m)
    body = msg("advice.sweep.body", members=_joined(members), tail=tail)
    return {"title": title_m, "body": body, "text": msg("advice.sweep.text", title=title_m, body=body)}


def sweep_findings(per_kernel: dict[str, tuple[list[Finding], Any, float | None]]) -> list[SweepFinding]:
    """Findings grouped across kernels: shared limiters and shared patterns, by headroom.

    ``per_kernel`` maps a kernel to (its findings, its verdict or None, its geomean
    speedup or None). The sweep's headroom is the sum of ln(1/geomean) over HEADROOM
    kernels (the log-time each must gain to break even; without a verdict, a geomean
    below 0.95 counts). A *limiter* group (kernels bound by VGPRs, LDS, SGPRs, the
    grid, idle waves or memory bandwidth) holds the headroom of its HEADROOM members;
    a *pattern* group explains each member's deficit weighted by the pattern's stall
    share (an estimate: removing stall cycles does not turn one for one into time).
    Only findings of high or medium priority are grouped (the streaming reading is
    always kept: it says where nothing is left to win).
    """
    deficits = {k: _deficit(v, g) for k, (_, v, g) in per_kernel.items()}
    total = sum(deficits.values())
    limiters: dict[str, dict[str, str]] = {}
    details: dict[str, dict[str, Msg | str]] = {}
    patterns: dict[str, dict[str, Finding]] = {}
    titles: dict[str, str] = {}
    title_msgs: dict[str, Msg | str] = {}
    for kernel in sorted(per_kernel):
        for f in per_kernel[kernel][0]:
            if f.flagged:
                continue
            key = _limiter_key(f)
            if f.priority not in SWEEP_PRIORITIES and key != "memory bandwidth":
                continue
            if key is not None:
                limiters.setdefault(key, {})[kernel], details.setdefault(key, {})[kernel] = _detail(f)
            else:
                patterns.setdefault(f.detector, {})[kernel] = f
                titles.setdefault(f.detector, f.title)
                title_msgs.setdefault(f.detector, f.messages.get("title") or f.title)
    out: list[SweepFinding] = []
    for key, members in limiters.items():
        kernels = sorted(members)
        losing = [k for k in kernels if deficits.get(k, 0) > 0]
        held = sum(deficits[k] for k in losing) / total if total else None
        title = LIMITER_TITLES.get(key, key)
        text = f"{title}: " + "; ".join(f"{k} ({members[k]})" for k in kernels) + "."
        tail: Msg | str = ""
        if held is not None:
            text += (f" Together they hold {_pct(held)} of the sweep's headroom (HEADROOM: {_and(losing)})."
                     if losing else " None of them is HEADROOM.")
            tail = (msg("advice.sweep.limiter.held", share=_pct(held), kernels=_and_msg(losing)) if losing
                    else msg("advice.sweep.none"))
        said = _words(msg(f"advice.sweep.limiter.{LIMITER_KEYS[key]}") if key in LIMITER_KEYS else key,
                      [msg("advice.sweep.member", kernel=k, detail=details[key][k]) for k in kernels], tail)
        out.append(SweepFinding(key=f"limiter:{key}", kind="limiter", title=title, kernels=kernels,
                                per_kernel=dict(sorted(members.items())), headroom_share=held,
                                headroom_kernels=losing, text=text, messages=said,
                                priority="high" if held and held >= 0.25 else "medium" if losing else "low"))
    for det, members in patterns.items():
        kernels = sorted(members, key=lambda k: (-members[k].stall_share, k))
        losing = [k for k in kernels if deficits.get(k, 0) > 0]
        explained = (sum(deficits[k] * members[k].stall_share for k in losing) / total) if total else None
        title = titles[det]
        text = f"{title}: " + "; ".join(f"{k} ({_pct(members[k].stall_share)} of its stall cycles)"
                                        for k in kernels) + "."
        tail = ""
        if explained is not None:
            text += (f" Weighted by stall share it explains about {_pct(explained)} of the sweep's headroom "
                     f"(HEADROOM: {_and(losing)})." if losing else " None of them is HEADROOM.")
            tail = (msg("advice.sweep.pattern.held", share=_pct(explained), kernels=_and_msg(losing)) if losing
                    else msg("advice.sweep.none"))
        said = _words(title_msgs[det], [msg("advice.sweep.member.share", kernel=k, share=_pct(members[k].stall_share))
                                        for k in kernels], tail)
        out.append(SweepFinding(key=f"pattern:{det}", kind="pattern", title=title, kernels=kernels,
                                per_kernel={k: _pct(members[k].stall_share) for k in sorted(members)},
                                headroom_share=explained, headroom_kernels=losing, text=text, messages=said,
                                priority="high" if explained and explained >= 0.10 else
                                "medium" if losing else "low"))
    out.sort(key=lambda s: (-(s.headroom_share or 0.0), -len(s.kernels), s.key))
    return out
