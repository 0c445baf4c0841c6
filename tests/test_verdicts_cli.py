"""``kernel-atlas verdicts``: JSON, Markdown and text output; exit status on bad input."""

from __future__ import annotations

import json
import shutil

import pytest

from generator.cli import main
from generator.model import FORMAT_VERSION
from verdict_oracle import kernel_vs_any, kernel_noise, verdict_geomean


def run_cli(capsys, *argv):
    rc = main(["verdicts", *map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def make_tmp_sweep(sweep, tmp_path, ops):
    """A sweep in tmp_path holding copies of some real campaigns (writable)."""
    for op in ops:
        dest = tmp_path / "benchmarks" / "examples" / op
        shutil.copytree(sweep / "benchmarks" / "examples" / op, dest, copy_function=shutil.copyfile)
        dest.chmod(0o755)
    return tmp_path


def break_ledger(folder, at=4):
    path = folder / "shape_ledger.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:at] + ["{oops\n"] + lines[at:]))


def _rounded(value):
    """A JSON value with its floats to 3 decimals (lists element by element)."""
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def test_json_matches_reference_numbers(sweep, capsys):
    rc, out, err = run_cli(capsys, sweep, "--json")
    assert rc == 0 and err == ""
    doc = json.loads(out)
    assert doc["format_version"] == FORMAT_VERSION
    # the campaigns with a ledger and no results: attention_prefill, batched_gemm, paged_attention, rope and
    # serving_scenarios in the sweep, attention_prefill in the slice
    assert sorted(doc["untimed"]) == sorted(d.name for d in (sweep / "benchmarks" / "examples").iterdir()
                                            if not (d / "benchmark_results.jsonl").exists())
    assert doc["errors"] == {}
    with open(sweep / "expected" / "verdicts.json") as fh:
        expected = json.load(fh)
    assert sorted(doc["campaigns"]) == sorted(expected)
    for op, want in expected.items():
        got = doc["campaigns"][op]
        for key, value in want.items():
            if isinstance(value, float):
                assert round(got[key], 3) == round(value, 3), (op, key)
            elif isinstance(value, dict) and key == "loss_split":  # rule 15: sides [g, n], shapes in order
                assert {k: _rounded(v) for k, v in got[key].items()} == {k: _rounded(v) for k, v in value.items()}
            elif isinstance(value, dict):
                assert {k: [round(v[0], 3), v[1]] for k, v in got[key].items()} == \
                       {k: [round(v[0], 3), v[1]] for k, v in value.items()}, (op, key)
            elif isinstance(value, list):  # [geomean, n], [us, n], [lo, hi]: numbers to 3 decimals, counts exact
                assert [round(x, 3) if isinstance(x, float) else x for x in got[key]] == \
                       [round(x, 3) if isinstance(x, float) else x for x in value], (op, key)
            else:
                assert got[key] == value, (op, key)
        assert "shapes" not in got
    assert all(got["path"] == f"benchmarks/examples/{op}" for op, got in doc["campaigns"].items())
    assert str(sweep) not in out  # no local paths


def test_json_with_shapes_is_deterministic(sweep, capsys):
    folder = sweep / "benchmarks" / "examples" / "quant"
    rc, out, _ = run_cli(capsys, folder, "--json", "--shapes")
    rc2, out2, _ = run_cli(capsys, folder, "--json", "--shapes")
    assert rc == rc2 == 0 and out == out2
    quant = json.loads(out)["campaigns"]["quant"]
    assert len(quant["shapes"]) == 12
    assert quant["name"] == "Per-Token Quant"  # a folder inside a sweep reads the sweep's kernels.json
    first = quant["shapes"][0]
    assert set(first["providers"]) >= {"flydsl", "pytorch", "triton"}
    assert first["providers"]["triton"]["status"] == "failed"


def test_markdown_table(sweep, capsys):
    rc, out, _ = run_cli(capsys, sweep, "--markdown")
    assert rc == 0
    lines = out.splitlines()
    assert lines[0] == ("| Kernel | Verdict | Ratio | Interval | Basis | Launch overhead | Vs any baseline | Wins | "
                        "At floor | Weighted | Failures | Worst shape |")
    # 7 verdict shapes: too few for rule 14's interval (no longer "uncertain" by the p90/p10 spread); the launch
    # overhead of rule 13 beside, a lower bound: at least +36.8 us a call over pytorch's on 8 launch shapes
    assert "| Vector Add (`vec_add`) | **HEADROOM** | 0.92x | too few shapes (7) for an interval | shapes | " \
           "\u2265+36.8 us vs pytorch | 0.95x | 0 of 12 | 5 | \u2014 | none | 0.77x vs aiter_triton `n=7340032` |" in lines
    row = next(x for x in lines if "`moe_blockscale`" in x)
    # VERDICTS rule 7: the 6 shapes aiter fails too are suspect, not hard failures; rule 12: the pair decides;
    # rule 16: its graph replay misses work, so no "vs any" rests on its shapes; aiter's fused call times other
    # work too (routing and sorting), so no launch overhead is read from it
    assert "**HEADROOM**, from the profiled pair vs CK: 0.82x" in row and "| 2 harness |" in row
    assert ("| 0.82x | one shape (the profiled pair) | pair | +43.5 us vs aiter (other scope) | \u2014 | \u2014 |" in row
            and "not like-for-like" in row)
    timed = [d for d in (sweep / "benchmarks" / "examples").iterdir() if (d / "benchmark_results.jsonl").is_file()]
    assert sum(1 for x in lines if x.startswith("| ") and "`)" in x) == len(timed)  # 13 in the sweep


@pytest.mark.full_sweep
def test_markdown_table_row_of_rmsnorm(sweep, capsys):
    rc, out, _ = run_cli(capsys, sweep, "--markdown")
    assert rc == 0
    assert "| RMSNorm (`rmsnorm`) | **HEADROOM**; call time 0.89x, host events: 25.1 us around a 7.8 us kernel | 0.81x | " \
           "shapes 0.78\u20130.85, model shapes 0.73\u20130.77 | shapes | \u2265+41.4 us vs the fastest (aiter at 83 of 84) | 0.88x | " \
           "6 of 153 | 83 | 0.82x | " \
           "6 hard | 0.58x vs aiter_triton `M=16384 N=7168 eps=1e-05` |" in out.splitlines()


def test_markdown_rows_agree_with_the_reference_numbers(sweep, capsys):
    """Every campaign's Markdown row (rmsnorm's 6 hard failures and weighted 0.82x in the whole sweep) against
    expected/verdicts.json; a pair's ratio from kernels.json's baseline_us / flydsl_us."""
    expected = json.loads((sweep / "expected" / "verdicts.json").read_text())
    pairs = {e["multishape"]["summary_url"].split("/benchmarks/examples/")[1].split("/")[0]: e["baseline_us"] / e["flydsl_us"]
             for e in json.loads((sweep / "docs/data/kernels.json").read_text())["kernels"] if e.get("flydsl_us")}
    rc, out, _ = run_cli(capsys, sweep, "--markdown")
    assert rc == 0
    for op, want in expected.items():
        row = next(x for x in out.splitlines() if f"(`{op}`) |" in x)
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        ratio = {"shapes": (want["verdict_geomean"] or [None])[0], "pair": pairs.get(op)}.get(want["verdict_basis"])
        weighted = want["weighted_geomean_vs_best"]
        assert cells[1].startswith(f"**{want['verdict']}**"), op
        if want["pair_clock"] == "call":  # rule 13: a pair on the call clock is named as call time beside
            assert f"call time {pairs[op]:.2f}x" in cells[1], op
        ci, launch = want["verdict_ci"], want["launch_overhead_us"]
        assert cells[2] == (f"{ratio:.2f}x" if ratio else "\u2014"), op
        assert cells[3].startswith(f"shapes {ci[0]:.2f}\u2013{ci[1]:.2f}") if ci else not cells[3].startswith("shapes"), op
        assert cells[4] == want["verdict_basis"], op
        assert f"{launch[0]:+.1f} us vs " in cells[5] if launch else cells[5] == "\u2014", op
        # vs any, wins and the worst shape: over the kernel-clock shapes below every roof (tests/verdict_oracle.py),
        # none where the replay misses work (rule 16)
        g, n, wins = kernel_vs_any(sweep / "benchmarks" / "examples" / op)
        shown = ["\u2014", "\u2014"] if want["graph_partial"] else [f"{g:.2f}x", f"{wins} of {n}"]
        assert cells[6:10] == [*shown, str(want["at_floor"] or "\u2014"), f"{weighted:.2f}x" if weighted else "\u2014"], op
        assert cells[10].startswith(f"{want['hard_failures']} hard") if want["hard_failures"] else "hard" not in cells[10], op
        assert cells[11] == "\u2014" if want["graph_partial"] else " vs " in cells[11], op


def test_text_table_row_of_a_pair_campaign(sweep, capsys):
    """moe_blockscale (the slice holds it; moe_gemm is the whole sweep's other "*" pair row): kernels.json's
    pair 44.0 us (CK) / 53.8 us = 0.82x decides; its graph replay misses work (rule 16, expected/verdicts.json's
    graph_partial), so no "vs any" stands beside it (expected's geomean_vs_best 7.09x rests on those rows);
    attention_prefill's ledger holds 42 lines."""
    want = json.loads((sweep / "expected" / "verdicts.json").read_text())["moe_blockscale"]
    rc, out, _ = run_cli(capsys, sweep)
    assert rc == 0
    row = next(line.split() for line in out.splitlines()[2:] if line.split()[:1] == ["moe_blockscale"])
    assert want["graph_partial"] and round(want["geomean_vs_best"], 2) == 7.09
    assert row[:6] == ["moe_blockscale", "HEADROOM*", f"{44.0 / 53.8:.2f}x", "pair", "\u2014", "\u2014"]
    assert "untimed (ledger only): attention_prefill (42 shapes)" in out


@pytest.mark.full_sweep
def test_text_table(sweep, capsys):
    rc, out, _ = run_cli(capsys, sweep)
    assert rc == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:15]}
    assert rows["softmax"][:7] == ["softmax", "WIN?", "1.19x", "shapes", "1.08x", "29", "of"]  # rule 14: its model shapes
    assert rows["gemm"][1:5] == ["HEADROOM", "0.48x", "shapes", "0.50x"]
    assert rows["moe_gemm"][1:5] == ["WIN*", "1.11x", "pair", "\u2014"]  # rule 16: no "vs any" (5.19x) on its rows
    assert "untimed (ledger only): attention_prefill (42 shapes)" in out


@pytest.mark.parametrize("op", ["pa_decode", "quant", "vec_add"])
def test_text_table_row_of_a_slice_campaign(sweep, capsys, op):
    """The campaigns the slice holds: each row's ratio, at-floor count and uncertainty worked from the raw
    rows (tests/verdict_oracle.py, at the sweep's floor), the rest from expected/verdicts.json."""
    want = json.loads((sweep / "expected" / "verdicts.json").read_text())[op]
    folder = sweep / "benchmarks" / "examples" / op
    ratio, _, at_floor, _ = verdict_geomean(folder, floor=want["floor_us"])
    uncertain = bool(want["uncertain_ci"] or want["uncertain_models"])  # rule 14: the intervals'
    rc, out, _ = run_cli(capsys, sweep)
    assert rc == 0
    row = next(line.split() for line in out.splitlines()[2:] if line.split()[:1] == [op])
    g, n, wins = kernel_vs_any(folder)  # vs any over the kernel-clock shapes below every roof (pa_decode: 10 of 12)
    assert row[:8] == [op, want["verdict"] + ("?" if uncertain else ""), f"{ratio:.2f}x", "shapes",
                       f"{g:.2f}x", str(wins), "of", str(n)]
    assert row[9] == (str(at_floor) if at_floor else "\u2014")


def test_text_shapes_table(sweep, tmp_path, capsys):
    root = make_tmp_sweep(sweep, tmp_path, ["pa_decode"])  # the campaign and kernels.json, no configured floor
    (root / "docs" / "data").mkdir(parents=True)
    shutil.copyfile(sweep / "docs" / "data" / "kernels.json", root / "docs" / "data" / "kernels.json")
    rc, out, _ = run_cli(capsys, root / "benchmarks" / "examples" / "pa_decode", "--shapes")
    assert rc == 0
    # read alone, the campaign's own floor (17.80 us: 2 shapes below 1.25x it); the two sliding-window
    # shapes, where flydsl's graph capture failed, leave the verdict (rule 10): tests/verdict_oracle.py gives
    # 0.750 over 8 from the raw rows
    g, n, at_floor, _ = verdict_geomean(root / "benchmarks" / "examples" / "pa_decode")
    assert (f"{g:.3f}", n, at_floor) == ("0.750", 8, 2)
    assert ("pa_decode (Paged-Attn Decode (PS)): HEADROOM, verdict geomean 0.750x < 0.95 over 8 shapes against "
            "a comparable baseline") in out
    assert sum(1 for x in out.splitlines() if x.startswith("batch=") and "x floor" in x) == 2
    header = next(x for x in out.splitlines() if x.startswith("args"))
    assert header.split()[:6] == ["args", "stage", "model", "weight", "flydsl", "gluon"]


def test_single_bad_campaign_folder_exits_2_with_one_line(sweep, tmp_path, capsys):
    root = make_tmp_sweep(sweep, tmp_path, ["vec_add"])
    folder = root / "benchmarks" / "examples" / "vec_add"
    break_ledger(folder)
    rc, out, err = run_cli(capsys, folder)
    assert rc == 2 and out == ""
    assert err.splitlines() == [f"kernel-atlas: error: {folder / 'shape_ledger.jsonl'}:5: "
                                "not JSON: Expecting property name enclosed in double quotes (column 2)"]


def test_sweep_with_a_broken_campaign_scores_the_others(sweep, tmp_path, capsys):
    root = make_tmp_sweep(sweep, tmp_path, ["vec_add", "pa_decode", "quant"])
    break_ledger(root / "benchmarks" / "examples" / "pa_decode")
    rc, out, err = run_cli(capsys, root, "--json")
    assert rc == 1
    assert err.splitlines() == ["kernel-atlas: broken pa_decode: benchmarks/examples/pa_decode/shape_ledger.jsonl:5: "
                                "not JSON: Expecting property name enclosed in double quotes (column 2)"]
    doc = json.loads(out)
    assert sorted(doc["campaigns"]) == ["quant", "vec_add"]
    assert doc["errors"] == {"pa_decode": "benchmarks/examples/pa_decode/shape_ledger.jsonl:5: not JSON: "
                                        "Expecting property name enclosed in double quotes (column 2)"}
    assert str(tmp_path) not in out
    rc, out, _ = run_cli(capsys, root)
    assert rc == 1 and "vec_add" in out and "quant" in out


def test_config_option_and_missing_path(sweep, tmp_path, capsys):
    cfg = tmp_path / "strict.toml"
    cfg.write_text("[thresholds]\nwin = 1.2\nheadroom = 0.9\n")
    rc, out, _ = run_cli(capsys, sweep / "benchmarks" / "examples" / "vec_add", "--json", "--config", cfg)
    assert rc == 0
    assert json.loads(out)["campaigns"]["vec_add"]["verdict"] == "PARITY"
    rc, out, err = run_cli(capsys, tmp_path / "nope")
    assert rc == 2 and err.strip().endswith("nope: no such file or directory")
    (tmp_path / "bad.toml").write_text("win = [\n")
    rc, _, err = run_cli(capsys, sweep / "benchmarks" / "examples" / "vec_add", "--config", tmp_path / "bad.toml")
    assert rc == 2 and err.startswith(f"kernel-atlas: error: {tmp_path / 'bad.toml'}:")


def test_output_formats_are_exclusive(sweep, capsys):
    with pytest.raises(SystemExit) as info:
        main(["verdicts", str(sweep), "--json", "--markdown"])
    assert info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_examples_folder_finds_the_sweep_root(sweep, capsys):
    rc, out, _ = run_cli(capsys, sweep / "benchmarks" / "examples", "--json")
    assert rc == 0
    pa = json.loads(out)["campaigns"]["pa_decode"]
    assert (pa["name"], pa["path"], pa["bundles"]) == ("Paged-Attn Decode (PS)", "benchmarks/examples/pa_decode", ["pa"])


# ---------------------------------------------------------------- issue 14, point 2


def test_a_folder_under_examples_that_is_not_a_campaign_exits_2(sweep, tmp_path, capsys):
    """``benchmarks/examples/flash_attn_current`` without campaign files: one line, exit 2 (not the whole sweep)."""
    root = make_tmp_sweep(sweep, tmp_path, ["pa_decode", "quant"])
    odd = root / "benchmarks" / "examples" / "flash_attn_current"
    odd.mkdir()
    (odd / "notes.txt").write_text("not a campaign\n")
    rc, out, err = run_cli(capsys, odd)
    assert (rc, out) == (2, "")
    assert err == (f"kernel-atlas: error: {odd}: not a campaign folder: no shape_ledger.jsonl, "
                   "benchmark_results.jsonl or .csv, or results_<suite>.jsonl or .csv\n")
    # a campaign copied without its ledger, outside any sweep
    lone = tmp_path / "lone" / "pa_decode"
    shutil.copytree(sweep / "benchmarks" / "examples" / "pa_decode", lone, copy_function=shutil.copyfile)
    (lone / "shape_ledger.jsonl").unlink()
    rc, out, err = run_cli(capsys, lone)
    assert (rc, out) == (2, "")
    assert err == f"kernel-atlas: error: {lone / 'shape_ledger.jsonl'}: missing: the shape ledger is needed to score the results\n"
    # a file where a folder is expected
    rc, out, err = run_cli(capsys, sweep / "benchmarks" / "examples" / "pa_decode" / "shape_ledger.jsonl")
    assert (rc, out) == (2, "") and err.count("\n") == 1
    assert "not a folder (expected a sweep root, a folder of campaigns or a campaign folder" in err


def test_json_lists_broken_campaigns_as_build_does(sweep, tmp_path, capsys):
    """A folder under benchmarks/examples/ that is no campaign: ``errors`` in verdicts --json and broken in build."""
    root = make_tmp_sweep(sweep, tmp_path / "sweep", ["pa_decode", "quant"])
    odd = root / "benchmarks" / "examples" / "flash_attn_current"
    odd.mkdir()
    (odd / "notes.txt").write_text("not a campaign\n")
    rc, out, err = run_cli(capsys, root, "--json")
    assert rc == 1
    doc = json.loads(out)
    assert doc["errors"] == {"flash_attn_current": "benchmarks/examples/flash_attn_current: not a campaign folder: "
                                                   "no shape_ledger.jsonl, benchmark_results.jsonl or .csv, "
                                                   "or results_<suite>.jsonl or .csv"}
    assert sorted(doc["campaigns"]) == ["pa_decode", "quant"]
    assert err == f"kernel-atlas: broken flash_attn_current: {doc['errors']['flash_attn_current']}\n"
    site = tmp_path / "site"
    assert main(["build", str(root), "--out", str(site), "--quiet"]) in (0, 1)
    capsys.readouterr()
    index = json.loads((site / "api" / "index.json").read_text())
    assert sorted(index["errors"]) == sorted(doc["errors"])
    # the same sweep's examples folder finds the same error
    rc, out, err = run_cli(capsys, root / "benchmarks" / "examples", "--json")
    assert rc == 1 and json.loads(out)["errors"] == doc["errors"]
