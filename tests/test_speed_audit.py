"""Audit of the speed panel's aggregates, the launch panel, the REPORT.md checks and the CLI's text outputs
(``analyze``, ``pmc``, ``verdicts``) against the raw files (audit5).

Every expected number is worked here from the raw files with json / csv / math alone: the campaigns'
``benchmark_results.jsonl`` and ``shape_ledger.jsonl``, the bundles' ``compute_viewer/*kernel_trace.csv``, the demo's
``launch/prefill.trace.json`` and rocprof-compute's ``pmc_perf.csv`` / ``timestamps.csv``. Fixed here:

* the speed panel's per-baseline, stage and model geomeans rested on every measured shape while "geomean vs best"
  beside them rests on the kernel-clock shapes no rule flags: pa's two sliding-window shapes (flydsl eager after a
  failed graph capture, against gluon rows above the HBM roof) put "sliding-window model 0.04x" and "model_config
  0.49x over 12" beside "0.76x, wins 0 of 10"; the splits now cover those 10 shapes and say so;
* "noise (median p90/p10) 1.08x — verdict uncertain" (softmax) tied the uncertainty to the p90/p10 spread; rule 14's
  interval decides it (on the model shapes, 1.04-1.21 across 1.05) and the verdict line says so;
* ``analyze``: hgemm_splitk is LDS-bound at 1 wave/SIMD while its 136 VGPRs allow 3, yet the text read
  "-> 2 waves requires total_vgpr <= 256"; at the hardware max (fused_rope_cache, rmsnorm) the grid's ask was missing;
* ``pmc``: the peak of an MI308X run was named "AMD Instinct MI300X", a device taken from the arch (gfx942) alone;
* REPORT.md: a stated occupancy equal to the waves the traced grid runs was "differs" (rmsnorm's 4 of a cap of 8
  was even blamed on a 256-register pool at the hardware max); the known wrong readings are named as arithmetic
  matches, not as what the report "assumed" or "read".
* ``verdicts`` text: the launch cell named one baseline where the fastest call differs between launch shapes when
  run without --shapes (softmax "vs triton": triton at 33 of 50, pytorch at 17; gemm "+0.4 us vs pytorch": pytorch at
  one of its two launch shapes, hipblaslt at the other);
* the call-and-kernel chart's caption: "its length is the launch path", where flydsl's call is below its graph
  replay on many shapes.
Found right and pinned: the launch path medians of the demo's traces, the verdicts table's interval cells.
"""

from __future__ import annotations

import csv
import json
import math
import re
import statistics
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import REPO, in_slice
from generator import cli
from generator.analyze import analysis, report_checks
from generator.read import discover
from generator.site import i18n, text_report
from generator.site.views import base as base_views
from generator.site.views import speed
from generator.site.wording import plain

HBM_PEAK_GBPS = 8000  # MI350X (DOMAIN §5); rule 9 flags a row above 1.10 x this
CUS, SIMDS = 256, 4


# ---------------------------------------------------------------- raw readers

def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _usable(r: dict) -> bool:
    return r["benchmark_status"] == "ok" and (r.get("median_us") or 0) > 0 and r.get("correct") is not False


def _chosen(campaign: Path) -> dict[str, dict[str, dict]]:
    """shape_id -> provider -> its row (VERDICTS rule 1: the last usable row, else the last)."""
    ledger = {json.loads(x)["shape_id"] for x in (campaign / "shape_ledger.jsonl").read_text().splitlines() if x.strip()}
    out: dict[str, dict[str, dict]] = {}
    for r in _rows(campaign / "benchmark_results.jsonl"):
        if r["shape_id"] not in ledger:
            continue
        prev = out.setdefault(r["shape_id"], {}).get(r["provider"])
        if prev is None or _usable(r) or not _usable(prev):
            out[r["shape_id"]][r["provider"]] = r
    return out


def _geomean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs))


