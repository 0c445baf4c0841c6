"""The detector registry and the plan: run detectors in order, rank what they find.

Detectors register with ``@detector(name, kind)``; ``ORDER`` fixes the claiming order
whatever module a detector lives in (a name not in ``ORDER`` runs after those, in
registration order). ``advise`` runs them so that a stall cycle is explained once, by
the most specific pattern, then ranks: patterns by the stall share they act on, limits by priority,
flags last.
"""

from __future__ import annotations

from dataclasses import field, replace
from typing import Any, Callable, Iterable

from generator.analyze.advice.context import context_for
from generator.analyze.advice.view import AdviceContext, KernelView, _pct
from generator.analyze.message import Msg
from generator.model import CaptureAnalysis, record

#: Pattern findings below this share of the stall cycles are noise, not advice.
MIN_SHARE = 0.02
#: Share thresholds of the priorities of pattern findings.
HIGH_SHARE = 0.20
MEDIUM_SHARE = 0.05
PRIORITIES = ("high", "medium", "low", "info")
#: Claiming order of the detectors (flags, then the most specific patterns, then limits):
#: an earlier detector's claimed instructions are taken from the later ones.
ORDER = ("decorator_line", "framework_line", "lds_dma_drain", "late_scale_loads", "lds_read_into_mfma",
         "loads_interleaved_with_mfma", "back_to_back_loads", "cross_lane_reduction", "scalar_load_waits",
         "wgmma_wait", "barrier_dominated", "store_bound", "snop_hazard", "streaming_roofline", "vmem_latency_exposed", "vgpr_occupancy",
         "lds_sgpr_occupancy", "occupancy_grid", "small_grid", "early_exit_waves", "profiled_shape", "timed_gap")


@record
class Finding:
    """One piece of advice: a pattern with its evidence, share and suggested change."""

    detector: str
    title: str
    stall_share: float  # of all stall cycles (exclusive: each cycle is explained once)
    evidence: dict[str, Any]  # JSON-able; "summary" is the one-line reading
    suggestion: str
    priority: str  # high, medium, low, info
    kind: str = "pattern"  # blocker (read first: the capture misleads), pattern, limit, flag
    stall_cycles: int = 0
    claims: frozenset[int] = frozenset()  # instruction positions whose stall it owns
    stall_unit: str = "cycles"  # what stall_cycles counts: "cycles" (ATT) or "samples" (Nsight Compute)
    #: the same words by catalogue key ("title", "summary", "suggestion"; a limit's "detail"): the site's 中文;
    #: not in to_json
    messages: dict[str, Msg] = field(default_factory=dict, compare=False, repr=False)
    #: the checked fact of the hot path the suggestion rests on, with its numbers (``finding.<detector>.premise*``)
    premise: Msg | None = field(default=None, compare=False, repr=False)

    @property
    def flagged(self) -> bool:
        return self.kind == "flag"

    @property
    def ranked(self) -> bool:
        return self.kind != "flag"

    @property
    def summary(self) -> str:
        return str(self.evidence.get("summary", ""))

    def to_json(self) -> dict[str, Any]:
        """``{detector, title, stall_share, acted_share, stall_cycles, stall_unit, evidence, suggestion, premise,
        priority, kind, flagged, ranked}`` (``acted_share``: the share the plan ranks a pattern by);
        ``premise`` is the message ``[key, {param: value}]`` (``message.Msg.to_json``) or null."""
        return {
            "detector": self.detector,
            "premise": self.premise.to_json() if self.premise is not None else None,
            "title": self.title,
            "stall_share": self.stall_share,
            "acted_share": acted_share(self),
            "stall_cycles": self.stall_cycles,
            "stall_unit": self.stall_unit,
            "evidence": self.evidence,
            "suggestion": self.suggestion,
            "priority": self.priority,
            "kind": self.kind,
            "flagged": self.flagged,
            "ranked": self.ranked,
        }

    def messages_json(self) -> dict[str, list]:
        """``{part: [key, {param: value}]}`` of the parts worded by key (``message.Msg.to_json``), the
        premise included."""
        out = {part: m.to_json() for part, m in self.messages.items()}
        if self.premise is not None:
            out["premise"] = self.premise.to_json()
        return out


def pattern_priority(share: float) -> str:
    """Priority of a pattern finding from its stall share."""
    if share >= HIGH_SHARE:
        return "high"
    if share >= MEDIUM_SHARE:
        return "medium"
    return "low"


