"""PMC counters (DOMAIN §2) on hand-made files that follow the rocprofv3 formats.

No real counter collection exists in the shared sweep, so every input here is built by
a ``make_handmade_*`` function: a long-format CSV split over ``pass_1/`` and ``pass_2/``,
and rocpd SQLite databases (both dispatch-time schemas) whose tables carry a UUID
suffix. The numbers reproduce DOMAIN's worked example, gfx942 paged-attention decode:
L2 hit 1.7 %, 32B fraction 0 %, over-fetch 1.04x.

Arithmetic of the worked example (4 dispatches of the PA kernel per pass):
    TCC_HIT  = 4 x   425,000 =   1,700,000
    TCC_MISS = 4 x 24,575,000 = 98,300,000
    L2 hit   = 1,700,000 / (1,700,000 + 98,300,000) = 1,700,000 / 100,000,000 = 1.7 %
    RDREQ    = 4 x 4,062,500 = 16,250,000, RDREQ_32B = 0  -> 32B fraction 0 / 16,250,000 = 0 %
    HBM read = ((16,250,000 - 0) x 64 + 0 x 32) x 2 channels = 2,080,000,000 bytes
    ideal    = 0.5 GB per dispatch x 4 dispatches = 2,000,000,000 bytes
    over-fetch = 2.08e9 / 2.0e9 = 1.04x
    kernel time = mean(190, 200, 210, 200, 195, 205, 200, 200 us) = 200 us
    achieved BW = 0.5e9 B / 200,000 ns = 2,500 GB/s = 2.5 / 5.3 TB/s (MI300X) = 47.17 %
"""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from generator import cli
from generator.analyze import pmc
from generator.read import counter_files
from generator.model import FORMAT_VERSION

PA = "pa_decode_ps_kernel_0"
OTHER = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)"
UUID = "_0195a3c2_7d1e_7b3a_9f3e_4c2d1a0b9e8f"

CSV_COLUMNS = [
    "Correlation_Id", "Dispatch_Id", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id",
    "Grid_Size", "Kernel_Id", "Kernel_Name", "Workgroup_Size", "LDS_Block_Size",
    "Scratch_Size", "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Counter_Name",
    "Counter_Value", "Start_Timestamp", "End_Timestamp",
]

PASS1 = {"TCC_HIT": 425_000, "TCC_MISS": 24_575_000, "GRBM_GUI_ACTIVE": 250_000}
PASS2 = {"TCC_EA0_RDREQ": 4_062_500, "TCC_EA0_RDREQ_32B": 0}
DURATIONS_NS = {1: [190_000, 200_000, 210_000, 200_000], 2: [195_000, 205_000, 200_000, 200_000]}


def _dispatch_plan(pass_no: int):
    """(dispatch id, kernel, start, end) rows of one pass: PA dispatches and a distractor."""
    plan, t, did = [], 1_000_000_000 * pass_no, 0
    for i, dur in enumerate(DURATIONS_NS[pass_no]):
        did += 1
        plan.append((did, OTHER, t, t + 3_000))  # a fill kernel before each PA call
        t += 10_000
        did += 1
        plan.append((did, PA, t, t + dur))
        t += dur + 10_000
    return plan


def _write_csv(path: Path, rows: list[list]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_NONNUMERIC)
        w.writerow(CSV_COLUMNS)
        w.writerows(rows)
    return path


def make_handmade_counter_csvs(root: Path) -> list[Path]:
    """The worked example as rocprofv3 writes it: pass_1/ and pass_2/ long-format CSVs."""
    out = []
    for pass_no, counters in ((1, PASS1), (2, PASS2)):
        rows = []
        for did, kernel, start, end in _dispatch_plan(pass_no):
            for name, value in counters.items():
                if kernel != PA:
                    value = 7  # the distractor must be filtered out
                rows.append([did, did, "Agent 2", 1, 4242, 4242, 65536 if kernel == PA else 1024,
                             11 if kernel == PA else 3, kernel, 256, 13312 if kernel == PA else 0,
                             0, 144 if kernel == PA else 8, 136 if kernel == PA else 0, 96, name,
                             float(value), start, end])
        out.append(_write_csv(root / f"pass_{pass_no}" / "4242_counter_collection.csv", rows))
    return out