def _grid_ask(trace: Path, dispatch: int) -> int:
    """Waves per SIMD the captured dispatch's grid gives its busiest CU (workgroups dealt over 256 CUs)."""
    with trace.open(newline="") as fh:
        row = next(r for r in csv.DictReader(fh) if int(r["Dispatch_Id"]) == dispatch)
    wg = int(row["Workgroup_Size_X"]) * int(row["Workgroup_Size_Y"]) * int(row["Workgroup_Size_Z"])
    groups = int(row["Grid_Size_X"]) * int(row["Grid_Size_Y"]) * int(row["Grid_Size_Z"]) // wg
    return math.ceil(math.ceil(groups / CUS) * math.ceil(wg / 64) / SIMDS)


def _capture(sweep: Path, bundle: str) -> Path:
    return next((sweep / "examples" / bundle / "att_viewer").glob("*/ui_output_agent_*"))


def _primary(sweep: Path, bundle: str):
    return analysis.analyze_sweep(discover.discover(_capture(sweep, bundle)))[0].analyses[0]


# ---------------------------------------------------------------- speed panel

def _pa_kernel_shapes(sweep: Path) -> list[tuple[dict, dict, dict]]:
    """pa_decode's measured shapes whose flydsl and best baseline are both graph-replayed and below the roof."""
    ledger = {json.loads(x)["shape_id"]: json.loads(x)
              for x in (sweep / "benchmarks/examples/pa_decode/shape_ledger.jsonl").read_text().splitlines() if x.strip()}
    out = []
    for sid, rows in _chosen(sweep / "benchmarks/examples/pa_decode").items():
        cand = rows["flydsl"]
        base = min((r for p, r in rows.items() if p != "flydsl" and _usable(r)), key=lambda r: r["median_us"])
        if cand["timing_method"] == base["timing_method"] == "cudagraph" and \
                max(cand["effective_gbps"], base["effective_gbps"]) <= 1.10 * HBM_PEAK_GBPS:
            out.append((ledger[sid], cand, rows))
    return out


def test_pa_splits_rest_on_the_shapes_of_geomean_vs_best(sweep, kernel):
    """12 measured shapes; the two sliding-window ones set an eager flydsl call (437.40 / 431.14 us, graph capture
    failed) against gluon graph rows at 15.3 / 9.9 TB/s (above 8.8): no kernel-clock ratio. The other 10 give gluon /
    flydsl 0.764 (the "geomean vs best"), and by model test_pa 0.742 (8), Qwen-like 0.877, DeepSeek/Kimi 0.849."""
    kept = _pa_kernel_shapes(sweep)
    assert len(kept) == 10
    gluon = [rows["gluon"]["median_us"] / c["median_us"] for _, c, rows in kept]
    torch = [rows["pytorch"]["median_us"] / c["median_us"] for _, c, rows in kept]
    by_model: dict[str, list[float]] = {}
    for (led, c, rows), x in zip(kept, gluon):
        by_model.setdefault(led["model"], []).append(x)
    k, row = kernel("pa")
    view = speed._speed_panel(k, row, base_views.SiteContext())
    assert [(r.name, r.geomean_text, r.n) for r in view.per_baseline] == [
        ("gluon", f"{_geomean(gluon):.2f}x", 10), ("pytorch", f"{_geomean(torch):.2f}x", 10)]
    assert (round(_geomean(gluon), 3), f"{_geomean(torch):.2f}x") == (0.764, "140.43x")  # was 0.49x, 132.41x over 12
    assert [(r.name, r.geomean_text, r.n) for r in view.stage_split] == [("model_config", "0.76x", 10)]
    assert [(r.name, r.geomean_text, r.n) for r in view.model_split] == sorted(
        (m, f"{_geomean(xs):.2f}x", len(xs)) for m, xs in by_model.items())
    assert not [r for r in view.model_split if r.name.startswith("sliding-window")]  # 0.04x and 0.07x were shown
    geo = next(f for f in view.facts if f.i18n == "fact.geomean")
    assert geo.value == "0.76x, wins 0 of 10"
    notes = [str(n) for n in view.method_notes]
    assert notes[0] == ('The geomeans per baseline, stage and model cover 10 of the 12 measured shapes: those of '
                        '"geomean vs best", where the candidate and its best baseline are both graph-replayed and below '
                        'every roof; the table shows all 12.')
    assert notes[1].startswith("pytorch: 10 of 10 shapes set its eager_event rows against flydsl cudagraph rows")
    assert k.score.stage_split == {"model_config": [pytest.approx(0.4934384380705401), 12]}  # the API keeps the rule


