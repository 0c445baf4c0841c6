"""Counter and timing files from other tools and versions (DOMAIN §2): rocprof-compute's pmc_perf.csv
(wide and long), derived counters, a kernel trace without its kernel stats, Nsight Compute's binary
``.ncu-rep``.

Real files: tests/data/rocprof_compute_vcopy_mi300x (rocprof-compute's vcopy workload on MI300X, wide
layout; its README works the numbers: L2 hit 197,232 / 591,191 = 33.4 %, gfx942 HBM read bytes
25,209,856 against 3 x 8 MiB, over-fetch 1.00); the shared sweep's flash_attn_func kernel trace;
bundles/raw/gemm_prefill.ncu-rep (the NVIDIA demo). No real long-layout pmc_perf.csv and no real
file with a derived counter could be had (rocprofiler-compute's long test files are gzip blobs the
index does not serve): those fixtures are hand-made from the real vcopy values and named so.
"""

from __future__ import annotations

import csv
import os
import shutil
import statistics
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from generator import cli
from generator.analyze import pmc, runstats
from generator.read import counters, discover

REPO = Path(__file__).resolve().parent.parent
VCOPY = REPO / "tests" / "data" / "rocprof_compute_vcopy_mi300x"
REP = REPO / "bundles" / "raw" / "gemm_prefill.ncu-rep"
GEMM_EXPORTS = REPO / "bundles" / "examples" / "gemm" / "ncu" / "prefill"
MIB8 = 8 * 2 ** 20  # one 1,048,576-double array


