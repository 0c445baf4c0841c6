"""Sweep-level advice: findings grouped across kernels by headroom, and why a HEADROOM kernel loses."""

from __future__ import annotations

import math
from dataclasses import field
from typing import Any

from generator.analyze.advice.registry import PRIORITIES, Finding
from generator.analyze.advice.view import _pct, _waves, _waves_msg
from generator.analyze.message import Items, Msg, english, msg
from generator.analyze.verdicts.rules import median
from generator.model import CaptureAnalysis, record


@record
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
    # the launcher is no limiter of the kernel-clock verdict a why-not-winning explains (rule 13)
    limits = sorted((f for f in findings if f.kind == "limit" and f.detector != LAUNCH), key=lambda f: prio.get(f.priority, 9))
    patterns = [f for f in findings if f.kind == "pattern"]
    stream = next((f for f in patterns if f.detector == "streaming_roofline"), None)
    return (limits[0] if limits else None), stream, patterns


def samples(analysis: CaptureAnalysis) -> bool:
    """Whether the capture's stall data are Nsight Compute's warp-stall samples, not ATT stall cycles."""
    return getattr(analysis, "stall_unit", "cycles") != "cycles"


def _bandwidth_limiter(stream: Finding) -> tuple[str, Msg]:
    """The limiter line of a streaming finding, as the finding reads it (``streaming.NEAR_PEAK``): near the
    peak, bandwidth (move fewer bytes); below it, memory waits with bandwidth left (keep more bytes in flight);
    without a bandwidth figure, the finding's own title."""
    summary = _said(stream, "summary")
    bw = stream.evidence.get("bandwidth") if isinstance(stream.evidence, dict) else None
    if not bw or bw.get("fraction") is None or "near_peak" not in stream.evidence:
        return f"{stream.title} ({stream.summary})", msg("advice.why.limit", title=_said(stream, "title"),
                                                         summary=summary)
    key = "advice.why.bandwidth." + ("near" if stream.evidence["near_peak"] else "below")
    pct = _pct(bw["fraction"])
    return english(key, pct=pct, summary=stream.summary), msg(key, pct=pct, summary=summary)


def _limiter(findings: list[Finding], analysis: CaptureAnalysis) -> tuple[str, Msg, Finding | None, Finding | None]:
    """(the limiter in English, as a message, the top evidence, the streaming finding) of a why-not-winning.

    The limiter is the most urgent limit finding (occupancy, grid, idle waves); a kernel whose memory waits
    dominate is read by its bandwidth unless a limit of high or medium priority says otherwise; without either,
    the top stall type stands in, counted in the capture's unit (ATT stall cycles, NCU warp-stall samples)."""
    lim, stream, patterns = _why_parts(findings)
    if lim is not None and (stream is None or lim.priority in ("high", "medium")):
        text, said = f"{lim.title} ({lim.summary})", msg("advice.why.limit", title=_said(lim, "title"),
                                                        summary=_said(lim, "summary"))
    elif stream is not None:
        text, said = _bandwidth_limiter(stream)
    else:
        occ = analysis.occupancy
        waves = occ and occ.resident  # the waves that run, not the cap the grid never reaches
        key = "advice.why.stalls" + (".samples" if samples(analysis) else "")
        kind = analysis.top_stall_type or "none"
        share = _top_share(analysis)
        text = english(key, at=f" at {_waves(waves)}" if occ else "", type=kind, share=share)
        said = msg(key, at=msg("advice.why.at", waves=_waves_msg(waves)) if occ else "",
                   type=analysis.top_stall_type or msg("advice.why.none"), share=share)
    top = next((f for f in patterns if f is not stream and f.priority in ("high", "medium")), None)
    return text, said, top, stream


def _top_share(analysis: CaptureAnalysis) -> str:
    """The top stall type's share of the stalls, as shown: the largest type need not be most of them
    (flash_attn_func's "other" is 31%)."""
    by = analysis.stall_by_type or {}
    total = sum(by.values())
    top = by.get(analysis.top_stall_type or "", 0)
    return f"{100 * top / total:.0f}%" if total and top else "-"


def _off_shape(findings: list[Finding]) -> Finding | None:
    """The blocker that says the profiled shape is not where the kernel loses (``profiled.py``), if any."""
    return next((f for f in findings if f.kind == "blocker" and f.detector == "profiled_shape"), None)