def _pattern(view: KernelView, detector: str, title: str, claims: Iterable[int],
             evidence: dict[str, Any], suggestion: str, messages: dict[str, Msg] | None = None,
             premise: Msg | None = None) -> Finding:
    claims = frozenset(claims)
    share, cycles = view.share(claims)
    return Finding(detector=detector, title=title, stall_share=share, evidence=evidence,
                   suggestion=suggestion, priority=pattern_priority(share), kind="pattern",
                   stall_cycles=cycles, claims=claims, messages=messages or {}, premise=premise)


def hot(view: KernelView, positions: Iterable[int]) -> list[int]:
    """The positions among ``positions`` that carry stall cycles (the hot path), in program order."""
    ins = view.ins
    return sorted(p for p in set(positions) if ins[p].stall_cycles > 0)


def unit_key(view: KernelView, key: str) -> str:
    """The premise ``key`` in the capture's stall unit: AMD ATT counts stall cycles, Nsight Compute
    warp-stall samples (``key + ".samples"``, worded in samples), AMD PC sampling stalled samples
    (``key + ".pcs"``)."""
    if getattr(view.analysis, "stall_unit", "cycles") == "cycles":
        return key
    return pcs_key(key) if getattr(view.analysis, "kind", "") == "pc_sampling" else key + ".samples"


#: The catalogue suffix of a finding's words for an AMD PC-sampling capture (stalled samples, not cycles).
PCS = ".pcs"


def pcs_key(key: str) -> str:
    """``key + ".pcs"`` when the catalogue words it in samples, else ``key``."""
    from generator.analyze.message import catalogue

    return key + PCS if key + PCS in catalogue("en") else key


def _in_samples(m: Msg | None) -> Msg | None:
    """A finding's message worded in stalled samples (AMD PC sampling), its parameters kept."""
    return None if m is None else replace(m, key=pcs_key(m.key))


def pcs_words(f: Finding) -> Finding:
    """A finding of a PC-sampling capture: its summary and premise worded in samples (``.pcs`` keys)."""
    return replace(f, stall_unit="samples", premise=_in_samples(f.premise),
                   messages={k: _in_samples(v) if isinstance(v, Msg) else v for k, v in f.messages.items()})


def stalled_premise(view: KernelView, key: str, positions: Iterable[int], evidence: dict[str, Any],
                    **params: Any) -> Msg:
    """The premise ``key`` over the instructions of ``positions`` that stall: ``n`` of them hold
    ``cycles`` of the stall unit (ATT stall cycles, or NCU warp-stall samples: ``unit_key``), ``share``
    of all; their pcs go to ``evidence["premise_pcs"]`` (the audit test recomputes the numbers from
    code.json)."""
    from generator.analyze.message import msg

    stalled = hot(view, positions)
    share, cycles = view.share(stalled)
    evidence["premise_pcs"] = view.pcs(stalled)
    return msg(key, n=len(stalled), cycles=cycles, share=_pct(share), **params)


def words(detector: str, summary: Msg, suggestion: Msg | None = None, title: Msg | None = None,
          **title_params: Any) -> dict[str, Msg]:
    """A finding's messages: title ``finding.<detector>.title`` (with ``title_params``) unless given,
    suggestion ``finding.<detector>.try`` unless given."""
    from generator.analyze.message import msg

    return {"title": title or msg(f"finding.{detector}.title", **title_params), "summary": summary,
            "suggestion": suggestion or msg(f"finding.{detector}.try")}


@record(frozen=True)
class Detector:
    """A registered detector: its name, what it yields, and the function."""

    name: str
    kind: str  # pattern, limit, flag
    fn: Callable[..., list[Finding]]
    doc: str


DETECTORS: list[Detector] = []


def _position(d: Detector) -> int:
    return ORDER.index(d.name) if d.name in ORDER else len(ORDER)


def detector(name: str, kind: str = "pattern"):
    """Register a detector function under ``name`` (its place in ``ORDER`` = claiming order)."""
    def wrap(fn):
        DETECTORS.append(Detector(name=name, kind=kind, fn=fn,
                                  doc=(fn.__doc__ or "").strip().splitlines()[0]))
        DETECTORS.sort(key=_position)  # stable: names outside ORDER keep registration order
        return fn
    return wrap


def get_detector(name: str) -> Detector:
    """The registered detector called ``name``."""
    for d in DETECTORS:
        if d.name == name:
            return d
    raise KeyError(name)


def ranked_on(analysis: CaptureAnalysis) -> CaptureAnalysis:
    """The analysis the plan is ranked on: its working waves when early exits distort it (DOMAIN §1.5)."""
    w = analysis.working
    if w is None:
        return analysis
    return replace(analysis, instructions=w.instructions, total_stall_cycles=w.total_stall_cycles,
                   stall_by_type=w.stall_by_type, lines=w.lines, instruction_rank=w.instruction_rank)