def _wide_rows() -> list[dict]:
    with open(VCOPY / "pmc_perf.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_wide_pmc_perf_reads_name_sum_counters_and_the_gfx942_formula():
    rows = _wide_rows()
    hit = sum(float(r["TCC_HIT_sum"]) for r in rows)
    miss = sum(float(r["TCC_MISS_sum"]) for r in rows)
    bubble = sum(float(r["TCC_BUBBLE_sum"]) for r in rows)
    rdreq = sum(float(r["TCC_EA0_RDREQ_sum"]) for r in rows)
    assert (hit, miss, bubble, rdreq) == (197_232, 393_959, 196_608, 197_296)
    r = pmc.analyze_files([str(VCOPY / "pmc_perf.csv")], ideal_bytes=MIB8)
    assert r.dispatches == 3 and r.arch == "gfx942"
    assert r.counter_names["TCC_HIT"] == "TCC_HIT_sum" and r.counter_names["TCC_BUBBLE"] == "TCC_BUBBLE_sum"
    assert r.l2_hit_rate == pytest.approx(hit / (hit + miss)) and round(r.l2_hit_rate * 100, 1) == 33.4
    assert r.hbm_formula == "gfx942" and r.hbm_read_bytes == 128 * bubble + 64 * (rdreq - bubble) == 25_209_856
    assert r.over_fetch == pytest.approx(25_209_856 / (3 * MIB8)) and f"{r.over_fetch:.2f}" == "1.00"
    assert r.timestamps == {str(VCOPY / "pmc_perf.csv"): counters.PASS_MEAN}
    assert r.kernel_time_ns is None and any("8.1097E+14" in n for n in r.notes)  # rounded timestamps
    assert any("gfx942 formula" in n for n in r.notes)


def test_wide_pmc_perf_through_the_cli(capsys):
    assert cli.main(["pmc", str(VCOPY / "pmc_perf.csv"), "--ideal-gb", str(MIB8 / 1e9)]) == 0
    out = capsys.readouterr().out
    assert "L2 hit rate:      33.4 %  (TCC_HIT 197,232 / (TCC_HIT + TCC_MISS) 591,191)" in out
    assert "counters read as: " in out and "TCC_HIT = TCC_HIT_sum" in out
    assert "rocprof-compute's gfx942 formula" in out and "over-fetch:       1.00x" in out


def test_without_sysinfo_the_64b_formula_is_used_and_said(tmp_path):
    shutil.copy(VCOPY / "pmc_perf.csv", tmp_path / "pmc_perf.csv")
    r = pmc.analyze_files([str(tmp_path / "pmc_perf.csv")])
    assert r.arch is None and r.hbm_formula == "64B" and r.hbm_read_bytes == 197_296 * 64 * 2
    assert any("64 B-line formula" in n for n in r.notes)


LONG_HEADER = ["GPU_ID", "Dispatch_ID", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup", "Scratch_Per_Workitem",
               "Arch_VGPR", "Accum_VGPR", "SGPR", "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Kernel_ID",
               "Counter_Name", "Counter_Value"]
#: Hand-made replay passes (timestamps made up): pass A starts at 1e12, pass B at 2e12; durations per pass.
PASS_A_NS = (10_000, 12_000, 14_000)
PASS_B_NS = (20_000, 22_000, 24_000)


def make_handmade_long_pmc_perf(path: Path, upper: bool = False) -> Path:
    """The real vcopy values (three dispatches) in the long layout, each dispatch written once per
    replay pass: pass A TCC_HIT_sum, TCC_MISS_sum, GRBM_COUNT; pass B the EA and bubble counters and
    GRBM_COUNT again (a counter a later pass repeats); a derived L2CacheHit in pass A."""
    rows = _wide_rows()
    header = [h.upper() for h in LONG_HEADER] if upper else LONG_HEADER
    out = []
    for (pass_base, durs, names) in ((1_000_000_000_000, PASS_A_NS, ("TCC_HIT_sum", "TCC_MISS_sum", "GRBM_COUNT")),
                                     (2_000_000_000_000, PASS_B_NS, ("TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum",
                                                                     "TCC_BUBBLE_sum", "GRBM_COUNT"))):
        for k, r in enumerate(rows):
            start = pass_base + k * 100_000
            meta = ["2", r["Dispatch_ID"], r["Grid_Size"], r["Workgroup_Size"], "0", "0", "4", "4", "16",
                    r["Kernel_Name"], str(start), str(start + durs[k]), "7"]
            for n in names:
                out.append(meta + [n, r[n]])
            if names[0] == "TCC_HIT_sum":
                hit, miss = float(r["TCC_HIT_sum"]), float(r["TCC_MISS_sum"])
                out.append(meta + ["L2CacheHit", f"{100 * hit / (hit + miss):.3f}"])
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(out)
    return path


@pytest.mark.parametrize("upper", [False, True])
def test_handmade_long_pmc_perf_keeps_the_first_pass_times(tmp_path, upper):
    path = make_handmade_long_pmc_perf(tmp_path / "pmc_perf.csv", upper)
    r = pmc.analyze_files([str(path)], ideal_bytes=MIB8)
    assert r.dispatches == 3 and r.l2_hit_rate == pytest.approx(197_232 / 591_191)
    assert r.kernel_time_ns == statistics.fmean(PASS_A_NS)  # the first pass's timestamps
    assert r.timestamps == {str(path): counters.PASS_FIRST}
    assert any("once per replay pass (2 passes)" in n and "3 counter values" in n for n in r.notes)
    grbm = sum(float(row["GRBM_COUNT"]) for row in _wide_rows())
    assert r.counters["GRBM_COUNT"].total == grbm  # repeated by pass B, counted once


def test_handmade_derived_counter_is_averaged_never_summed(tmp_path, capsys):
    path = make_handmade_long_pmc_perf(tmp_path / "pmc_perf.csv")
    values = [100 * h / (h + m) for h, m in ((66_160, 131_311), (65_536, 131_325), (65_536, 131_323))]
    r = pmc.analyze_files([str(path)])
    l2 = r.counters["L2CacheHit"]
    assert l2.derived and l2.mean == pytest.approx(statistics.fmean(round(v, 3) for v in values), abs=1e-9)
    doc = r.to_json()["counters"]["L2CacheHit"]
    assert doc["total"] is None and doc["derived"] is True
    assert not r.counters["TCC_HIT_sum"].derived and r.to_json()["counters"]["TCC_HIT_sum"]["total"] == 197_232
    assert cli.main(["pmc", str(path)]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "L2CacheHit" in ln)
    assert "mean 33.362" in line and "averaged, not summed" in line and "100.087" not in line  # not the sum
    assert [counters.is_derived(n) for n in ("L2CacheHit", "GPUBusy", "FETCH_SIZE", "TCC_HIT_sum", "TCC_HIT[3]",
                                             "SQ_WAVES", "TCC_EA0_RDREQ_32B")] == [True, True, True, False, False,
                                                                                    False, False]


def test_a_kernel_trace_alone_gives_the_run_statistics(sweep, tmp_path):
    cv = sweep / "examples" / "flash_attn_func" / "compute_viewer"
    bundle = tmp_path / "flash_attn_func"
    (bundle / "compute_viewer").mkdir(parents=True)
    shutil.copy(cv / "discover_kernel_trace.csv", bundle / "compute_viewer")
    with open(cv / "discover_kernel_trace.csv", newline="") as fh:
        durs = [int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in csv.DictReader(fh)
                if r["Kernel_Name"] == "flash_attn_func_kernel_0"]
    with open(cv / "discover_kernel_stats.csv", newline="") as fh:
        stats = next(r for r in csv.DictReader(fh) if r["Name"] == "flash_attn_func_kernel_0")
    rs = runstats.bundle_run_stats(bundle)
    k = next(k for k in rs.kernels if k.name == "flash_attn_func_kernel_0")
    assert k.calls == len(durs) == int(stats["Calls"]) == 9
    assert k.avg_ns == pytest.approx(float(stats["AverageNs"])) and round(k.avg_ns) == 93_307  # rocprofv3's own mean
    assert k.median_ns == statistics.median(durs) and k.total_ns == int(stats["TotalDurationNs"])
    assert rs.sources["kernel_stats"] == "compute_viewer/discover_kernel_trace.csv"
    assert any("no *kernel_stats.csv" in n and "discover_kernel_trace.csv" in n for n in rs.notes)
    assert rs.to_json()["kernels"][0]["median_ns"] is not None


def _no_ncu_path(tmp_path: Path) -> str:
    empty = tmp_path / "no-ncu-bin"
    empty.mkdir(exist_ok=True)
    return str(empty)


def test_a_binary_ncu_report_is_refused_in_one_line_naming_the_exports(tmp_path, monkeypatch):
    if not REP.is_file():
        pytest.skip("bundles/raw/gemm_prefill.ncu-rep is absent")
    env = {**os.environ, "PATH": _no_ncu_path(tmp_path) + os.pathsep + os.path.dirname(sys.executable)}
    out = subprocess.run([sys.executable, "-m", "generator", "analyze", str(REP)], capture_output=True, text=True,
                         cwd=REPO, env=env)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    err = out.stderr.strip()
    assert "\n" not in err and str(REP) in err and "ncu is not on the PATH" in err
    for page in ("--csv --page details", "--csv --page raw", "--csv --page source --print-source sass"):
        assert f"ncu --import gemm_prefill.ncu-rep {page}" in err, page
    # in a bundle it is a capture (broken, with the same line), not "the bundle holds no capture"
    cap = tmp_path / "gemm" / "ncu" / "prefill"
    cap.mkdir(parents=True)
    shutil.copy(REP, cap)
    monkeypatch.setenv("PATH", _no_ncu_path(tmp_path))
    (bundle,) = discover.discover(tmp_path / "gemm").bundles
    (ref,) = bundle.captures
    assert ref.format == "ncu" and ref.skipped is None


#: The fake prints the demo's exports. Checked once on the H200 machine: Nsight Compute 2025.3.1's own
#: ``ncu --import gemm_prefill.ncu-rep --csv --page details`` / ``--page raw`` / ``--page source
#: --print-source sass`` print those three files byte for byte.
FAKE_NCU = """#!{python}
# handmade_fake_ncu: stands in for Nsight Compute's `ncu --import REP --csv --page ...`, printing the
# demo's real exports of the same report (bundles/examples/gemm/ncu/prefill) page by page.
import sys
args = sys.argv[1:]
page = args[args.index("--page") + 1]
src = args[args.index("--print-source") + 1] if "--print-source" in args else ""
name = {{"details": "details.csv", "raw": "raw.csv"}}.get(page) or (
    "source_cuda_sass.csv" if src == "cuda,sass" else "source_sass.csv")
sys.stdout.write(open({folder!r} + "/" + name, encoding="utf-8").read())
"""


def test_handmade_fake_ncu_reads_the_report_through_its_exports(tmp_path, monkeypatch):
    if not (REP.is_file() and GEMM_EXPORTS.is_dir()):
        pytest.skip("the NVIDIA demo (bundles/) is absent")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "ncu"
    fake.write_text(FAKE_NCU.format(python=sys.executable, folder=str(GEMM_EXPORTS)))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    from generator.analyze import analysis

    (via_rep,) = analysis.analyze_sweep(discover.discover(REP))
    (via_csv,) = analysis.analyze_sweep(discover.discover(GEMM_EXPORTS))
    assert via_rep.error is None and via_csv.error is None
    a, b = via_rep.analyses[0], via_csv.analyses[0]
    assert (a.total_stall_cycles, a.total_cycles, len(a.instructions)) == (b.total_stall_cycles, b.total_cycles,
                                                                        len(b.instructions))
    assert a.stall_unit == "warp-stall samples" and a.extra["exports"] == b.extra["exports"]


def test_a_kernel_trace_given_to_pmc_is_refused_in_one_line(sweep, capsys):
    trace = sweep / "examples" / "flash_attn_func" / "compute_viewer" / "discover_kernel_trace.csv"
    assert cli.main(["pmc", str(trace)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(trace) in err and "no hardware counter column" in err
