"""Run statistics on the real MI350X sweep: kernel table, traced kernel, timing, agent."""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from generator.analyze import kernel_table, runstats
from generator.errors import InputError
from conftest import in_slice  # the same test folder


def test_hgemm_kernel_table_and_traced_kernel(sweep):
    s = runstats.bundle_run_stats(sweep / "examples" / "hgemm_splitk")
    assert len(s.kernels) == 34
    assert [k.rank for k in s.kernels] == list(range(1, 35))
    t = s.traced
    assert t.name == "hgemm_bf16_32x64x256_W1x2x2_S2_BT_BLDS1_AS1_SPK14_0"
    assert t.short_name == t.name  # JIT names stay as they are
    assert (t.rank, t.calls, t.total_ns, t.percent) == (3, 55, 392803, 19.10)
    assert (t.avg_ns, t.min_ns, t.max_ns, t.stddev_ns) == (7141.872727, 4880, 11160, 1091.556229)
    assert [k.name for k in s.kernels if k.traced] == [t.name]
    assert s.trace_regexes == ["hgemm_bf16_32x64x256_W1x2x2_S2_BT_BLDS1_AS1_SPK14_0"]
    # the whole table adds up to discover_domain_stats.csv's KERNEL_DISPATCH total
    assert s.total_gpu_ns == 2056816
    top = s.kernels[0]
    assert (top.name, top.calls, top.total_ns, top.percent) == ("__amd_rocclr_copyBuffer", 252, 800688, 38.93)
    second = s.kernels[1]
    assert second.name.startswith("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x1024_MI16x16x1_SN")
    assert second.short_name == "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x1024..."
    assert len(second.name) == 480 and second.name.endswith("_WS64_WG16_4_4")  # the full name is kept
    assert s.kernels[4].percent == 0.7682  # as rocprofv3 printed it
    assert s.kernels[4].short_name == "trampoline_kernel<wrapped_partition_config>"
    assert s.kernels[6].short_name == "vectorized_elementwise_kernel<AbsFunctor>"


def test_hgemm_dispatch_timing_and_agent(sweep):
    s = runstats.bundle_run_stats(sweep / "examples" / "hgemm_splitk")
    tm = s.timing
    assert (tm.count, tm.min_ns, tm.median_ns, tm.max_ns, tm.total_ns) == (55, 4880, 7000, 11160, 392803)
    assert tm.agent == "Agent 4"
    assert tm.resources == {"vgpr": 132, "accum_vgpr": 0, "sgpr": 112, "lds_bytes": 98304,
                            "scratch_bytes": 0, "workgroup_x": 256, "grid_x": 1536}
    a = s.agent
    assert (a.node_id, a.product, a.arch, a.gfx_target_version) == (4, "AMD Instinct MI350X", "gfx950", 90500)
    assert (a.cus, a.simds_per_cu, a.lds_kib, a.max_waves_per_simd) == (256, 4, 160, 8)
    assert (a.wave_size, a.num_xcc, a.max_clock_mhz) == (64, 8, 2200)
    assert s.sources == {"agent_info": "compute_viewer/discover_agent_info.csv",
                         "kernel_stats": "compute_viewer/discover_kernel_stats.csv",
                         "kernel_trace": "compute_viewer/discover_kernel_trace.csv"}
    assert s.notes == []


@pytest.mark.parametrize(
    "bundle, rank, name, calls, total, percent, timing, agent",
    [
        in_slice("examples/vec_add", "vec_add", 1, "vecAddKernel_0", 24, 461564, 39.91, (24, 18080, 18420, 22761), 2),
        in_slice("examples/pa", "pa", 2, "pa_decode_ps_kernel_0", 13, 104521, 5.03, (13, 7680, 7920, 9960), 8),
        in_slice("examples/moe_gemm", "moe_gemm", 12, "moe_gemm1_0", 18, 1372328, 4.16,
                 (18, 67240, 73200.5, 100081), 7),
        in_slice("examples/pa_mqa_logits_fp4", "pa_mqa_logits_fp4", 21, "pa_mqa_logits_fp4_kernel_0", 12, 390121,
                 0.4046, (12, 30040, 30420, 48320), 2),
        in_slice("examples/moe_blockscale", "moe_blockscale", 1, "mfma_moe1_bs_fp8_f16_cshuffle_t16x256x128_wpe2_abi8",
                 9, 617923, 6.82, (9, 65161, 65521, 91240), 5),
    ],
)
def test_traced_kernel_of_real_bundles(sweep, bundle, rank, name, calls, total, percent, timing, agent):
    s = runstats.bundle_run_stats(sweep / "examples" / bundle)
    t = s.traced
    assert (t.rank, t.name, t.calls, t.total_ns, t.percent) == (rank, name, calls, total, percent)
    tm = s.timing
    assert (tm.count, tm.min_ns, tm.median_ns, tm.max_ns) == timing
    assert tm.total_ns == total  # the trace sums to the table's total
    assert s.agent.node_id == agent and s.agent.product == "AMD Instinct MI350X"


