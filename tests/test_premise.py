"""Advice whose premise holds on the hot path (issue 26).

Two hand-made fixtures show the rule on the case that prompted it: a moe_reduce-like kernel whose
stalled loads are all 16 bytes per lane (its 64 narrow loads never stall) gets no widening advice; a
softmax-like kernel whose stalled loads are 2 bytes per lane keeps it. The audit then takes every
finding of every capture of the shared sweep and recomputes its premise's numbers from the capture's
own files, read here without the analysis code: code.json (columns by its header), the wave files
(for the working waves of a capture ranked on them), the kernel trace CSV and expected/occupancy.json.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from generator.analyze import advice, analysis
from generator.read import discover
from generator.site import wording
from test_advice_synthetic import make_synthetic_analysis, run  # same test folder

REDUCE_LINE, TAIL_LINE = "/src/kernels/moe_reduce.py:3177", "/src/kernels/moe_reduce.py:3234"


def handmade_reduce_rows(hot_width: str, cold_width: str, n_cold: int = 64):
    """A reduction's rows (hand-made, shaped like moe_reduce): 8 hot loads of ``hot_width`` (249 stall
    cycles each) and one dword load (8), a wait, then ``n_cold`` loads of ``cold_width`` that never stall."""
    hot = [(f"buffer_load_{hot_width} v[{4 * i}:{4 * i + 3}], v40, s[8:11], 0 offen offset:{64 * i}", 249, 260,
            REDUCE_LINE) for i in range(8)]
    hot.append(("buffer_load_dword v36, v41, s[12:15], 0 offen", 8, 20, REDUCE_LINE))
    cold = [(f"buffer_load_{cold_width} v{50 + i % 8}, v42, s[8:11], 0 offen offset:{2 * i}", 0, 10, TAIL_LINE)
            for i in range(n_cold)]
    return (hot + [("s_waitcnt vmcnt(0)", 500, 500, REDUCE_LINE), ("v_add_f32_e32 v4, v0, v1", 0, 10, REDUCE_LINE)]
            + cold + [("s_waitcnt vmcnt(0)", 0, 10, TAIL_LINE), ("s_endpgm", 0, 10, TAIL_LINE)])


def test_handmade_moe_reduce_like_wide_hot_loads_get_no_widening_advice():
    # 8 dwordx4 loads hold 1992 of the 2000 load stall cycles (99.6 %); the 64 ushort loads on the
    # tail line hold 0. The old rule counted the 64 narrow loads (a majority of 73) and asked for dwordx4.
    (f,) = run("back_to_back_loads", make_synthetic_analysis(handmade_reduce_rows("dwordx4", "ushort")))
    assert f.messages["suggestion"].key == "finding.back_to_back_loads.try"
    assert "dwordx4" not in f.suggestion and "bytes per lane each" not in f.suggestion
    assert f.premise.key == "finding.back_to_back_loads.premise"
    assert f.premise.kw == {"n": 9, "cycles": 2000, "share": "80.0%", "m": 8, "wshare": "99.6%", "w": 16}
    assert wording.plain("en", f.premise) == ("9 loads of the runs with stall cycles, 2000 in all (80.0%); the 8 "
                                              "holding 99.6% of them move 16 bytes per lane")
    assert f.evidence["premise_pcs"] == list(range(1, 10))  # no pc of the cold tail


def test_handmade_softmax_like_narrow_hot_loads_keep_the_widening_advice():
    # The same kernel with the widths swapped: the 8 stalled loads move 2 bytes per lane.
    (f,) = run("back_to_back_loads", make_synthetic_analysis(handmade_reduce_rows("ushort", "dwordx4")))
    assert f.messages["suggestion"].key == "finding.back_to_back_loads.try.narrow"
    assert f.messages["suggestion"].kw == {"w": 2, "fewer": 8}
    assert f.premise.kw["w"] == 2 and f.premise.kw["wshare"] == "99.6%" and f.premise.kw["m"] == 8
    assert "8x fewer load instructions" in f.suggestion


def test_handmade_cold_narrow_loads_alone_fire_nothing():
    # Only the cold tail: no load stalls, so no run of loads is hot and nothing is advised.
    rows = [r for r in handmade_reduce_rows("dwordx4", "ushort") if r[3] == TAIL_LINE]
    assert run("back_to_back_loads", make_synthetic_analysis(rows)) == []


def test_handmade_cold_vmcnt0_after_dma_loads_is_no_drain():
    # A vmcnt(0) after DMA-to-LDS loads that never stalls is not a drain worth a finding.
    rows = [("buffer_load_dword v1, s[8:11], 0 offen lds", 10, 20), ("buffer_load_dword v2, s[8:11], 0 offen lds", 10, 20),
            ("s_waitcnt vmcnt(0)", 0, 10), ("ds_read_b128 v[4:7], v3", 0, 10), ("s_endpgm", 0, 10)]
    assert run("lds_dma_drain", make_synthetic_analysis(rows)) == []


def test_handmade_narrow_stores_that_never_stall_do_not_ask_for_wider_stores():
    # 4 dwordx4 stores stall 200 cycles each; 8 short stores never do: spread, not widen.
    rows = ([("v_add_f32_e32 v4, v0, v1", 100, 110)]
            + [(f"buffer_store_dwordx4 v[{4 * i}:{4 * i + 3}], v1, s[8:11], 0 offen", 200, 210) for i in range(4)]
            + [(f"buffer_store_short v{i}, v1, s[8:11], 0 offen", 0, 10) for i in range(8)] + [("s_endpgm", 0, 10)])
    (f,) = run("store_bound", make_synthetic_analysis(rows))
    assert f.messages["suggestion"].key == "finding.store_bound.try"
    assert f.premise.kw == {"n": 4, "cycles": 800, "share": "88.9%", "m": 4, "wshare": "100.0%", "w": 16}


# ---------------------------------------------------------------- the audit over the shared sweep

_WIDTHS = (("dwordx4", 16), ("dwordx3", 12), ("dwordx2", 8), ("b128", 16), ("b96", 12), ("b64", 8), ("b32", 4),
           ("dword", 4), ("b16", 2), ("short", 2), ("u16", 2), ("i16", 2), ("d16", 2), ("b8", 1), ("byte", 1),
           ("u8", 1), ("i8", 1))
LOAD = re.compile(r"^(buffer|global|flat)_load")
STORE = re.compile(r"^(buffer|global|flat)_store")


def width(asm: str) -> int:
    op = asm.split()[0]
    return next((w for suffix, w in _WIDTHS if suffix in op), 0)


def stall_type(asm: str) -> str:
    """DOMAIN §1.2's taxonomy, first match wins (written out again here)."""
    a = asm.lower()
    if "s_waitcnt" in a:
        return ("VMEM-wait" if "vmcnt" in a else "LDS/SMEM-wait" if "lgkmcnt" in a else
                "EXP-wait" if "expcnt" in a else "waitcnt")
    if "s_barrier" in a or "s_wait_idle" in a:
        return "barrier"
    for key, t in ((("buffer_load", "global_load", "flat_load"), "VMEM-load"),
                   (("buffer_store", "global_store"), "VMEM-store"), (("ds_read", "ds_write"), "LDS"),
                   (("s_load", "s_store"), "SMEM"), (("v_mfma", "v_fma"), "MFMA/FMA")):
        if any(k in a for k in key):
            return t
    return "other"


def pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "0.0%"


class Capture:
    """A capture's rows read straight from its files: pc -> (asm, loc, exec, latency, stall)."""

    def __init__(self, path: Path):
        self.path = path
        doc = json.loads((path / "code.json").read_text())
        head = [h.strip() for h in doc["header"].split(",")] if isinstance(doc.get("header"), str) else None
        col = {name: head.index(name) for name in ("ISA", "LineNumber", "Source", "Hit", "Latency", "Stall")} \
            if head else {"ISA": 0, "LineNumber": 2, "Source": 3, "Hit": 6, "Latency": 7, "Stall": 8}
        self.rows = {}
        for r in doc["code"]:
            pc = r[col["LineNumber"]]
            if type(pc) is int and pc > 0:
                num = [r[col[k]] if type(r[col[k]]) is int else 0 for k in ("Hit", "Latency", "Stall")]
                self.rows[pc] = (r[col["ISA"]], r[col["Source"]], *num)
        self.order = sorted(self.rows)
        self.stall = {pc: row[4] for pc, row in self.rows.items()}
        self.early = self.sampled = 0
        self.early_stall = 0
        self._working_waves()

    def _working_waves(self) -> None:
        """DOMAIN §1.5: when early-exit waves hold >= 20 % of the stalls, the plan stands on the others."""
        waves = [json.loads(f.read_text())["wave"]["instructions"] for f in sorted(self.path.glob("se*_sm*_sl*_wv*.json"))]
        if not waves:
            return
        longest = max(len(w) for w in waves)
        early = [w for w in waves if len(w) < 0.05 * longest or len(w) < 0.02 * len(self.rows)]
        self.sampled, self.early = len(waves), len(early)
        by_pc: dict[int, int] = {}
        for w in early:
            for row in w:
                by_pc[row[4]] = by_pc.get(row[4], 0) + row[2]
        self.early_stall = sum(by_pc.values())
        total = sum(self.stall.values())
        if len(early) < len(waves) and total and self.early_stall / total >= 0.20:
            self.stall = {pc: max(0, s - by_pc.get(pc, 0)) for pc, s in self.stall.items()}

    def asm(self, pc: int) -> str:
        return self.rows[pc][0]


