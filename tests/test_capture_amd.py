"""capture --vendor amd: the printed plan (exact commands and YAML), its pieces on the real
discovery files, and the whole flow through ``tests/standin/rocprofv3``, a STAND-IN for
rocprofv3 that copies real captures of the shared sweep (it profiles nothing)."""

from __future__ import annotations

import json
import os
import sys
from argparse import Namespace
from pathlib import Path

import pytest
import yaml

from generator.analyze import analysis, kernel_table
from generator.capture import amd as capture_amd, ingest, ingest_raw
from generator import cli
from generator.read import discover
from generator.errors import InputError

STANDIN_DIR = Path(__file__).resolve().parent / "standin"
FLASH = "flash_attn_func"
SMALL_CAPTURE = "att_viewer/small/ui_output_agent_32235_dispatch_44"

FLASH_YAML = """\
jobs:
    -
        kernel_include_regex: "flash_attn_func_kernel_0"
        kernel_iteration_range: "[6, [8-8]]"
        output_file: out
        output_directory: raw
        output_format: [json, csv]
        truncate_kernels: true
        sys_trace: false
        advanced_thread_trace: true
        att_target_cu: 1
        att_shader_engine_mask: "0xf"
        att_simd_select: "0xf"
        att_buffer_size: "0x6000000"
"""


def args(**kw) -> Namespace:
    base = dict(spec=None, vendor="amd", dry_run=True, kernel=None, label="small", into="sweep",
                raw_dir="raw", cmd=["python", "bench.py", "--n", "3"])
    base.update(kw)
    return Namespace(**base)


def copy_discovery(sweep: Path, bundle: str, raw: Path) -> None:
    raw.mkdir(parents=True, exist_ok=True)
    for f in sorted((sweep / "examples" / bundle / "compute_viewer").glob("discover_*.csv")):
        (raw / f.name).write_bytes(f.read_bytes())


# ---------------------------------------------------------------- the plan