def make_handmade_rocpd(path: Path, schema: str = "start_end", counters: dict | None = None,
                        durations: list[int] | None = None) -> Path:
    """A rocpd database with UUID-suffixed tables holding the worked example in one pass.

    ``schema``: "start_end" (kernel_dispatch.start/end, schema 3) or "timestamp_ids"
    (kernel_dispatch.start_id/end_id into rocpd_timestamp_<uuid>).
    """
    counters = counters if counters is not None else {**PASS1, **PASS2}
    durations = durations or DURATIONS_NS[1]
    u = UUID
    con = sqlite3.connect(path)
    time_cols = ('"start" BIGINT NOT NULL, "end" BIGINT NOT NULL' if schema == "start_end"
                 else '"start_id" INTEGER NOT NULL, "end_id" INTEGER NOT NULL')
    con.executescript(f"""
        CREATE TABLE "rocpd_metadata{u}" (id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
        CREATE TABLE "rocpd_string{u}" (id INTEGER PRIMARY KEY, guid TEXT, string TEXT NOT NULL UNIQUE);
        CREATE TABLE "rocpd_info_agent{u}" (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
            type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid INTEGER,
            name TEXT, model_name TEXT, vendor_name TEXT, product_name TEXT, extdata JSONB DEFAULT '{{}}');
        CREATE TABLE "rocpd_info_pmc{u}" (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL,
            pid INTEGER NOT NULL, agent_id INTEGER, target_arch TEXT, event_code INT, instance_id INTEGER,
            name TEXT NOT NULL, symbol TEXT NOT NULL, description TEXT, long_description TEXT,
            component TEXT, units TEXT, value_type TEXT, block TEXT, expression TEXT,
            is_constant INTEGER, is_derived INTEGER, extdata JSONB DEFAULT '{{}}');
        CREATE TABLE "rocpd_info_kernel_symbol{u}" (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER,
            pid INTEGER, code_object_id INTEGER, kernel_name TEXT, display_name TEXT,
            kernel_object INTEGER, kernarg_segment_size INTEGER, kernarg_segment_alignment INTEGER,
            group_segment_size INTEGER, private_segment_size INTEGER, sgpr_count INTEGER,
            arch_vgpr_count INTEGER, accum_vgpr_count INTEGER, extdata JSONB DEFAULT '{{}}');
        CREATE TABLE "rocpd_event{u}" (id INTEGER PRIMARY KEY, guid TEXT, category_id INTEGER,
            stack_id INTEGER, parent_stack_id INTEGER, correlation_id INTEGER, extdata JSONB DEFAULT '{{}}');
        CREATE TABLE "rocpd_timestamp{u}" (id INTEGER PRIMARY KEY, guid TEXT, value BIGINT NOT NULL,
            phase INTEGER, track_id INTEGER);
        CREATE TABLE "rocpd_kernel_dispatch{u}" (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER,
            pid INTEGER, tid INTEGER, agent_id INTEGER, kernel_id INTEGER NOT NULL,
            dispatch_id INTEGER NOT NULL, queue_id INTEGER, stream_id INTEGER, {time_cols},
            private_segment_size INTEGER, group_segment_size INTEGER,
            workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER,
            grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER,
            region_name_id INTEGER, event_id INTEGER, extdata JSONB DEFAULT '{{}}');
        CREATE TABLE "rocpd_pmc_event{u}" (id INTEGER PRIMARY KEY, guid TEXT, event_id INTEGER,
            pmc_id INTEGER NOT NULL, value REAL DEFAULT 0.0, extdata JSONB DEFAULT '{{}}');
        CREATE VIEW rocpd_pmc_event AS SELECT * FROM "rocpd_pmc_event{u}";
    """)
    con.execute(f'INSERT INTO "rocpd_metadata{u}" (tag, value) VALUES (?, ?)', ("schema_version", "3"))
    con.executemany(f'INSERT INTO "rocpd_info_agent{u}" (id, nid, pid, type, name, product_name) VALUES (?,?,?,?,?,?)',
                    [(1, 1, 1, "CPU", "AMD EPYC 9654", "AMD EPYC 9654"),
                     (2, 1, 1, "GPU", "gfx942", "AMD Instinct MI300X")])
    pmc_ids = {}
    for i, name in enumerate(sorted(counters), start=1):
        pmc_ids[name] = 100 + i
        con.execute(f'INSERT INTO "rocpd_info_pmc{u}" (id, nid, pid, agent_id, target_arch, name, symbol, '
                    "component, value_type) VALUES (?,?,?,?,?,?,?,?,?)",
                    (100 + i, 1, 1, 2, "GPU", name, name, "rocm", "ABS"))
    con.executemany(f'INSERT INTO "rocpd_info_kernel_symbol{u}" (id, nid, pid, code_object_id, kernel_name, '
                    "display_name) VALUES (?,?,?,?,?,?)",
                    [(3, 1, 1, 1, OTHER, OTHER), (11, 1, 1, 1, PA, PA)])
    t, did, ev, pe, ts = 5_000_000, 0, 0, 0, 0
    for dur in durations:
        for kernel_id, d in ((3, 3_000), (11, dur)):
            did += 1
            ev += 1
            con.execute(f'INSERT INTO "rocpd_event{u}" (id, correlation_id) VALUES (?, ?)', (ev, did))
            if schema == "start_end":
                times = (t, t + d)
            else:
                ts += 2
                con.executemany(f'INSERT INTO "rocpd_timestamp{u}" (id, value, phase) VALUES (?,?,?)',
                                [(ts - 1, t, 1), (ts, t + d, 2)])
                times = (ts - 1, ts)
            con.execute(f'INSERT INTO "rocpd_kernel_dispatch{u}" VALUES (?,NULL,1,1,1,2,?,?,1,0,?,?,0,0,'
                        "256,1,1,65536,1,1,NULL,?,'{}')", (did, kernel_id, did, *times, ev))
            for name, value in sorted(counters.items()):
                pe += 1
                con.execute(f'INSERT INTO "rocpd_pmc_event{u}" (id, event_id, pmc_id, value) VALUES (?,?,?,?)',
                            (pe, ev, pmc_ids[name], float(value if kernel_id == 11 else 7)))
            t += d + 10_000
    con.commit()
    con.close()
    return path