@pytest.mark.full_sweep
def test_softmax_noise_is_the_spread_alone(sweep, kernel):
    """The campaign's noise figure (median p90/p10) is 1.08x; the verdict's uncertainty is rule 14's interval (the 34
    verdict shapes 1.13-1.26 clear 1.05, the 18 model shapes 1.04-1.21 do not), a flag of its own, not this figure."""
    k, row = kernel("softmax")
    view = speed._speed_panel(k, row, base_views.SiteContext())
    noise = next(f for f in view.facts if f.i18n == "fact.noise")
    assert (noise.value, noise.css) == ("1.08x", "")
    assert k.score.uncertain_models and not k.score.uncertain_ci
    assert "uncertain: on the model shapes, 1.04–1.21 reaches across 1.05" in k.score.flags


@pytest.mark.parametrize("op, below, n", [in_slice("benchmarks/examples/quant", "quant", 3, 12),
                                           in_slice("benchmarks/examples/vec_add", "vec_add", 4, 12),
                                           in_slice("benchmarks/examples/gemm", "gemm", 29, 30)])
def test_clocks_caption_allows_a_call_below_the_kernel_time(sweep, op, below, n):
    """The call-and-kernel chart's caption said each stem runs "up to its call time: its length is the launch path";
    flydsl's eager call is below its graph replay on 3 of quant's 12 measured shapes, 4 of vec_add's, 29 of gemm's 30
    (a replay carries a fixed cost of its own), so the stem's length is no launch path there."""
    rows = _chosen(sweep / "benchmarks" / "examples" / op)
    cand = [rs["flydsl"] for rs in rows.values() if _usable(rs["flydsl"])
            and any(_usable(r) for p, r in rs.items() if p != "flydsl")]
    cand = [c for c in cand if c["timing_method"] == "cudagraph" and c.get("eager_median_us")]
    assert (sum(c["eager_median_us"] < c["median_us"] for c in cand), len(cand)) == (below, n)
    caption = i18n.en("chart.clocks.caption")
    assert "the call can sit below the kernel time" in caption
    assert "up to its call time" not in caption and "length is the launch path" not in caption


# ---------------------------------------------------------------- analyze text

