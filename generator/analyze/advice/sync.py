"""LDS, scalar-load and barrier waits: lgkmcnt before an MFMA, cross-lane reductions, s_load, s_barrier."""

from __future__ import annotations

import re

from generator.analyze import isa
from generator.analyze.advice.registry import (Finding, _pattern, detector, hot, pattern_priority, stalled_premise,
                                               unit_key, words)
from generator.analyze.advice.streaming import nvidia, sass_opcode
from generator.analyze.advice.view import KernelView, _lines_msg, _lines_text, _n, _pc_list, _pc_list_msg, _pcs_msg, _pcs_text, _pct
from generator.words import noun
from generator.analyze.message import Msg, english, msg
from generator.analyze.ncu_summary import read_reason

#: "Right after the wait": the consumer sits at most this many instructions after the wait (the read that
#: feeds it may have been issued much earlier: moe_gemm's reads sit 2-73 instructions before their MFMA).
AT_ONCE = 4
#: Barrier share from which a kernel is barrier-dominated (or barrier is the top type).
BARRIER_SHARE = 0.20
#: NVIDIA: how far back from a barrier-stalled instruction its BAR.SYNC may sit (NCU samples a warp
#: at the instruction it waits to issue, after the barrier), and how many instructions before the
#: BAR say what it guards (DOMAIN §4: read a stall reason with its opcode).
BAR_BACK = 16
BAR_BEFORE = 3
#: ... and how many before it a reduction's warp shuffle may sit.
SHUFFLE_BEFORE = 8
#: Readings of an NVIDIA barrier, in the order a tie is decided; the first two are the copy pipeline's.
BAR_KINDS = ("copy", "stage", "reduction", "other")
#: Code words of the NVIDIA barrier sentences: data in every language.
CODE = {"bar": "BAR.SYNC", "depbar": "DEPBAR", "stages": "num_stages", "warps": "num_warps", "tma": "TMA",
        "mbarrier": "mbarrier"}  # TMA copies (sm_90 and later) with mbarrier waits need no CTA-wide barrier