# ---------------------------------------------------------------- the worked example


def _check_worked_example(r: pmc.PmcResult, dispatches: int, rdreq_dispatches: int) -> None:
    assert r.kernels == [PA]
    assert r.dispatches == dispatches
    hit = r.counters["TCC_HIT"]
    assert (hit.total, hit.dispatches) == (1_700_000, 4)
    assert r.counters["TCC_MISS"].total == 98_300_000
    assert r.l2_hit_rate == pytest.approx(0.017, abs=1e-12)  # 1.7e6 / 1.0e8
    assert r.frac_32b == 0.0
    assert r.counters["TCC_EA0_RDREQ"].total == 16_250_000
    assert r.counters["TCC_EA0_RDREQ"].dispatches == rdreq_dispatches
    assert r.hbm_read_bytes == 2_080_000_000  # 16.25e6 * 64 * 2
    assert r.over_fetch == pytest.approx(1.04, abs=1e-12)  # 2.08e9 / (0.5e9 * 4)
    assert r.missing == []
    assert r.unknown_counters == ["GRBM_GUI_ACTIVE"]  # kept and shown
    assert r.counters["GRBM_GUI_ACTIVE"].total == 1_000_000


def test_csv_passes_reproduce_worked_example(tmp_path):
    files = [str(p) for p in make_handmade_counter_csvs(tmp_path)]
    r = pmc.analyze_files(files, "pa_decode", ideal_bytes=0.5e9, peak_tbs=5.3, peak_name="MI300X")
    _check_worked_example(r, dispatches=8, rdreq_dispatches=4)
    assert r.dispatches_by_file == {files[0]: 4, files[1]: 4}
    assert r.kernel_time_ns == 200_000  # mean of the 8 PA durations
    assert r.timed_dispatches == 8
    assert r.achieved_gbps == pytest.approx(2500.0)  # 0.5e9 B / 200,000 ns
    assert r.bw_fraction == pytest.approx(2500 / 5300)  # 47.17 %
    assert r.reading == [
        "L2 hit rate 1.7 %: pure streaming, each byte is read once (expected for paged-KV decode; not a goal to raise)",
        "32B fraction 0.0 %: full 64B lines, loads are coalesced",
        "over-fetch 1.04x: no redundant reads",
        "achieved bandwidth 47.2 % of peak: below the 50-60 % of clean streaming",
    ]


@pytest.mark.parametrize("schema", ["start_end", "timestamp_ids"])
def test_rocpd_database_reproduces_worked_example(tmp_path, schema):
    db = make_handmade_rocpd(tmp_path / "handmade_results.db", schema)
    r = pmc.analyze_files([str(db)], PA, ideal_bytes=0.5e9)
    _check_worked_example(r, dispatches=4, rdreq_dispatches=4)
    assert r.arch == "gfx942"
    assert r.kernel_time_ns == 200_000  # mean(190, 200, 210, 200 us)
    assert r.achieved_gbps == pytest.approx(2500.0)