def test_dry_run_before_discovery_prints_every_step(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert capture_amd.main(args()) == 0
    assert capsys.readouterr().out == """\
# kernel-atlas capture --vendor amd: --dry-run, nothing was run

# step 1: find the kernel (per-kernel statistics and a kernel trace)
mkdir -p raw
rocprofv3 --stats --kernel-trace --output-format csv -d raw -o discover -- python bench.py --n 3 2>&1 | tee raw/discover.log
# pick a kernel: the Name column of raw/discover_kernel_stats.csv;
# then run this again with --kernel-regex NAME to get its exact input file

# step 2: trace the kernel (dispatches 6 and 8, after 5 warm-up calls)
# with debug info, compiled into a fresh JIT cache
cat > raw/input_trace.yaml <<'EOF'
""" + FLASH_YAML.replace('"flash_attn_func_kernel_0"', '"KERNEL_NAME"') + """\
EOF
mkdir raw/flydsl_cache
FLYDSL_DEBUG_ENABLE_DEBUG_INFO=1 FLYDSL_RUNTIME_CACHE_DIR="$PWD"/raw/flydsl_cache rocprofv3 -i raw/input_trace.yaml -- python bench.py --n 3 2>&1 | tee raw/capture.log

# step 3: put the capture into the sweep
kernel-atlas ingest raw --into sweep --kernel NAME --label small
"""
    assert list(tmp_path.iterdir()) == []  # a dry run writes nothing


def test_dry_run_after_discovery_resolves_the_kernel(sweep, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    copy_discovery(sweep, FLASH, tmp_path / "raw")
    assert capture_amd.main(args(kernel="flash_attn")) == 0
    out = capsys.readouterr().out
    table, plan = out.split("\n\n# kernel-atlas capture", 1)
    assert table.splitlines()[:4] == [
        "kernel table of raw/discover_kernel_stats.csv:",
        "rank    calls    total ms      avg us   share  name",
        "   1        9       0.840      93.307   42.1%  flash_attn_func_kernel_0",
        "   2        1       0.767     766.766   38.4%  attn_fwd",
    ]
    assert plan.splitlines()[2:6] == [
        "# step 1 (done): picked flash_attn_func_kernel_0 from raw/discover_kernel_stats.csv (rank 1, 9 calls)",
        "",
        # 1-based iterations 6 and 8 are the dispatch ids of the real capture's ATT files
        "# step 2: trace flash_attn_func_kernel_0 (dispatches 6 and 8, after 5 warm-up calls; "
        "dispatch ids 42, 44 in the discovery run)",
        "# with debug info, compiled into a fresh JIT cache",
    ]
    assert FLASH_YAML in plan
    assert plan.endswith("kernel-atlas ingest raw --into sweep --kernel flash_attn_func --label small\n")


def test_yaml_reproduces_the_sweeps_own_jobs(sweep, tmp_path):
    """From each bundle's discovery and its regex, our job equals the hand-written one
    (the buffer size aside, chosen per bundle; pa and moe_blockscale picked other iterations)."""
    keys = ("kernel_include_regex", "output_file", "output_format", "truncate_kernels", "sys_trace",
            "advanced_thread_trace", "att_target_cu", "att_shader_engine_mask", "att_simd_select")
    same_range = []
    for bundle in sorted((sweep / "examples").iterdir()):
        real = yaml.safe_load((bundle / "source" / "input_trace.yaml").read_text())["jobs"][0]
        stats = kernel_table.read_kernel_stats(bundle / "compute_viewer" / "discover_kernel_stats.csv")
        plan = capture_amd.make_plan(args(raw_dir=str(tmp_path / bundle.name)))
        kernel, _ = capture_amd.pick_kernel(stats, real["kernel_include_regex"])
        capture_amd.settle_kernel(plan, kernel, stats, args())
        ours = yaml.safe_load(capture_amd.input_yaml(plan))["jobs"][0]
        assert {k: ours[k] for k in keys} == {k: real[k] for k in keys}, bundle.name
        if ours["kernel_iteration_range"] == real["kernel_iteration_range"]:
            same_range.append(bundle.name)
    bundles = {p.name for p in (sweep / "examples").iterdir()}
    assert sorted(bundles - set(same_range)) == sorted({"moe_blockscale", "pa"} & bundles)  # the slice: pa


def test_iterations_count_dispatches_from_one(sweep):
    """The dispatch id in each real capture name is an iteration its YAML asked for,
    counted from 1 in the bundle's discovery trace. Two captures come from other runs
    than their bundle's discovery (their ids are not in it at all)."""
    missed = []
    for bundle in sorted((sweep / "examples").iterdir()):
        stats = kernel_table.read_kernel_stats(bundle / "compute_viewer" / "discover_kernel_stats.csv")
        for cap in sorted(bundle.glob("att_viewer/*/ui_output_agent_*")):
            own = bundle / "source" / f"input_trace_{cap.parent.name}.yaml"
            job = ingest_raw.att_job(yaml.safe_load((own if own.exists() else own.with_name("input_trace.yaml")).read_text()))
            kernel, _ = capture_amd.pick_kernel(stats, job["kernel_include_regex"])
            ids = capture_amd.expected_dispatches(str(bundle / "compute_viewer" / "discover_kernel_trace.csv"),
                                                  kernel.name, job["kernel_iteration_range"])
            if ingest.CaptureCheck(str(cap), cap.name).dispatch not in ids:
                missed.append(f"{bundle.name}/{cap.parent.name}/{cap.name}")
    whole = ["fused_rope_cache/big/ui_output_agent_4253_dispatch_8781",
             "pa_mqa_logits_fp4/small/ui_output_agent_32435_dispatch_197"]
    # the slice: fused_rope_cache (its cut trace cannot hold the iteration; the untrimmed traces carry the check)
    assert missed == [m for m in whole if (sweep / "examples" / m.split("/")[0]).is_dir()]


def test_pmc_jobs_hold_at_most_four_counters(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    six = "TCC_HIT_sum,TCC_MISS_sum,TCC_EA0_RDREQ_sum,TCC_EA0_RDREQ_32B_sum,SQ_WAVES,GRBM_GUI_ACTIVE"
    plan = capture_amd.make_plan(args(kernel="flash_attn_func_kernel_0", pmc=six))
    text = capture_amd.input_yaml(plan)
    assert text.endswith("""\
        att_buffer_size: "0x6000000"
    -
        kernel_include_regex: "flash_attn_func_kernel_0"
        kernel_iteration_range: "[6, [8-8]]"
        output_file: pmc
        output_directory: raw/pmc/pass_1
        output_format: [csv]
        truncate_kernels: true
        pmc: [TCC_HIT_sum, TCC_MISS_sum, TCC_EA0_RDREQ_sum, TCC_EA0_RDREQ_32B_sum]
    -
        kernel_include_regex: "flash_attn_func_kernel_0"
        kernel_iteration_range: "[6, [8-8]]"
        output_file: pmc
        output_directory: raw/pmc/pass_2
        output_format: [csv]
        truncate_kernels: true
        pmc: [SQ_WAVES, GRBM_GUI_ACTIVE]
""")
    jobs = yaml.safe_load(text)["jobs"]
    assert [j.get("pmc") for j in jobs] == [None, six.split(",")[:4], six.split(",")[4:]]
    assert capture_amd.resolve_pmc("default") == capture_amd.DEFAULT_PMC
    assert capture_amd.resolve_pmc(None) == ()
    with pytest.raises(InputError, match="not counter names: TCC HIT;"):
        capture_amd.resolve_pmc(["TCC HIT;"])


def test_without_rocprofv3_the_plan_is_printed_and_the_exit_is_1(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert capture_amd.main(args(dry_run=False)) == 1
    out, err = capsys.readouterr()
    assert out.startswith("# kernel-atlas capture --vendor amd: rocprofv3 is not on PATH: run these steps by hand\n")
    assert "rocprofv3 -i raw/input_trace.yaml -- python bench.py --n 3" in out
    assert err == "kernel-atlas: rocprofv3 not found on PATH; the plan above is what would run\n"
    assert list(tmp_path.iterdir()) == []


def test_no_command_is_an_input_error():
    with pytest.raises(InputError, match="no command to profile: put it after --"):
        capture_amd.make_plan(args(cmd=["--"]))


# ---------------------------------------------------------------- pieces

def test_kernel_regex_escapes_and_anchors_only_when_needed():
    cpp = "void at::native::reduce_kernel<512, 1>(float*, int)"
    assert capture_amd.kernel_regex("flash_attn_func_kernel_0", ["attn_fwd"]) == "flash_attn_func_kernel_0"
    assert capture_amd.kernel_regex(cpp, []) == r"void at::native::reduce_kernel<512, 1>\(float\*, int\)"
    assert capture_amd.kernel_regex("gemm_0", ["gemm_0", "hgemm_0_splitk"]) == "^gemm_0$"
    plan = capture_amd.make_plan(args())
    plan.regex = capture_amd.kernel_regex('k"q\\x', [])
    job = yaml.safe_load(capture_amd.input_yaml(plan))["jobs"][0]
    assert job["kernel_include_regex"] == 'k"q\\\\x'  # the YAML keeps the escaped regex intact


def test_pick_kernel_and_ask(sweep):
    stats = kernel_table.read_kernel_stats(sweep / "examples" / FLASH / "compute_viewer" / "discover_kernel_stats.csv")
    kernel, matches = capture_amd.pick_kernel(stats, "reduce_kernel")
    assert (kernel.rank, len(matches)) == (6, 5)  # the hottest of five matches
    assert capture_amd.pick_kernel(stats, "attn_fwd")[0].calls == 1
    with pytest.raises(InputError, match="'nothing_like_this' matches no kernel of the discovery run"):
        capture_amd.pick_kernel(stats, "nothing_like_this")
    answers = iter(["99", "no_such", "2"])
    assert capture_amd.ask_kernel(stats, lambda prompt: next(answers)).name == "attn_fwd"
    assert capture_amd.ask_kernel(stats, lambda prompt: "").name == "flash_attn_func_kernel_0"

    def eof(prompt):
        raise EOFError
    with pytest.raises(InputError, match="no kernel chosen"):
        capture_amd.ask_kernel(stats, eof)


@pytest.mark.parametrize("calls, rng", [(None, "[6, [8-8]]"), (9, "[6, [8-8]]"), (8, "[6, [8-8]]"),
                                        (5, "[3, [5-5]]"), (3, "[1, [3-3]]"), (2, "[2]"), (1, "[1]")])
def test_iterations_skip_warm_up(calls, rng):
    assert capture_amd.choose_iterations(calls)[0] == rng


def test_bundle_names():
    assert capture_amd.bundle_name("flash_attn_func_kernel_0") == "flash_attn_func"
    assert capture_amd.bundle_name("pa_decode_ps_kernel_0") == "pa_decode_ps"
    assert capture_amd.bundle_name("moe_gemm1_0") == "moe_gemm1"
    assert capture_amd.bundle_name("void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<float>>"
                                   "(int, float*)") == "vectorized_elementwise"


def test_find_decoder(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    assert capture_amd.find_decoder({"ROCPROF_ATT_LIBRARY_PATH": str(lib)}, None, fallback=()) is None
    (lib / "librocprof-trace-decoder.so.0").write_bytes(b"hand-made stand-in, not a library")
    assert capture_amd.find_decoder({"ROCPROF_ATT_LIBRARY_PATH": str(lib)}, None, fallback=()) == str(
        lib / "librocprof-trace-decoder.so.0")
    # beside rocprofv3: <rocm>/bin/rocprofv3 -> <rocm>/lib
    (tmp_path / "bin").mkdir()
    assert capture_amd.find_decoder({}, str(tmp_path / "bin" / "rocprofv3"), fallback=()) is not None


# ---------------------------------------------------------------- end to end through the stand-in

APP = """\
import json, os, sys
cache = os.environ.get("FLYDSL_RUNTIME_CACHE_DIR")
record = {"debug": os.environ.get("FLYDSL_DEBUG_ENABLE_DEBUG_INFO"), "cache": cache,
          "cache_fresh": bool(cache) and os.path.isdir(cache) and not os.listdir(cache)}
with open(sys.argv[1], "a") as fh:
    fh.write(json.dumps(record) + "\\n")
"""


@pytest.fixture
def standin(sweep, tmp_path, monkeypatch):
    """PATH with the stand-in rocprofv3 (and this Python for its shebang), fed a real bundle."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", os.pathsep.join([str(STANDIN_DIR), os.path.dirname(sys.executable),
                                                os.environ.get("PATH", "")]))
    monkeypatch.setenv("KERNEL_ATLAS_STANDIN_BUNDLE", str(sweep / "examples" / FLASH))
    monkeypatch.setenv("KERNEL_ATLAS_STANDIN_CAPTURES", SMALL_CAPTURE)
    monkeypatch.setenv("KERNEL_ATLAS_STANDIN_LABEL", "small")
    monkeypatch.setenv("KERNEL_ATLAS_STANDIN_SHELLS", "ui_output_agent_32235_dispatch_42")
    monkeypatch.setenv("KERNEL_ATLAS_STANDIN_MODE", "")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1780315200")
    for var in ("FLYDSL_DEBUG_ENABLE_DEBUG_INFO", "FLYDSL_RUNTIME_CACHE_DIR", "ROCM_PATH", "LD_LIBRARY_PATH"):
        monkeypatch.delenv(var, raising=False)
    lib = tmp_path / "decoder"
    lib.mkdir()
    (lib / "librocprof-trace-decoder.so").write_bytes(b"hand-made stand-in, not a library")
    monkeypatch.setenv("ROCPROF_ATT_LIBRARY_PATH", str(lib))
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


def capture_argv(*extra: str) -> list[str]:
    # "python3" (this interpreter, first on PATH), not a path: capture.py takes an
    # existing file right after "--" for a SPEC
    return ["capture", "--vendor", "amd", "--label", "small", "--kernel-regex", "flash_attn", "--into", "sweep",
            "--raw-dir", "raw", *extra, "--", "python3", "app.py", "runs.jsonl"]


def test_end_to_end_discover_pick_capture_ingest(standin, sweep, capsys):
    assert cli.main(capture_argv()) == 0
    out, err = capsys.readouterr()
    assert err == ""  # the (hand-made) decoder was found: no warning
    cmd = "python3 app.py runs.jsonl"
    lines = out.splitlines()
    assert lines[:3] == [
        "step 1: find the kernel",
        f"$ rocprofv3 --stats --kernel-trace --output-format csv -d raw -o discover -- {cmd}",
        "rank    calls    total ms      avg us   share  name",
    ]
    assert lines[3] == "   1        9       0.840      93.307   42.1%  flash_attn_func_kernel_0"
    cache = standin / "raw" / "flydsl_cache"
    assert (f"$ FLYDSL_DEBUG_ENABLE_DEBUG_INFO=1 FLYDSL_RUNTIME_CACHE_DIR={cache} "
            f"rocprofv3 -i raw/input_trace.yaml -- {cmd}") in lines
    assert "step 3: kernel-atlas ingest raw --into sweep --kernel flash_attn_func --label small" in lines
    assert "  skipped  ui_output_agent_32235_dispatch_42: empty shell: no instructions and no wave files" in lines
    assert "  kept     ui_output_agent_32235_dispatch_44: 2069 instructions, 4 waves, source mapped 2069/2069" in lines

    assert (standin / "raw" / "input_trace.yaml").read_text() == FLASH_YAML
    runs = [json.loads(line) for line in (standin / "runs.jsonl").read_text().splitlines()]
    assert runs == [  # discovery as the user runs it; the capture with debug info into a fresh cache
        {"debug": None, "cache": None, "cache_fresh": False},
        {"debug": "1", "cache": str(cache), "cache_fresh": True},
    ]
    info = json.loads((standin / "raw" / "run.json").read_text())
    assert {k: info[k] for k in ("date", "label", "kernel", "command", "rocprofv3")} == {
        "date": "2026-06-01T12:00:00Z", "label": "small", "kernel": "flash_attn_func_kernel_0",
        "command": cmd, "rocprofv3": "rocprofv3 STAND-IN for kernel-atlas tests (not ROCm)"}

    def without_path(root):
        [r] = analysis.analyze_sweep(discover.discover(root / "examples" / FLASH / SMALL_CAPTURE))
        obj = r.analyses[0].to_json()
        obj.pop("path")
        return obj
    assert without_path(standin / "sweep") == without_path(sweep)
    prov = json.loads((standin / "sweep/examples/flash_attn_func/source/provenance.json").read_text())
    entry = prov["captures"]["att_viewer/small/ui_output_agent_32235_dispatch_44"]
    assert (entry["date"], entry["rocprofv3"], entry["command"]) == (info["date"], info["rocprofv3"], cmd)

    # the raw folder now holds a capture: a second run must not mix into it
    assert cli.main(capture_argv()) == 2
    assert "raw: already holds a capture; choose another --raw-dir" in capsys.readouterr().err


@pytest.mark.parametrize("mode, kind, rc", [
    ("no-decoder", "decoder-missing", 1),
    ("empty", "empty-trace", 1),
    ("truncated", "truncated-trace", 1),
    ("data-lost", "data-lost", 0),
])
def test_end_to_end_failures_are_explained(standin, monkeypatch, capsys, mode, kind, rc):
    monkeypatch.setenv("KERNEL_ATLAS_STANDIN_MODE", mode)
    monkeypatch.setenv("KERNEL_ATLAS_STANDIN_SHELLS", "")
    assert cli.main(capture_argv()) == rc
    out = capsys.readouterr().out
    problems = [line for line in out.splitlines() if line.startswith("  error: ") or line.startswith("  warning: ")]
    assert [p.split(": ")[1] for p in problems] == [kind]
    assert out.splitlines()[out.splitlines().index(problems[0]) + 1].startswith("    fix: ")
    assert (standin / "sweep").exists() == (rc == 0)


def test_missing_decoder_is_warned_before_the_capture(standin, monkeypatch, capsys):
    monkeypatch.delenv("ROCPROF_ATT_LIBRARY_PATH")
    monkeypatch.setattr(capture_amd, "DECODER_FALLBACK_DIRS", ())
    assert cli.main(capture_argv()) == 0  # the stand-in decodes anyway
    err = capsys.readouterr().err
    assert err.startswith("warning: rocprof-trace-decoder (librocprof-trace-decoder.so) was not found")
    assert "ROCPROF_ATT_LIBRARY_PATH=DIR" in err


def test_a_kernel_regex_without_match_stops_after_discovery(standin, capsys):
    argv = capture_argv()
    argv[argv.index("flash_attn")] = "no_such_kernel"
    assert cli.main(argv) == 2
    assert "--kernel-regex: 'no_such_kernel' matches no kernel of the discovery run (19 kernels" in capsys.readouterr().err
    assert not (standin / "raw" / "input_trace.yaml").exists()


# ---------------------------------------------------------------- --into, the command, old spellings

def test_dry_run_into_defaults_to_the_current_sweep(tmp_path, monkeypatch, capsys):
    (tmp_path / "s" / "benchmarks" / "examples").mkdir(parents=True)
    (tmp_path / "s" / "examples").mkdir()
    monkeypatch.chdir(tmp_path / "s" / "examples")
    assert cli.main(["capture", "amd", "--dry-run", "--label", "small", "--raw-dir", "raw",
                     "--", "python", "bench.py"]) == 0
    assert capsys.readouterr().out.endswith("\nkernel-atlas ingest raw --into .. --kernel NAME --label small\n")
    monkeypatch.chdir(tmp_path)  # no sweep here: the printed plan names SWEEP for the user to fill in
    assert cli.main(["capture", "amd", "--dry-run", "--raw-dir", "raw", "--", "python", "bench.py"]) == 0
    assert capsys.readouterr().out.endswith("\nkernel-atlas ingest raw --into SWEEP --kernel NAME --label big\n")


def test_old_kernel_spelling_still_picks_with_one_warning(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["capture", "--vendor", "amd", "--dry-run", "--kernel", "flash_attn", "--into", "sweep",
                     "--", "python", "bench.py"]) == 0
    out, err = capsys.readouterr()
    assert 'kernel_include_regex: "flash_attn"' in out
    assert err == ("kernel-atlas: warning: --kernel is deprecated here, use --kernel-regex "
                   "(the old spelling goes away in the next release)\n")


def test_a_real_run_needs_a_sweep(standin, capsys):
    argv = capture_argv()
    del argv[argv.index("--into"):argv.index("--into") + 2]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err == (
        "kernel-atlas: error: --into: the current folder is not inside a sweep (no kernel-atlas.toml, "
        "examples/<kernel>/ or benchmarks/examples/ here or above): give --into SWEEP\n")
    assert not (standin / "raw").exists()


@pytest.mark.parametrize("cmd, message", [
    (["python3", "no_such_app.py"], "no_such_app.py: no such script: expected the file python3 runs"),
    (["./no_such_tool", "x"], "./no_such_tool: no such program: expected the command to profile after --, "
                              "e.g. -- python bench.py"),
    (["no-such-tool-on-path"], "no-such-tool-on-path: not found on PATH: expected the command to profile "
                               "after --, e.g. -- python bench.py"),
])
def test_a_missing_program_or_script_exits_2_before_profiling(standin, capsys, cmd, message):
    argv = capture_argv()[:-3] + cmd
    assert cli.main(argv) == 2
    assert capsys.readouterr().err == f"kernel-atlas: error: {message}\n"
    assert not (standin / "raw").exists()