def check_stalled(cap: Capture, f, what) -> None:
    """n, cycles and share over the premise's pcs; each pc stalls and is ``what`` (a predicate on asm)."""
    kw, pcs = f.premise.kw, f.evidence["premise_pcs"]
    assert pcs and all(cap.stall[pc] > 0 for pc in pcs), f.detector
    assert all(what(cap.asm(pc)) for pc in pcs), (f.detector, [cap.asm(pc) for pc in pcs if not what(cap.asm(pc))])
    cycles = sum(cap.stall[pc] for pc in pcs)
    assert (kw["n"], kw["cycles"], kw["share"]) == (len(pcs), cycles, pct(cycles, sum(cap.stall.values()))), f.detector


def check_width(cap: Capture, f, pcs: list[int]) -> None:
    """m, wshare, w: the access width holding the most stall cycles among ``pcs`` (the wider on a tie)."""
    by: dict[int, list[int]] = {}
    for pc in pcs:
        by.setdefault(width(cap.asm(pc)), []).append(pc)
    stall = {w: sum(cap.stall[pc] for pc in qs) for w, qs in by.items()}
    w = max(by, key=lambda k: (stall[k], k))
    kw = f.premise.kw
    assert (kw["w"], kw["m"], kw["wshare"]) == (w, len(by[w]), pct(stall[w], sum(stall.values()))), f.detector
    key = f.messages["suggestion"].key
    if not key.endswith(".mfma"):  # an MFMA kernel is told to prefetch, whatever the width
        assert key.endswith(".narrow") == (0 < w < 16), f.detector


def is_wait(counter: str):
    return lambda a: a.startswith("s_waitcnt") and counter in a


CROSS = re.compile(r"^(ds_swizzle|ds_bpermute|ds_permute|v_permlane)|row_|quad_perm|row_bcast|wave_")
STALLED = {
    "lds_dma_drain": lambda a: a.startswith("s_waitcnt") and "vmcnt(0)" in a,
    "late_scale_loads": is_wait("vmcnt"),
    "vmem_latency_exposed": is_wait("vmcnt"),
    "lds_read_into_mfma": is_wait("lgkmcnt"),
    "scalar_load_waits": is_wait("lgkmcnt"),
    "loads_interleaved_with_mfma": lambda a: bool(LOAD.match(a)),
    "back_to_back_loads": lambda a: bool(LOAD.match(a)),
    "store_bound": lambda a: bool(STORE.match(a)) or is_wait("vmcnt")(a),
    "cross_lane_reduction": lambda a: bool(CROSS.search(a)) or is_wait("lgkmcnt")(a),
    "barrier_dominated": lambda a: a.startswith("s_barrier"),
    "snop_hazard": lambda a: a.startswith("s_nop"),
    "streaming_roofline": lambda a: stall_type(a) in ("VMEM-wait", "VMEM-load", "VMEM-store"),
}