def test_rocpd_tables_are_found_by_uuid_suffix():
    names = [f"rocpd_pmc_event{UUID}", f"rocpd_info_pmc{UUID}", f"rocpd_kernel_dispatch{UUID}",
             f"rocpd_info_kernel_symbol{UUID}", "rocpd_info_pmc_other", "rocpd_pmc_event", "sqlite_sequence"]
    sets = counter_files.rocpd_table_sets(names)
    assert sets[UUID] == {
        "rocpd_pmc_event": f"rocpd_pmc_event{UUID}",
        "rocpd_info_pmc": f"rocpd_info_pmc{UUID}",
        "rocpd_kernel_dispatch": f"rocpd_kernel_dispatch{UUID}",
        "rocpd_info_kernel_symbol": f"rocpd_info_kernel_symbol{UUID}",
    }
    assert sets[""] == {"rocpd_pmc_event": "rocpd_pmc_event"}
    assert sets["_other"] == {"rocpd_info_pmc": "rocpd_info_pmc_other"}


def test_cli_json_keys_and_values(tmp_path, capsys):
    make_handmade_counter_csvs(tmp_path)
    rc = cli.main(["pmc", str(tmp_path), "--kernel-contains", "pa_decode", "--ideal-gb", "0.5",
                   "--device", "MI300X", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("dispatches", "l2_hit_rate", "frac_32b", "hbm_read_bytes", "over_fetch", "format_version"):
        assert key in out
    assert out["format_version"] == FORMAT_VERSION
    assert out["dispatches"] == 8
    assert out["l2_hit_rate"] == pytest.approx(0.017)
    assert out["frac_32b"] == 0.0
    assert out["hbm_read_bytes"] == 2_080_000_000
    assert out["over_fetch"] == pytest.approx(1.04)
    assert out["achieved_gbps"] == pytest.approx(2500.0)
    assert out["peak_tbs"] == 5.3
    assert out["unknown_counters"] == ["GRBM_GUI_ACTIVE"]


def test_cli_text_report(tmp_path, capsys):
    make_handmade_counter_csvs(tmp_path)
    files = sorted(str(p) for p in tmp_path.rglob("*.csv"))
    assert cli.main(["pmc", *files, "--kernel-contains", "pa_decode", "--ideal-gb", "0.5", "--device", "MI300X"]) == 0
    out = capsys.readouterr().out
    assert "dispatches matched: 8 (4 in " in out
    assert "L2 hit rate:      1.7 %  (TCC_HIT 1,700,000 / (TCC_HIT + TCC_MISS) 100,000,000)" in out
    assert "32B fraction:     0.0 %  (RDREQ_32B 0 / RDREQ 16,250,000)" in out
    assert "est. HBM read:    2.08 GB" in out
    assert "ideal:            0.5 GB per dispatch x 4 = 2 GB" in out
    assert "over-fetch:       1.04x" in out
    assert "achieved BW:      2,500.0 GB/s (ideal bytes / kernel time) = 47.2 % of 5.3 TB/s (AMD Instinct MI300X)" in out
    assert "GRBM_GUI_ACTIVE" in out and "1,000,000 over 4 dispatches" in out
    assert "pure streaming" in out


def test_rocpd_arch_picks_peak_without_device(tmp_path, capsys):
    db = make_handmade_rocpd(tmp_path / "handmade_results.db")
    assert cli.main(["pmc", str(db), "--kernel-contains", PA, "--ideal-gb", "0.5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["arch"] == "gfx942" and out["peak_name"] == "AMD Instinct MI300X"


# ---------------------------------------------------------------- robustness


def test_missing_counters_reported_and_zero_denominators(tmp_path):
    db = make_handmade_rocpd(tmp_path / "handmade_zero.db",
                             counters={"TCC_HIT": 0, "TCC_MISS": 0, "SQ_WAVES": 64})
    r = pmc.analyze_files([str(db)], PA, ideal_bytes=0.0)
    assert r.missing == ["TCC_EA0_RDREQ", "TCC_EA0_RDREQ_32B"]
    assert r.l2_hit_rate is None and r.frac_32b is None and r.hbm_read_bytes is None
    assert r.over_fetch is None
    assert "TCC_HIT + TCC_MISS = 0: no L2 traffic recorded, no hit rate" in r.notes
    assert r.unknown_counters == ["SQ_WAVES"] and r.counters["SQ_WAVES"].total == 256


def test_zero_rdreq_gives_no_fraction(tmp_path):
    db = make_handmade_rocpd(tmp_path / "handmade_zero_rd.db",
                             counters={"TCC_EA0_RDREQ": 0, "TCC_EA0_RDREQ_32B": 0})
    r = pmc.analyze_files([str(db)], PA, ideal_bytes=1e9)
    assert r.frac_32b is None and r.hbm_read_bytes == 0 and r.over_fetch == 0
    assert "TCC_EA0_RDREQ = 0: no HBM reads recorded, no 32B fraction" in r.notes
    assert "over-fetch 0.00x: fewer HBM bytes than the ideal" in r.reading[0]


def test_instance_counters_are_summed(tmp_path):
    """Per-instance names (TCC_HIT[0], TCC_HIT[1]) add up when no aggregate is present."""
    rows = [[1, 1, "Agent 2", 1, 1, 1, 64, 1, PA, 64, 0, 0, 8, 0, 16, name, float(v), 0, 1000]
            for name, v in (("TCC_HIT[0]", 10), ("TCC_HIT[1]", 20), ("TCC_MISS", 70))]
    path = _write_csv(tmp_path / "handmade_instances_counter_collection.csv", rows)
    r = pmc.analyze_files([str(path)])
    assert r.counter_names["TCC_HIT"] == "TCC_HIT[*]"
    assert r.l2_hit_rate == pytest.approx(0.3)  # 30 / (30 + 70)


def test_several_kernels_without_filter_is_noted(tmp_path):
    files = [str(p) for p in make_handmade_counter_csvs(tmp_path)]
    r = pmc.analyze_files(files)
    assert r.dispatches == 16
    assert "2 kernels mixed together: pass --kernel-contains to pick one" in r.notes


def _cli_error(argv, capsys) -> str:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_empty_csv_is_one_line(tmp_path, capsys):
    path = tmp_path / "empty_counter_collection.csv"
    path.write_text("")
    assert _cli_error(["pmc", str(path)], capsys) == f"kernel-atlas: error: {path}: empty CSV (no header row)"


def test_csv_without_counter_name_is_one_line(tmp_path, capsys):
    path = tmp_path / "handmade_no_counter_name.csv"
    path.write_text('"Dispatch_Id","Kernel_Name","Counter_Value"\n1,"k",3\n')
    err = _cli_error(["pmc", str(path)], capsys)
    assert err == (f"kernel-atlas: error: {path}: not a counter-collection CSV: no Counter_Name column "
                   "(rocprofv3 --pmc writes *_counter_collection.csv)")


def test_truncated_database_is_one_line(tmp_path, capsys):
    good = make_handmade_rocpd(tmp_path / "handmade_full.db")
    data = good.read_bytes()
    bad = tmp_path / "handmade_truncated.db"
    bad.write_bytes(data[: len(data) // 3])
    err = _cli_error(["pmc", str(bad)], capsys)
    assert err.startswith(f"kernel-atlas: error: {bad}: not a readable SQLite database (")
    assert err.endswith("is the file truncated?")


def test_database_without_rocpd_tables_is_explained(tmp_path, capsys):
    db = tmp_path / "handmade_other.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE results (x INTEGER)")
    con.close()
    err = _cli_error(["pmc", str(db)], capsys)
    assert err == (f"kernel-atlas: error: {db}: no rocpd counter tables (need rocpd_pmc_event_<uuid>, "
                   "rocpd_info_pmc_<uuid>, rocpd_kernel_dispatch_<uuid>, rocpd_info_kernel_symbol_<uuid>); "
                   "tables: results")


def test_bad_counter_value_names_the_line(tmp_path, capsys):
    rows = [[1, 1, "Agent 2", 1, 1, 1, 64, 1, PA, 64, 0, 0, 8, 0, 16, "TCC_HIT", "lots", 0, 1]]
    path = _write_csv(tmp_path / "handmade_bad_value_counter_collection.csv", rows)
    err = _cli_error(["pmc", str(path)], capsys)
    assert err == f"kernel-atlas: error: {path}:2: Counter_Value 'lots' is not a number"


def test_no_matching_kernel_is_one_line(tmp_path, capsys):
    db = make_handmade_rocpd(tmp_path / "handmade_results.db")
    err = _cli_error(["pmc", str(db), "--kernel-contains", "gemm"], capsys)
    assert err.startswith(f"kernel-atlas: error: {db}: no dispatch of a kernel containing 'gemm' (kernels: ")
    assert PA in err


# ---------------------------------------------------------------- bundles


def test_bundle_counter_files_found_and_relative(tmp_path):
    bundle = tmp_path / "pa"
    make_handmade_counter_csvs(bundle / "pmc")
    (bundle / "compute_viewer").mkdir()
    make_handmade_rocpd(bundle / "compute_viewer" / "handmade_results.db")
    (bundle / "compute_viewer" / "big_agent_info.csv").write_text("x\n")
    found = counter_files.find_counter_files(bundle)
    assert [Path(f).relative_to(bundle).as_posix() for f in found] == [
        "compute_viewer/handmade_results.db",
        "pmc/pass_1/4242_counter_collection.csv",
        "pmc/pass_2/4242_counter_collection.csv",
    ]
    r = pmc.analyze_bundle_counters(bundle, "pa_decode")
    assert r is not None
    assert r.files == [
        "compute_viewer/handmade_results.db",
        "pmc/pass_1/4242_counter_collection.csv",
        "pmc/pass_2/4242_counter_collection.csv",
    ]
    assert r.dispatches == 12
    assert r.l2_hit_rate == pytest.approx(0.017)
    assert r.counters["TCC_EA0_RDREQ"].dispatches == 8
    assert str(tmp_path) not in json.dumps(r.to_json())


def test_bundle_without_counters_gives_none(sweep):
    assert counter_files.find_counter_files(sweep / "examples" / "pa") == []
    assert pmc.analyze_bundle_counters(sweep / "examples" / "pa", "pa_decode_ps_kernel_0") is None


def test_bundle_skips_broken_database_with_note(tmp_path):
    bundle = tmp_path / "b"
    make_handmade_counter_csvs(bundle / "pmc")
    (bundle / "trace.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 40)
    r = pmc.analyze_bundle_counters(bundle, PA)
    assert r.dispatches == 8
    assert r.notes[0].startswith("skipped trace.db: not a readable SQLite database")


def test_trace_only_database_is_not_counter_data(tmp_path, capsys):
    bundle = tmp_path / "b"
    bundle.mkdir()
    db = make_handmade_rocpd(bundle / "handmade_trace_only_results.db", counters={})
    assert pmc.analyze_bundle_counters(bundle, PA) is None
    err = _cli_error(["pmc", str(db)], capsys)
    assert err == f"kernel-atlas: error: {db}: no counter rows (collect them with rocprofv3 --pmc)"


def test_substring_matching_several_kernels_is_noted(tmp_path):
    files = [str(p) for p in make_handmade_counter_csvs(tmp_path)]
    r = pmc.analyze_files(files, "_")
    assert r.kernels == sorted([OTHER, PA]) and r.dispatches == 16
    assert "2 kernels contain '_': their dispatches are summed" in r.notes


def test_the_kernel_page_says_what_to_do_for_mixed_kernels(tmp_path, capsys):
    """``build`` has no --kernel-contains: the page's note names the command that has it (issue 32)."""
    from generator.site import gather

    bundle = tmp_path / "examples" / "handmade_mixed"
    make_handmade_counter_csvs(bundle / "pmc")
    r = pmc.analyze_bundle_counters(bundle, None)  # no capture names the kernel: all dispatches summed
    assert r.kernels == sorted([PA, OTHER]) and r.dispatches == 16
    notes = gather.site_pmc_notes(r, "examples/handmade_mixed")
    assert notes[0] == ("2 kernels mixed together: the site sums all their dispatches, as no capture of this bundle "
                        "names its kernel; to read one, run kernel-atlas pmc examples/handmade_mixed "
                        "--kernel-contains TEXT")
    assert notes[0].msg.key == "msg.pmc.mixed.site" and not any("pass --kernel-contains" in n for n in notes)
    # one kernel picked: no mixed-kernels note (the HBM formula's note stays: which formula a number used)
    assert not any("mixed together" in str(n) for n in gather.site_pmc_notes(pmc.analyze_bundle_counters(bundle, "pa_decode"), "x"))
    assert cli.main(["pmc", str(bundle), "--kernel-contains", "pa_decode"]) == 0  # the advice runs as said
    assert "Traceback" not in capsys.readouterr().err