def advise(analysis: CaptureAnalysis, context: AdviceContext | None = None) -> list[Finding]:
    """The ranked plan of one capture: blockers, patterns by the stall share they act on, then limits, then flags.

    A capture whose early-exit waves hold >= 20 % of the stall cycles is ranked on its
    working waves only (shares are then of the working waves' stall cycles).
    """
    if context is None:
        context = AdviceContext()
    if context.bundle is not None:
        context = context_for(analysis, context.bundle, base=context)
    view = KernelView(ranked_on(analysis), context)
    taken: set[int] = set()
    found: list[tuple[int, Finding]] = []
    for order, det in enumerate(DETECTORS):
        for f in det.fn(view, frozenset(taken)):
            if f.kind == "pattern":
                if f.stall_share < MIN_SHARE:
                    continue
                taken |= set(f.claims)
            found.append((order, f))
    if getattr(analysis, "kind", "") == "pc_sampling":  # AMD PC sampling: stalled samples
        found = [(order, pcs_words(f)) for order, f in found]
    elif analysis.stall_unit != "cycles":  # Nsight Compute: warp-stall samples
        found = [(order, replace(f, stall_unit="samples")) for order, f in found]
    return rank(found)


def rank(found: list[tuple[int, Finding]]) -> list[Finding]:
    """Patterns by the stall share their suggestion acts on, then limits by priority, then flags (registry
    order on ties)."""
    prio = {p: k for k, p in enumerate(PRIORITIES)}
    group = {"blocker": -1, "pattern": 0, "limit": 1, "flag": 2}
    ordered = sorted(found, key=lambda t: (group[t[1].kind], -acted_share(t[1]) if t[1].kind == "pattern" else 0,
                                           prio.get(t[1].priority, 9), t[0]))
    return [f for _, f in ordered]


def acted_share(f: Finding) -> float:
    """The stall share a pattern's suggestion acts on: its own, less the part the suggestion says stays
    (``evidence.stays_share``). pa: the scalar-load waits hold 16.6 % of the working waves' stalls, but
    batching the late s_loads leaves the wait at pc 6 (11.9 %) as it is, so the suggestion acts on 4.7 %
    and ranks below back-to-back loads (12.6 %)."""
    return f.stall_share - (f.evidence.get("stays_share") or 0.0)


def _stall_words(f: Finding) -> str:
    """What a finding's share is of: ``stall cycles`` (ATT), ``stalled samples`` (sampled captures)."""
    return "stall cycles" if f.stall_unit == "cycles" else "stalled samples"


def _evidence(f: Finding, word: Callable[[Msg], str] | None) -> str:
    """A finding's evidence line: its summary message when worded in samples (``.pcs``), else its English."""
    m = f.messages.get("summary")
    return word(m) if word is not None and isinstance(m, Msg) and m.key.endswith(PCS) else f.summary


def format_plan(findings: list[Finding], word: Callable[[Msg], str] | None = None) -> list[str]:
    """Text lines of the plan for the terminal (two-space indent); ``word`` renders a premise
    (``site.wording.plain`` in English), which is left out without it."""
    lines: list[str] = []
    ranked = [f for f in findings if f.ranked]
    n = 0
    limits_started = False
    for f in ranked:
        if f.kind == "limit" and not limits_started:
            limits_started = True
            if n:
                lines.append("")
            lines.append(f"  Limits (structural; no {_stall_words(f)} of their own):")
        n += 1
        acts = f", acts on {_pct(acted_share(f))}" if _pct(acted_share(f)) != _pct(f.stall_share) else ""
        share = f"  ({_pct(f.stall_share)} of {_stall_words(f)}{acts})" if f.kind == "pattern" else ""
        lines.append(f"  {n:>2}. [{f.priority}] {f.title}{share}")
        lines.append(f"      evidence: {_evidence(f, word)}")
        if word is not None and f.premise is not None:
            lines.append(f"      premise: {word(f.premise)}")
        lines.append(f"      try: {f.suggestion}")
    flags = [f for f in findings if f.flagged]
    if flags:
        if lines:
            lines.append("")
        lines.append("  Flagged (not ranked):")
        for f in flags:
            on_line = f"  ({_pct(f.stall_share)} of {_stall_words(f)} on the line)" if f.stall_share else ""
            lines.append(f"   - {f.title}{on_line}")
            lines.append(f"      evidence: {_evidence(f, word)}")
            if word is not None and f.premise is not None:
                lines.append(f"      premise: {word(f.premise)}")
            lines.append(f"      note: {f.suggestion}")
    return lines
