"""ingest: raw rocprofv3 folders rebuilt from the real shared bundles go back into a sweep.

Each real bundle's captures and files are moved back into the layout rocprofv3 leaves
(``ui_output_agent_*`` folders beside ``discover_*`` CSVs, ``out_agent_info.csv``,
``out_results.json`` and the input YAML), ingested into an empty sweep in a temporary
folder, and the new bundle must analyze to the same numbers as the original.
Hand-made additions (an empty shell, a capture without source mapping, a truncated
file, decoder and data-loss logs) are built by functions named ``make_handmade_*``.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from generator.analyze import analysis, pmc
from generator.read import counter_files
from generator import cli
from generator.read import discover
from generator.capture import ingest, ingest_raw
from generator.errors import InputError
from conftest import in_slice  # the same test folder

BUNDLES = ["flash_attn_func", "fused_rope_cache", "hgemm_splitk", "layernorm", "moe_blockscale", "moe_gemm",
           "pa", "pa_mqa_logits_fp4", "preshuffle_gemm", "quant", "rmsnorm", "softmax", "vec_add"]
SUFFIXED = re.compile(r"^(ui_output_agent_\d+_dispatch_\d+)_(.+)$")


# ---------------------------------------------------------------- raw folders from real bundles

def copy_capture(src: Path, dest: Path) -> None:
    dest.mkdir(parents=True)
    for f in sorted(src.iterdir()):
        shutil.copyfile(f, dest / f.name)


def label_yaml(bundle: Path, label: str) -> Path:
    """The input YAML a label was captured with: input_trace_<label>.yaml, else input_trace.yaml."""
    own = bundle / "source" / f"input_trace_{label}.yaml"
    return own if own.is_file() else bundle / "source" / "input_trace.yaml"


def rebuild_raw(bundle: Path, label: str, raw: Path, suffix: str | None = None) -> Path:
    """A rocprofv3-like output folder holding one label's captures (original or ``_suffix`` ones)."""
    raw.mkdir(parents=True)
    for cap in sorted((bundle / "att_viewer" / label).iterdir()):
        m = SUFFIXED.match(cap.name)
        if (m.group(2) if m else None) == suffix:
            copy_capture(cap, raw / (m.group(1) if m else cap.name))
    cv = bundle / "compute_viewer"
    for f in sorted(cv.glob("discover_*.csv")):
        shutil.copyfile(f, raw / f.name)
    if (cv / f"{label}_agent_info.csv").is_file():
        shutil.copyfile(cv / f"{label}_agent_info.csv", raw / "out_agent_info.csv")
    if suffix is None and (cv / f"{label}_results.json").is_file():
        shutil.copyfile(cv / f"{label}_results.json", raw / "out_results.json")
    shutil.copyfile(label_yaml(bundle, label), raw / "input_trace.yaml")
    return raw


def bundle_runs(bundle: Path) -> list[tuple[str, str | None]]:
    """(label, suffix) of every capture run of a bundle: small before big, originals first."""
    labels = sorted((p.name for p in (bundle / "att_viewer").iterdir()), key=lambda l: (l != "small", l))
    runs = []
    for label in labels:
        suffixes = {(SUFFIXED.match(p.name) or [None, None, None])[2] for p in (bundle / "att_viewer" / label).iterdir()}
        runs += [(label, s) for s in sorted(suffixes, key=lambda s: (s is not None, s or ""))]
    return runs