def why_not_winning(findings: list[Finding], analysis: CaptureAnalysis) -> str:
    """One or two sentences for a HEADROOM kernel: the limiter and the top evidence (``_limiter``), led by
    the profiled-shape blocker when the capture shows a shape the kernel does not lose."""
    limiter, _, top, _ = _limiter(findings, analysis)
    text = f"Limiter: {limiter}."
    if top is not None:
        unit = "warp-stall samples" if samples(analysis) else "stall cycles"
        text += f" Top evidence: {top.title}, {_pct(top.stall_share)} of {unit} ({top.summary})."
    off = _off_shape(findings)
    return text if off is None else f"{off.title} ({off.summary}). On that shape: {text}"


def _said(f: Finding, part: str) -> Msg | str:
    """A finding's message for ``part``, or its English as data when it has none."""
    return f.messages.get(part) or (f.summary if part == "summary" else getattr(f, part))


def why_not_winning_message(findings: list[Finding], analysis: CaptureAnalysis) -> Msg:
    """``why_not_winning`` as a message (``advice.why.*``): the same choice, worded by key."""
    _, limiter, top, _ = _limiter(findings, analysis)
    if top is None:
        said = msg("advice.why.text", limiter=limiter)
    else:
        said = msg("advice.why.text.top" + (".samples" if samples(analysis) else ""), limiter=limiter,
                   title=_said(top, "title"), share=_pct(top.stall_share), summary=_said(top, "summary"))
    off = _off_shape(findings)
    return said if off is None else msg("advice.why.offshape", title=_said(off, "title"),
                                        summary=_said(off, "summary"), rest=said)


def _verdict_name(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, str):
        return v
    return getattr(v, "verdict", None)


def _deficit(verdict: Any, geomean: float | None) -> float:
    """A HEADROOM kernel's gap, ln(1/geomean) (the log-time it must gain to break even); 0 for any other
    verdict, and for a ratio at or above 1 (nothing to partition). Without a verdict, a geomean below
    0.95 counts as HEADROOM."""
    name = _verdict_name(verdict)
    if geomean is None or geomean <= 0 or geomean >= 1:
        return 0.0
    if name is not None and name != "HEADROOM":
        return 0.0
    if name is None and geomean >= 0.95:
        return 0.0
    return math.log(1.0 / geomean)


def _is_headroom(verdict: Any, geomean: float | None) -> bool:
    name = _verdict_name(verdict)
    return name == "HEADROOM" or (name is None and geomean is not None and 0 < geomean < 0.95)


#: Findings that rest on the capture's stall cycles (a capture with no working wave feeds none of them).
STALL_KINDS = ("pattern",)
#: Findings about one resource (a tie with another resource at the same count feeds none of them).
ONE_RESOURCE = ("vgpr_occupancy", "lds_sgpr_occupancy")


def _representative(findings: list[Finding]) -> bool:
    """False when the plan opens with DOMAIN §1.5's blocker: no sampled wave did work."""
    return not any(f.kind == "blocker" and f.detector == "early_exit_waves" for f in findings)


def _tied(f: Finding) -> bool:
    """An occupancy finding whose resource binds at the same count as another one (DOMAIN §1.3)."""
    ev = f.evidence if isinstance(f.evidence, dict) else {}
    waves, others = ev.get("waves_per_simd"), ev.get("other_limits") or {}
    own = ev.get("limiter") or "VGPR"
    return waves is not None and any(k != own and v == waves for k, v in others.items())


def eligible(findings: list[Finding]) -> list[Finding]:
    """The ranked findings a sweep reading may count: none of a capture's stall-based findings when it is not
    representative, no single-resource finding on a tied occupancy."""
    rep = _representative(findings)
    return [f for f in findings if f.ranked and (rep or f.kind not in STALL_KINDS)
            and not (f.detector in ONE_RESOURCE and _tied(f))]


_LIMIT_KEYS = {"vgpr_occupancy": "VGPR", "small_grid": "grid", "early_exit_waves": "idle waves",
               "launch_overhead": "launch path"}