def _raw_trace_durations(bundle: Path, name: str) -> list[int]:
    """End - Start of the kernel-trace rows named exactly ``name``, read with the csv module."""
    with open(bundle / "compute_viewer" / "discover_kernel_trace.csv", newline="") as fh:
        return [int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in csv.DictReader(fh)
                if r["Kernel_Name"] == name]


def test_every_bundle_times_its_traced_kernel_from_the_raw_trace(sweep):
    """Every bundle (13 in the sweep, 5 in the slice) names a traced kernel, and its timing is that
    kernel's rows of the raw trace, counted and summed here with csv. The slice cuts fused_rope_cache's
    trace to a few rows of each kernel, so that the trace holds every call of the kernel table
    (count == calls) is checked on the whole sweep below."""
    bundles = sorted((sweep / "examples").iterdir())
    assert bundles
    for bundle in bundles:
        s = runstats.bundle_run_stats(bundle)
        assert s.traced is not None, bundle.name
        durs = _raw_trace_durations(bundle, s.traced.name)
        tm = s.timing
        assert (tm.kernel, tm.count, tm.total_ns, tm.min_ns, tm.max_ns) == \
               (s.traced.name, len(durs), sum(durs), min(durs), max(durs)), bundle.name
        assert 0 < tm.count <= s.traced.calls, bundle.name
        assert json.loads(json.dumps(s.to_json()))["traced"]["name"] == s.traced.name


@pytest.mark.full_sweep
def test_every_real_bundle_has_a_traced_kernel(sweep):
    for bundle in sorted((sweep / "examples").iterdir()):
        s = runstats.bundle_run_stats(bundle)
        assert s.traced is not None, bundle.name
        assert s.timing.count == s.traced.calls, bundle.name
        assert json.loads(json.dumps(s.to_json()))["traced"]["name"] == s.traced.name


def test_jit_name_picks_the_kernel_without_suffix(sweep):
    """pa's kernel table: pa_decode_ps_kernel_0 at rank 2 (13 calls); at rank 11 aiter's
    pa_decode_ps_reduce_hip_kernel, which a substring match of "pa_decode_ps" would take: a JIT name
    matches only as it is or with ``_0``."""
    kernels = kernel_table.read_kernel_stats(sweep / "examples" / "pa" / "compute_viewer" / "discover_kernel_stats.csv")
    t = runstats.pick_traced(kernels, [], jit_kernel="pa_decode_ps_kernel")
    assert (t.name, t.rank) == ("pa_decode_ps_kernel_0", 2)
    assert sum(k.traced for k in kernels) == 1
    assert runstats.pick_traced(kernels, [], jit_kernel="pa_decode_ps") is None
    assert sum(k.traced for k in kernels) == 0


@pytest.mark.parametrize(
    "name, short",
    [
        ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<bool, X>>(at::native::ReduceOp<bool, X>)",
         "reduce_kernel<ReduceOp>"),
        ("void at::native::(anonymous namespace)::write_indices(long*, long)", "write_indices"),
        ("softmax_kernel_0", "softmax_kernel_0"),
        ("void k<float, 4, ns::Functor<float>>(int)", "k<Functor>"),
    ],
)
def test_short_names(name, short):
    assert kernel_table.short_kernel_name(name) == short


# ---------------------------------------------------------------- rocpd results.db


def make_handmade_rocpd_results_db(path: Path, dispatches: list[tuple[str, int]]) -> Path:
    """A rocpd results.db (schema 3: start/end columns) holding kernel dispatches only."""
    u = "_0195a3c2_0000_7000_8000_00000000beef"
    con = sqlite3.connect(path)
    con.executescript(f"""
        CREATE TABLE "rocpd_info_kernel_symbol{u}" (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER,
            pid INTEGER, code_object_id INTEGER, kernel_name TEXT, display_name TEXT);
        CREATE TABLE "rocpd_kernel_dispatch{u}" (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
            tid INTEGER, agent_id INTEGER, kernel_id INTEGER NOT NULL, dispatch_id INTEGER NOT NULL,
            queue_id INTEGER, stream_id INTEGER, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL,
            workgroup_size_x INTEGER, grid_size_x INTEGER, event_id INTEGER);
    """)
    names = sorted({n for n, _ in dispatches})
    con.executemany(f'INSERT INTO "rocpd_info_kernel_symbol{u}" (id, kernel_name, display_name) VALUES (?,?,?)',
                    [(i, n, n) for i, n in enumerate(names, start=1)])
    t = 1_000
    for did, (name, dur) in enumerate(dispatches, start=1):
        con.execute(f'INSERT INTO "rocpd_kernel_dispatch{u}" (id, agent_id, kernel_id, dispatch_id, "start", "end") '
                    "VALUES (?,?,?,?,?,?)", (did, 3, names.index(name) + 1, did, t, t + dur))
        t += dur + 500
    con.commit()
    con.close()
    return path