def analyses_json(root: Path, kernel: str) -> dict[str, dict]:
    """capture name -> analysis JSON without its path, for one bundle of a sweep."""
    out = {}
    for r in analysis.analyze_sweep(discover.discover(root), kernel):
        assert r.error is None, r.error
        for a in r.analyses:
            obj = a.to_json()
            obj.pop("path")
            out[f"{a.label}/{a.capture}"] = obj
    return out


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """relative path -> (sha256, mtime_ns) of every file under root."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            out[p.relative_to(root).as_posix()] = (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
    return out


@pytest.mark.parametrize("name", [in_slice(f"examples/{n}", n) for n in BUNDLES])  # every run the bundle holds
def test_rebuilt_raw_runs_ingest_to_the_same_analyses(sweep, tmp_path, name):
    bundle = sweep / "examples" / name
    into = tmp_path / "sweep"
    for i, (label, suffix) in enumerate(bundle_runs(bundle)):
        raw = rebuild_raw(bundle, label, tmp_path / f"raw{i}", suffix)
        report = ingest.ingest(str(raw), str(into), name, label, suffix)
        assert report.kept and not [p for p in report.problems if p.severity == "error"]
    assert analyses_json(into, name) == analyses_json(sweep, name)
    new = into / "examples" / name
    for sub in ("att_viewer", "compute_viewer"):
        want = sorted(p.relative_to(bundle).as_posix() for p in (bundle / sub).rglob("*"))
        got = sorted(p.relative_to(new).as_posix() for p in (new / sub).rglob("*"))
        assert got == want
    for yml in (bundle / "source").glob("input_trace*.yaml"):
        assert (new / "source" / yml.name).read_bytes() == yml.read_bytes()


@pytest.fixture
def flash_raw(sweep, tmp_path):
    """The flash_attn_func small run (capture 32235, dispatch 44) as rocprofv3 left it."""
    return rebuild_raw(sweep / "examples" / "flash_attn_func", "small", tmp_path / "raw")


def make_handmade_empty_shell(raw: Path, name: str) -> Path:
    """A placeholder capture folder: no waves, no instructions (as for the untraced iteration)."""
    d = raw / name
    d.mkdir()
    (d / "code.json").write_text(json.dumps({"code": [["; flash_attn_func_kernel_0", 0, 0, "", 0, 0, 0, 0, 0, 0]]}))
    (d / "filenames.json").write_text(json.dumps({"wave_filenames": {}, "version": "3.0.0"}))
    return d


def make_handmade_unmapped_capture(src: Path, dest: Path) -> Path:
    """A real capture whose code.json lost every source location (a no-debug build)."""
    copy_capture(src, dest)
    data = json.loads((dest / "code.json").read_text())
    for row in data["code"]:
        if len(row) > 3 and isinstance(row[2], int) and row[2]:
            row[3] = ""
    (dest / "code.json").write_text(json.dumps(data))
    return dest


def test_flash_small_report_provenance_and_layout(flash_raw, tmp_path):
    """The small run as the slice holds it too; its results JSON (left out of the slice) and the command
    read from it are checked below."""
    make_handmade_empty_shell(flash_raw, "ui_output_agent_32235_dispatch_42")
    into = tmp_path / "sweep"
    report = ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    assert [(c.name, c.kept, c.instructions, c.mapped, c.waves) for c in report.checks] == [
        ("ui_output_agent_32235_dispatch_42", False, 0, 0, 0),
        ("ui_output_agent_32235_dispatch_44", True, 2069, 2069, 4),
    ]
    assert report.checks[0].skip == "empty shell: no instructions and no wave files"
    assert report.problems == []
    assert [(a.dest, a.status) for a in report.actions if a.dest != "compute_viewer/small_results.json"] == [
        ("att_viewer/small/ui_output_agent_32235_dispatch_44/", "written"),
        ("compute_viewer/discover_agent_info.csv", "written"),
        ("compute_viewer/discover_domain_stats.csv", "written"),
        ("compute_viewer/discover_kernel_stats.csv", "written"),
        ("compute_viewer/discover_kernel_trace.csv", "written"),
        ("compute_viewer/small_agent_info.csv", "written"),
        ("source/input_trace.yaml", "written"),
        ("source/provenance.json", "written"),
    ]
    text = report.render()
    assert "  skipped  ui_output_agent_32235_dispatch_42: empty shell: no instructions and no wave files\n" in text
    assert "  kept     ui_output_agent_32235_dispatch_44: 2069 instructions, 4 waves, source mapped 2069/2069\n" in text
    assert str(tmp_path) not in text.replace(str(flash_raw), "RAW")  # paths relative to the sweep

    prov = json.loads((into / "examples/flash_attn_func/source/provenance.json").read_text())
    entry = prov["captures"]["att_viewer/small/ui_output_agent_32235_dispatch_44"]
    assert prov["format_version"] == 1
    assert entry["gpu"] == "AMD Instinct MI350X" and entry["arch"] == "gfx950" and entry["gpus"] == 8
    assert (entry["kernel_regex"], entry["iteration_range"], entry["dispatch"]) == (
        "flash_attn_func_kernel_0", "[6, [8-8]]", 44)
    assert entry["source_mapped"] == {"mapped": 2069, "total": 2069}
    assert entry["date_source"] == "file time of code.json" and entry["rocm"] is None
    assert entry["kernel"] == "flash_attn_func_kernel_0"  # from code.json's label row
    assert {k: v for k, v in entry["files"].items() if k != "results"} == {
        "agent_info": "compute_viewer/small_agent_info.csv", "input": "source/input_trace.yaml"}


@pytest.mark.full_sweep  # the slice leaves out the bulky *_results.json
def test_flash_small_results_json_gives_the_command_and_is_kept(flash_raw, tmp_path):
    into = tmp_path / "sweep"
    report = ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    assert ("compute_viewer/small_results.json", "written") in [(a.dest, a.status) for a in report.actions]
    new = into / "examples/flash_attn_func/compute_viewer/small_results.json"
    assert new.read_bytes() == (flash_raw / "out_results.json").read_bytes()
    prov = json.loads((into / "examples/flash_attn_func/source/provenance.json").read_text())
    entry = prov["captures"]["att_viewer/small/ui_output_agent_32235_dispatch_44"]
    assert entry["command"] == ("python tests/kernels/test_flash_attn_func.py --batch 1 --seq_len 1024 "
                                "--num_heads 16 --head_dim 128 --dtype bf16 --causal --warmup 3 --iters 12")
    assert entry["files"] == {"agent_info": "compute_viewer/small_agent_info.csv",
                              "input": "source/input_trace.yaml", "results": "compute_viewer/small_results.json"}


def test_ingesting_the_same_run_twice_changes_nothing(flash_raw, tmp_path):
    into = tmp_path / "sweep"
    raw_before = snapshot(flash_raw)
    ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    first = snapshot(into)
    again = ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    assert snapshot(into) == first  # same names, same bytes, not even rewritten
    assert {a.status for a in again.actions} == {"unchanged"} and not again.changed
    assert again.render().count("nothing changed: this run is already in the sweep") == 1
    assert snapshot(flash_raw) == raw_before  # the raw folder is only read
    assert sorted(p.name for p in tmp_path.iterdir()) == ["raw", "sweep"]  # nothing written elsewhere


def test_run_json_gives_the_provenance(flash_raw, tmp_path):
    (flash_raw / "run.json").write_text(json.dumps({
        "date": "2026-06-01T10:00:00Z", "label": "small", "command": "python bench.py", "commit": "18c5a7ed",
        "rocprofv3": "rocprofv3 1.1.0", "rocm": "7.2.0", "kernel": "flash_attn_func_kernel_0"}))
    report = ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), "flash_attn_func")  # label from run.json
    assert report.label == "small"
    prov = json.loads((tmp_path / "sweep/examples/flash_attn_func/source/provenance.json").read_text())
    entry = prov["captures"]["att_viewer/small/ui_output_agent_32235_dispatch_44"]
    assert {k: entry[k] for k in ("date", "date_source", "command", "commit", "rocprofv3", "rocm", "kernel")} == {
        "date": "2026-06-01T10:00:00Z", "date_source": "run.json", "command": "python bench.py",
        "commit": "18c5a7ed", "rocprofv3": "rocprofv3 1.1.0", "rocm": "7.2.0", "kernel": "flash_attn_func_kernel_0"}


def test_capture_without_source_mapping_is_kept_and_flagged(sweep, flash_raw, tmp_path):
    shutil.rmtree(flash_raw / "ui_output_agent_32235_dispatch_44")
    src = sweep / "examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44"
    make_handmade_unmapped_capture(src, flash_raw / "ui_output_agent_32235_dispatch_44_handmade_unmapped")
    into = tmp_path / "sweep"
    report = ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    assert [(c.name, c.kept, c.mapped, c.instructions) for c in report.checks] == [
        ("ui_output_agent_32235_dispatch_44_handmade_unmapped", True, 0, 2069)]
    assert [(p.kind, p.severity) for p in report.problems] == [("no-source-mapping", "warning")]
    assert report.problems[0].message == ("ui_output_agent_32235_dispatch_44_handmade_unmapped: 0 of 2069 "
                                          "instructions map to a source line; a no-debug cache was reused")
    assert "FLYDSL_RUNTIME_CACHE_DIR" in report.problems[0].fix
    [result] = analysis.analyze_sweep(discover.discover(into), "flash_attn_func")
    a = result.analyses[0]
    assert a.source_mapped == (0, 2069) and a.total_stall_cycles == 107884
    assert any("built without debug info" in n for n in a.notes)


@pytest.mark.full_sweep
def test_suffix_names_a_recapture_and_keeps_both(sweep, flash_raw, tmp_path):
    bundle = sweep / "examples/flash_attn_func"
    into = tmp_path / "sweep"
    ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    fix_raw = rebuild_raw(bundle, "small", tmp_path / "raw_fix", "after_loc_fix")
    (fix_raw / "out_results.json").write_text('{"rocprofiler-sdk-tool": []}\n')  # this run's own results
    report = ingest.ingest(str(fix_raw), str(into), "flash_attn_func", "small", "after_loc_fix")
    assert [(a.dest, a.status) for a in report.actions] == [
        ("att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix/", "written"),
        ("compute_viewer/discover_agent_info.csv", "unchanged"),
        ("compute_viewer/discover_domain_stats.csv", "unchanged"),
        ("compute_viewer/discover_kernel_stats.csv", "unchanged"),
        ("compute_viewer/discover_kernel_trace.csv", "unchanged"),
        ("compute_viewer/small_agent_info.csv", "unchanged"),
        ("compute_viewer/small_after_loc_fix_results.json", "written"),
        ("source/input_trace.yaml", "unchanged"),
        ("source/provenance.json", "written"),
    ]
    prov = json.loads((into / "examples/flash_attn_func/source/provenance.json").read_text())
    assert sorted(prov["captures"]) == ["att_viewer/small/ui_output_agent_32235_dispatch_44",
                                        "att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix"]
    assert prov["captures"]["att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix"]["suffix"] == "after_loc_fix"


def test_suffix_names_a_handmade_recapture_and_keeps_both(flash_raw, tmp_path):
    """The test above on the small run the slice holds too: its re-run is a hand-made copy of the raw folder
    whose capture has another process id (1). Each run gets a hand-made results JSON of its own (the slice
    leaves the real one out), so that the second lands under the suffixed name in both modes."""
    into = tmp_path / "sweep"
    (flash_raw / "out_results.json").write_text('{"rocprofiler-sdk-tool": [], "run": "first"}\n')
    ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    rerun = tmp_path / "raw_rerun"
    shutil.copytree(flash_raw, rerun)
    (rerun / "ui_output_agent_32235_dispatch_44").rename(rerun / "ui_output_agent_1_dispatch_44")
    (rerun / "out_results.json").write_text('{"rocprofiler-sdk-tool": [], "run": "rerun"}\n')
    report = ingest.ingest(str(rerun), str(into), "flash_attn_func", "small", "handmade_rerun")
    assert [(a.dest, a.status) for a in report.actions] == [
        ("att_viewer/small/ui_output_agent_1_dispatch_44_handmade_rerun/", "written"),
        ("compute_viewer/discover_agent_info.csv", "unchanged"),
        ("compute_viewer/discover_domain_stats.csv", "unchanged"),
        ("compute_viewer/discover_kernel_stats.csv", "unchanged"),
        ("compute_viewer/discover_kernel_trace.csv", "unchanged"),
        ("compute_viewer/small_agent_info.csv", "unchanged"),
        ("compute_viewer/small_handmade_rerun_results.json", "written"),
        ("source/input_trace.yaml", "unchanged"),
        ("source/provenance.json", "written"),
    ]
    small = into / "examples/flash_attn_func/att_viewer/small"
    assert sorted(p.name for p in small.iterdir()) == ["ui_output_agent_1_dispatch_44_handmade_rerun",
                                                       "ui_output_agent_32235_dispatch_44"]
    prov = json.loads((into / "examples/flash_attn_func/source/provenance.json").read_text())
    assert sorted(prov["captures"]) == ["att_viewer/small/ui_output_agent_1_dispatch_44_handmade_rerun",
                                        "att_viewer/small/ui_output_agent_32235_dispatch_44"]
    assert prov["captures"]["att_viewer/small/ui_output_agent_1_dispatch_44_handmade_rerun"]["suffix"] == "handmade_rerun"
    assert prov["captures"]["att_viewer/small/ui_output_agent_32235_dispatch_44"]["suffix"] is None


def test_same_capture_name_with_other_bytes_stops_before_writing(flash_raw, tmp_path):
    into = tmp_path / "sweep"
    ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    before = snapshot(into)
    wstates = flash_raw / "ui_output_agent_32235_dispatch_44" / "wstates1.json"
    wstates.write_text(wstates.read_text().replace("0", "1", 1))
    (flash_raw / "discover_kernel_stats.csv").write_text("changed\n")
    with pytest.raises(InputError, match="already exists with different content; ingest this run with --suffix"):
        ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    assert snapshot(into) == before


def test_a_differing_discovery_is_kept_not_overwritten(flash_raw, tmp_path):
    into = tmp_path / "sweep"
    ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    (flash_raw / "discover_domain_stats.csv").write_text('"Name","Calls"\n"KERNEL_DISPATCH",1\n')
    report = ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small", "rerun")
    kept = [a for a in report.actions if a.status == "kept-existing"]
    assert [(a.dest, a.note) for a in kept] == [
        ("compute_viewer/discover_domain_stats.csv", "holds a different file: kept, this run's not copied")]
    assert (into / "examples/flash_attn_func/compute_viewer/discover_domain_stats.csv").read_text().startswith(
        '"Name","Calls","TotalDurationNs"')


def test_counter_collections_go_under_pmc(flash_raw, tmp_path):
    """A hand-made counter file (the shared sweep has none) lands where the PMC reader looks."""
    f = flash_raw / "pmc" / "pass_1" / "pmc_counter_collection.csv"
    f.parent.mkdir(parents=True)
    f.write_text('"Dispatch_Id","Kernel_Name","Counter_Name","Counter_Value"\n'
                 '44,"flash_attn_func_kernel_0","TCC_HIT_sum",10\n44,"flash_attn_func_kernel_0","TCC_MISS_sum",30\n')
    into = tmp_path / "sweep"
    report = ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    assert ("pmc/small/pass_1/pmc_counter_collection.csv", "written") in [(a.dest, a.status) for a in report.actions]
    bundle = into / "examples" / "flash_attn_func"
    assert counter_files.find_counter_files(bundle) == [str(bundle / "pmc/small/pass_1/pmc_counter_collection.csv")]
    result = pmc.analyze_bundle_counters(bundle, "flash_attn_func")
    assert result.to_json()["l2_hit_rate"] == 0.25


# ---------------------------------------------------------------- diagnosis of broken runs

def only_files(raw: Path) -> Path:
    """Keep the discovery CSVs and the input YAML of a raw folder, drop its captures."""
    for p in raw.iterdir():
        if p.is_dir():
            shutil.rmtree(p)
    return raw


def make_handmade_att_files(raw: Path, pid: int, dispatch: int, size: int) -> None:
    for se in range(4):
        (raw / f"out_{pid}_shader_engine_{se}_{dispatch}.att").write_bytes(b"\0" * size)


def kinds(report) -> list[tuple[str, str]]:
    return [(p.kind, p.severity) for p in report.problems]


def test_att_files_without_captures_mean_no_decoder(flash_raw, tmp_path):
    make_handmade_att_files(only_files(flash_raw), 32235, 44, 16)
    report = ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), "flash_attn_func", "small")
    assert kinds(report) == [("decoder-missing", "error")]
    assert "4 raw .att files but no ui_output_agent_* folder" in report.problems[0].message
    assert "ROCPROF_ATT_LIBRARY_PATH" in report.problems[0].fix
    assert not (tmp_path / "sweep").exists()
    assert "nothing was written: no capture has waves and instructions" in report.render()


def test_decoder_message_in_the_log(flash_raw, tmp_path):
    only_files(flash_raw)
    (flash_raw / "capture.log").write_text(
        "[rocprofv3] Fatal error: rocprof-trace-decoder library path not found in ['', '/opt/rocm-7.1.1/lib']\n")
    report = ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), "flash_attn_func", "small")
    assert kinds(report) == [("decoder-missing", "error")]
    assert "'rocprof-trace-decoder library path not found'" in report.problems[0].message


def test_no_dispatch_traced_names_the_cause(flash_raw, tmp_path):
    only_files(flash_raw)
    yml = flash_raw / "input_trace.yaml"
    yml.write_text(yml.read_text().replace('"[6, [8-8]]"', '"[6, [12-12]]"'))
    report = ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), "flash_attn_func", "small")
    assert kinds(report) == [("no-dispatch", "error")]
    assert report.problems[0].fix == ("the kernel ran 9 times in the discovery run; iteration 12 does not exist: "
                                      "lower the range")
    yml.write_text(yml.read_text().replace("flash_attn_func_kernel_0", "flash_attn_func_kernel_9"))
    report = ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), "flash_attn_func", "small")
    assert report.problems[0].fix.startswith("the regex matches no kernel of the discovery run")


def test_only_empty_shells_mean_an_empty_trace(flash_raw, tmp_path):
    only_files(flash_raw)
    make_handmade_empty_shell(flash_raw, "ui_output_agent_32235_dispatch_42")
    make_handmade_empty_shell(flash_raw, "ui_output_agent_32235_dispatch_44")
    report = ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), "flash_attn_func", "small")
    assert kinds(report) == [("empty-trace", "error")]
    assert "att_target_cu" in report.problems[0].fix and "HSA_CU_MASK" in report.problems[0].fix


def test_truncated_files_are_skipped_and_explained(flash_raw, tmp_path):
    cap = flash_raw / "ui_output_agent_32235_dispatch_44"
    code = (cap / "code.json").read_bytes()
    (cap / "code.json").write_bytes(code[: len(code) // 2])
    report = ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), "flash_attn_func", "small")
    assert kinds(report) == [("truncated-trace", "error")]
    assert report.checks[0].skip.startswith("truncated trace: code.json: not valid JSON (truncated or corrupt)")

    (cap / "code.json").write_bytes(code)
    (cap / "se3_sm2_sl0_wv0.json").unlink()
    report = ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), "flash_attn_func", "small")
    assert report.checks[0].skip == ("truncated trace: 1 of 4 wave files listed in filenames.json is missing "
                                     "(first: se3_sm2_sl0_wv0.json)")


def test_lost_data_and_full_buffer_are_warnings(flash_raw, tmp_path):
    (flash_raw / "capture.log").write_text("[trace_decoder][se=3] INFO 1: DATA_LOST\n")
    yml = flash_raw / "input_trace.yaml"
    yml.write_text(yml.read_text().replace('"0xC000000"', '"0x1000"'))  # 4096 bytes
    make_handmade_att_files(flash_raw, 32235, 44, 1024)
    report = ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), "flash_attn_func", "small")
    assert kinds(report) == [("data-lost", "warning"), ("buffer-full", "warning")]
    assert report.problems[1].message == ("dispatch 44: 4096 bytes of raw trace fill the 4096-byte att_buffer_size "
                                          "(100%); the end of the trace is lost")
    assert "att_buffer_size" in report.problems[0].fix
    assert report.kept  # the capture itself is still usable


# ---------------------------------------------------------------- small pieces and the command

@pytest.mark.parametrize("text, iterations", [
    ("[6, [8-8]]", [6, 8]), ("[1, [2-4]]", [1, 2, 3, 4]), ("[3]", [3]), ("2", [2]), ("[5, [6-6]]", [5, 6]),
])
def test_parse_iteration_range(text, iterations):
    assert ingest_raw.parse_iteration_range(text) == iterations


@pytest.mark.parametrize("text", ["[a]", "[]", "[[5-3]]", "[6, 8-]"])
def test_parse_iteration_range_rejects(text):
    with pytest.raises(InputError):
        ingest_raw.parse_iteration_range(text)


@pytest.mark.parametrize("bad", ["../x", "a/b", "", ".hidden", "x y"])
def test_names_must_stay_one_path_component(flash_raw, tmp_path, bad):
    with pytest.raises(InputError, match="must be a plain name"):
        ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), bad, "small")
    with pytest.raises(InputError, match="must be a plain name"):
        ingest.ingest(str(flash_raw), str(tmp_path / "sweep"), "k", bad or "..")
    assert not (tmp_path / "sweep").exists()


def test_command_line(flash_raw, tmp_path, capsys):
    into = tmp_path / "sweep"
    argv = ["ingest", str(flash_raw), "--into", str(into), "--kernel", "flash_attn_func", "--label", "small"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"ingest {flash_raw} -> examples/flash_attn_func (label small)\n")
    assert "  written        att_viewer/small/ui_output_agent_32235_dispatch_44/\n" in out
    assert cli.main(["ingest", str(tmp_path / "nope"), "--into", str(into), "--kernel", "k"]) == 2
    assert "not a directory (expected a raw rocprofv3 output folder)" in capsys.readouterr().err
    empty = tmp_path / "empty_raw"
    empty.mkdir()
    # a folder with no rocprofv3 file at all is a wrong path, not a failed run: exit 2, one line
    assert cli.main(["ingest", str(empty), "--into", str(into), "--kernel", "k"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no rocprofv3 output here (expected ui_output_agent_*/ folders" in err


def test_into_defaults_to_the_current_sweep(flash_raw, tmp_path, monkeypatch, capsys):
    sweep = tmp_path / "my-sweep"
    (sweep / "benchmarks" / "examples").mkdir(parents=True)
    monkeypatch.chdir(sweep / "benchmarks")
    assert cli.main(["ingest", str(flash_raw), "--kernel", "flash_attn_func", "--label", "small"]) == 0
    capsys.readouterr()
    assert (sweep / "examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44").is_dir()
    monkeypatch.chdir(tmp_path)  # not inside a sweep: --into is required
    assert cli.main(["ingest", str(flash_raw), "--kernel", "flash_attn_func"]) == 2
    assert capsys.readouterr().err == (
        "kernel-atlas: error: --into: the current folder is not inside a sweep (no kernel-atlas.toml, "
        "examples/<kernel>/ or benchmarks/examples/ here or above): give --into SWEEP\n")
    (tmp_path / "file").write_text("")
    assert cli.main(["ingest", str(flash_raw), "--into", str(tmp_path / "file"), "--kernel", "k"]) == 2
    assert capsys.readouterr().err == (f"kernel-atlas: error: {tmp_path / 'file'}: not a folder: --into takes "
                                       "a sweep folder (created when absent)\n")


def test_provenance_comes_from_the_discovery_agent_info_when_the_att_run_has_none(flash_raw, tmp_path):
    """A raw folder with discover_agent_info.csv (8 GPUs, AMD Instinct MI350X, Cu_Count 256, gfx950)
    but no out_agent_info.csv: nothing ingest could know is left null."""
    (flash_raw / "out_agent_info.csv").unlink()
    into = tmp_path / "sweep"
    ingest.ingest(str(flash_raw), str(into), "flash_attn_func", "small")
    prov = json.loads((into / "examples/flash_attn_func/source/provenance.json").read_text())
    entry = prov["captures"]["att_viewer/small/ui_output_agent_32235_dispatch_44"]
    assert (entry["gpu"], entry["arch"], entry["cus"], entry["gpus"]) == ("AMD Instinct MI350X", "gfx950", 256, 8)
    assert entry["agent_info"] == "discover_agent_info.csv"
