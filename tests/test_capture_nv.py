"""``kernel-atlas capture`` without a GPU: SPEC loading, rows and schema, layout, CLI.

The GPU path itself (timing, ncu) is proven by the committed H200 sweep in bundles/,
whose files are checked here against the same schema.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from generator.read import campaign
from generator.capture import nvidia as capture_nv
from generator import cli, config
from generator.capture import nvidia_campaign, nvidia_profile, nvidia_spec
from generator.capture.nvidia_campaign import (
    AMD_RESULT_COLUMNS,
    RESULT_COLUMNS,
    base_row,
    ledger_row,
    measured_row,
    status_row,
    summarize_samples,
)
from generator.capture.nvidia_profile import Layout
from generator.capture.nvidia_spec import load_spec
from generator.capture import __main__ as capture_main
from generator.capture import ingest as capture_ingest
from generator.capture import options as command
from generator.errors import InputError

REPO = Path(__file__).resolve().parent.parent
SPECS = REPO / "demo" / "specs"
BUNDLES = REPO / "bundles"
DEMO = ("gemm", "rmsnorm", "silu_and_mul", "softmax", "vec_add")
ENV = {"gpu": "NVIDIA H200", "arch": "sm_90", "driver_version": "580.159.04", "cuda_version": "13.0",
       "torch_version": "2.11.0+cu130", "triton_version": "3.6.0", "candidate_commit": "abc1234",
       "torch_git": "deadbeef0"}


# ---------------------------------------------------------------- SPEC files

def test_demo_specs_load_without_torch():
    got = {}
    for name in DEMO:
        spec = load_spec(SPECS / f"{name}.py")
        got[name] = (len(spec.shapes), list(spec.providers), spec.candidate, spec.reference, spec.label,
                     spec.profile)
        assert all(os.path.isfile(s) for s in spec.sources)
        assert 8 <= len(spec.shapes) <= 20
    assert got["vec_add"] == (11, ["triton", "pytorch", "torch_compile"], "triton", "pytorch", "prefill",
                              ["llama3-8b-prefill-2k", "llama3-70b-prefill-8k"])
    assert got["gemm"][1] == ["triton", "pytorch", "torch_compile"]
    compiled = load_spec(SPECS / "gemm.py").providers["torch_compile"]
    assert compiled.skip_reason is None and "max-autotune-no-cudagraphs" in compiled.detail
    assert got["rmsnorm"][1] == ["triton", "pytorch", "pytorch_hf", "torch_compile"]


def write_spec(tmp_path: Path, body: str, name: str = "spec.py") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


GOOD = '''
KERNEL = "k"
PROVIDERS = {"triton": "cand", "pytorch": "ref"}
SHAPES = [{"name": "s1", "args": {"M": 1}, "dtype": "bf16"}]
def make_inputs(shape, device): pass
def reference(*a): pass
def providers(): pass
'''


def test_minimal_spec_defaults(tmp_path):
    spec = load_spec(write_spec(tmp_path, GOOD))
    assert (spec.kernel, spec.op, spec.op_type, spec.kernel_regex, spec.label) == ("k", "k", "k", "k", "primary")
    assert spec.profile == ["s1"] and spec.tolerance == 0.01 and spec.sources == []
    s = spec.shapes[0]
    assert (s.model, s.stage, s.source["kind"], s.weight) == (
        "synthetic", "synthetic", "spec", {"baseline_time_weight": None, "occurrences": None, "traffic_weight": None})


@pytest.mark.parametrize("edit,message", [
    (lambda t: t.replace('KERNEL = "k"', ""), "SPEC must define KERNEL"),
    (lambda t: t.replace('KERNEL = "k"', 'KERNEL = "a b"'), "KERNEL 'a b' must be letters"),
    (lambda t: t + 'CANDIDATE = "flydsl"\n', "CANDIDATE 'flydsl' is not in PROVIDERS"),
    (lambda t: t + 'PROFILE = ["nope"]\n', "PROFILE names an unknown shape 'nope'"),
    (lambda t: t + 'SOURCES = ["missing.py"]\n', "SOURCES names a missing file 'missing.py'"),
    (lambda t: t.replace('"args": {"M": 1}', '"args": {}'), "needs a non-empty dict 'args'"),
    (lambda t: t.replace("def providers(): pass", ""), "SPEC must define a function providers()"),
    (lambda t: t + "SHAPES = SHAPES * 2\n", "shape names must be unique: s1"),
    (lambda t: t + "import torch_that_is_not_here\n", "cannot load SPEC: ModuleNotFoundError"),
    (lambda t: t + 'PROVIDERS["triton"] = {"detail": "x", "skip_reason": "off"}\n', "candidate 'triton' cannot be skipped"),
])
def test_bad_specs_are_input_errors(tmp_path, edit, message):
    with pytest.raises(InputError) as err:
        load_spec(write_spec(tmp_path, edit(GOOD)))
    assert message in err.value.problem


def test_spec_syntax_error_names_the_line(tmp_path):
    with pytest.raises(InputError) as err:
        load_spec(write_spec(tmp_path, GOOD + "def broken(:\n"))
    assert err.value.line == 8  # GOOD has 7 lines (a leading newline), the broken def is line 8


def test_spec_must_be_a_python_file(tmp_path):
    with pytest.raises(InputError, match="no such SPEC file"):
        load_spec(tmp_path / "nothere.py")
    with pytest.raises(InputError, match="a SPEC is a Python file"):
        load_spec(write_spec(tmp_path, "x", "spec.txt"))


def test_shape_ids_match_the_committed_ledgers():
    for name in DEMO:
        spec = load_spec(SPECS / f"{name}.py")
        ledger = [json.loads(x) for x in open(BUNDLES / "benchmarks/examples" / spec.op / "shape_ledger.jsonl")]
        assert [r["shape_id"] for r in ledger] == [spec.shape_id(s) for s in spec.shapes]
        assert [r["name"] for r in ledger] == [s.name for s in spec.shapes]
    assert nvidia_spec.shape_id("softmax", "bf16", {"N": 2048, "M": 65536}) == "sha1:8a16a20c5c5d9729"


# ---------------------------------------------------------------- statistics and rows

def test_summarize_samples_exact():
    s = summarize_samples([float(v) for v in range(10, 0, -1)])
    assert s["median_us"] == 5.5 and s["p10_us"] == pytest.approx(1.9) and s["p90_us"] == pytest.approx(9.1)
    assert s["mean_us"] == 5.5 and s["std_us"] == pytest.approx(math.sqrt(8.25)) and s["min_us"] == 1.0
    assert s["n"] == 10 and s["stable"] is False
    steady = summarize_samples([100.0, 101.0, 99.0, 100.0])
    assert steady["stable"] is True and steady["median_us"] == 100.0


def test_result_columns_are_the_amd_columns_then_cuda(sweep):
    """Every results CSV of the sweep (13 in the sweep, softmax's among them; vec_add's alone in the slice)."""
    paths = sorted(sweep.glob("benchmarks/examples/*/benchmark_results.csv"))
    assert sweep / "benchmarks/examples/vec_add/benchmark_results.csv" in paths
    for path in paths:
        with open(path, newline="") as fh:
            amd = next(csv.reader(fh))
        assert list(AMD_RESULT_COLUMNS) == amd, path
    assert list(RESULT_COLUMNS) == list(AMD_RESULT_COLUMNS) + ["cuda_version"]


def test_rows_and_csv_cells():
    spec = load_spec(SPECS / "softmax.py")
    shape = spec.shapes[0]
    row = base_row(spec, shape, "triton", ENV, "softmax-abc1234-20261129-091615")
    eager = summarize_samples([20.0, 21.0, 22.0])
    graph = summarize_samples([17.0, 17.2, 17.4])
    measured_row(row, True, None, eager, graph, None, (2 * 16384 * 512 * 2, 5 * 16384 * 512))
    assert row["timing_method"] == "cudagraph" and row["cache_state"] == "l2_flushed_graph"
    assert row["median_us"] == 17.2 and row["eager_median_us"] == 21.0
    assert row["host_overhead_us"] == pytest.approx(3.8)
    assert row["effective_gbps"] == pytest.approx(2 * 16384 * 512 * 2 / 17.2e-6 / 1e9)
    assert row["candidate_commit"] == "abc1234" and row["baseline_commit"] is None
    ref = base_row(spec, shape, "pytorch", ENV, "r")
    assert ref["baseline_commit"] == "deadbeef0"
    bad = status_row(base_row(spec, shape, "torch_compile", ENV, "r"), "failed", "RuntimeError: boom")
    assert bad["benchmark_status"] == "failed" and bad["correctness_error"] == "RuntimeError: boom"
    text = nvidia_campaign.results_csv([row, bad])
    lines = list(csv.reader(text.splitlines()))
    assert lines[0] == list(RESULT_COLUMNS)
    cells = dict(zip(lines[0], lines[1]))
    assert cells["args"] == '{"M":16384,"N":512}' and cells["correct"] == "True" and cells["rocm_version"] == ""
    assert dict(zip(lines[0], lines[2]))["median_us"] == ""


def test_eager_only_when_graph_capture_fails():
    spec = load_spec(SPECS / "vec_add.py")
    row = base_row(spec, spec.shapes[0], "torch_compile", ENV, "r")
    measured_row(row, False, "rel_l2=2.0e-01 tolerance=0.01", summarize_samples([5.0, 6.0, 7.0]), None,
                 "RuntimeError: capture", None)
    assert (row["timing_method"], row["cache_state"], row["graph_median_us"], row["median_us"]) == (
        "cuda_events", "l2_flushed", None, 6.0)
    assert row["benchmark_status"] == "incorrect" and row["correct"] is False
    assert row["graph_capture_error"] == "RuntimeError: capture"


def test_written_campaign_reads_back(tmp_path):
    spec = load_spec(SPECS / "rmsnorm.py")
    rows = []
    for shape in spec.shapes[:2]:
        for p in spec.providers:
            r = base_row(spec, shape, p, ENV, "rmsnorm-abc1234-x")
            measured_row(r, True, None, summarize_samples([10.0, 11.0]), summarize_samples([9.0, 9.5]), None, None)
            rows.append(r)
    ledger = [ledger_row(spec, s, ENV) for s in spec.shapes[:2]]
    nvidia_campaign.write_campaign(str(tmp_path), spec, rows, ledger)
    c = campaign.read_campaign(tmp_path)
    assert c.timed and c.providers == ["triton", "pytorch", "pytorch_hf", "torch_compile"]
    assert [r.median_us for r in c.rows] == [9.25] * 8 and all(r.usable for r in c.rows)
    assert [s.shape_id for s in c.ledger] == [spec.shape_id(s) for s in spec.shapes[:2]]
    assert c.reference_provider == "pytorch"
    assert c.provenance_for("triton")["gpu"] == "NVIDIA H200"


def test_run_id():
    when = datetime(2026, 11, 29, 9, 16, 15, tzinfo=timezone.utc)
    assert nvidia_campaign.run_id("softmax", "1a76145abc", when) == "softmax-1a76145a-20261129-091615"
    assert nvidia_campaign.run_id("softmax", None, when) == "softmax-nocommit-20261129-091615"


# ---------------------------------------------------------------- layout

def test_layout_and_publish(tmp_path):
    spec = load_spec(SPECS / "softmax.py")
    layout = Layout(into=str(tmp_path / "sweep"), kernel=spec.kernel, op=spec.op, label="prefill")
    staging = tmp_path / "staging"
    staging.mkdir()
    for name in ("source_sass.csv", "details.csv"):
        (staging / name).write_text(f"{name}\n")
    prof = {"profile_command": ["ncu", "--set", "full"], "exports": {"details.csv": {"ok": True}}}
    row = base_row(spec, spec.shape("llama3-8b-attn-2k"), "triton", ENV, "r")
    capture_nv.publish(spec, layout, {**ENV, "captured_at": "2026-11-29T09:17:29Z"}, spec.kernel_regex, prof,
                       [row], str(staging))
    files = sorted(str(p.relative_to(tmp_path / "sweep")) for p in (tmp_path / "sweep").rglob("*") if p.is_file())
    assert files == [
        "benchmarks/examples/softmax/baseline_matrix.yaml",
        "benchmarks/examples/softmax/benchmark_results.csv",
        "benchmarks/examples/softmax/benchmark_results.jsonl",
        "benchmarks/examples/softmax/shape_ledger.jsonl",
        "examples/softmax/ncu/prefill/details.csv",
        "examples/softmax/ncu/prefill/provenance.json",
        "examples/softmax/ncu/prefill/source_sass.csv",
        "examples/softmax/source/softmax.py",
        "examples/softmax/source/spec_softmax.py",
        "kernel-atlas.toml",
    ]
    cfg = config.load_config(tmp_path / "sweep")
    assert (cfg.title, cfg.candidate, cfg.reference) == ("triton kernels on NVIDIA H200", "triton", "pytorch")
    prov = json.loads((tmp_path / "sweep/examples/softmax/ncu/prefill/provenance.json").read_text())
    assert prov["profiled_shapes"][0]["shape_id"] == "sha1:8a16a20c5c5d9729"
    assert prov["gpu"] == "NVIDIA H200" and prov["vendor"] == "nvidia" and prov["campaign"] == "benchmarks/examples/softmax"
    assert prov["source_root"] == "."  # export paths are relative to the capture's cwd
    (out,) = [json.loads(x) for x in open(tmp_path / "sweep/benchmarks/examples/softmax/benchmark_results.jsonl")]
    assert out["profile_artifact"] == "examples/softmax/ncu/prefill"
    for path in (tmp_path / "sweep").rglob("*"):
        if path.is_file():
            assert str(tmp_path) not in path.read_text(), path


def test_publish_without_a_profile_replaces_an_old_capture(tmp_path):
    spec = load_spec(SPECS / "softmax.py")
    layout = Layout(into=str(tmp_path), kernel="softmax", op="softmax", label="prefill")
    os.makedirs(layout.capture)
    Path(layout.capture, "source_sass.csv").write_text("old")
    (tmp_path / "kernel-atlas.toml").write_text('candidate = "mine"\n')
    capture_nv.publish(spec, layout, ENV, "x", None, [], None)
    assert sorted(os.listdir(layout.capture)) == ["provenance.json"]
    assert (tmp_path / "kernel-atlas.toml").read_text() == 'candidate = "mine"\n'  # never overwritten


def test_ncu_command_lines():
    argv = nvidia_profile.ncu_profile_argv("ncu", "/r/softmax_prefill", "^softmax_kernel$", 1,
                                       ["python3", "-m", "generator.capture", "profile-child", "s.py",
                                        "--shapes", "a"])
    assert argv[:11] == ["ncu", "--clock-control", "none", "--set", "full", "--import-source", "yes",
                         "-k", "regex:^softmax_kernel$", "-c", "1"]
    exports = nvidia_profile.ncu_export_argvs("ncu", "r.ncu-rep")
    assert [e[0] for e in exports] == ["source_sass.csv", "source_cuda_sass.csv", "details.csv", "raw.csv"]
    assert exports[1][1] == ["ncu", "-i", "r.ncu-rep", "--page", "source", "--csv", "--print-source", "cuda,sass"]
    assert nvidia_profile.public_argv(["/tmp/raw/x", "y"], {"/tmp/raw": "<raw-dir>"}) == ["<raw-dir>/x", "y"]


# ---------------------------------------------------------------- the command

def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path, capsys):
    assert cli.main(["capture", str(SPECS / "vec_add.py"), "--dry-run", "--into", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "shapes (11):" in out and "[profiled]" in out
    assert "-k regex:^add_kernel$ -c 2" in out
    assert "export examples/vec_add/ncu/prefill/source_cuda_sass.csv" in out
    assert not (tmp_path / "out").exists()


def test_dry_run_label_and_kernel_overrides(capsys):
    argv = ["capture", str(SPECS / "gemm.py"), "--dry-run", "--label", "big", "--kernel-regex", "gemm"]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "-k regex:gemm -c 1" in out and "examples/gemm/ncu/big/details.csv" in out
    assert err == ""


def test_old_kernel_spelling_still_works_with_one_warning(capsys):
    assert cli.main(["capture", str(SPECS / "gemm.py"), "--dry-run", "--kernel", "gemm"]) == 0
    out, err = capsys.readouterr()
    assert "-k regex:gemm -c 1" in out
    assert err == ("kernel-atlas: warning: --kernel is deprecated here, use --kernel-regex "
                   "(the old spelling goes away in the next release)\n")


def test_capture_without_gpu_tools_is_one_error_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(capture_nv, "find_ncu", lambda: None)
    assert cli.main(["capture", str(SPECS / "softmax.py"), "--into", str(tmp_path / "sweep")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kernel-atlas: error:") and "ncu (Nsight Compute) was not found" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "sweep").exists()


NO_SWEEP = ("kernel-atlas: error: --into: the current folder is not inside a sweep (no kernel-atlas.toml, "
            "examples/<kernel>/ or benchmarks/examples/ here or above): give --into SWEEP\n")


def test_into_is_required_outside_a_sweep_before_any_tool_is_looked_for(tmp_path, capsys, monkeypatch):
    """Arguments are checked first: no sweep here and no --into is exit 2, even without ncu."""
    monkeypatch.setattr(capture_nv, "find_ncu", lambda: None)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["capture", str(SPECS / "softmax.py")]) == 2
    assert capsys.readouterr().err == NO_SWEEP


def test_into_is_never_the_tools_own_bundles(capsys, monkeypatch):
    """Run from the tool's checkout (which holds bundles/), there is no current sweep."""
    monkeypatch.chdir(REPO)
    assert (REPO / "bundles").is_dir()
    assert cli.main(["capture", str(SPECS / "softmax.py")]) == 2
    assert capsys.readouterr().err == NO_SWEEP