LIMITER_TITLES = {"VGPR": "VGPR-bound occupancy", "LDS": "LDS-bound occupancy", "SGPR": "SGPR-bound occupancy",
                  "grid": "Grid too small to fill the GPU", "idle waves": "Waves launched without work",
                  "memory bandwidth": "Memory waits dominate on the profiled shape",
                  "launch path": "The launcher, not the kernel: a call costs more than the fastest baseline's"}
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
    """A limiter member's detail ("2 waves/SIMD, free 80 VGPRs"), in English and as a message; a streaming
    member's says its lever as the finding does ("55.3% of HBM peak ...: keep more bytes in flight")."""
    if f.evidence.get("detail"):
        text = str(f.evidence["detail"])
        said = f.messages.get("detail") or text
        if f.detector == "streaming_roofline" and "near_peak" in f.evidence:
            key = "advice.sweep.bandwidth." + ("near" if f.evidence["near_peak"] else "below")
            return english(key, detail=text), msg(key, detail=said)
        return text, said
    return f.title, f.messages.get("title") or f.title


#: NVIDIA-only detectors (their findings exist only on Nsight Compute captures).
def stall_unit_of(findings: list[Finding]) -> str:
    """The stall unit a kernel's findings count: "samples" (Nsight Compute) or "cycles" (ATT)."""
    return "samples" if any(f.stall_unit == "samples" for f in findings) else "cycles"


#: Catalogue keys of the limiter titles (``advice.sweep.limiter.*``).
LIMITER_KEYS = {"VGPR": "vgpr", "LDS": "lds", "SGPR": "sgpr", "grid": "grid", "idle waves": "idle",
                "memory bandwidth": "bandwidth", "launch path": "launch"}


def _words(title_m: Msg | str, members: list[Msg], tail: Msg | str) -> dict[str, Msg]:
    """A sweep finding's messages: its title, its body and the whole text ("title: body")."""
    title_m = title_m if isinstance(title_m, Msg) else msg("advice.sweep.data", text=title_m)
    body = msg("advice.sweep.body", members=_joined(members), tail=tail)
    return {"title": title_m, "body": body, "text": msg("advice.sweep.text", title=title_m, body=body)}


def _group_key(f: Finding) -> str:
    """The sweep group a finding belongs to: ``limiter:<resource>``, ``blocker:<detector>`` (read the capture
    first) or ``pattern:<detector>``."""
    if f.kind == "blocker":
        return f"blocker:{f.detector}"
    key = _limiter_key(f)
    return f"limiter:{key}" if key is not None else f"pattern:{f.detector}"


#: The launch-overhead finding (``launch.py``): listed across kernels, never holding a share of the kernel gap.
LAUNCH = "launch_overhead"
LAUNCH_KEY = "limiter:launch path"

#: The groups of HEADROOM kernels without a first step: no capture at all, or no finding that counts.
NO_CAPTURE, NO_FINDING = "capture:none", "finding:none"
#: HEADROOM kernels whose first step is to profile where they lose (VERDICTS rule 15: no capture, or none whose
#: findings place it on a losing shape; rmsnorm's is of M=1024, its N unknown: "no capture shown there", not
#: "not profiled"), and those whose capture is another configuration than their timed rows (DOMAIN §1.7: its
#: would-be share is named and left out).
PROFILE, OTHER_CONFIG = "where:unprofiled", "capture:other"


def first_steps(per_kernel: dict[str, tuple]) -> dict[str, str]:
    """Each HEADROOM kernel's group: that of its first step (``advice.first``, the 4th item of its entry: a
    dict with ``kind`` and ``detector``, as the kernel page names it), else that of its top-ranked eligible
    finding; no capture / no finding where there is none."""
    out = {}
    for kernel, (findings, verdict, geomean, *rest) in per_kernel.items():
        if not _is_headroom(verdict, geomean):
            continue
        step = rest[0] if rest else None
        kind = step.get("kind") if isinstance(step, dict) else None
        if kind in ("profile", "config"):
            out[kernel] = PROFILE if kind == "profile" else OTHER_CONFIG
            continue
        if findings is None or all(f.evidence.get("without_capture") for f in findings):
            out[kernel] = NO_CAPTURE  # none, or only the campaign's launch finding (``launch.py``)
            continue
        top = [f for f in eligible(findings) if f.detector != LAUNCH]  # the launcher moves no kernel-clock ratio
        if kind == "finding":
            top = [f for f in top if f.detector == step.get("detector")] or top
        out[kernel] = _group_key(top[0]) if top and kind != "launcher" else NO_FINDING
    return out