def audit_stalled(cap: Capture, f) -> None:
    check_stalled(cap, f, STALLED[f.detector])
    pcs, kw = f.evidence["premise_pcs"], f.premise.kw
    if f.detector == "lds_dma_drain":  # a DMA-to-LDS load comes before each wait
        assert all(any(LOAD.match(cap.asm(q)) and cap.asm(q).rstrip().endswith(" lds") for q in cap.order if q < pc)
                   for pc in pcs)
    if f.detector == "lds_read_into_mfma":  # an MFMA within `at` instructions after each wait
        assert all(any(cap.asm(q).startswith("v_mfma") for q in cap.order if pc < q <= pc + kw["at"]) for pc in pcs)
    if f.detector == "loads_interleaved_with_mfma":
        assert kw["rate"] == pct(sum(cap.stall[pc] for pc in pcs), sum(cap.rows[pc][3] for pc in pcs))
    if f.detector == "back_to_back_loads":
        check_width(cap, f, pcs)
    if f.detector == "store_bound" and f.premise.key.endswith(".premise"):
        check_width(cap, f, [pc for pc in pcs if STORE.match(cap.asm(pc))])
    if f.detector == "streaming_roofline":  # every VMEM instruction that stalls, none left out
        assert pcs == [pc for pc in cap.order if cap.stall[pc] > 0 and STALLED["streaming_roofline"](cap.asm(pc))]


def audit_line(cap: Capture, f) -> None:
    """decorator_line / framework_line: the line's rows, the ones that stall, their stall types."""
    loc = f.evidence["source"]
    at = [pc for pc in cap.order if cap.rows[pc][1] == loc]
    assert f.evidence["premise_pcs"] == [pc for pc in at if cap.stall[pc] > 0]
    check_stalled(cap, f, lambda a: True)
    kw = f.premise.kw
    assert kw["loc"] == loc.rsplit("/", 1)[-1]
    if f.detector == "decorator_line":
        assert (kw["count"], kw["total"]) == (len(at), len(cap.rows))
        by: dict[str, int] = {}
        for pc in at:
            by[stall_type(cap.asm(pc))] = by.get(stall_type(cap.asm(pc)), 0) + cap.stall[pc]
        line = sum(by.values())
        mixed = sorted((t for t, c in by.items() if c >= 0.10 * line), key=lambda t: (-by[t], t))
        assert kw["types"] == [f"{t} {pct(by[t], line)}" for t in mixed]