@pytest.mark.parametrize("bundle", [in_slice("examples/hgemm_splitk", "hgemm_splitk")])
def test_lds_bound_next_wave_names_lds(sweep, bundle):
    """Dispatch 319: 84 workgroups of 256 threads, 98,304 B LDS each: 163,840 // 98,304 = 1 workgroup per CU = 1 wave
    per SIMD; VGPR max(ISA 120, CSV 132) = 132 -> 136 -> 512 // 136 = 3; SGPR 112 -> 800 // 112 = 7."""
    trace = sweep / "examples" / bundle / "compute_viewer" / "discover_kernel_trace.csv"
    with trace.open(newline="") as fh:
        row = next(r for r in csv.DictReader(fh) if r["Dispatch_Id"] == "319")
    lds = int(row["LDS_Block_Size"])
    total = (max(120, int(row["VGPR_Count"])) + 7) // 8 * 8
    assert (163840 // lds * 4 // 4, 512 // total, total, _grid_ask(trace, 319)) == (1, 3, 136, 1)
    text = text_report.render_text(_primary(sweep, bundle))
    assert "  occupancy:      1 wave/SIMD, capped by LDS; the grid asks at most 1 on its busiest CU: not binding" in text
    assert "  -> 2 waves: LDS binds, not VGPR (the VGPRs allow 3)  (no more would be resident at this grid)" in text
    assert "requires total_vgpr" not in text


@pytest.mark.parametrize("bundle, dispatch, ask", [
    in_slice("examples/fused_rope_cache", "fused_rope_cache", 8781, 1),
    in_slice("examples/rmsnorm", "rmsnorm", 18, 4),
])
def test_hardware_max_says_what_the_grid_asks(sweep, bundle, dispatch, ask):
    """fused_rope_cache: 256 one-wave workgroups on 256 CUs ask 1; rmsnorm: 1,024 four-wave workgroups ask 4."""
    assert _grid_ask(sweep / "examples" / bundle / "compute_viewer" / "discover_kernel_trace.csv", dispatch) == ask
    text = text_report.render_text(_primary(sweep, bundle))
    assert f"  occupancy:      8 waves/SIMD, limited by hardware max; the grid asks at most {ask} on its busiest CU" in text


# ---------------------------------------------------------------- pmc text

def test_pmc_peak_taken_from_the_arch_is_said(capsys):
    """rocprof-compute's fmla run on an MI308X (sysinfo.csv: gpu_arch gfx942, chip MI308X): the peaks file's gfx942
    device is MI300X. 58 dispatches, mean End - Start from timestamps.csv; 8 MiB ideal per dispatch."""
    folder = REPO / "tests" / "data" / "other_tools2" / "rocprof_compute_fmla_mi308x"
    with (folder / "sysinfo.csv").open(newline="") as fh:
        info = next(csv.DictReader(fh))
    assert (info["gpu_arch"], info["chip_id"] if "chip_id" in info else info["gpu_model"]) in (
        ("gfx942", "MI308X"), ("gfx942", "MI300"))
    assert "MI308X" in info.values()
    by_name: dict[str, list[int]] = {}  # the timing run's dispatches, matched to the pmc rows by name and order
    with (folder / "timestamps.csv").open(newline="") as fh:
        for r in csv.DictReader(fh):
            by_name.setdefault(r["Kernel_Name"], []).append(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]))
    with (folder / "pmc_perf.csv").open(newline="") as fh:
        names = [r["Kernel_Name"] for r in csv.DictReader(fh)]
    durs = [by_name[n][names[:i].count(n)] for i, n in enumerate(names)]
    assert (len(durs), round(sum(durs) / len(durs) / 1000, 2)) == (58, 2288.54)
    gbps = 8 * 2**20 / (sum(durs) / len(durs))  # bytes per ns = GB/s
    assert cli.main(["pmc", str(folder / "pmc_perf.csv"), "--ideal-gb", str(8 * 2**20 / 1e9)]) == 0
    out = capsys.readouterr().out
    assert (f"achieved BW:      {gbps:,.1f} GB/s (ideal bytes / kernel time) = {gbps / 5300 * 100:.1f} % of 5.3 TB/s "
            "(AMD Instinct MI300X, taken for gfx942: --device names the GPU)") in out
    assert cli.main(["pmc", str(folder / "pmc_perf.csv"), "--ideal-gb", str(8 * 2**20 / 1e9), "--device", "MI300X"]) == 0
    assert "% of 5.3 TB/s (AMD Instinct MI300X)\n" in capsys.readouterr().out


# ---------------------------------------------------------------- REPORT.md checks

