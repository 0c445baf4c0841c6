"""Flags: how to read the line table (the entry/decorator-line artifact, framework intrinsic lines)."""

from __future__ import annotations

from generator.analyze.advice.registry import MEDIUM_SHARE, Finding, detector, stalled_premise, words
from generator.analyze.advice.view import KernelView, _lines_msg, _lines_text, _pct, is_framework_path, short_loc
from generator.words import plural
from generator.analyze.message import Msg, msg
from generator.model import UNKNOWN_LOC


def _mixed_types(stall_by_type: dict[str, int], total: int, floor: float = 0.10) -> list[str]:
    return sorted((t for t, c in stall_by_type.items() if total and c / total >= floor),
                  key=lambda t: (-stall_by_type[t], t))


def _stalled_ops(view: KernelView, positions: list[int], k: int = 3) -> list[str]:
    """``s_barrier 59.5%``: the ``k`` opcodes holding most of the stall of ``positions``, with their share of it."""
    by_op: dict[str, int] = {}
    for p in positions:
        by_op[view.mnemonics[p]] = by_op.get(view.mnemonics[p], 0) + view.ins[p].stall_cycles
    total = sum(by_op.values())
    top = sorted((o for o, c in by_op.items() if c), key=lambda o: (-by_op[o], o))[:k]
    return [f"{o} {_pct(by_op[o] / total)}" for o in top]


ENTRY_TRY = ("Do not optimize this line: the compiler attributes the waits, address math and loop control it "
             "cannot map elsewhere to the kernel's entry. Read the instruction-level findings and the real op lines")


def _decorator_words(part: str, loc: str, n: int, n_ins: int, ops: list[str],
                     real: list[str]) -> tuple[str, Msg | None, str, Msg | None]:
    """Title and suggestion (English, message) of the line flag. An entry line is the compiler's entry
    attribution; a catch-all line that is not the entry is read only as what code.json shows: how many
    instructions map to it and the opcodes its stall sits on (moe_blockscale's line 196: 422 of 885,
    s_barrier 59.5%)."""
    lines = _lines_msg([{"source": x} for x in real]) if real else None
    paren = f" ({_lines_text([{'source': x} for x in real])})" if real else ""
    if part != "catch_all":
        return (f"Entry/decorator line {loc} is a debug-info artifact", None, ENTRY_TRY + paren + " instead.",
                msg("finding.decorator_line.try.lines", lines=lines) if real else None)
    title = f"Line {loc} holds {n} of {plural(n_ins, 'instruction')}: a catch-all, not one operation"
    text = (f"Do not optimize this line as one operation: the compiler maps {n} of the {plural(n_ins, 'instruction')} to "
            f"it, and its stalls sit on {', '.join(ops)}. Read the instruction-level findings and the real "
            f"op lines{paren} instead.")
    return (title, msg("finding.decorator_line.title.catch_all", loc=loc, n=n, total=n_ins), text,
            msg("finding.decorator_line.try.catch_all" + (".lines" if real else ""), n=n, total=n_ins, ops=ops,
                **({"lines": lines} if real else {})))