def audit_limit(cap: Capture, f, expected: dict, trace: list[dict]) -> None:
    kw = f.premise.kw
    if f.detector == "vgpr_occupancy":
        top = max(max([int(n) for n in re.findall(r"\bv(\d+)\b", a)] + [int(hi) for hi in re.findall(r"\bv\[\d+:(\d+)\]", a)]
                      + [-1]) for a, *_ in cap.rows.values())
        assert (kw["top"], kw["arch"]) == (top, top + 1)
        assert (kw.get("csv"), kw["accum"], kw["total"]) == (expected["csv_vgpr"], expected["accum"], expected["total"])
        assert wording.plain("en", kw["waves"]).startswith(f"{expected['waves']} wave")
    elif f.detector == "lds_sgpr_occupancy" and f.premise.key.endswith("lds.premise"):
        assert kw["wg"] == expected["wg"] and kw["lds"] == f"{expected['lds'] / 1024:g} KiB"
        assert kw["fit"] == 160 * 1024 // expected["lds"] and kw["per_cu"] == "160 KiB"
        assert wording.plain("en", kw["waves"]).startswith(f"{expected['waves']} wave")
    elif f.detector == "lds_sgpr_occupancy":
        assert kw["sgpr"] == expected["sgpr"] and kw["rounded"] == -(-expected["sgpr"] // 16) * 16
    elif f.detector in ("small_grid", "occupancy_grid"):
        n = int(re.search(r"dispatch_(\d+)", cap.path.name).group(1))
        mine = [r for r in trace if r["Kernel_Name"] == expected["kernel"]]
        launches = [tuple(int(r[f"{k}_Size_{d}"]) for k in ("Grid", "Workgroup") for d in "XYZ") for r in mine]
        # the captured dispatch; a capture from another run than the trace: the kernel's most common launch
        at = next((k for k, r in enumerate(mine) if int(r["Dispatch_Id"]) == n), None)
        launch = launches[at] if at is not None else max(dict.fromkeys(launches), key=launches.count)
        grid, block = list(launch[:3]), list(launch[3:])
        wgs = 1
        for g, b in zip(grid, block):
            wgs *= -(-g // b)
        wpw = -(-block[0] * block[1] * block[2] // 64)
        assert (kw["grid"], kw["block"]) == ("x".join(map(str, grid)), "x".join(map(str, block)))
        if f.detector == "occupancy_grid":  # dealt round-robin over the 256 CUs of 4 SIMDs: the busiest CU
            per_cu = -(-wgs // 256)
            assert (kw["wgs"], kw["wpw"], kw["cus"], kw["per_cu"], kw["waves"], kw["simds"]) == (
                wgs, wpw, 256, per_cu, per_cu * wpw, 4)
            assert wording.plain("en", kw["d"]).startswith(f"{-(-per_cu * wpw // 4)} wave")
            assert -(-per_cu * wpw // 4) <= expected["waves"]  # the cap is never reached
        else:
            assert (kw["wgs"], kw["wpw"], kw["waves"], kw["simds"]) == (wgs, wpw, wgs * wpw, 256 * 4)
    elif f.detector == "early_exit_waves" and f.premise.key.endswith("branch_premise"):
        pcs = cap.order
        b = pcs.index(kw["pc"])
        assert (kw["first"], kw["at"], kw["after"]) == (cap.rows[pcs[0]][2], cap.rows[pcs[b]][2], cap.rows[pcs[b + 1]][2])
    elif f.detector == "early_exit_waves":
        total = sum(r[4] for r in cap.rows.values())
        assert (kw["early"], kw["sampled"], kw["cycles"], kw["share"]) == (
            cap.early, cap.sampled, cap.early_stall, pct(cap.early_stall, total))
    else:
        raise AssertionError(f"no audit for {f.detector}")


#: Premises that rest on the timing campaign, not on the capture's files (checked by tests/test_advice.py).
CAMPAIGN = ("profiled_shape", "timed_gap")


@pytest.fixture(scope="module")
def sweep_plans(sweep):
    """(capture path, findings, expected occupancy, kernel trace rows) of every capture of the sweep."""
    occupancy = json.loads((sweep / "expected" / "occupancy.json").read_text())
    out = []
    for r in analysis.analyze_sweep(discover.discover(sweep)):
        trace = []
        for p in sorted((Path(sweep) / r.bundle.path / "compute_viewer").glob("*kernel_trace.csv")):
            with p.open(newline="") as fh:
                trace += list(csv.DictReader(fh))
        for a in r.analyses:
            out.append((Path(sweep) / a.path, advice.advise(a, advice.AdviceContext(bundle=r.bundle)),
                        occupancy.get(a.path), trace))
    return out


def test_every_premise_on_the_shared_sweep_is_recomputed_from_the_capture_files(sweep_plans, sweep):
    audited: dict[str, int] = {}
    for path, findings, expected, trace in sweep_plans:
        cap = Capture(path)
        for f in findings:
            assert f.premise is not None, (path.name, f.detector)
            assert re.search(r"[\u4e00-\u9fff]", wording.plain("zh", f.premise)), f.detector
            if f.detector in STALLED:
                audit_stalled(cap, f)
            elif f.detector in ("decorator_line", "framework_line"):
                audit_line(cap, f)
            elif f.detector not in CAMPAIGN:
                audit_limit(cap, f, expected, trace)
            audited[f.detector] = audited.get(f.detector, 0) + 1
    assert len(sweep_plans) == len(list(sweep.glob("examples/*/att_viewer/*/ui_output_agent_*")))  # 17 in the sweep
    assert set(audited) & set(STALLED) and {"decorator_line", "framework_line"} & set(audited)


@pytest.mark.full_sweep
def test_the_shared_sweep_raises_every_kind_of_premise(sweep_plans):
    audited = {f.detector for _path, findings, *_ in sweep_plans for f in findings}
    assert len(sweep_plans) == 17
    # late_scale_loads: its only sweep hit (pa) fed integer address math, not scales (tests/test_load_roles.py)
    assert audited >= set(STALLED) - {"barrier_dominated", "late_scale_loads"} | {
        "decorator_line", "framework_line", "vgpr_occupancy", "small_grid", "early_exit_waves"}


@pytest.mark.full_sweep
def test_the_first_steps_on_the_shared_sweep(sweep_plans):
    """The top-ranked finding of each capture (the overview's first step), after the hot-path rule:
    softmax's stalled loads are 2 bytes per lane and keep the widening advice."""
    first = {(p.parent.parent.parent.name, p.name): next(f for f in found if f.ranked) for p, found, *_ in sweep_plans}
    soft = first[("softmax", "ui_output_agent_47920_dispatch_13")]
    assert soft.detector == "back_to_back_loads" and soft.messages["suggestion"].key.endswith(".narrow")
    assert soft.premise.kw["w"] == 2 and soft.premise.kw["wshare"] == "100.0%"


# ---------------------------------------------------------------- the plans as analyze and build make them

def campaign_rows(sweep: Path, op: str) -> list[dict]:
    return [json.loads(line) for line in (sweep / "benchmarks" / "examples" / op / "benchmark_results.jsonl")
            .read_text().splitlines() if line.strip()]


def shape_text(args: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in args.items())


def median(xs: list[float]) -> float:
    xs, n = sorted(xs), len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def verdict_ratios(rows: list[dict], floor_us: float) -> dict[str, float]:
    """Shape -> fastest comparable baseline / candidate over the verdict shapes (VERDICTS rules 10-11, read
    again here for a campaign whose rows share one timing method): both correct, the baseline's layout
    conversion and JIT flags those of the candidate, not both under 1.25x the timing floor."""
    out = {}
    for sid in dict.fromkeys(r["shape_id"] for r in rows):
        mine = [r for r in rows if r["shape_id"] == sid and r["benchmark_status"] == "ok" and r["correct"]]
        cand = next((r for r in mine if r["provider"] == "flydsl"), None)
        if cand is None:
            continue
        assert all(r["timing_method"] == cand["timing_method"] for r in mine)  # one method: no eager fallback
        base = [r["median_us"] for r in mine if r["provider"] != "flydsl" and all(
            r[flag] == cand[flag] for flag in ("includes_layout_conversion", "includes_jit"))]
        if not base:
            continue
        if max(cand["median_us"], min(base)) < 1.25 * floor_us:
            continue
        out[sid] = min(base) / cand["median_us"]
    return out


@pytest.fixture(scope="module")
def timed_plans(sweep):
    """(bundle name, capture path, findings) of every primary capture, with the campaign that times its bundle
    and the bundle's counters as context: what ``analyze --advice`` and ``build`` advise."""
    from generator.analyze import state

    sweeps: dict = {}
    out = []
    for r in analysis.analyze_sweep(discover.discover(sweep)):
        if not (r.is_primary and r.analyses):
            continue
        a = r.analyses[0]
        score, config = state.bundle_timing(r.bundle, sweeps)
        ctx = advice.context_for(a, r.bundle, None, score, score.geomean_vs_best if score else None, config)
        out.append((r.bundle.name, Path(sweep) / a.path, advice.advise(a, ctx)))
    return out


@pytest.fixture(scope="module")
def timed_audit(timed_plans, sweep):
    """With the campaign as context: the stall premises as above; the timed-gap and profiled-shape premises from
    the campaign's rows and the kernel trace (vec_add, the profiled dispatch against the timed shape). Returns
    what was audited."""
    verdicts = json.loads((sweep / "expected" / "verdicts.json").read_text())
    ops = {"pa": "pa_decode", "flash_attn_func": "flash_attn", "hgemm_splitk": "gemm"}
    occupancy = json.loads((sweep / "expected" / "occupancy.json").read_text())
    seen = set()
    for name, path, findings in timed_plans:
        cap = Capture(path)
        for f in findings:
            seen.add(f.detector)
            if f.detector in STALLED:
                audit_stalled(cap, f)
            timed = (f.evidence.get("bandwidth") or {}).get("timed") if f.detector == "streaming_roofline" else None
            if timed:  # the bandwidth the campaign timed at the capture's bytes, of MI350X's 8.0 TB/s
                rows = [r for r in campaign_rows(sweep, ops.get(name, name))
                        if r["shape_id"] == timed["shape_id"] and r["provider"] == "flydsl"]
                assert f.premise.kw["bw"] == pct(max(r["effective_gbps"] for r in rows) / 1000, 8.0)
                seen.add("timed bandwidth")
            if f.detector in ("timed_gap", "profiled_shape"):
                op, kw = ops.get(name, name), f.premise.kw
                shape_id = f.evidence.get("shape_id") or f.evidence["bandwidth"]["timed"]["shape_id"]
                rows = [r for r in campaign_rows(sweep, op) if r["shape_id"] == shape_id]
                assert shape_text(rows[0]["args"]) == kw["shape"]
                cand = next(r for r in rows if r["provider"] == "flydsl")
                if f.detector == "timed_gap":
                    assert kw["timed"] == f"{cand['median_us']:.2f}"
                    exp = occupancy[str(path.relative_to(sweep))]
                    trace = []
                    for p in sorted((path.parent.parent.parent / "compute_viewer").glob("*kernel_trace.csv")):
                        with p.open(newline="") as fh:
                            trace += [r for r in csv.DictReader(fh) if r["Kernel_Name"] == exp["kernel"]]
                    keys = [f"{k}_Size_{d}" for k in ("Grid", "Workgroup") for d in "XYZ"]
                    launches = [tuple(r[k] for k in keys) for r in trace]
                    n = int(re.search(r"dispatch_(\d+)", path.name).group(1))
                    at = next((k for k, r in enumerate(trace) if int(r["Dispatch_Id"]) == n), None)
                    launch = launches[at] if at is not None else max(dict.fromkeys(launches), key=launches.count)
                    ns = [int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r, l in zip(trace, launches) if l == launch]
                    assert kw["capture"] == f"{median([t for t in ns if t > 0]) / 1000:.2f}"
                else:
                    v = verdicts[op]
                    ratios = verdict_ratios(campaign_rows(sweep, op), v["floor_us"])
                    assert len(ratios) == kw["measured"] == v["verdict_geomean"][1]
                    assert kw["n"] == sum(1 for x in ratios.values() if x < 0.95)
                    assert kw["x"] == f"{ratios[shape_id]:.2f}"
    return seen


def test_the_premises_of_the_timed_plans_are_recomputed_too(timed_audit):
    """vec_add (bundle and campaign whole in both) raises both campaign premises."""
    assert {"timed_gap", "profiled_shape"} <= timed_audit


@pytest.mark.full_sweep  # softmax's capture streams at its timed rate; the slice has no such capture
def test_the_timed_plans_of_the_shared_sweep_audit_a_timed_bandwidth(timed_audit):
    assert {"timed_gap", "profiled_shape", "streaming_roofline", "timed bandwidth"} <= timed_audit


def test_profile_a_losing_shape_only_when_the_shapes_decide(timed_plans):
    """vec_add's verdict rests on its 7 verdict shapes (3 lose): its capture, at n=10240000 (0.98x of triton),
    is a shape it does not lose. fused_rope_cache loses by the profiled pair (0.17x); its shapes compare only
    with the eager reference, so they cannot say where it loses: no "profile a losing shape" there."""
    plans = {name: found for name, _, found in timed_plans}
    first = next(f for f in plans["vec_add"] if f.ranked)
    assert first.detector == "profiled_shape" and first.premise.kw["x"] == "0.98"
    assert (first.premise.kw["n"], first.premise.kw["measured"]) == (3, 7)
    assert "profiled_shape" not in {f.detector for f in plans["fused_rope_cache"]}
    assert next(f for f in plans["fused_rope_cache"] if f.ranked).detector == "scalar_load_waits"