@detector("lds_read_into_mfma")
def detect_lds_read_into_mfma(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """An LDS read is consumed right away by an MFMA: the MFMA waits on lgkmcnt."""
    if not view.has_mfma:
        return []
    waits, reads, examples = [], set(), []
    for p in view.waits("lgkmcnt"):
        if p in taken or not view.ins[p].stall_cycles:
            continue
        y = view.youngest(p, "lgkmcnt")
        if y is None or not view.mnemonics[y].startswith(("ds_read", "ds_load")):
            continue
        drained = view.covered(p, "lgkmcnt")
        if any(view.lgkm[q] != "lds" for q in drained):  # it also waits for s_loads: not an LDS wait alone
            continue
        c = view.consumer(p, view.defs[y], window=AT_ONCE + 1)
        if c is None or not view.mfma[c]:
            continue
        waits.append(p)
        reads.update(drained)
        examples.append({"read_pc": view.pc(y), "wait_pc": view.pc(p), "mfma_pc": view.pc(c),
                         "read_to_mfma": view.distance(y, c), "wait_stall_cycles": view.ins[p].stall_cycles,
                         "drains": _op_counts(view, drained)})
    if not waits:
        return []
    examples.sort(key=lambda d: (-d["wait_stall_cycles"], d["wait_pc"]))
    gaps = sorted(d["read_to_mfma"] for d in examples)
    share, _ = view.share(waits)
    lines = view.lines_json(waits, 3)
    ev: dict = {}
    premise = stalled_premise(view, "finding.lds_read_into_mfma.premise", waits, ev, at=AT_ONCE + 1)
    ops = _op_list(view, reads)
    summary = (f"{_n(len(waits), 'lgkmcnt wait')} at pc {_pc_list(view.pcs(waits))} ({_lines_text(lines)}) "
               f"{noun(len(waits), 'drains', 'drain')} only LDS ops ({', '.join(ops)}); the MFMA after each reads the youngest ds_read's data "
               f"{gaps[0]}-{gaps[-1]} instructions after its issue; {_pct(share)} of the stall cycles")
    return [_pattern(view, "lds_read_into_mfma", "MFMA right after an lgkmcnt wait on its LDS reads (lgkmcnt stalls)",
                     waits, {
                         "summary": summary,
                         "examples": examples[:6],
                         "waits": view.instr_json(waits, 6),
                         "lines": lines,
                         "lds_reads": len(reads),
                         "drained": _op_counts(view, reads), **ev,
                     }, ("Put independent work between each wait and the MFMA that reads the data: count "
                         "lgkmcnt down (N-1, N-2, ...) so each wait drains only the reads the next MFMA needs, "
                         "and keep the next k-step's reads in flight while this one's MFMAs run."),
                     words("lds_read_into_mfma", msg(
                         "finding.lds_read_into_mfma.summary", n=len(waits), pcs=_pc_list_msg(view.pcs(waits)),
                         lines=_lines_msg(lines), ops=ops, gaps=f"{gaps[0]}-{gaps[-1]}", share=_pct(share))),
                     premise)]


def _op_counts(view: KernelView, positions) -> dict[str, int]:
    """Mnemonic -> how many of ``positions`` (distinct instructions) carry it."""
    out: dict[str, int] = {}
    for q in sorted(set(positions)):
        out[view.mnemonics[q]] = out.get(view.mnemonics[q], 0) + 1
    return out


def _op_list(view: KernelView, positions) -> list[str]:
    """``ds_read_b128 x4``: the operations of ``positions`` by mnemonic, most first (code, every language)."""
    counts = _op_counts(view, positions)
    return [f"{m} x{n}" for m, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _serialized_steps(view: KernelView, ops: list[int], window: int = 8) -> int:
    """Cross-lane ops whose input depends on the previous cross-lane op's result."""
    opset = set(ops)
    steps = 0
    for p in ops:
        tainted = set(view.defs[p])
        for q in range(p + 1, min(len(view.ins), p + 1 + window)):
            if not view.uses[q].isdisjoint(tainted):
                if q in opset:
                    steps += 1
                    break
                tainted |= view.defs[q]
    return steps


@detector("cross_lane_reduction")
def detect_cross_lane_reduction(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Serialized cross-lane reduction steps (ds_swizzle/bpermute, v_permlane, DPP) stall."""
    ops = [p for p, cross in enumerate(view.cross_lane) if cross and view.ins[p].exec_count]  # the code that runs
    if len(ops) < 2:
        return []
    steps = _serialized_steps(view, ops)
    if steps == 0:
        return []
    ds_ops = {p for p in ops if view.mnemonics[p].startswith(isa.CROSS_LANE_DS)}
    waits = [p for p in view.waits("lgkmcnt") if p not in taken and view.youngest(p, "lgkmcnt") in ds_ops]
    own = [p for p in ops if p not in taken]
    claims = set(own) | set(waits)
    if not hot(view, claims):
        return []
    share, _ = view.share(claims)
    ev: dict = {}
    premise = stalled_premise(view, "finding.cross_lane_reduction.premise", claims, ev)
    kinds: dict[str, int] = {}
    for p in ops:
        m = view.mnemonics[p]
        key = m if not m.startswith("v_") or m.startswith("v_permlane") else "DPP"
        kinds[key] = kinds.get(key, 0) + 1
    summary = (f"{_n(len(ops), 'cross-lane op')} ({', '.join(f'{k} x{n}' for k, n in sorted(kinds.items()))}), "
               f"{steps} of them waiting on the previous step"
               + (f", {_n(len(waits), 'lgkmcnt wait')} after ds_swizzle/bpermute" if waits else "")
               + f"; {_pct(share)} of the stall cycles")
    said = msg("finding.cross_lane_reduction.summary" + (".waits" if waits else ""), n=len(ops),
               kinds=[f"{k} x{n}" for k, n in sorted(kinds.items())], steps=steps, waits=len(waits),
               share=_pct(share))
    return [_pattern(view, "cross_lane_reduction", "Serialized cross-lane reduction", claims, {
        "summary": summary,
        "ops": kinds,
        "serialized_steps": steps,
        "wait_pcs": view.pcs(waits),
        "instructions": view.instr_json(claims, 6),
        "lines": view.lines_json(claims, 3), **ev,
    }, ("Reduce in registers first (each lane over its own elements), then use DPP row ops or "
        "v_permlane*_swap, which need no LDS round trip and no lgkmcnt wait, and reduce several "
        "independent values per step so the steps overlap."), words("cross_lane_reduction", said), premise)]


@detector("scalar_load_waits")
def detect_scalar_load_waits(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """lgkmcnt waits on scalar loads (kernel arguments, descriptors) are exposed."""
    waits, loads, lds = [], set(), set()
    for p in view.waits("lgkmcnt"):
        if p in taken or not view.ins[p].stall_cycles:
            continue
        y = view.youngest(p, "lgkmcnt")
        if y is not None and view.lgkm[y] == "smem":
            waits.append(p)
            loads.update(q for q in view.covered(p, "lgkmcnt") if view.lgkm[q] == "smem")
            lds.update(q for q in view.covered(p, "lgkmcnt") if view.lgkm[q] == "lds")
    if not waits:
        return []
    share, _ = view.share(waits)
    lines = view.lines_json(waits, 3)
    first_vmem = next((p for p, k in enumerate(view.vmem) if k), len(view.ins))
    at_entry = [p for p in waits if p < first_vmem]
    ev: dict = {}
    premise = stalled_premise(view, "finding.scalar_load_waits.premise", waits, ev)
    ops, lds_ops = _op_list(view, loads), _op_list(view, lds)
    late = late_smem(view, waits)
    summary = (f"{_n(len(waits), 'lgkmcnt wait')} at pc {_pc_list(view.pcs(waits))} waiting on "
               f"{_n(len(loads), 'scalar load')} ({', '.join(ops)})"
               + (f" and on LDS ops ({', '.join(lds_ops)})" if lds_ops else "")
               + f", {len(at_entry)} of the waits before the first vector memory op; "
               f"{_pct(share)} of the stall cycles on {_lines_text(lines, framework=True)}")
    return [_pattern(view, "scalar_load_waits", "lgkmcnt waits on scalar loads (kernel arguments, descriptors)",
                     waits, {
                         "summary": summary,
                         "waits": view.instr_json(waits, 6),
                         "scalar_load_pcs": view.pcs(loads),
                         "drained": {**_op_counts(view, loads), **_op_counts(view, lds)},
                         "waits_before_first_vmem": len(at_entry),
                         "lines": lines, **ev,
                         **_late_smem_evidence(view, waits, late),
                     }, *_scalar_advice(view, waits, late, msg(
                         "finding.scalar_load_waits.summary" + (".lds" if lds_ops else ""), n=len(waits),
                         pcs=_pc_list_msg(view.pcs(waits)), loads=len(loads), ops=ops, **({"lds": lds_ops} if lds_ops else {}),
                         entry=len(at_entry), share=_pct(share),
                         lines=_lines_msg(lines, framework=True))), premise)]


_SREG = re.compile(r"^s\[(\d+):(\d+)\]$|^s(\d+)$")


def _sregs(operand: str) -> set[int]:
    """The scalar registers an operand names (``s[0:1]`` -> {0, 1}); empty for anything else."""
    m = _SREG.match(operand.strip())
    if not m:
        return set()
    lo, hi = (int(m.group(1)), int(m.group(2))) if m.group(1) else (int(m.group(3)), int(m.group(3)))
    return set(range(lo, hi + 1))


def _operands(asm: str) -> list[str]:
    parts = asm.split(None, 1)
    return [o.strip() for o in parts[1].split(",")] if len(parts) > 1 else []


def late_smem(view: KernelView, waits: list[int]) -> list[int]:
    """The s_loads a later wait of ``waits`` drains that were issued after the first wait and read their address
    from the same scalar registers as a load before it, unwritten since (kernel-argument loads off the argument
    pointer): they could be issued before the first wait. Real case (pa): 12 s_loads at pc 40-51 off s[0:1],
    after the wait at pc 6 on the one at pc 1, drained by the wait at pc 87."""
    if len(waits) < 2:
        return []
    first = min(waits)
    early = {tuple(sorted(_sregs(_operands(view.ins[q].asm)[1]))) for q in view.covered(first, "lgkmcnt")
             if view.lgkm[q] == "smem" and len(_operands(view.ins[q].asm)) > 1}
    out = []
    for p in sorted(waits)[1:]:
        for q in view.covered(p, "lgkmcnt"):
            ops = _operands(view.ins[q].asm)
            if q > first and view.lgkm[q] == "smem" and len(ops) > 1 and tuple(sorted(_sregs(ops[1]))) in early \
                    and _unwritten(view, _sregs(ops[1]), q):
                out.append(q)
    return sorted(out)


def _unwritten(view: KernelView, regs: set[int], upto: int) -> bool:
    """Whether no scalar instruction before ``upto`` writes one of ``regs`` (its first operand)."""
    first = _first_writes(view)
    return all(first.get(r, upto) >= upto for r in regs)


def _first_writes(view: KernelView) -> dict[int, int]:
    """``{scalar register: position of the first scalar instruction that writes it}`` (its first operand; not a
    wait or a branch), worked out once per view (issue 41: ``_unwritten`` walked the listing up to each late
    s_load: ``late_smem`` took 0.028 s of a cold build's CPU on the 25-kernel benchmark sweep, now 0.008 s)."""
    if "first_writes" not in view.memo:
        out: dict[int, int] = {}
        for k, m in enumerate(view.mnemonics):
            if m.startswith("s_") and not m.startswith(("s_waitcnt", "s_cbranch", "s_branch")):
                ops = _operands(view.ins[k].asm)
                for r in _sregs(ops[0]) if ops else ():
                    out.setdefault(r, k)
        view.memo["first_writes"] = out
    return view.memo["first_writes"]


def _late_smem_evidence(view: KernelView, waits: list[int], late: list[int]) -> dict:
    if not late:
        return {}
    on_late = [p for p in waits if set(view.covered(p, "lgkmcnt")) & set(late)]
    return {"late_scalar_loads": {"pcs": view.pcs(late), "first_wait_pc": view.pc(min(waits)), "wait_pcs": view.pcs(on_late)},
            "step_share": view.share(on_late)[0],  # the share the suggestion's first sentence acts on
            "stays_share": view.share([min(waits)])[0]}  # the first wait's, which the suggestion says stays


def _scalar_advice(view: KernelView, waits: list[int], late: list[int], summary) -> tuple[str, dict]:
    """The scalar-load suggestion: the s_loads the data shows issued after the first wait that need not be (and
    the share of the later waits that drain them, the part batching acts on), else the general one."""
    if not late:
        return ("Issue all s_loads together before the first wait (or preload kernel arguments into SGPRs).",
                words("scalar_load_waits", summary))
    first = min(waits)
    on_late = [p for p in waits if set(view.covered(p, "lgkmcnt")) & set(late)]
    share, first_share = _pct(view.share(on_late)[0]), _pct(view.share([first])[0])
    params = {"n": len(late), "pcs": _pcs_msg(view.pcs(late)), "wait": view.pc(first),
              "wpcs": _pcs_msg(view.pcs(on_late)), "share": share, "first": first_share}
    text = (f"Issue the {_n(len(late), 's_load')} at pc {_pcs_text(view.pcs(late))} before the wait at pc {view.pc(first)}, "
            f"with the ones it waits on (same address registers). The waits at pc {_pcs_text(view.pcs(on_late))} "
            f"({share} of the stall cycles) then no longer wait on them; the wait at pc {view.pc(first)} ({first_share}) "
            "stays: it waits on the first loads' round trip.")
    return text, words("scalar_load_waits", summary, msg("finding.scalar_load_waits.try.late", **params))


def barrier_samples(view: KernelView, p: int) -> int:
    """The stall of instruction ``p`` at a barrier: on AMD its stall cycles when its type is barrier; on
    NVIDIA its not-issued ``stall_barrier`` samples unless they sit on a wgmma wait (``read_reason``,
    DOMAIN §4: ``WARPGROUP.DEPBAR`` waits for wgmma results, MFMA/FMA), i.e. CTA-barrier samples only."""
    ins = view.ins[p]
    if not nvidia(view):
        return ins.stall_cycles if ins.type == "barrier" else 0
    n = ins.extra.get("stall_reasons_not_issued", {}).get("stall_barrier", 0)
    return n if read_reason("stall_barrier", ins.asm) == "stall_barrier" else 0


def _bar_of(view: KernelView, p: int) -> int | None:
    """The BAR.SYNC a barrier-stalled SASS instruction waits behind: the nearest at or before it."""
    for q in range(p, max(p - BAR_BACK, -1), -1):
        if sass_opcode(view.ins[q].asm) == "BAR":
            return q
    return None


def bar_kind(view: KernelView, p: int) -> tuple[str, int | None]:
    """(what the barrier a warp stalls at guards, its BAR's position), read from the SASS around it:
    ``copy`` after a wait for async copies (DEPBAR), ``stage`` after a wgmma wait (WARPGROUP.DEPBAR) or
    before the next async copies (LDGSTS) into a shared-memory stage, ``reduction`` after a warp
    shuffle tree's STS of partials, else ``other``."""
    q = _bar_of(view, p)
    if q is None:
        return "other", None
    ops = [sass_opcode(view.ins[k].asm) for k in range(max(q - SHUFFLE_BEFORE, 0), q)]
    near = ops[-BAR_BEFORE:]
    after = [sass_opcode(view.ins[k].asm) for k in range(q + 1, min(q + 1 + BAR_BACK, len(view.ins)))]
    if "DEPBAR" in near:
        return "copy", q
    if any(view.ins[k].asm.startswith("WARPGROUP.DEPBAR") for k in range(max(q - BAR_BEFORE, 0), q)) \
            or "LDGSTS" in after[:BAR_BACK // 2]:
        return "stage", q
    if "STS" in near and "SHFL" in ops:
        return "reduction", q
    return "other", q


def _nv_barrier(view: KernelView, bars: list[int], share: float) -> dict:
    """The NVIDIA reading of the barrier stalls: samples per kind (``bar_kind``), the dominant reading,
    and its title / summary / suggestion (English and messages)."""
    by_kind = {k: 0 for k in BAR_KINDS}
    top = []
    for p in sorted(bars, key=lambda p: (-barrier_samples(view, p), p)):
        kind, q = bar_kind(view, p)
        by_kind[kind] += barrier_samples(view, p)
        if len(top) < 4:
            top.append({"pc": view.pc(p), "stall_samples": barrier_samples(view, p), "kind": kind,
                        "bar_pc": view.pc(q) if q is not None else None,
                        "before_bar": view.ins[q - 1].asm if q else ""})
    pipeline = by_kind["copy"] + by_kind["stage"]
    lead = max(("pipeline", pipeline), ("reduction", by_kind["reduction"]), ("other", by_kind["other"]),
               key=lambda kv: kv[1])[0]
    readings = {k: c for k, c in by_kind.items() if c}
    key = "finding.barrier_dominated.nv"
    arch = str(view.analysis.arch or "")
    tma = ".tma" if lead == "pipeline" and arch.startswith("sm_") and arch[3:].isdigit() and int(arch[3:]) >= 90 else ""
    params = {**CODE, **({"arch": arch} if tma else {})}
    nums = {"share": _pct(share), "pc": top[0]["pc"], "samples": top[0]["stall_samples"]}
    parts_en = ", ".join(english(f"{key}.kind.{k}", samples=c, **CODE) for k, c in readings.items())
    parts_m = [msg(f"{key}.kind.{k}", samples=c, **CODE) for k, c in readings.items()]
    return {
        # one title whatever the reading: the sweep page titles a group of kernels by its first member's
        "title": english(f"{key}.title", **CODE), "title_m": msg(f"{key}.title", **CODE),
        "summary": (f"Warps wait at a CTA barrier in {nums['share']} of the warp-stall samples, on "
                    f"{_n(len(bars), 'instruction')} (top: pc {nums['pc']}, {_n(nums['samples'], 'sample')}): {parts_en}"),
        "summary_m": msg(f"{key}.summary", n=len(bars), parts=parts_m, **nums),
        "try": english(f"{key}.try.{lead}{tma}", **params), "try_m": msg(f"{key}.try.{lead}{tma}", **params),
        "evidence": {"barrier_readings": readings, "top": top, "reading": lead},
    }


def _nv_premise(view: KernelView, bars: list[int], cycles: int, share: float, evidence: dict) -> Msg:
    """The NVIDIA premise: the instructions with CTA-barrier samples and those samples alone (``barrier_samples``)."""
    evidence["premise_pcs"] = view.pcs(sorted(bars))
    return msg("finding.barrier_dominated.nv.premise", n=len(bars), cycles=cycles, share=_pct(share))


@detector("barrier_dominated")
def detect_barrier(view: KernelView, taken: frozenset = frozenset()) -> list[Finding]:
    """Barrier waits hold a large share of the stall (or barrier is the top stall type).

    AMD: s_barrier / s_wait_idle instructions; NVIDIA: CTA-barrier samples only (``barrier_samples``),
    never the wgmma waits NCU also files under stall_barrier."""
    bars = [p for p, i in enumerate(view.ins) if p not in taken and i.stall_cycles and barrier_samples(view, p)]
    if not bars:
        return []
    cycles = sum(barrier_samples(view, p) for p in bars)
    share = cycles / view.total_stall if view.total_stall else 0.0
    by_type = view.analysis.stall_by_type
    top = next((t for t, c in by_type.items() if c > 0), None)
    if share < BARRIER_SHARE and not (top == "barrier" and share >= 0.10):
        return []
    if nvidia(view):
        return [_nv_finding(view, bars, cycles, share)]
    before = []
    for p in sorted(bars, key=lambda p: -view.ins[p].stall_cycles)[:4]:
        prev = view.ins[p - 1].asm if p > 0 else ""
        before.append({"pc": view.pc(p), "stall_cycles": view.ins[p].stall_cycles, "after": prev})
    ev: dict = {}
    premise = stalled_premise(view, unit_key(view, "finding.barrier_dominated.premise"), bars, ev)
    summary = (f"{_n(len(bars), 'barrier instruction')} {noun(len(bars), 'holds', 'hold')} {_pct(share)} of the stall "
               f"cycles (top: pc {before[0]['pc']}, {_n(before[0]['stall_cycles'], 'cycle')})")
    return [_pattern(view, "barrier_dominated", "Barrier-dominated: waves wait for the slowest wave",
                     bars, {"summary": summary, "barriers": len(bars), "top": before,
                            "lines": view.lines_json(bars, 3), **ev},
                     ("Cut barriers per iteration (double-buffer LDS so one barrier guards a tile), "
                      "balance the work between the waves of a workgroup, and move independent work "
                      "before the barrier so fast waves have something to do."),
                     words("barrier_dominated", msg(
                         "finding.barrier_dominated.summary", n=len(bars), share=_pct(share),
                         pc=before[0]["pc"], cycles=before[0]["stall_cycles"])), premise)]


def _nv_finding(view: KernelView, bars: list[int], cycles: int, share: float) -> Finding:
    """The NVIDIA barrier finding: it claims the instructions, but its share is of their CTA-barrier samples."""
    ev: dict = {}
    premise = _nv_premise(view, bars, cycles, share, ev)
    nv = _nv_barrier(view, bars, share)
    f = _pattern(view, "barrier_dominated", nv["title"], bars,
                 {"summary": nv["summary"], "barriers": len(bars), "barrier_samples": cycles, **nv["evidence"],
                  "lines": view.lines_json(bars, 3), **ev}, nv["try"],
                 {"title": nv["title_m"], "summary": nv["summary_m"], "suggestion": nv["try_m"]}, premise)
    f.stall_share, f.stall_cycles, f.priority = share, cycles, pattern_priority(share)
    return f
