"""The second layout as another harness really writes it, on the hand-made
``tests/data/handmade_flash_attn_current`` (the real flash_attn_current campaign is not in ../shared):
its diagnostic columns, its metadata's key names, the failures only its log and report record,
its unchecked wins, its name. Every number below is worked by hand from the fixture's files."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from generator.read import campaign_logs
from generator.read.campaign_suite import is_shape_column, read_campaign_folder

FIXTURE = Path(__file__).resolve().parent / "data" / "handmade_flash_attn_current"
LABELS = ["b1_s512_h16_d128", "b1_s2048_h16_d128", "b2_s4096_h32_d128", "b4_s8192_h32_d128", "b1_s8192_h64_d64"]


def test_result_and_diagnostic_columns_are_not_shape_arguments():
    camp = read_campaign_folder(FIXTURE)
    assert [s.shape_id for s in camp.ledger] == LABELS
    assert camp.ledger[2].args == {"B": 2, "S": 4096, "H": 32, "Hkv": 8, "D": 128, "dtype": "bf16", "causal": True}
    header = json.loads((FIXTURE / "results_full.jsonl").read_text().splitlines()[0])
    shape = [c for c in header if is_shape_column(c)]
    assert shape == ["B", "S", "H", "Hkv", "D", "dtype", "causal"]
    assert not any(map(is_shape_column, ["max_err", "mean_err", "min_cos", "expected_auto_path", "config", "tflops",
                                         "us_median", "latency_ms", "speedup", "status", "correctness", "kernel_config"]))
    assert all(map(is_shape_column, ["seq_len", "head_dim", "num_heads", "window_size", "page_size", "is_causal"]))


def test_metadata_of_another_spelling_gives_the_provenance():
    camp = read_campaign_folder(FIXTURE)
    assert camp.suite == "full" and camp.notes[0] == ("suite full read (20 rows, 2026-06-12T09:30:00Z); "
                                                      "also present: smoke (5 rows)")
    prov = camp.provenance_for("auto")  # the dispatcher is FlyDSL's: flydsl_head is its commit
    assert prov["arch"] == "gfx950" and prov["gpu"] == "AMD Instinct MI350X" and prov["rocm"] == "7.2.0"
    assert prov["candidate_commit"] == "c0ffee12"
    assert camp.provenance_for("flydsl_t64")["candidate_commit"] == "c0ffee12"
    assert camp.provenance_for("aiter_asm")["candidate_commit"] == "4f1e0a27"


def test_equal_suites_go_to_the_latest_timestamp_utc(tmp_path):
    folder = tmp_path / "op"
    folder.mkdir()
    rows = (FIXTURE / "results_smoke.jsonl").read_text()
    for suite, stamp in (("a", "2026-06-13T08:00:00Z"), ("b", "2026-06-12T09:30:00Z")):
        (folder / f"results_{suite}.jsonl").write_text(rows)
        (folder / f"metadata_{suite}.json").write_text(json.dumps({"timestamp_utc": stamp}))
    assert read_campaign_folder(folder).suite == "a"


def test_failures_only_the_log_and_report_record_count_per_variant():
    """run_full.log: flydsl_t64's worker dies of a GPU memory fault at b2_s4096 (no row from there
    on), flydsl_fwd_v3 raises an AssertionError at b4_s8192 (twice in the log: the traceback and
    the harness's line); BENCHMARK_REPORT.md's table records both again: two failures in all."""
    camp = read_campaign_folder(FIXTURE)
    got = [(f.provider, f.label, f.kind, f.file, f.line) for f in camp.logged_failures]
    assert got == [("flydsl_t64", "b2_s4096_h32_d128", "GPU memory fault", "run_full.log", 15),
                   ("flydsl_fwd_v3", "b4_s8192_h32_d128", "AssertionError", "run_full.log", 26)]
    assert {p: len(fs) for p, fs in campaign_logs.failures_by_provider(camp.logged_failures).items()} == {
        "flydsl_t64": 1, "flydsl_fwd_v3": 1}
    # the rows alone say nothing of them: every row is ok
    assert {r.status for r in camp.rows} == {"ok"}
    report_only = campaign_logs.read_failures(str(FIXTURE), [str(FIXTURE / "BENCHMARK_REPORT.md")],
                                              camp.providers, LABELS)
    assert [(f.provider, f.label, f.kind) for f in report_only] == [
        ("flydsl_t64", "b2_s4096_h32_d128", "GPU memory fault"), ("flydsl_fwd_v3", "b4_s8192_h32_d128", "AssertionError")]


def test_a_failure_line_naming_no_provider_is_not_counted(tmp_path):
    log = tmp_path / "run.log"
    log.write_text("starting\nMemory access fault by GPU node-2 on address 0x0\n"
                   "label=b1 provider=flydsl_x start\nhipErrorIllegalAddress\n", encoding="utf-8")
    got = campaign_logs.read_failures(str(tmp_path), [str(log)], ["flydsl_x"], ["b1"])
    assert [(f.provider, f.label, f.kind) for f in got] == [("flydsl_x", "b1", "HIP error")]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A sweep holding the fixture as benchmarks/examples/flash_attn_current, built."""
    from generator.cli import main

    root = tmp_path_factory.mktemp("second")
    shutil.copytree(FIXTURE, root / "sweep" / "benchmarks" / "examples" / "flash_attn_current")
    assert main(["build", str(root / "sweep"), "--out", str(root / "site"), "--quiet", "--jobs", "1"]) == 0
    return root / "site"


def _facts(page: str) -> dict[str, str]:
    """The kernel page's facts: label -> English value (tags removed, the 中文 span left out)."""
    out = {}
    for m in re.finditer(r"<dt[^>]*>(.*?)</dt>\s*<dd[^>]*>(.*?)</dd>", page, re.S):
        value = re.sub(r"<span class=\"zh-only\">.*", "", m.group(2), flags=re.S)
        out[html.unescape(re.sub(r"<[^>]+>", "", m.group(1)).strip())] = html.unescape(re.sub(r"<[^>]+>", "", value).strip())
    return out


def test_the_kernel_page_reads_the_second_layout(site):
    page = (site / "kernels" / "flash_attn_current" / "index.html").read_text(encoding="utf-8")
    doc = json.loads((site / "api" / "kernels" / "flash_attn_current.json").read_text(encoding="utf-8"))
    index = json.loads((site / "api" / "index.json").read_text(encoding="utf-8"))
    row = index["kernels"][0]
    assert (row["name"], row["category"]) == ("Flash Attn Current", "attention")
    assert doc["score"]["worst"]["args"] == {"B": 1, "D": 128, "H": 16, "Hkv": 16, "S": 512, "causal": True,
                                             "dtype": "bf16"}
    facts = _facts(page)
    assert "reference provider" not in facts  # pytorch, the default reference, has no row here
    # wins: 66/60 = 1.10, 180/150 = 1.20, 500/400 = 1.25, 210/200 = 1.05; b1_s512 (30 vs 27 us) at the floor
    assert facts["wins / parity / losses"] == "4 / 0 / 1"
    assert [s["shape_id"] for s in doc["score"]["shapes"] if s["unverified"]] == LABELS[2:]
    assert facts["best shape"].startswith("1.25x vs aiter_asm (B=4 S=8192 H=32 Hkv=8 D=128 dtype=\"bf16\" causal=true)")
    assert facts["best shape"].endswith("; correctness not checked")
    assert page.count("o-unverified") == 2 * 3  # speedup and verdict ratio cells of the three unchecked shapes
    assert page.count('title="correctness not checked"') == 2 * 3
    assert "verdict ratio 1.25x vs aiter_asm; correctness not checked" in page  # the per-shape chart's hover
    assert facts["failures the run's logs record"] == ("flydsl_t64 1 (GPU memory fault at b2_s4096_h32_d128); "
                                                       "flydsl_fwd_v3 1 (AssertionError at b4_s8192_h32_d128), "
                                                       "recorded in run_full.log")
    assert [f["provider"] for f in doc["score"]["logged_failures"]] == ["flydsl_t64", "flydsl_fwd_v3"]
    assert facts["candidate_commit"] == "c0ffee12" and facts["arch"] == "gfx950"
    assert page.count("<h1") == 1  # the report's "# flash_attn_current: ..." sits under its file's h3
    assert '<h4 id="report-flash_attn_current-full-suite-on-mi350x">' in page
    assert "max_err" not in page and "expected_auto_path" not in page


def test_a_model_spelled_two_ways_in_one_ledger_is_one_split(tmp_path):
    """Hand-made: the first label says Qwen3, the second qwen3: one model, its first spelling, 2 shapes."""
    from generator.analyze.verdicts import score_folder
    from generator.config import SweepConfig

    folder = tmp_path / "op"
    shutil.copytree(FIXTURE, folder)
    rows = [json.loads(x) for x in (folder / "results_full.jsonl").read_text().splitlines()]
    spelled = {LABELS[0]: "Qwen3", LABELS[1]: "qwen3|Llama3"}
    (folder / "results_full.jsonl").write_text("".join(json.dumps({**r, "model": spelled.get(r["label"], "")}) + "\n"
                                                       for r in rows))
    camp = read_campaign_folder(folder)
    assert [s.model for s in camp.ledger[:2]] == ["Qwen3", "Qwen3|Llama3"]
    s = score_folder(str(folder), SweepConfig())
    assert {m: v[1] for m, v in s.model_split.items()} == {"Qwen3": 2, "Llama3": 1, "": 3}  # "": no model