@pytest.mark.parametrize("bundle, dispatch, cap, ask", [
    in_slice("examples/fused_rope_cache", "fused_rope_cache", 8781, 8, 1),
    in_slice("examples/rmsnorm", "rmsnorm", 18, 8, 4),
    in_slice("examples/layernorm", "layernorm", 23, 7, 1),
])
def test_report_occupancy_of_the_waves_that_run_holds(sweep, bundle, dispatch, cap, ask):
    """A report's figure equal to what the traced grid runs holds, with the cap beside it (layernorm: 72 VGPRs ->
    512 // 72 = 7; 256 four-wave workgroups on 256 CUs give 1 per SIMD)."""
    assert _grid_ask(sweep / "examples" / bundle / "compute_viewer" / "discover_kernel_trace.csv", dispatch) == ask
    occ = _primary(sweep, bundle).occupancy
    assert (occ.waves_per_simd, occ.resident) == (cap, ask)
    (c,) = report_checks.check_report(f"Occupancy: {ask} wave{'s' if ask > 1 else ''}/SIMD on the captured grid\n", occ)
    assert (c.holds, c.computed) == (True, f"{ask} wave{'s' if ask > 1 else ''}/SIMD")
    assert plain("en", c.why) == (f"The resources allow {cap} waves per SIMD; the traced grid gives its busiest CU "
                                  f"{ask}, so {ask} run.")
    (c,) = report_checks.check_report(f"occupancy {cap} waves/SIMD\n", occ)
    assert c.holds and c.why is None
    (c,) = report_checks.check_report("occupancy 5 waves/SIMD\n", occ)  # neither reading gives 5: our limits
    assert not c.holds and c.why.key == "report.why.limits"
    if bundle == "rmsnorm":  # 256 // 64 = 4 was blamed on a 256-register pool, though at the max no VGPR binds
        assert (occ.vgpr_total, occ.limiters) == (64, []) and 256 // 64 == ask
        (c,) = report_checks.check_report("occupancy 4 waves/SIMD\n", replace(occ, grid_waves_per_simd=None))
        assert not c.holds and c.why.key == "report.why.limits"


@pytest.mark.parametrize("bundle", [in_slice("examples/flash_attn_func", "flash_attn_func")])
def test_report_wrong_readings_are_named_as_arithmetic(sweep, bundle):
    """flash_attn_func: ISA v242 -> 248 VGPRs, 512 // 248 = 2 (VGPR-bound); 256 // 248 = 1; the trace CSV's 124 ->
    128 -> 512 // 128 = 4, LDS 49,152 B -> 163,840 // 49,152 = 3 workgroups x 4 waves / 4 = 3."""
    occ = _primary(sweep, bundle).occupancy
    assert (occ.vgpr_total, occ.waves_per_simd, occ.lds_limit) == (248, 2, 3)
    (pool, csv_read) = report_checks.check_report("Occupancy: 1 wave/SIMD\noccupancy 3 waves/SIMD\n", occ)
    assert plain("en", pool.why) == ("1 is what a 256-register pool gives (256 // 248); gfx950 has one pool of 512 "
                                     "VGPRs per SIMD for arch and accum registers together: 512 // 248 gives 2.")
    assert plain("en", csv_read.why) == ("3 is what the kernel trace CSV's 124 VGPRs give; rocprofv3 1.1 halves that "
                                         "count on gfx950, and the ISA uses 242, which gives 2.")
    assert not any(w in plain("en", c.why) for c in (pool, csv_read) for w in ("assumed", "The report read"))


# ---------------------------------------------------------------- found right: launch panel, verdicts text

def _launch_medians(trace: Path) -> dict[tuple, tuple[float, float, float, float, int]]:
    """(kernel, grid) -> median API, queue (kernel start - call end), kernel, call start to kernel end (us), calls."""
    ev = json.loads(trace.read_text())["traceEvents"]
    api = {e["args"]["correlation"]: e for e in ev if e["cat"] in ("cuda_driver", "cuda_runtime")}
    by: dict[tuple, list] = {}
    for e in ev:
        a = api.get(e["args"].get("correlation")) if e["cat"] == "kernel" else None
        if a is not None:
            by.setdefault((e["name"], tuple(e["args"]["grid"])), []).append(
                (a["dur"], e["ts"] - a["ts"] - a["dur"], e["dur"], e["ts"] + e["dur"] - a["ts"]))
    return {k: (*(statistics.median(x[i] for x in v) for i in range(4)), len(v)) for k, v in by.items()}


