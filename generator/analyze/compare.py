"""Compare two captures of one kernel: stall types, hot lines and wave states side by side.

A bundle may hold several captures of the same kernel (DOMAIN §1): two labels
(``small`` and ``big``, two problem sizes) or an original and a suffixed re-capture
(``..._dispatch_44`` and ``..._dispatch_44_after_loc_fix``: before and after a fix).

Shares are compared, not raw cycles: two captures sample different numbers of waves
(flash_attn_func small: 4 waves before the fix, 8 after), so their cycle totals differ
by the sampling alone. Every delta is ``b - a``: a share delta of +0.05 reads
"five percentage points more in B".

Top lines are matched by ``source_loc``: the union of both captures' top-k stalling
lines, each row holding the line's rank and share in both (``None`` where the line does
not appear in that capture at all). The comparison says the source attribution changed
(a debug-info fix) only when the code.json rows show it: the same instructions, position by
position, some attributed to other lines (flash_attn_func's after_loc_fix re-captures: 2,062 of
2,069). Cycle sums get no delta when the two captures sampled different numbers of waves.
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import Any

from generator.analyze.message import sentence
from generator.model import Bundle, CaptureAnalysis, FORMAT_VERSION, LineHotspot, STALL_TYPES, WAVE_STATES, record

#: ``ui_output_agent_<pid>_dispatch_<n>`` plus an optional ``_<suffix>`` of a re-capture.
_CAPTURE_NAME = re.compile(r"^ui_output_agent_\d+_dispatch_(?P<dispatch>\d+)(?:_(?P<suffix>.+))?$")

#: Label order on the page: the small problem first, the big one last, others between.
_LABEL_FIRST, _LABEL_LAST = "small", "big"


@record(frozen=True)
class TotalRow:
    """One headline number of both captures."""

    name: str  # instructions, total_cycles, total_stall_cycles, stall_ratio, waves, mapped_fraction
    a: float | int | None
    b: float | int | None
    comparable: bool = True  # False: no delta (cycle sums over different numbers of sampled waves)

    @property
    def delta(self) -> float | int | None:
        return None if self.a is None or self.b is None or not self.comparable else self.b - self.a


@record(frozen=True)
class StallTypeRow:
    """One stall type: cycles and share of all stall cycles in both captures."""

    type: str
    a_cycles: int
    b_cycles: int
    a_share: float
    b_share: float

    @property
    def delta(self) -> float:
        return self.b_share - self.a_share


@record(frozen=True)
class LineRow:
    """One source line matched by ``source_loc``; ``None`` where a capture lacks the line."""

    source_loc: str
    a_rank: int | None  # 1-based position among all lines ranked by stall
    b_rank: int | None
    a_stall_cycles: int | None
    b_stall_cycles: int | None
    a_share: float | None
    b_share: float | None
    a_dominant_type: str | None
    b_dominant_type: str | None

    @property
    def delta(self) -> float | None:
        return None if self.a_share is None or self.b_share is None else self.b_share - self.a_share


@record(frozen=True)
class WaveStateRow:
    """One wave state (IDLE, EXEC, WAIT, STALL): its share of sampled wave time in both."""

    state: str
    a_share: float
    b_share: float

    @property
    def delta(self) -> float:
        return self.b_share - self.a_share


@record
class CaptureComparison:
    """Two captures of one kernel side by side (A: before / small, B: after / big)."""

    kernel: str
    a_capture: str
    b_capture: str
    a_label: str
    b_label: str
    a_path: str
    b_path: str
    stall_unit: str
    totals: list[TotalRow]
    stall_types: list[StallTypeRow]
    lines: list[LineRow]
    wave_states: list[WaveStateRow] | None
    topk: int
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """A JSON object of the comparison (deltas included, b - a)."""
        return {
            "format_version": FORMAT_VERSION,
            "kernel": self.kernel,
            "a": {"capture": self.a_capture, "label": self.a_label, "path": self.a_path},
            "b": {"capture": self.b_capture, "label": self.b_label, "path": self.b_path},
            "stall_unit": self.stall_unit,
            "topk": self.topk,
            "totals": [{"name": t.name, "a": t.a, "b": t.b, "delta": t.delta} for t in self.totals],
            "stall_types": [
                {"type": r.type, "a_cycles": r.a_cycles, "b_cycles": r.b_cycles,
                 "a_share": r.a_share, "b_share": r.b_share, "delta": r.delta}
                for r in self.stall_types
            ],
            "lines": [
                {"source_loc": r.source_loc, "a_rank": r.a_rank, "b_rank": r.b_rank,
                 "a_stall_cycles": r.a_stall_cycles, "b_stall_cycles": r.b_stall_cycles,
                 "a_share": r.a_share, "b_share": r.b_share, "delta": r.delta,
                 "a_dominant_type": r.a_dominant_type, "b_dominant_type": r.b_dominant_type}
                for r in self.lines
            ],
            "wave_states": None if self.wave_states is None else [
                {"state": r.state, "a_share": r.a_share, "b_share": r.b_share, "delta": r.delta}
                for r in self.wave_states
            ],
            "notes": list(self.notes),
        }


@record(frozen=True)
class CapturePair:
    """Two captures worth comparing, and why."""

    a: CaptureAnalysis
    b: CaptureAnalysis
    kind: str  # "recapture" (original vs suffixed, same label) or "labels" (small vs big)
    title: str  # e.g. "small: before vs after_loc_fix"


# ---------------------------------------------------------------- comparison

def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def compare_totals(a: CaptureAnalysis, b: CaptureAnalysis) -> list[TotalRow]:
    """Headline numbers of both captures. Cycle sums get no delta when the captures sampled different
    numbers of waves (a sum over 8 waves against one over 4 differs by the sampling alone)."""
    same_waves = len(a.waves) == len(b.waves)
    return [
        TotalRow("instructions", len(a.instructions), len(b.instructions)),
        TotalRow("total_cycles", a.total_cycles, b.total_cycles, same_waves),
        TotalRow("total_stall_cycles", a.total_stall_cycles, b.total_stall_cycles, same_waves),
        TotalRow("stall_ratio", a.stall_ratio, b.stall_ratio),
        TotalRow("waves", len(a.waves), len(b.waves)),
        TotalRow("mapped_fraction", a.mapped_fraction, b.mapped_fraction),
    ]


def compare_stall_types(a: CaptureAnalysis, b: CaptureAnalysis) -> list[StallTypeRow]:
    """Every stall type that stalls in either capture, largest share (of either) first."""
    names = [t for t in STALL_TYPES if a.stall_by_type.get(t) or b.stall_by_type.get(t)]
    names += sorted(t for t in {*a.stall_by_type, *b.stall_by_type} - set(STALL_TYPES)
                    if a.stall_by_type.get(t) or b.stall_by_type.get(t))
    rows = [StallTypeRow(
        type=t,
        a_cycles=a.stall_by_type.get(t, 0),
        b_cycles=b.stall_by_type.get(t, 0),
        a_share=_share(a.stall_by_type.get(t, 0), a.total_stall_cycles),
        b_share=_share(b.stall_by_type.get(t, 0), b.total_stall_cycles),
    ) for t in names]
    # stable sort: ties keep the classifier's order
    return sorted(rows, key=lambda r: -max(r.a_share, r.b_share))


def _line_index(lines: list[LineHotspot]) -> dict[str, tuple[int, LineHotspot]]:
    """source_loc -> (1-based rank, line)."""
    return {ln.source_loc: (i, ln) for i, ln in enumerate(lines, 1)}


def compare_lines(a: CaptureAnalysis, b: CaptureAnalysis, topk: int = 15) -> list[LineRow]:
    """The union of both top-k stalling lines, matched by source_loc, largest share first."""
    ia, ib = _line_index(a.lines), _line_index(b.lines)
    locs = list(dict.fromkeys([ln.source_loc for ln in a.hot_lines(topk)]
                              + [ln.source_loc for ln in b.hot_lines(topk)]))
    rows = []
    for loc in locs:
        ra, la = ia.get(loc, (None, None))
        rb, lb = ib.get(loc, (None, None))
        rows.append(LineRow(
            source_loc=loc,
            a_rank=ra,
            b_rank=rb,
            a_stall_cycles=la.stall_cycles if la else None,
            b_stall_cycles=lb.stall_cycles if lb else None,
            a_share=la.share if la else None,
            b_share=lb.share if lb else None,
            a_dominant_type=la.dominant_type if la else None,
            b_dominant_type=lb.dominant_type if lb else None,
        ))
    return sorted(rows, key=lambda r: (-max(r.a_share or 0.0, r.b_share or 0.0), r.source_loc))


def compare_wave_states(a: CaptureAnalysis, b: CaptureAnalysis) -> list[WaveStateRow] | None:
    """Wave-state shares side by side; None unless both captures have them."""
    if a.wave_states is None or b.wave_states is None:
        return None
    return [WaveStateRow(s, a.wave_states.get(s, 0.0), b.wave_states.get(s, 0.0)) for s in WAVE_STATES]


def code_difference(a: CaptureAnalysis, b: CaptureAnalysis) -> tuple[int, int] | None:
    """(instructions whose asm differs, instructions of equal asm attributed to another source line),
    position by position; None when the instruction counts differ or a capture lists none."""
    if not a.instructions or len(a.instructions) != len(b.instructions):
        return None
    pairs = list(zip(a.instructions, b.instructions))
    differ = sum(1 for x, y in pairs if x.asm.strip() != y.asm.strip())
    moved = sum(1 for x, y in pairs if x.asm.strip() == y.asm.strip() and x.source_loc != y.source_loc)
    return differ, moved


def comparison_notes(a: CaptureAnalysis, b: CaptureAnalysis, lines: list[LineRow]) -> list[str]:
    """What a reader must know before trusting the deltas. That the source attribution changed is
    said only where the code.json rows show it: the same instructions, some on other lines."""
    notes = []
    if a.kernel != b.kernel:
        notes.append(sentence("msg.cmp.kernels", a=a.kernel, b=b.kernel))
    if a.stall_unit != b.stall_unit:
        notes.append(sentence("msg.cmp.units", a=a.stall_unit, b=b.stall_unit))
    code = code_difference(a, b)
    if len(a.instructions) != len(b.instructions):
        notes.append(sentence("msg.cmp.isa", a=len(a.instructions), b=len(b.instructions)))
    elif code and code[0]:
        notes.append(sentence("msg.cmp.isa.some", d=f"{code[0]:,}", n=f"{len(a.instructions):,}"))
    if len(a.waves) != len(b.waves):
        notes.append(sentence("msg.cmp.waves", a=len(a.waves), b=len(b.waves)))
    only_a = sum(1 for r in lines if r.b_share is None)
    only_b = sum(1 for r in lines if r.a_share is None)
    if code and not code[0] and code[1]:
        notes.append(sentence("msg.cmp.moved", a=only_a, b=only_b, n=f"{len(a.instructions):,}", moved=f"{code[1]:,}"))
    elif only_a or only_b:
        notes.append(sentence("msg.cmp.lines", a=only_a, b=only_b))
    if a.source_mapped[0] == 0 or b.source_mapped[0] == 0:
        which = [x for x, c in (("A", a), ("B", b)) if c.source_mapped[0] == 0]
        notes.append(sentence("msg.cmp.nomap.both") if len(which) > 1 else sentence("msg.cmp.nomap", which=which[0]))
    return notes


def compare_captures(a: CaptureAnalysis, b: CaptureAnalysis, topk: int = 15) -> CaptureComparison:
    """Compare capture ``a`` (before / small) with ``b`` (after / big)."""
    lines = compare_lines(a, b, topk)
    return CaptureComparison(
        kernel=a.kernel,
        a_capture=a.capture,
        b_capture=b.capture,
        a_label=a.label,
        b_label=b.label,
        a_path=a.path,
        b_path=b.path,
        stall_unit=a.stall_unit,
        totals=compare_totals(a, b),
        stall_types=compare_stall_types(a, b),
        lines=lines,
        wave_states=compare_wave_states(a, b),
        topk=topk,
        notes=comparison_notes(a, b, lines),
    )


# ---------------------------------------------------------------- which pairs

def split_capture_name(name: str) -> tuple[str | None, str | None]:
    """(dispatch number, suffix) of an ATT capture name; (None, None) for other names."""
    m = _CAPTURE_NAME.match(name)
    return (m.group("dispatch"), m.group("suffix")) if m else (None, None)


def label_order(labels: set[str] | list[str]) -> list[str]:
    """Labels as the page orders them: small first, big last, the rest by name between."""
    middle = sorted(l for l in labels if l not in (_LABEL_FIRST, _LABEL_LAST))
    return ([_LABEL_FIRST] if _LABEL_FIRST in labels else []) + middle + (
        [_LABEL_LAST] if _LABEL_LAST in labels else [])


def _one_per_capture(bundle: Bundle, analyses: list[CaptureAnalysis]) -> list[CaptureAnalysis]:
    """The first analysis of each capture of this bundle, sorted by (label, capture name)."""
    rels = {c.rel for c in bundle.usable_captures}
    seen: dict[str, CaptureAnalysis] = {}
    for a in analyses:
        if a.path in rels and a.path not in seen:
            seen[a.path] = a
    return sorted(seen.values(), key=lambda a: (a.label, a.capture))


def _original_for(suffixed: CaptureAnalysis, originals: list[CaptureAnalysis]) -> CaptureAnalysis | None:
    """The original a re-capture redoes: same dispatch number if any, else the last by name."""
    dispatch, _ = split_capture_name(suffixed.capture)
    same = [o for o in originals if split_capture_name(o.capture)[0] == dispatch]
    pool = same or originals
    return pool[-1] if pool else None


def pairs_to_compare(bundle: Bundle, analyses: list[CaptureAnalysis]) -> list[CapturePair]:
    """Meaningful pairs of a bundle's captures.

    Per label, each suffixed re-capture against its original (kind ``recapture``);
    then, between labels, the latest capture of each (the last by name, as for the
    primary capture) in page order, small before big (kind ``labels``).
    """
    caps = _one_per_capture(bundle, analyses)
    by_label: dict[str, list[CaptureAnalysis]] = {}
    for a in caps:
        by_label.setdefault(a.label, []).append(a)
    labels = label_order(set(by_label))
    pairs: list[CapturePair] = []
    for label in labels:
        group = by_label[label]
        originals = [a for a in group if not split_capture_name(a.capture)[1]]
        for b in group:
            suffix = split_capture_name(b.capture)[1]
            if not suffix:
                continue
            a = _original_for(b, originals)
            if a is not None:
                pairs.append(CapturePair(a, b, "recapture", sentence("msg.cmp.recapture", label=label or "(no label)",
                                                                     suffix=suffix)))
    latest = {label: by_label[label][-1] for label in labels}
    for i, la in enumerate(labels):
        for lb in labels[i + 1:]:
            pairs.append(CapturePair(latest[la], latest[lb], "labels",
                                     sentence("msg.cmp.labels", label=la or "(no label)", label_b=lb or "(no label)")))
    return pairs