def sweep_findings(per_kernel: dict[str, tuple[list[Finding] | None, Any, float | None]]) -> list[SweepFinding]:
    """Findings grouped across kernels, and the sweep's headroom partitioned among them.

    ``per_kernel`` maps a kernel to (its findings, or None without a capture; its verdict or None; the ratio
    its gap is read from, or None). A HEADROOM kernel's *gap* is ln(1/ratio), the log-time it must gain to
    break even (0 for a ratio at or above 1). Each gap is counted once, under the group of the kernel's first
    step: its top-ranked finding that the reading may count (``eligible``: a capture with no working wave
    feeds no stall-based finding, a tied occupancy no single-resource finding); a HEADROOM kernel without a
    capture goes to "no capture", one without such a finding to "no finding". A group's ``headroom_share``
    is its gaps over the gaps of every HEADROOM kernel, so the shares add up to at most 100 %.

    A group also lists every kernel with that finding (high or medium priority; the streaming reading is
    always kept: it says on which kernels memory waits dominate the profiled shape), whether or not it is that kernel's first step.
    Example: a (gap ln 2, first step a drain) and b (gap ln 1.25, first step VGPRs, also a drain): the
    drain group lists a and b and holds ln 2 / (ln 2 + ln 1.25) = 75.6 %, the VGPR group 24.4 %.
    """
    deficits = {k: _deficit(v, g) for k, (_, v, g, *_rest) in per_kernel.items()}
    total = sum(deficits.values())
    firsts = first_steps(per_kernel)
    members: dict[str, dict[str, Finding]] = {}
    for kernel in sorted(per_kernel):
        findings = per_kernel[kernel][0]
        if findings is None:
            continue
        for f in eligible(findings):
            key = _group_key(f)
            if f.priority in SWEEP_PRIORITIES or key == "limiter:memory bandwidth" or firsts.get(kernel) == key:
                members.setdefault(key, {}).setdefault(kernel, f)
    units = {k: stall_unit_of(f) for k, (f, *_rest) in per_kernel.items() if f}
    out = [_group(key, group, firsts, deficits, total, units) for key, group in members.items()]
    out = [_launch_group(g, per_kernel) if g.key == LAUNCH_KEY else g for g in out]
    for key in (NO_CAPTURE, NO_FINDING, PROFILE, OTHER_CONFIG):
        kernels = sorted(k for k, g in firsts.items() if g == key)
        if kernels:
            out.append(_unread(key, kernels, per_kernel, deficits, total))
    out.sort(key=lambda s: (-(s.headroom_share or 0.0), -len(s.kernels), s.key))
    return out


def _launch_group(g: SweepFinding, per_kernel: dict) -> SweepFinding:
    """The launch group says what it is across the sweep: how many kernels pay a launch overhead, its median
    and worst, and on which none is read (their launch finding is a flag: a small gap, one against another
    scope, or one mostly on the kernel clock); it holds no share of the kernel gap."""
    found = {k: f for k, (fs, *_rest) in per_kernel.items() if fs for f in fs if f.detector == LAUNCH}
    paying = {k: found[k].evidence["launch_overhead_us"] for k in g.kernels if k in found}
    none = sorted(k for k, f in found.items() if f.flagged)
    worst = max(paying, key=paying.get)
    p = {"n": len(paying), "of": len(found), "median": f"{median(paying.values()):+.1f}",
         "worst": worst, "worst_us": f"{paying[worst]:+.1f}",
         "shapes": sum(int(found[k].evidence.get("launch_shapes") or 0) for k in paying)}
    tail = msg("advice.sweep.launch.tail", **p, none=_and_msg(none) if none else msg("advice.sweep.launch.nobody"))
    said = dict(g.messages)
    body = msg("advice.sweep.body", members=said["body"].kw["members"], tail=tail)
    said.update(body=body, text=msg("advice.sweep.text", title=said["title"], body=body))
    text = (f"{g.title}: " + "; ".join(f"{k} ({g.per_kernel[k]})" for k in g.kernels) + ". "
            + english("advice.sweep.launch.tail", **p, none=_and(none) if none else english("advice.sweep.launch.nobody")))
    return SweepFinding(key=g.key, kind=g.kind, title=g.title, kernels=g.kernels, per_kernel=g.per_kernel,
                        headroom_share=None, headroom_kernels=[], text=text, messages=said,
                        priority="high" if float(p["median"]) >= 20 else "medium")


def _held(key: str, firsts: dict[str, str], deficits: dict[str, float], total: float) -> tuple[list[str], float | None]:
    """(the HEADROOM kernels whose first step is group ``key``, their share of the sweep's headroom)."""
    losing = sorted(k for k, g in firsts.items() if g == key)
    return losing, (sum(deficits[k] for k in losing) / total if total else None)


