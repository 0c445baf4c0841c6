"""Audit of the NVIDIA kernel pages against the raw Nsight Compute exports (bundles/, H200, ncu 2025.3.1).

Every expectation is worked out here from raw.csv (``--page raw``: one header row of metric names,
one row of units, one row per launch) with the csv module alone, then compared with what the
analysis says. Metric meanings (Nsight Compute Profiling Guide): ``smsp__pcsamp_warps_issue_stalled_<r>
_not_issued`` counts warp samples that were stalled on reason r and issued nothing that cycle;
``sm__warps_active.avg.pct_of_peak_sustained_active`` is achieved occupancy and
``sm__maximum_warps_per_active_cycle_pct`` the theoretical one; ``launch__occupancy_limit_*`` are
blocks per SM each resource allows; ``dram__bytes.sum.per_second`` the DRAM bandwidth;
``gpu__time_duration.sum`` the launch's duration; ``launch__shared_mem_per_block_{dynamic,static}``
the shared memory one block asks for.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from generator.analyze import advice, analysis, ncu_metrics
from generator.read import discover

DEMO = Path(__file__).resolve().parent.parent / "bundles" / "examples"
KERNELS = ("gemm", "rmsnorm", "silu_and_mul", "softmax", "vec_add")
STALL = "smsp__pcsamp_warps_issue_stalled_"
#: The raw page's stall reasons that wait on global memory (long scoreboard, LG/TEX throttle, store drain).
MEMORY_REASONS = ("long_scoreboard", "lg_throttle", "tex_throttle", "drain")

pytestmark = pytest.mark.skipif(not (DEMO / "gemm" / "ncu" / "prefill" / "raw.csv").is_file(),
                                reason="the NVIDIA demo bundles (bundles/examples/*/ncu) are absent")

_UNITS = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12, "us": 1.0, "ns": 1e-3, "ms": 1e3}


def raw(kernel: str) -> list[dict[str, tuple[str, float | str]]]:
    """Launches of raw.csv: metric -> (unit, number or text)."""
    rows = list(csv.reader(open(DEMO / kernel / "ncu" / "prefill" / "raw.csv", newline="")))
    head, units = rows[0], rows[1]
    out = []
    for row in rows[2:]:
        launch = {}
        for name, unit, cell in zip(head, units, row):
            try:
                launch[name] = (unit, float(cell.replace(",", "")))
            except ValueError:
                launch[name] = (unit, cell)
        out.append(launch)
    return out


def scaled(cell: tuple[str, float]) -> float:
    unit, value = cell
    return value * _UNITS[unit.split("/")[0]]


def not_issued(launch) -> dict[str, int]:
    return {k[len(STALL):-len("_not_issued")]: int(v[1]) for k, v in launch.items()
            if k.startswith(STALL) and k.endswith("_not_issued")}


@pytest.fixture(scope="module")
def launches() -> dict[str, list]:
    """(analysis, findings) of every launch of every NVIDIA demo bundle."""
    out = {}
    for kernel in KERNELS:
        res = analysis.analyze_sweep(discover.discover(DEMO / kernel))
        out[kernel] = [(a, advice.advise(a, advice.AdviceContext(bundle=r.bundle))) for r in res for a in r.analyses]
    return out


# ---------------------------------------------------------------- stall shares


@pytest.mark.parametrize("kernel", KERNELS)
def test_not_issued_samples_and_top_reason_match_the_raw_page(launches, kernel):
    # vec_add launch 0: long_scoreboard 1142 of 1227 not-issued samples = 93.1 %; launch 1: 9618 / 9958 = 96.6 %
    # gemm 16029 barrier / 20881; softmax 3269 long_sb / 5310 = 61.6 %; rmsnorm 464 / 904 = 51.3 %;
    # silu_and_mul 2323 / 2505 = 92.7 %
    for (a, _), launch in zip(launches[kernel], raw(kernel)):
        reasons = not_issued(launch)
        assert a.total_stall_cycles == sum(reasons.values())
        assert a.total_cycles == launch["smsp__pcsamp_sample_count"][1]
        by_type = a.stall_by_type
        # long scoreboard is VMEM-wait, one to one
        assert by_type.get("VMEM-wait", 0) == reasons["long_scoreboard"]


def test_vec_add_primary_stall_share_is_93_percent(launches):
    (a, _), _ = launches["vec_add"]
    r = not_issued(raw("vec_add")[0])
    assert (r["long_scoreboard"], sum(r.values())) == (1142, 1227)
    assert a.stall_by_type["VMEM-wait"] / a.total_stall_cycles == pytest.approx(1142 / 1227)


# ---------------------------------------------------------------- occupancy and its limiter


@pytest.mark.parametrize("kernel", KERNELS)
def test_occupancy_and_limiter_from_the_raw_page(launches, kernel):
    for (a, _), launch in zip(launches[kernel], raw(kernel)):
        occ = a.extra["ncu"]["occupancy"]
        assert occ["achieved_pct"] == pytest.approx(launch["sm__warps_active.avg.pct_of_peak_sustained_active"][1],
                                                    abs=0.005)
        assert occ["theoretical_pct"] == pytest.approx(launch["sm__maximum_warps_per_active_cycle_pct"][1])
        limits = {name: launch[f"launch__occupancy_limit_{key}"][1] for key, name in (
            ("registers", "registers"), ("shared_mem", "shared memory"), ("warps", "warps"),
            ("blocks", "blocks per SM"), ("barriers", "barriers"))}
        low = min(limits.values())
        binding = [n for n, v in limits.items() if v == low]
        if launch["sm__maximum_warps_per_active_cycle_pct"][1] >= 100 or {"warps", "blocks per SM"} & set(binding):
            assert occ["at_hardware_max"] and occ["limiter"] is None
        else:
            assert occ["limiters"] == binding


def test_gemm_limiter_binds_at_its_grid(launches):
    # raw: registers 184/thread x 256 threads -> launch__occupancy_limit_registers 1 block,
    # 147,456 + 1,024 B shared -> launch__occupancy_limit_shared_mem 1 block; warps 8 per block -> 8 warps of 64
    # = 12.5 % theoretical; the grid asks for 512 blocks on 132 SMs = 3.88 blocks per SM > 1: the limit binds.
    (a, _), = launches["gemm"]
    launch = raw("gemm")[0]
    occ = a.extra["ncu"]["occupancy"]
    assert occ["limiters"] == ["registers", "shared memory"]
    blocks_per_sm_asked = launch["launch__grid_size"][1] / launch["launch__sm_count"][1]
    assert blocks_per_sm_asked == pytest.approx(512 / 132)
    assert blocks_per_sm_asked > launch["launch__occupancy_limit_registers"][1] == 1
    warps_per_block = launch["launch__block_size"][1] / 32
    assert warps_per_block * 1 / 64 * 100 == occ["theoretical_pct"] == 12.5


# ---------------------------------------------------------------- launch resources, time, bandwidth


@pytest.mark.parametrize("kernel", KERNELS)
def test_shared_memory_per_block_is_the_raw_byte_count(launches, kernel):
    # gemm: 147.456000 Kbyte/block dynamic + 0 static = 147,456 B (the details page's 147.46 Kbyte read
    # 147,460 B before); softmax 16 B, rmsnorm 64 B, silu_and_mul and vec_add 0 B
    for (a, _), launch in zip(launches[kernel], raw(kernel)):
        want = scaled(launch["launch__shared_mem_per_block_dynamic"]) + scaled(launch["launch__shared_mem_per_block_static"])
        assert a.extra["ncu"]["shared_memory_per_block_bytes"] == round(want)
    if kernel == "gemm":
        assert launches["gemm"][0][0].extra["ncu"]["shared_memory_per_block_bytes"] == 147456


@pytest.mark.parametrize("kernel", KERNELS)
def test_duration_and_dram_bandwidth_from_the_raw_page(launches, kernel):
    for (a, _), launch in zip(launches[kernel], raw(kernel)):
        m = a.extra["ncu"]
        assert m["duration_us"] == pytest.approx(scaled(launch["gpu__time_duration.sum"]), abs=0.005)
        # Memory Workload Analysis "Memory Throughput" is dram__bytes.sum.per_second, shown rounded
        assert m["dram_bandwidth_gbs"] * 1e9 == pytest.approx(scaled(launch["dram__bytes.sum.per_second"]), rel=2e-3)
        assert m["dram_throughput_pct"] == pytest.approx(
            launch["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"][1], abs=0.005)
        assert m["tensor_pipe_pct"] == launch["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"][1]


def test_duration_of_the_raw_page_alone_reads_its_unit():
    launch = {"gpu__time_duration.sum": ("ns", "250,176")}  # the raw page in base units says ns
    assert ncu_metrics.ncu_metrics(None, launch)["duration_us"] == pytest.approx(250.176)
    assert ncu_metrics.ncu_metrics(None, {"gpu__time_duration.sum": ("us", "250.176")})["duration_us"] == 250.176


# ---------------------------------------------------------------- advice premises


def test_streaming_findings_say_compute_is_not_the_limit_only_where_it_idles(launches):
    # vec_add launch 0: sm__throughput 8.66 %, tensor pipe 0.97 %: compute is far from busy, so "not the
    # limit" (it read "no compute headroom", the opposite of 91 % unused SM throughput);
    # softmax: sm__throughput 63.62 % -> "compute is busy too"
    seen = {}
    for kernel in ("vec_add", "rmsnorm", "silu_and_mul", "softmax"):
        for (a, findings), launch in zip(launches[kernel], raw(kernel)):
            f = next(f for f in findings if f.detector == "streaming_roofline")
            sm = launch["sm__throughput.avg.pct_of_peak_sustained_elapsed"][1]
            assert "no compute headroom" not in f.evidence["summary"]
            reading = "compute is busy too" if sm >= 50 else "compute is not the limit"
            assert f.evidence["summary"].split("; ")[2].endswith(reading)
            seen[(kernel, a.extra.get("launch_index", 0))] = (round(sm, 2), reading)
    assert seen[("vec_add", 0)] == (8.66, "compute is not the limit")
    assert seen[("softmax", 0)] == (63.62, "compute is busy too")


def test_streaming_premise_holds_on_the_raw_page(launches):
    # memory-reason samples (long scoreboard + drain + LG/TEX throttle) over not-issued samples, and DRAM %:
    # vec_add launch 0: (1142 + 27) / 1227 = 95.3 % at 57.76 % of peak ("keep more bytes in flight", below 80 %)
    for kernel in ("vec_add", "rmsnorm", "silu_and_mul", "softmax"):
        for (a, findings), launch in zip(launches[kernel], raw(kernel)):
            f = next(f for f in findings if f.detector == "streaming_roofline")
            r = not_issued(launch)
            memory = sum(r[k] for k in MEMORY_REASONS) / sum(r.values())
            assert f.evidence["vmem_stall_share"] == pytest.approx(memory, abs=2e-3)
            dram = launch["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"][1] / 100
            assert f.evidence["bandwidth"]["fraction"] == pytest.approx(dram, abs=1e-3)
            assert f.evidence["near_peak"] == (dram >= 0.8)
    (a, findings), _ = launches["vec_add"]
    f = next(f for f in findings if f.detector == "streaming_roofline")
    assert math.isclose(f.evidence["vmem_stall_share"], (1142 + 27) / 1227)


def sass_global_loads(kernel: str, launch: int = 0) -> list[str]:
    """The LDG opcodes (modifiers kept, predicate dropped) of one launch of source_sass.csv."""
    out, blocks = [], -1
    for row in csv.reader(open(DEMO / kernel / "ncu" / "prefill" / "source_sass.csv", newline="")):
        if row and row[0] == "Kernel Name":
            blocks += 1
        elif row and row[0].startswith("0x") and blocks == launch:
            words = row[1].split()
            words = words[1:] if words[0].startswith("@") else words
            if words[0].split(".")[0] == "LDG":
                out.append(words[0])
    return out


def test_keep_bytes_in_flight_names_only_levers_the_launch_has_left(launches):
    # vec_add launch 0 (57.8 % of peak), rmsnorm (55.3 %), silu_and_mul (78.5 %): every global load is
    # LDG.E.128 (16 B a thread, the widest) and sm__maximum_warps_per_active_cycle_pct is 100, so "wider
    # loads" and "more resident threads" have no room; the advice names more independent loads per thread
    seen = []
    for kernel in ("vec_add", "rmsnorm", "silu_and_mul"):
        (a, findings), launch = launches[kernel][0], raw(kernel)[0]
        f = next(f for f in findings if f.detector == "streaming_roofline")
        assert launch["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"][1] < 80
        loads = sass_global_loads(kernel)
        assert loads and set(loads) == {"LDG.E.128"}
        assert launch["sm__maximum_warps_per_active_cycle_pct"][1] == 100
        assert "Wider loads" not in f.suggestion and "more resident threads" not in f.suggestion
        assert "already the widest (LDG.E.128" in f.suggestion and "more independent loads per thread" in f.suggestion
        seen.append((kernel, len(loads)))
    assert seen == [("vec_add", 2), ("rmsnorm", 4), ("silu_and_mul", 2)]


def test_vec_add_launch_path_is_one_median_per_grid():
    # launch/prefill.trace.json: add_kernel at grid 8192 (20 calls, 11.26-12.99 us) and grid 65536 (20 calls,
    # 90.72-92.96 us); a median over all 40 is (12.992 + 90.72) / 2 = 51.86 us, a time no call took
    from generator.analyze import runstats

    rs = runstats.bundle_run_stats(DEMO / "vec_add")
    got = {p.grid: (p.calls, p.kernel_ns) for p in rs.launch}
    assert set(got) == {(65536, 1, 1), (8192, 1, 1)}
    # the medians of 20: (92.32 + 92.351) / 2 and (11.392 + 11.392) / 2 us
    assert got[(65536, 1, 1)][0] == got[(8192, 1, 1)][0] == 20
    assert got[(65536, 1, 1)][1] == pytest.approx(92335.5, abs=1) and got[(8192, 1, 1)][1] == pytest.approx(11392, abs=1)