def test_launch_panel_medians_equal_the_trace(demo_site):
    """The demo's softmax trace: 20 cuLaunchKernelEx -> softmax_kernel pairs joined by correlation id."""
    html = (demo_site / "kernels" / "softmax" / "index.html").read_text()
    ((name, grid), (api, queue, kern, total, n)), = _launch_medians(
        REPO / "bundles" / "examples" / "softmax" / "launch" / "prefill.trace.json").items()
    assert (name, grid, n) == ("softmax_kernel", (65536, 1, 1), 20)
    assert (f"softmax_kernel: cuLaunchKernelEx {api:.2f} us, queue {queue:.2f} us, kernel {kern:.2f} us "
            f"(median of 20 calls)") in html
    row = re.search(r'<td class="num">20</td><td class="num">([\d.,]+)</td><td class="num">([\d.,]+)</td>'
                    r'<td class="num">([\d.,]+)</td><td class="num">([\d.,]+)</td>', html).groups()
    assert row == (f"{api:.2f}", f"{queue:.2f}", f"{kern:.2f}", f"{total:.2f}") == ("7.02", "2.26", "126.91", "136.30")


@pytest.mark.full_sweep
def test_verdicts_text_launch_and_interval_cells(sweep, capsys):
    """softmax: launch shapes are the 50 measured shapes with flydsl's graph time under 1.25 x 12.80 us or its call
    within 10 % of its least call; the median call gap there against the least baseline call is +26.44 us, the
    fastest call triton's at 33 of them and pytorch's at 17 (the cell named triton alone without --shapes: the
    per-shape tables were let go before the cell counted them); the 90 % bootstrap of its 34 verdict shapes is 1.13-1.26, of its 18 model shapes 1.04-1.21."""
    rows = _chosen(sweep / "benchmarks/examples/softmax")
    floor = min(r["median_us"] for p in (sweep / "benchmarks/examples").iterdir() if (p / "benchmark_results.jsonl").exists()
                for r in _rows(p / "benchmark_results.jsonl") if _usable(r))
    meas = [(rs["flydsl"], [r for q, r in rs.items() if q != "flydsl" and _usable(r)]) for rs in rows.values()]
    plateau = min(c["eager_median_us"] for c, _ in meas)
    gaps = [c["eager_median_us"] - min(b["eager_median_us"] for b in bs) for c, bs in meas
            if c["median_us"] < 1.25 * floor or c["eager_median_us"] <= 1.10 * plateau]
    assert (round(floor, 2), len(gaps), round(statistics.median(gaps), 1)) == (12.8, 50, 26.4)
    fastest = [min((b["eager_median_us"], b["provider"]) for b in bs)[1] for c, bs in meas
               if c["median_us"] < 1.25 * floor or c["eager_median_us"] <= 1.10 * plateau]
    assert (fastest.count("triton"), fastest.count("pytorch")) == (33, 17)
    assert cli.main(["verdicts", str(sweep)]) == 0  # without --shapes: the cell said "vs triton" (it does with them)
    out = capsys.readouterr().out.splitlines()
    line = next(x for x in out if x.startswith("softmax "))
    assert "shapes 1.13–1.26, model shapes 1.04–1.21" in line
    assert line.rstrip().endswith("≥+26.4 us vs the fastest (triton at 33 of 50)")
    # gemm's +0.4 us: its two launch shapes' fastest calls are pytorch's and hipblaslt's (it said "vs pytorch")
    assert next(x for x in out if x.startswith("gemm ")).rstrip().endswith("+0.4 us vs the fastest (hipblaslt at 1 of 2)")