def _group(key: str, members: dict[str, Finding], firsts: dict[str, str], deficits: dict[str, float],
           total: float, units: dict[str, str]) -> SweepFinding:
    """A limiter or pattern group: its members, and the headroom of the kernels it is the first step of."""
    kind, name = key.split(":", 1)
    losing, held = _held(key, firsts, deficits, total)
    if kind in ("limiter", "blocker"):
        kernels = sorted(members)
        details = {k: _detail(members[k]) for k in kernels}
        per = {k: details[k][0] for k in kernels}
        if kind == "blocker":
            f0 = members[kernels[0]]
            title, title_m = f0.title, f0.messages.get("title") or f0.title
        else:
            title = LIMITER_TITLES.get(name, name)
            title_m = msg(f"advice.sweep.limiter.{LIMITER_KEYS[name]}") if name in LIMITER_KEYS else name
        text = f"{title}: " + "; ".join(f"{k} ({per[k]})" for k in kernels) + "."
        said = [msg("advice.sweep.member", kernel=k, detail=details[k][1]) for k in kernels]
    else:
        kernels = sorted(members, key=lambda k: (-members[k].stall_share, k))
        f0 = members[kernels[0]]
        title, title_m = f0.title, f0.messages.get("title") or f0.title
        per = {k: _pct(members[k].stall_share) for k in kernels}
        unit = {k: "samples" if units.get(k) == "samples" else "cycles" for k in kernels}
        names = {"samples": "warp-stall samples", "cycles": "stall cycles"}
        text = f"{title}: " + "; ".join(f"{k} ({per[k]} of its {names[unit[k]]})" for k in kernels) + "."
        said = [msg("advice.sweep.member.share" + (".samples" if unit[k] == "samples" else ""), kernel=k,
                    share=per[k]) for k in kernels]
    tail: Msg | str = ""
    if held is not None:
        text += (f" It is the first step of {_and(losing)}: {_pct(held)} of the sweep's headroom." if losing
                 else " It is the first step of no HEADROOM kernel.")
        tail = (msg("advice.sweep.first", share=_pct(held), kernels=_and_msg(losing)) if losing
                else msg("advice.sweep.first.none"))
    return SweepFinding(key=key, kind=kind, title=title, kernels=kernels, per_kernel=dict(sorted(per.items())),
                        headroom_share=held, headroom_kernels=losing, text=text, messages=_words(title_m, said, tail),
                        priority="high" if held and held >= 0.25 else "medium" if losing else "low")


def _unread(key: str, kernels: list[str], per_kernel: dict, deficits: dict[str, float], total: float) -> SweepFinding:
    """HEADROOM kernels whose gap no capture finding reads: without a capture, without a finding that counts,
    losing where no capture was taken (profile there), or captured in another configuration than timed (the
    would-be share is named and left out of the partition)."""
    which = {NO_CAPTURE: "nocapture", NO_FINDING: "nofinding", PROFILE: "profile", OTHER_CONFIG: "otherconfig"}[key]
    losing, held = _held(key, {k: key for k in kernels}, deficits, total)
    per = {k: f"{per_kernel[k][2]:.2f}x" if per_kernel[k][2] is not None else "?" for k in kernels}
    title = {"nocapture": "No capture", "nofinding": "No finding to count", "profile": "Where it loses, no capture shown there",
             "otherconfig": "Captured in another configuration"}[which]
    tails = {"nocapture": "profile them to read a first step", "nofinding": "no finding of their plans can be counted",
             "profile": "profile a shape where each loses (its page names one)",
             "otherconfig": "left out of every group: time the captured configuration or capture the timed one"}
    text = f"{title}: " + "; ".join(f"{k} ({per[k]})" for k in kernels) + "."
    if held is not None:
        text += (f" Their would-be {_pct(held)} of the sweep's headroom is {tails[which]}." if which == "otherconfig"
                 else f" They hold {_pct(held)} of the sweep's headroom; {tails[which]}.")
    tail = msg(f"advice.sweep.{which}.held", share=_pct(held)) if held is not None else ""
    if which == "otherconfig":  # no share of the partition: named, and left out
        losing, held = [], None
    return SweepFinding(key=key, kind=which, title=title, kernels=kernels, per_kernel=per, headroom_share=held,
                        headroom_kernels=losing, text=text,
                        messages=_words(msg(f"advice.sweep.{which}"),
                                        [msg("advice.sweep.member", kernel=k, detail=per[k]) for k in kernels], tail),
                        priority="high" if held and held >= 0.25 else "medium")