def test_rocpd_results_db_kernel_table(sweep, tmp_path):
    bundle = tmp_path / "vec_add"
    (bundle / "compute_viewer").mkdir(parents=True)
    (bundle / "source").mkdir()
    shutil.copy(sweep / "examples" / "vec_add" / "source" / "input_trace.yaml", bundle / "source")
    plan = [("vecAddKernel_0", d) for d in (18_000, 18_400, 22_000, 18_200)] + [("__amd_rocclr_copyBuffer", 3_000)] * 3
    make_handmade_rocpd_results_db(bundle / "compute_viewer" / "results.db", plan)
    s = runstats.bundle_run_stats(bundle)
    assert s.sources == {"kernel_stats": "compute_viewer/results.db"}
    t = s.traced
    # 4 calls: total 76,600 ns, mean 19,150, sample stddev of (18000, 18400, 22000, 18200)
    assert (t.rank, t.name, t.calls, t.total_ns, t.avg_ns) == (1, "vecAddKernel_0", 4, 76_600, 19_150.0)
    assert (t.min_ns, t.max_ns) == (18_000, 22_000)
    assert t.stddev_ns == pytest.approx(1907.0046320517, rel=1e-12)
    assert t.percent == pytest.approx(100 * 76_600 / 85_600)  # 89.49 %
    other = s.kernels[1]
    assert (other.calls, other.total_ns, other.stddev_ns) == (3, 9_000, 0.0)
    tm = s.timing
    assert (tm.count, tm.min_ns, tm.median_ns, tm.max_ns) == (4, 18_000, 18_300, 22_000)
    assert s.agent is None and s.notes == ["no GPU agent info"]


def test_truncated_results_db_is_one_line(tmp_path):
    bundle = tmp_path / "b"
    (bundle / "compute_viewer").mkdir(parents=True)
    good = make_handmade_rocpd_results_db(tmp_path / "full.db", [("k_0", 10)] * 200)
    data = good.read_bytes()
    (bundle / "compute_viewer" / "results.db").write_bytes(data[: len(data) // 3])
    with pytest.raises(InputError) as err:
        runstats.bundle_run_stats(bundle)
    assert err.value.path.endswith("results.db")
    assert "not a readable SQLite database" in err.value.problem


def test_results_db_without_kernel_tables(tmp_path):
    db = tmp_path / "results.db"
    sqlite3.connect(db).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(InputError) as err:
        kernel_table.read_rocpd_kernel_stats(db)
    assert err.value.problem.startswith("no rocpd kernel tables")


# ---------------------------------------------------------------- bad CSVs


def test_kernel_stats_without_total_column(tmp_path):
    path = tmp_path / "discover_kernel_stats.csv"
    path.write_text('"Name","Calls"\n"k",3\n')
    with pytest.raises(InputError) as err:
        kernel_table.read_kernel_stats(path)
    assert err.value.message == f"{path}: not a kernel-stats CSV: no TotalDurationNs column"


def test_kernel_stats_bad_number_names_line(tmp_path):
    path = tmp_path / "discover_kernel_stats.csv"
    path.write_text('"Name","Calls","TotalDurationNs"\n"a",1,10\n"k",three,20\n')
    with pytest.raises(InputError) as err:
        kernel_table.read_kernel_stats(path)
    assert err.value.message == f"{path}:3: Calls and TotalDurationNs must be integers"


def test_bundle_without_run_files_gives_none(tmp_path):
    assert runstats.bundle_run_stats(tmp_path) is None


# ---------------------------------------------------------------- the busiest trace


@pytest.mark.full_sweep
def test_fused_rope_cache_trace_of_thousands_of_dispatches(sweep):
    """10,836 dispatch rows, 3,761 of the traced kernel: the rows picked are match_kernel's."""
    from generator.read import rocprof

    bundle = sweep / "examples" / "fused_rope_cache"
    trace = bundle / "compute_viewer" / "discover_kernel_trace.csv"
    rows = rocprof.read_kernel_trace(trace)
    assert len(rows) == 10836
    for name in {r["Kernel_Name"] for r in rows} | {"fused_qk_rope_reshape_and_cache", "", "x_0"}:
        assert rocprof.kernel_dispatches(trace, name) == rocprof.match_kernel(rows, name), name
    assert len(rocprof.kernel_dispatches(trace, "fused_qk_rope_reshape_and_cache")) == 3761
    tm = runstats.bundle_run_stats(bundle).timing
    assert (tm.kernel, tm.count, tm.min_ns, tm.median_ns, tm.max_ns, tm.total_ns) == \
           ("fused_qk_rope_reshape_and_cache_0", 3761, 800, 4000, 14040, 15489327)
    longest = max((k.name for k in runstats.bundle_run_stats(bundle).kernels), key=len)
    assert len(longest) == 5160  # a PyTorch template signature
    assert kernel_table.short_kernel_name(longest) == "distribution_elementwise_grid_stride_kernel<normal_and_tr..."


def test_timestamps_read_as_to_int_reads_them():
    from generator.read.rocprof import to_int

    cells = ["12", " 13 ", "1_000", "", None, "1.5", "nan", "0x10", "-5", "\u00a012\u2003", "1e3", True, 5.7]
    assert runstats._ints(cells) == [to_int(c) for c in cells] == \
           [12, 13, 1000, None, None, 1, None, None, -5, 12, 1000, None, 5]
    assert runstats._ints(["2365470647841333", " 7"]) == [2365470647841333, 7]