@detector("decorator_line", kind="flag")
def detect_decorator_line(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """The kernel's entry/decorator line tops the table with mixed stall types (artifact)."""
    a = view.analysis
    n_ins = len(view.ins)
    if not n_ins:
        return []
    sizes = sorted((len(ln.pc_indices) for ln in a.lines), reverse=True)
    entry_loc = view.ins[0].source_loc
    hot = [ln for ln in a.lines if ln.stall_cycles > 0 and ln.source_loc != UNKNOWN_LOC][:3]
    for ln in hot:
        n = len(ln.pc_indices)
        catch_all = n >= 0.25 * n_ins and n == sizes[0]
        mixed = _mixed_types(ln.stall_by_type, ln.stall_cycles)
        if not (catch_all or ln.source_loc == entry_loc) or len(mixed) < 2 or ln.share < MEDIUM_SHARE:
            continue
        real = [x for x in a.lines if x.stall_cycles > 0 and x.source_loc not in (ln.source_loc, UNKNOWN_LOC)
                and not is_framework_path(x.source_loc)][:3]
        why = []
        if ln.source_loc == entry_loc:
            why.append("the kernel's first instruction")
        if catch_all:
            why.append(f"{n} of {plural(n_ins, 'instruction')}")
        mix = ", ".join(f"{t} {_pct(ln.stall_by_type[t] / ln.stall_cycles)}" for t in mixed)
        summary = (f"{short_loc(ln.source_loc)} holds {' and '.join(why)}; its {_pct(ln.share)} of the stall "
                   f"cycles mix {mix}")
        part = ("both" if len(why) == 2 else "entry" if ln.source_loc == entry_loc else "catch_all")
        ev: dict = {}
        positions = [p for p, i in enumerate(view.ins) if i.source_loc == ln.source_loc]
        premise = stalled_premise(view, "finding.decorator_line.premise", positions, ev,
                                  loc=short_loc(ln.source_loc), count=n, total=n_ins,
                                  types=[f"{t} {_pct(ln.stall_by_type[t] / ln.stall_cycles)}" for t in mixed])
        ops = _stalled_ops(view, positions)
        title, title_msg, text, try_msg = _decorator_words(part, short_loc(ln.source_loc), n, n_ins, ops,
                                                           [x.source_loc for x in real])
        said = words("decorator_line", msg(
            "finding.decorator_line.summary", loc=short_loc(ln.source_loc),
            why=msg(f"finding.decorator_line.{part}", n=n, total=n_ins), share=_pct(ln.share),
            mix=[f"{t} {_pct(ln.stall_by_type[t] / ln.stall_cycles)}" for t in mixed]),
            try_msg, title_msg, loc=short_loc(ln.source_loc))
        return [Finding(
            detector="decorator_line",
            title=title,
            stall_share=ln.share,
            stall_cycles=ln.stall_cycles,
            evidence={
                "summary": summary,
                "source": ln.source_loc,
                "line_share": ln.share,
                "instructions": n,
                "kernel_instructions": n_ins,
                "entry_line": ln.source_loc == entry_loc,
                "types": {t: ln.stall_by_type[t] for t in mixed},
                "real_op_lines": [{"source": x.source_loc, "share": x.share,
                                   "dominant_type": x.dominant_type} for x in real], **ev,
            },
            suggestion=text,
            priority="info",
            kind="flag",
            messages=said,
            premise=premise,
        )]
    return []


@detector("framework_line", kind="flag")
def detect_framework_line(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """A framework/library intrinsic line holds a large share of the stall cycles."""
    a = view.analysis
    out = []
    for ln in [x for x in a.lines if x.stall_cycles > 0][:5]:
        if ln.share < 0.10 or not is_framework_path(ln.source_loc):
            continue
        positions = [p for p, i in enumerate(view.ins) if i.source_loc == ln.source_loc]
        catch_all = max(a.lines, key=lambda x: (len(x.pc_indices), x.source_loc)).source_loc
        callers: dict[str, int] = {}
        for p in positions:
            if view.ins[p].stall_cycles == 0:
                continue
            # The nearest kernel line before the hot instruction, skipping the catch-all
            # entry line (it is everywhere) unless nothing else is near.
            near = [view.ins[q].source_loc for q in range(p - 1, max(-1, p - 65), -1)
                    if view.ins[q].source_loc != UNKNOWN_LOC and not is_framework_path(view.ins[q].source_loc)]
            pick = next((loc for loc in near if loc != catch_all), near[0] if near else None)
            if pick:
                callers[pick] = callers.get(pick, 0) + view.ins[p].stall_cycles
        near = [loc for loc, _ in sorted(callers.items(), key=lambda kv: (-kv[1], kv[0]))[:3]]
        top = view.instr_json(positions, 3)
        what = top[0]["asm"] if top else ln.dominant_type
        summary = (f"{short_loc(ln.source_loc)} holds {_pct(ln.share)} of the stall cycles, "
                   f"mostly {ln.dominant_type} ({what})"
                   + (f"; nearest kernel lines before it: {', '.join(short_loc(x) for x in near)}" if near else ""))
        near_data = [short_loc(x) for x in near]
        ev: dict = {}
        premise = stalled_premise(view, "finding.framework_line.premise", positions, ev, loc=short_loc(ln.source_loc))
        said = words("framework_line", msg(
            "finding.framework_line.summary" + (".near" if near else ""), loc=short_loc(ln.source_loc),
            share=_pct(ln.share), type=ln.dominant_type, what=what, near=near_data),
            msg("finding.framework_line.try.near", near=near_data) if near else None,
            loc=short_loc(ln.source_loc))
        out.append(Finding(
            detector="framework_line",
            title=f"Hot samples on a framework intrinsic line {short_loc(ln.source_loc)}",
            stall_share=ln.share,
            stall_cycles=ln.stall_cycles,
            evidence={"summary": summary, "source": ln.source_loc, "line_share": ln.share,
                      "dominant_type": ln.dominant_type, "instructions": top,
                      "nearby_kernel_lines": near, **ev},
            suggestion=("The stall belongs to the kernel code that inlined this helper: the instruction "
                        "findings name what it waits for; "
                        + (f"change the kernel code, not the framework line (the nearest kernel lines before its "
                           f"hot instructions: {', '.join(short_loc(x) for x in near)})." if near
                           else "change the call site, not the framework line.")),
            priority="info",
            kind="flag",
            messages=said,
            premise=premise,
        ))
    return out
