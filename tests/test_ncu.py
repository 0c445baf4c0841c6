"""Nsight Compute import, checked against the real H200 exports committed in bundles/.

The CSV files are re-read here with the csv module alone, so the importer's numbers are
compared with the export's own cells, not with themselves.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from generator.analyze import analysis, ncu_capture, ncu_metrics
from generator import cli
from generator.read import discover, formats, ncu, ncu_pages
from generator.errors import InputError
from generator.model import STALL_TYPES, UNKNOWN_LOC, CaptureRef

REPO = Path(__file__).resolve().parent.parent
BUNDLES = REPO / "bundles"
KERNELS = ("gemm", "rmsnorm", "silu_and_mul", "softmax", "vec_add")
ALL = ncu_pages.ALL_SAMPLES
NI = ncu_pages.NOT_ISSUED


def capture_dir(kernel: str) -> Path:
    return BUNDLES / "examples" / kernel / "ncu" / "prefill"


def analyses(kernel: str):
    """The analyses of a committed bundle, through discovery and the registry."""
    sweep = discover.discover(BUNDLES / "examples" / kernel)
    results = analysis.analyze_sweep(sweep)
    assert [r.status for r in results] == ["ok"]
    return results[0].analyses


def sass_blocks(path: Path) -> list[list[dict[str, str]]]:
    """Launch blocks of a sass export: rows as dicts (plain csv reading)."""
    blocks, header = [], None
    with open(path, newline="") as fh:
        for row in csv.reader(fh):
            if row and row[0] == "Kernel Name":
                blocks.append([])
            elif row and row[0] == "Address":
                header = row
            elif row and row[0].startswith("0x"):
                blocks[-1].append(dict(zip(header, row)))
    return blocks


def cuda_lines(path: Path) -> list[tuple[str, int, dict[str, str]]]:
    """(file, line, values) of every source-line row of a cuda,sass export."""
    out, file_path, header = [], None, None
    with open(path, newline="") as fh:
        for row in csv.reader(fh):
            if not row:
                continue
            if row[0] == "File Path":
                file_path = row[1]
            elif row[0] == "Line No":
                header = row[:1] + ["Line Source"] + row[2:3] + ["Source"] + row[4:]
            elif header and row[0].strip() and row[0] not in ("Function Name",):
                out.append((file_path, int(row[0]), dict(zip(header, row))))
    return out


def cuda_instructions(path: Path) -> list[dict[str, str]]:
    """Every SASS row of a cuda,sass export, in file order."""
    out, header = [], None
    with open(path, newline="") as fh:
        for row in csv.reader(fh):
            if row and row[0] == "Line No":
                header = row[:1] + ["Line Source"] + row[2:3] + ["Source"] + row[4:]
            elif header and len(row) > 2 and row[0] == "" and row[2].startswith("0x"):
                out.append(dict(zip(header, row)))
    return out


# ---------------------------------------------------------------- per instruction

@pytest.mark.parametrize("kernel", KERNELS)
def test_instruction_samples_equal_the_csv(kernel):
    blocks = sass_blocks(capture_dir(kernel) / "source_sass.csv")
    found = analyses(kernel)
    assert len(found) == len(blocks)
    for a, rows in zip(found, blocks):
        assert len(a.instructions) == len(rows)
        for ins, row in zip(a.instructions, rows):
            assert ins.pc_addr == int(row["Address"], 16)
            assert ins.asm == row["Source"].strip()
            assert ins.total_cycles == int(row[ALL])
            assert ins.stall_cycles == int(row[NI])
            assert ins.exec_count == int(row["Instructions Executed"])
        assert a.total_cycles == sum(int(r[ALL]) for r in rows)
        assert a.total_stall_cycles == sum(int(r[NI]) for r in rows)
        assert a.stall_unit == "warp-stall samples"
        assert a.vendor == "nvidia" and a.arch == "sm_90" and a.arch_source == "ncu"


def test_real_totals_of_the_committed_captures():
    """Hand-read from the exports: sums of the All / Not-issued columns.

    source_sass.csv of each kernel, per "Kernel Name" block: sum of "Warp Stall Sampling
    (All Samples)", sum of "Warp Stall Sampling (Not-issued Samples)", number of 0x rows.
    """
    got = {k: [(a.total_cycles, a.total_stall_cycles, len(a.instructions)) for a in analyses(k)] for k in KERNELS}
    assert got == {
        "gemm": [(26620, 20881, 928)],
        "rmsnorm": [(1855, 904, 224)],
        "silu_and_mul": [(5039, 2505, 184)],
        "softmax": [(15434, 5310, 320)],
        "vec_add": [(1389, 1227, 48), (11196, 9958, 48)],
    }


# ---------------------------------------------------------------- stall reasons

@pytest.mark.parametrize("kernel", KERNELS)
def test_mapping_covers_every_reason_column(kernel):
    folder = capture_dir(kernel)
    for name in ("source_sass.csv", "source_cuda_sass.csv"):
        with open(folder / name, newline="") as fh:
            headers = [r for r in csv.reader(fh) if r and r[0] in ("Address", "Line No")]
        columns = {c for h in headers for c in h if c.startswith("stall_")}
        assert len(columns) == 36  # 18 reasons, all and not-issued
        for col in columns:
            reason = ncu_pages.reason_name(col)
            assert reason in ncu_capture.STALL_REASON_TYPES, col
            assert ncu_capture.STALL_REASON_TYPES[reason] in STALL_TYPES


def test_reason_table_is_the_domain_list():
    domain = ("stall_barrier stall_branch_resolving stall_dispatch stall_drain stall_imc stall_lg stall_long_sb "
              "stall_math stall_membar stall_mio stall_misc stall_no_inst stall_not_selected stall_selected "
              "stall_short_sb stall_sleep stall_tex stall_wait").split()
    assert sorted(set(ncu_capture.STALL_REASON_TYPES) - {ncu_pages.UNLISTED_REASON}) == domain
    assert ncu_capture.STALL_REASON_TYPES[ncu_pages.UNLISTED_REASON] == "other"
    assert ncu_pages.reason_name("stall_sleeping (Not Issued)") == "stall_sleep"
    assert ncu_capture.stall_type("stall_long_sb") == "VMEM-wait"
    assert ncu_capture.stall_type("stall_barrier") == "barrier"
    assert ncu_capture.stall_type("stall_short_sb") == "LDS/SMEM-wait"


@pytest.mark.parametrize("kernel", KERNELS)
def test_reasons_add_up_to_the_sample_columns(kernel):
    blocks = sass_blocks(capture_dir(kernel) / "source_sass.csv")
    for a, rows in zip(analyses(kernel), blocks):
        for ins, row in zip(a.instructions, rows):
            all_cols = sum(int(v) for k, v in row.items() if k.startswith("stall_") and "(Not Issued)" not in k)
            ni_cols = sum(int(v) for k, v in row.items() if k.startswith("stall_") and "(Not Issued)" in k)
            reasons = ins.extra.get("stall_reasons", {})
            reasons_ni = ins.extra.get("stall_reasons_not_issued", {})
            assert sum(reasons.values()) == int(row[ALL])
            assert sum(reasons_ni.values()) == int(row[NI])
            assert all_cols + reasons.get(ncu_pages.UNLISTED_REASON, 0) == int(row[ALL])
            assert ni_cols + reasons_ni.get(ncu_pages.UNLISTED_REASON, 0) == int(row[NI])
        assert sum(a.stall_by_type.values()) == a.total_stall_cycles
        assert sum(a.extra["ncu_stall_by_reason_not_issued"].values()) == a.total_stall_cycles
        assert sum(a.extra["ncu_stall_by_reason"].values()) == a.total_cycles


def test_samples_without_a_reason_column_are_kept_as_unlisted():
    """One HGMMA row of the GEMM export (source_sass.csv, address ...9c70): 138 samples, its
    reason columns hold 95 (stall_selected 12 + stall_wait 83); not-issued: 126 samples, its
    reason columns hold 83 (stall_wait). The 43 left are kept as stall_unlisted. No other row
    of the five exports has samples outside its reason columns."""
    (a,) = analyses("gemm")
    unlisted = [i for i in a.instructions if ncu_pages.UNLISTED_REASON in i.extra.get("stall_reasons", {})]
    assert len(unlisted) == 1
    ins = unlisted[0]
    assert ins.asm.startswith("HGMMA.64x256x16.F32.BF16")
    assert (ins.total_cycles, ins.stall_cycles) == (138, 126)
    assert ins.extra["stall_reasons"] == {"stall_selected": 12, "stall_wait": 83, ncu_pages.UNLISTED_REASON: 43}
    assert ins.extra["stall_reasons_not_issued"] == {"stall_wait": 83, ncu_pages.UNLISTED_REASON: 43}
    assert a.extra["ncu_stall_by_reason_not_issued"][ncu_pages.UNLISTED_REASON] == 43


def test_stall_breakdown_of_softmax():
    (a,) = analyses("softmax")
    # source_sass.csv, "(Not Issued)" reason columns summed: long_sb 3269, barrier 811,
    # short_sb 734, wait 265, drain 92, math 89, no_inst 21 + dispatch 7 + branch_resolving 4
    # (other 32), mio 13, imc 5; total 5310
    assert a.stall_by_type == {"VMEM-wait": 3269, "barrier": 811, "LDS/SMEM-wait": 734, "waitcnt": 265,
                               "VMEM-store": 92, "MFMA/FMA": 89, "other": 32, "LDS": 13, "SMEM": 5}
    assert a.extra["ncu_stall_by_reason_not_issued"]["stall_long_sb"] == 3269
    top = a.top_instructions(1)[0]
    # the row with the most not-issued samples (2828: long_sb 2822, math 6); the cuda,sass
    # page lists its address under softmax.py line 21
    assert (top.asm, top.stall_cycles, top.type) == ("PRMT R12, R8, 0x7632, R12", 2828, "VMEM-wait")
    assert top.source_loc == "demo/kernels/softmax.py:21"


# ---------------------------------------------------------------- per line

@pytest.mark.parametrize("kernel", KERNELS)
def test_line_sums_equal_the_csv_line_rows(kernel):
    found = analyses(kernel)
    rows = cuda_lines(capture_dir(kernel) / "source_cuda_sass.csv")
    expected: dict[str, list[tuple[int, int]]] = {}
    for path, line, values in rows:
        expected.setdefault(f"{ncu_capture.virtual_path(path, '.')}:{line}", []).append(
            (int(values[ALL]), int(values[NI])))
    got = {}
    for a in found:
        for ln in a.lines:
            got.setdefault(ln.source_loc, []).append((ln.total_cycles, ln.stall_cycles))
    assert {k: sorted(v) for k, v in got.items()} == {k: sorted(v) for k, v in expected.items()}
    for a in found:
        assert sum(ln.stall_cycles for ln in a.lines) == a.total_stall_cycles
        for ln in a.lines:
            assert sum(ln.stall_by_type.values()) == ln.stall_cycles


@pytest.mark.parametrize("kernel", KERNELS)
def test_line_view_agrees_with_instruction_view(kernel):
    """Every SASS row of the cuda,sass page equals its row on the sass page, launch by launch."""
    sass = [r for block in sass_blocks(capture_dir(kernel) / "source_sass.csv") for r in block]
    cuda = cuda_instructions(capture_dir(kernel) / "source_cuda_sass.csv")
    assert len(sass) == len(cuda)
    launches = ncu_pages.parse_source_cuda_sass(str(capture_dir(kernel) / "source_cuda_sass.csv"),
                                          [{int(r["Address"], 16) for r in b}
                                           for b in sass_blocks(capture_dir(kernel) / "source_sass.csv")])
    for block, launch in zip(sass_blocks(capture_dir(kernel) / "source_sass.csv"), launches):
        by_addr = {r.address: r.values for r in launch.rows}
        assert sorted(by_addr) == sorted(int(r["Address"], 16) for r in block)
        for row in block:
            other = by_addr[int(row["Address"], 16)]
            assert all(other[c] == v for c, v in row.items() if c not in ("Source",))


def test_top_lines_of_gemm():
    (a,) = analyses("gemm")
    top = [(ln.source_loc.rsplit("/", 1)[-1], ln.stall_cycles, ln.dominant_type) for ln in a.lines[:3]]
    # source_cuda_sass.csv line rows, Not-issued column: line 37 12321 (stall_barrier 11122, of which 10281 on
    # its WARPGROUP.DEPBAR rows: wgmma waits, MFMA/FMA with stall_math 51 = 10332, DOMAIN §4; 841 CTA barrier),
    # line 35 5438 (stall_barrier 4896: 3630 on WARPGROUP.DEPBAR + stall_math 16 = 3646 MFMA/FMA; 1266 CTA
    # barrier), line 39 1182 (stall_long_sb 848)
    assert top == [("gemm.py:37", 12321, "MFMA/FMA"), ("gemm.py:35", 5438, "MFMA/FMA"), ("gemm.py:39", 1182, "VMEM-wait")]
    assert (a.lines[0].stall_by_type["MFMA/FMA"], a.lines[0].stall_by_type["barrier"]) == (10332, 841)
    assert (a.lines[1].stall_by_type["MFMA/FMA"], a.lines[1].stall_by_type["barrier"]) == (3646, 1266)
    assert a.source_mapped == (928, 928)
    assert a.instruction_mix == {"MMA": 4, "LDG": 0, "STG": 16, "LDS": 9, "STS": 16, "LDGSTS": 36, "TMA": 0, "BAR": 7}
    assert a.sources == {"demo/kernels/gemm.py": str(BUNDLES / "examples/gemm/source/gemm.py")}
    assert "triton/language/standard.py:43" in [ln.source_loc for ln in a.lines]


# ---------------------------------------------------------------- details and raw

def test_details_metrics_of_gemm():
    (a,) = analyses("gemm")
    m = a.extra["ncu"]
    # details.csv: Duration 250.18 us, DRAM Throughput 17.86 %, Compute (SM) Throughput 58.84 %
    assert m["duration_us"] == 250.18
    assert m["dram_throughput_pct"] == 17.86
    assert m["sm_throughput_pct"] == 58.84
    # raw.csv: sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
    assert m["tensor_pipe_pct"] == 58.842186
    # details.csv: Registers Per Thread 184, Local Memory Spilling Requests 0;
    # raw.csv: sass__inst_executed_register_spilling 0
    assert m["registers_per_thread"] == 184
    assert m["spill_requests"] == 0 and m["spill_instructions"] == 0
    # details.csv: L2 Hit Rate 67.19 %; raw.csv: launch__shared_mem_per_block_dynamic 147.456000 Kbyte/block
    # + static 0 byte/block = 147,456 B (the details page rounds it to 147.46 Kbyte)
    assert m["l2_hit_rate_pct"] == 67.19
    assert m["shared_memory_per_block_bytes"] == 147456
    # details.csv: Theoretical Occupancy 12.50 %, Achieved Occupancy 12.47 %, Block Limit Registers 1 =
    # Block Limit Shared Mem 1 (Warps 8, SM 32, Barriers 32): both resources bind at one block (a tie)
    assert m["occupancy"]["theoretical_pct"] == 12.5 and m["occupancy"]["achieved_pct"] == 12.47
    assert m["occupancy"]["limiters"] == ["registers", "shared memory"]
    assert m["occupancy"]["limiter"] == "registers and shared memory"
    assert m["bottleneck"]["kind"] == "latency-bound" and m["bottleneck"]["locality"] is True
    assert m["launch"] == {"id": 0, "kernel": "gemm_kernel", "block": "(256, 1, 1)", "grid": "(512, 1, 1)",
                           "device": "0", "cc": "9.0"}
    assert a.occupancy is None
    names = [(r["name"], r["speedup_pct"]) for r in a.extra["ncu_rules"] if r["type"] == "OPT"]
    # details.csv rule rows: CPIStall OPT global 41.16, LaunchConfiguration OPT global 25
    assert ("CPIStall", 41.16) in names and ("LaunchConfiguration", 25.0) in names


@pytest.mark.parametrize("kernel,kind", [("gemm", "latency-bound"), ("rmsnorm", "latency-bound"),
                                         ("silu_and_mul", "memory-bound"), ("softmax", "memory-bound"),
                                         ("vec_add", "memory-bound")])
def test_bottleneck_rule(kernel, kind):
    assert analyses(kernel)[-1].extra["ncu"]["bottleneck"]["kind"] == kind


def test_classify_bottleneck_rule_cases():
    c = ncu_metrics.classify_bottleneck
    assert c(85.0, 0.0, 65.0, 50.0)["kind"] == "memory-bound"
    assert c(20.0, 75.0, 75.0, 90.0)["kind"] == "compute-bound"
    assert c(70.0, 70.0, 70.0, 90.0)["kind"] == "compute+memory-bound"
    assert c(59.9, 59.9, 10.0, 90.0)["kind"] == "latency-bound"
    assert c(60.0, 0.0, 10.0, None)["kind"] == "memory-bound"
    assert c(None, 10.0, 10.0, None)["kind"] == "unknown"
    assert c(10.0, 10.0, 10.0, 79.9)["locality"] is True and c(10.0, 10.0, 10.0, 80.0)["locality"] is False


# ---------------------------------------------------------------- launches

def test_two_launches_split_into_two_records():
    first, second = analyses("vec_add")
    assert (first.capture, second.capture) == ("prefill-launch0", "prefill-launch1")
    # details.csv: Duration 13.25 us (ID 0) and 90.62 us (ID 1)
    assert first.extra["ncu"]["duration_us"] == 13.25 and second.extra["ncu"]["duration_us"] == 90.62
    assert first.extra["shape"]["name"] == "llama3-8b-prefill-2k"
    assert second.extra["shape"]["args"] == {"M": 8192, "N": 8192}
    assert (first.extra["launch_index"], second.extra["launch_index"], second.extra["launches"]) == (0, 1, 2)
    assert [ln.source_loc for ln in first.lines][0] == "demo/kernels/vec_add.py:16"


def test_cuda_sass_alone_splits_repeated_code_into_launches():
    launches = ncu_pages.parse_source_cuda_sass(str(capture_dir("vec_add") / "source_cuda_sass.csv"))
    assert [len(x.rows) for x in launches] == [48, 48]
    assert [len(x.lines) for x in launches] == [7, 7]


# ---------------------------------------------------------------- partial captures and files

def test_source_page_alone(tmp_path):
    folder = tmp_path / "ncu_only"
    folder.mkdir()
    shutil.copy(capture_dir("softmax") / "source_sass.csv", folder)
    assert ncu.is_capture(str(folder))
    (a,) = ncu_capture.analyze_capture(CaptureRef(str(folder), "ncu_only", "ncu_only", "", "ncu"))
    assert len(a.instructions) == 320 and a.total_stall_cycles == 5310  # source_sass.csv: 320 rows, Not-issued sum
    assert all(i.source_loc == UNKNOWN_LOC for i in a.instructions)
    assert a.arch == "unknown" and a.extra["ncu"] == {}
    assert any("no per-line view" in n for n in a.notes)


def test_source_page_with_provenance_knows_the_arch(tmp_path):
    folder = tmp_path / "cap"
    folder.mkdir()
    for name in ("source_cuda_sass.csv", "provenance.json"):
        shutil.copy(capture_dir("rmsnorm") / name, folder)
    (a,) = ncu_capture.analyze_capture(CaptureRef(str(folder), "cap", "cap", "x", "ncu"))
    assert (a.arch, a.arch_source) == ("sm_90", "provenance")
    assert len(a.instructions) == 224 and a.total_stall_cycles == 904  # source_cuda_sass.csv: 224 SASS rows
    assert a.extra["shape"]["name"] == "llama3-70b-prefill-2k"
    assert any("cuda,sass page" in n for n in a.notes)


def test_details_alone_gives_metrics_without_instructions(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    shutil.copy(capture_dir("gemm") / "details.csv", folder)
    (a,) = ncu_capture.analyze_capture(CaptureRef(str(folder), "d", "d", "", "ncu"))
    assert a.instructions == [] and a.arch == "sm_90"  # details.csv: CC 9.0
    m = a.extra["ncu"]
    # details.csv: Duration 250.18 us, DRAM Throughput 17.86 %, Compute (SM) Throughput 58.84 %,
    # L2 Hit Rate 67.19 %, Registers Per Thread 184, Achieved Occupancy 12.47 %
    assert (m["duration_us"], m["dram_throughput_pct"], m["sm_throughput_pct"]) == (250.18, 17.86, 58.84)
    assert (m["l2_hit_rate_pct"], m["registers_per_thread"]) == (67.19, 184)
    # Block Limit Registers 1 = Block Limit Shared Mem 1: a tie
    assert m["occupancy"]["achieved_pct"] == 12.47 and m["occupancy"]["limiters"] == ["registers", "shared memory"]
    # Without a raw page the tensor-pipe % comes from the HighPipeUtilization rule: "Tensor is
    # the highest-utilized pipeline (58.8%) ..." (raw.csv: sm__pipe_tensor 58.842186 %)
    assert m["tensor_pipe_pct"] == 58.8
    assert m["bottleneck"]["kind"] == "latency-bound"  # DRAM 17.86 % and tensor 58.8 %, both below 60 %
    assert any("HighPipeUtilization rule" in n for n in a.notes)


def test_analyze_command_on_one_export_file(capsys):
    path = capture_dir("softmax") / "source_sass.csv"
    assert formats.get("ncu").is_capture(str(path))
    assert cli.main(["analyze", str(path), "--json", "--topk", "3"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["vendor"] == "nvidia" and obj["stall_unit"] == "warp-stall samples"
    # source_sass.csv: 320 rows, Not-issued sum 5310, All-samples sum 15434
    assert obj["instructions"] == 320 and obj["total_stall_cycles"] == 5310 and obj["total_cycles"] == 15434


def test_analyze_command_on_a_bundle_lists_both_launches(capsys):
    assert cli.main(["analyze", str(BUNDLES / "examples" / "vec_add"), "--json"]) == 0
    objs = json.loads(capsys.readouterr().out)
    assert [o["capture"] for o in objs] == ["prefill-launch0", "prefill-launch1"]
    assert [o["arch"] for o in objs] == ["sm_90", "sm_90"]
    assert objs[1]["top_lines"][0]["dominant_type"] == "VMEM-wait"


def test_registry_and_find():
    fmt = formats.get("ncu")
    assert (fmt.vendor, fmt.order) == ("nvidia", 20)
    assert fmt.find(str(BUNDLES / "examples" / "softmax")) == [("prefill", str(capture_dir("softmax")))]
    assert fmt.find(str(REPO / "demo")) == []
    assert fmt.empty_reason(str(capture_dir("softmax"))) is None


# ---------------------------------------------------------------- bad input

def test_not_an_export_is_refused(tmp_path):
    bad = tmp_path / "notes.csv"
    bad.write_text("a,b\n1,2\n")
    assert not ncu.is_capture(str(bad))
    with pytest.raises(InputError, match="not an Nsight Compute CSV export"):
        ncu.find_exports(str(bad))


def test_handmade_source_export_without_header(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "source_sass.csv").write_text('"Kernel Name","k",\n"0x10","  NOP","1","1"\n')
    with pytest.raises(InputError) as err:
        ncu_capture.analyze_capture(CaptureRef(str(folder), "c", "c", "", "ncu"))
    assert err.value.line == 2 and "no Address header" in err.value.problem


def test_handmade_details_with_bad_id(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    head = ",".join(f'"{c}"' for c in ("ID", "Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value"))
    (folder / "details.csv").write_text(head + '\n"x","k","S","Duration","us","1"\n')
    with pytest.raises(InputError) as err:
        ncu_capture.analyze_capture(CaptureRef(str(folder), "c", "c", "", "ncu"))
    assert err.value.line == 2


def test_empty_exports_are_an_empty_shell(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "source_sass.csv").write_text("")
    assert ncu.empty_reason(str(folder)) == "empty shell: every Nsight Compute export is empty"


def test_number_cells():
    assert ncu_pages.number("434,655") == 434655.0
    assert ncu_pages.number("12.5") == 12.5
    assert ncu_pages.number("-") is None and ncu_pages.number("no data") is None and ncu_pages.number("") is None
    assert ncu_capture.opcode("@!P3  LDS R2, [R22]") == "LDS"
    assert ncu_capture.opcode_class("HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24") == "MFMA/FMA"
    assert ncu_capture.arch_of("9.0") == "sm_90" and ncu_capture.arch_of("x") is None


def test_virtual_paths():
    vp = ncu_capture.virtual_path
    assert vp("/home/me/repo/demo/kernels/softmax.py", "/home/me/repo") == "demo/kernels/softmax.py"
    assert vp("/home/me/repo/demo/kernels/softmax.py", "/home/me/repo/") == "demo/kernels/softmax.py"
    assert vp("/opt/v/lib/python3.12/site-packages/triton/language/standard.py", "/home/me/repo") == \
        "triton/language/standard.py"
    assert vp("/elsewhere/k.py", "/home/me/repo") == "/elsewhere/k.py"
    assert vp("/home/me/repository/k.py", "/home/me/repo") == "/home/me/repository/k.py"