def test_into_defaults_to_the_sweep_the_current_folder_is_inside(tmp_path, monkeypatch):
    sweep = tmp_path / "my-sweep"
    (sweep / "examples" / "k" / "ncu").mkdir(parents=True)
    monkeypatch.chdir(sweep / "examples" / "k")
    assert capture_ingest.sweep_into(None) == os.path.join("..", "..")
    assert capture_ingest.sweep_into("elsewhere") == "elsewhere"
    (tmp_path / "toml-only").mkdir()
    (tmp_path / "toml-only" / "kernel-atlas.toml").write_text("")
    monkeypatch.chdir(tmp_path / "toml-only")
    assert capture_ingest.sweep_into(None) == "."
    monkeypatch.chdir(tmp_path)
    assert capture_ingest.sweep_into(None, plan_only=True) == "SWEEP"
    with pytest.raises(InputError, match="the current folder is not inside a sweep"):
        capture_ingest.sweep_into(None)


def test_into_a_file_exits_2(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("x")
    into = str(tmp_path / "notes.txt")
    assert cli.main(["capture", str(SPECS / "softmax.py"), "--dry-run", "--into", into]) == 2
    assert capsys.readouterr().err == (f"kernel-atlas: error: {into}: not a folder: --into takes a sweep "
                                       "folder (created when absent)\n")


def test_missing_spec_exits_2(tmp_path, capsys):
    assert cli.main(["capture", str(tmp_path / "nope.py"), "--dry-run"]) == 2
    assert capsys.readouterr().err == f"kernel-atlas: error: {tmp_path / 'nope.py'}: no such SPEC file\n"
    assert cli.main(["capture", "--dry-run"]) == 2
    assert capsys.readouterr().err == ("kernel-atlas: error: capture: no SPEC file given: an NVIDIA capture "
                                       "needs one (see `kernel-atlas capture nvidia --help`)\n")


def test_nvidia_capture_refuses_a_command(capsys):
    assert cli.main(["capture", "--", "python3", "app.py"]) == 2
    assert "give a SPEC file, not a command" in capsys.readouterr().err


def test_capture_help_lists_both_vendors_briefly(capsys):
    assert cli.main(["capture", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kernel-atlas capture [nvidia] SPEC [options]\n"
                          "       kernel-atlas capture amd [options] -- CMD...\n")
    assert "SWEEP/examples/<KERNEL>/ncu/<LABEL>/" in out and "SWEEP/examples/<NAME>/att_viewer/<LABEL>/" in out
    assert "`kernel-atlas capture nvidia --help`, `kernel-atlas capture amd --help`" in out
    assert "--pmc" not in out and "--target-cu" not in out


@pytest.mark.parametrize("argv", [["capture", "amd", "--help"], ["capture", "--vendor", "amd", "-h"]])
def test_amd_help_describes_only_amd(argv, capsys):
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kernel-atlas capture amd ")
    assert "examples/<NAME>/att_viewer/<LABEL>/ui_output_agent_<PID>_dispatch_<N>[_<SUFFIX>]/" in out
    assert "--pmc" in out and "--target-cu" in out and "examples/<NAME>/att_viewer/LABEL/ (default: big)" in out
    assert "ncu" not in out and "SPEC" not in out and "--kernel " not in out


@pytest.mark.parametrize("argv", [["capture", "nvidia", "--help"], ["capture", "--vendor", "nvidia", "--help"]])
def test_nvidia_help_describes_only_nvidia(argv, capsys):
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kernel-atlas capture nvidia ")
    assert "examples/<KERNEL>/ncu/<LABEL>/" in out and "benchmarks/examples/<OP>/" in out
    assert "ncu -k regex: the kernels to profile" in out
    for amd_only in ("att_viewer", "rocprofv3", "--pmc", "--target-cu", "--suffix", "--name"):
        assert amd_only not in out


def test_module_entry_prints_the_same_help(capsys):
    assert capture_main.main(["capture", "amd", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: python -m generator.capture capture amd ")


def parse(argv):
    p = argparse.ArgumentParser(add_help=False)
    command.add_arguments(p)
    return command.normalize(p.parse_args(argv))


def test_argument_forms():
    a = parse(["demo/specs/softmax.py", "--into", "x", "--label", "big"])
    assert (a.vendor, a.spec, a.into, a.label, a.cmd) == ("nvidia", "demo/specs/softmax.py", "x", "big", [])
    a = parse(["--vendor", "amd", "--", "rocprofv3", "--att", "--", "python3", "app.py"])
    assert (a.spec, a.cmd) == (None, ["rocprofv3", "--att", "--", "python3", "app.py"])
    a = parse(["--vendor", "amd", "--label", "big", "--", "python3", "app.py"])
    assert (a.spec, a.label, a.cmd) == (None, "big", ["python3", "app.py"])
    # an existing executable right after -- is the command, not a SPEC (AMD takes no SPEC)
    a = parse(["--vendor", "amd", "--kernel-regex", "pa", "--", "/usr/bin/env", "python3", "app.py", "--x"])
    assert (a.spec, a.kernel, a.cmd) == (None, "pa", ["/usr/bin/env", "python3", "app.py", "--x"])
    # --into is resolved by the capture itself (the current sweep, else required)
    a = parse(["--dry-run", "s.py"])
    assert (a.spec, a.dry_run, a.into) == ("s.py", True, None)


def test_vendor_word_forms():
    a = parse(["amd", "--", "python3", "app.py", "--n", "3"])
    assert (a.vendor, a.spec, a.cmd) == ("amd", None, ["python3", "app.py", "--n", "3"])
    a = parse(["amd", "--label", "small", "--kernel-regex", "pa", "--", "python3", "app.py", "--label", "x"])
    assert (a.vendor, a.label, a.kernel, a.cmd) == ("amd", "small", "pa", ["python3", "app.py", "--label", "x"])
    a = parse(["nvidia", "demo/specs/softmax.py", "--into", "x"])
    assert (a.vendor, a.spec, a.into, a.cmd) == ("nvidia", "demo/specs/softmax.py", "x", [])
    a = parse(["nvidia", "--dry-run", "demo/specs/softmax.py"])
    assert (a.vendor, a.spec, a.dry_run) == ("nvidia", "demo/specs/softmax.py", True)


def test_amd_capture_missing_exits_2(capsys, monkeypatch):
    real = command.importlib.import_module

    def missing(name):
        if name == "generator.capture.amd":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real(name)

    monkeypatch.setattr(command.importlib, "import_module", missing)
    assert cli.main(["capture", "--vendor", "amd", "--", "python3", "app.py"]) == 2
    assert capsys.readouterr().err.strip() == "kernel-atlas: error: AMD capture is not available yet"


def test_amd_capture_is_handed_the_arguments(monkeypatch):
    seen = {}

    class Fake:
        @staticmethod
        def main(args):
            seen["cmd"], seen["label"] = args.cmd, args.label
            return 0

    monkeypatch.setattr(command, "load_amd", lambda: Fake)
    assert cli.main(["capture", "--vendor", "amd", "--label", "small", "--", "python3", "app.py"]) == 0
    assert seen == {"cmd": ["python3", "app.py"], "label": "small"}
    assert cli.main(["capture", "amd", "--label", "big", "--", "python3", "app.py"]) == 0
    assert seen == {"cmd": ["python3", "app.py"], "label": "big"}


# ---------------------------------------------------------------- the committed sweep

def test_committed_sweep_schema_and_provenance():
    for name in DEMO:
        folder = BUNDLES / "benchmarks/examples" / name
        with open(folder / "benchmark_results.csv", newline="") as fh:
            rows = list(csv.DictReader(fh))
        assert list(rows[0]) == list(RESULT_COLUMNS)
        assert {r["gpu"] for r in rows} == {"NVIDIA H200"} and {r["arch"] for r in rows} == {"sm_90"}
        assert {(r["driver_version"], r["cuda_version"], r["torch_version"], r["triton_version"]) for r in rows} == {
            ("580.159.04", "13.0", "2.11.0+cu130", "3.6.0")}
        # the GEMM was re-captured with its torch.compile baseline at c6b133931 (demo/kernels unchanged)
        assert {r["candidate_commit"] for r in rows} == {"c6b133931" if name == "gemm" else "fea353919"}
        cand = [r for r in rows if r["provider"] == "triton"]
        assert all(r["benchmark_status"] == "ok" and r["correct"] == "True" for r in cand)
        assert all(r["timing_method"] == "cudagraph" for r in rows if r["benchmark_status"] == "ok")
        jsonl = [json.loads(x) for x in open(folder / "benchmark_results.jsonl")]
        artifacts = {r["profile_artifact"] for r in jsonl if r["profile_artifact"]}
        assert artifacts == {f"examples/{name}/ncu/prefill"}
        assert (BUNDLES / artifacts.pop()).is_dir()
        prov = json.loads((BUNDLES / f"examples/{name}/ncu/prefill/provenance.json").read_text())
        assert (prov["gpu"], prov["arch"], prov["ncu_version"].split()[1]) == ("NVIDIA H200", "sm_90", "2025.3.1.0")
        assert all(e["ok"] for e in prov["ncu"]["exports"].values())


def test_committed_sweep_is_small():
    total = sum(p.stat().st_size for p in BUNDLES.rglob("*") if p.is_file())
    assert total < 20 * 2**20


def test_exports_keep_no_machine_path():
    """ncu writes absolute source paths; the bundle keeps them relative to the capture's cwd."""
    text = '"File Path","/home/me/repo/demo/kernels/gemm.py"\n"File Path","/usr/lib/python3/site-packages/triton/x.py"\n'
    assert nvidia_profile.relative_paths(text, "/home/me/repo/") == (
        '"File Path","demo/kernels/gemm.py"\n"File Path","/usr/lib/python3/site-packages/triton/x.py"\n')
    assert nvidia_profile.relative_paths(text, "/") == text
