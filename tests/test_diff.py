"""diff: two sweeps made from the shared one, with exact expected changes and causes.

Every expected number below was computed from the real files apart from the code under test:
by hand, or by tests/verdict_oracle.py (it reads benchmark_results.jsonl itself: the last usable
row per (shape, provider), the fastest usable baseline, p90/p10 spreads, the verdict ratio), or
from the sweep's expected/verdicts.json. The pairs use campaigns the slice holds too (quant,
vec_add, pa_decode, moe_blockscale); only flash_attn_func's before/after captures need the whole sweep.
"""

from __future__ import annotations

import json
import math

import pytest

from generator import cli
from generator.sweeps.diff import (
    DIFF_MARKER,
    DiffOptions,
    beats,
    diff_document,
    diff_snapshots,
    render_markdown,
    render_text,
    threshold_factor,
)
from generator.errors import InputError
from generator.sweeps.snapshot_sources import load_snapshot, snapshot_from_sweep
from verdict_oracle import kernel_ratios, kernel_noise, shape_noises, shape_pairs, verdict_geomean
from test_snapshot import (
    FA_AFTER,
    FA_BEFORE,
    chain,
    fail_provider,
    make_sweep_copy,
    scale_provider,
    set_fields,
)

FA_G = 0.8701317900866257  # flash_attn's geomean_vs_best in expected/verdicts.json


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- the rules


def test_threshold_beats_noise_and_floor():
    assert threshold_factor([1.08, 1.06], 0.02) == 1.08
    assert threshold_factor([None, 1.0], 0.02) == 1.02
    assert threshold_factor([1.01], 0.05) == 1.05
    assert beats(1 / 1.2, 1.08) and beats(1.2, 1.08)
    assert not beats(1.05, 1.08) and not beats(1 / 1.05, 1.08)
    assert not beats(1.08, 1.08)  # strictly beyond
    assert not beats(None, 1.02)


# ---------------------------------------------------------------- before / after captures of flash_attn_func


@pytest.fixture(scope="module")
def fa_pair(sweep, tmp_path_factory):
    base = tmp_path_factory.mktemp("fa")
    old = make_sweep_copy(sweep, base / "before", FA_BEFORE, {"flash_attn": None})
    new = make_sweep_copy(sweep, base / "after", FA_AFTER, {"flash_attn": None})
    return old, new


@pytest.mark.full_sweep
def test_before_after_capture_is_a_hotspot_and_provenance_change(fa_pair):
    old, new = fa_pair
    d = diff_snapshots(snapshot_from_sweep(old), snapshot_from_sweep(new))
    assert [k.slug for k in d.kernels] == ["flash_attn_func"]
    k = d.kernels[0]
    assert (k.old_verdict, k.new_verdict) == ("HEADROOM", "HEADROOM")
    assert k.old_geomean == k.new_geomean == pytest.approx(FA_G, rel=1e-12)
    assert not k.significant and k.direction == "neutral"
    assert [(c.kind, c.item) for c in k.changes] == [("hotspot", "stall_ratio"), ("provenance", "capture")]
    ratio = k.changes[0]
    # both captures: top stall type "other", 2 waves/SIMD bound by VGPRs; only the stall ratio moves
    assert ratio.old == pytest.approx(1677652 / 2855224, rel=1e-12)
    assert ratio.new == pytest.approx(1754236 / 3000156, rel=1e-12)
    assert ratio.text == "stall ratio 58.8% → 58.5% (-0.3 points)"
    assert k.changes[1].old.endswith("big/ui_output_agent_38430_dispatch_44")
    assert k.changes[1].new.endswith("big/ui_output_agent_55287_dispatch_44_after_loc_fix")
    assert d.regressions == [] and d.improvements == [] and d.notable == []


@pytest.mark.full_sweep
def test_before_after_markdown_has_no_table(fa_pair, capsys):
    old, new = fa_pair
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--markdown")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == DIFF_MARKER
    assert lines[1] == "### Kernel Atlas: `before` → `after`"
    assert lines[3] == "**no significant change of any kernel's standing · verdicts HEADROOM 1**"
    assert "| Kernel |" not in out
    assert "- [Flash Attention](kernels/flash_attn_func/): stall ratio 58.8% → 58.5% (-0.3 points)" in out


# ---------------------------------------------------------------- a WIN lost: the candidate got slower (x1.2)


@pytest.fixture(scope="module")
def win_pair(sweep, tmp_path_factory):
    """A WIN that regresses, on quant (the slice holds it): the candidate's times x0.8 (a verdict ratio of
    1.10x: WIN), then x0.96 (1.2x slower than that: 0.87x, HEADROOM) at commit abcdef12."""
    base = tmp_path_factory.mktemp("win")
    fast = make_sweep_copy(sweep, base / "base", (), {"quant": scale_provider("flydsl", 0.8)})
    slow = make_sweep_copy(sweep, base / "head", (),
                           {"quant": scale_provider("flydsl", 0.96, candidate_commit="abcdef12")})
    return fast, slow


@pytest.fixture(scope="module")
def win_expect(sweep):
    """The WIN pair's numbers from quant's raw rows (tests/verdict_oracle.py) and expected/verdicts.json:
    the verdict ratio (and its shapes, and those at the timing floor) at x0.8 and x0.96, the geomean over
    every shape, the noises, each shape's speedup as measured."""
    folder = sweep / "benchmarks" / "examples" / "quant"
    pairs = shape_pairs(folder)
    return {"folder": folder, "g": json.loads((sweep / "expected" / "verdicts.json").read_text())["quant"][
                "geomean_vs_best"] / 0.8,
            "before": verdict_geomean(folder, scale=0.8), "after": verdict_geomean(folder, scale=0.96),
            "noise": kernel_noise(folder), "shape_noise": shape_noises(folder),
            "speedup": {sid: b["median_us"] / c["median_us"] / 0.8 for sid, (c, b) in pairs.items()},
            "args": {sid: (c["args"], c["dtype"]) for sid, (c, _) in pairs.items()}}


VEC_ADD_CAPTURE = ("vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25",)


@pytest.fixture(scope="module")
def vec_add_pair(sweep, tmp_path_factory):
    """Any real pair serves the tests of options, errors and sides: vec_add (in the slice too) as measured,
    and with the candidate 1.2x slower at commit abcdef12."""
    base = tmp_path_factory.mktemp("va")
    same = make_sweep_copy(sweep, base / "base", VEC_ADD_CAPTURE, {"vec_add": None})
    slow = make_sweep_copy(sweep, base / "head", VEC_ADD_CAPTURE,
                           {"vec_add": scale_provider("flydsl", 1.2, candidate_commit="abcdef12")})
    return same, slow


@pytest.fixture(scope="module")
def win_diff(win_pair):
    old, new = win_pair
    return diff_snapshots(snapshot_from_sweep(old), snapshot_from_sweep(new))


def test_scaled_candidate_verdict_and_geomean(win_diff, win_expect):
    d, e = win_diff, win_expect
    assert e["before"][0] >= 1.05 > 0.95 > e["after"][0]  # WIN -> HEADROOM by the VERDICTS thresholds
    assert [k.slug for k in d.regressions] == ["quant"] and d.improvements == []
    assert d.old_counts == {"WIN": 1} and d.new_counts == {"HEADROOM": 1}
    k = d.kernels[0]
    v, g = k.verdict_change, k.geomean_change
    assert (v.old, v.new, v.direction) == ("WIN", "HEADROOM", "regression")
    assert g.old == pytest.approx(e["g"], rel=1e-12)  # 1.1131...
    assert g.new == pytest.approx(e["g"] / 1.2, rel=1e-12)  # 0.9276...
    assert g.ratio == pytest.approx(1 / 1.2, rel=1e-12)
    assert g.threshold == pytest.approx(e["noise"], rel=1e-12)  # noise unchanged: p10 and p90 scaled too
    assert g.significant and g.direction == "regression"
    assert [c.to_json() for c in g.causes] == [
        {"kind": "candidate", "detail": "commit 7255fff8 → abcdef12 (candidate time ×1.20)", "sides": ["candidate"]}]
    assert v.causes == g.causes


def test_scaled_candidate_shapes(win_diff, win_expect):
    e = win_expect
    k = win_diff.kernels[0]
    shapes = k.of_kind("shape")
    assert len(shapes) == k.n_shapes_common == len(e["speedup"]) == 12
    beyond = {c.shape_id for c in shapes if c.significant}
    within = {c.shape_id for c in shapes if not c.significant}
    # the shapes whose own noise (p90/p10) is at least 1.2: a x1.2 move stays within it (2 of 12)
    noisy = {sid for sid, n in e["shape_noise"].items() if n >= 1.2}
    assert within == noisy == {"sha1:6233f9dd982dfa6c", "sha1:5fc92805404f0aac"} and len(beyond) == 10
    assert all(c.ratio == pytest.approx(1 / 1.2, rel=1e-12) for c in shapes)
    assert all(c.direction == "regression" for c in shapes)
    first = next(c for c in shapes if c.shape_id == "sha1:6233f9dd982dfa6c")  # the ledger's first shape
    assert (first.args, first.shape_text) == (e["args"][first.shape_id][0], "M=4096 N=8192 fp16")
    assert e["args"][first.shape_id][0] == {"M": 4096, "N": 8192} and e["args"][first.shape_id][1] == "fp16"
    assert first.old == pytest.approx(e["speedup"][first.shape_id], rel=1e-12)
    assert first.threshold == pytest.approx(e["shape_noise"][first.shape_id], rel=1e-12)  # 1.2214...
    assert [c.kind for c in first.causes] == ["noise"] and first.causes[0].detail == "within the noise (±22.1%)"
    assert not k.of_kind("shape-new", "shape-removed", "shape-status", "hotspot")
    prov = k.of_kind("provenance")
    assert [(c.item, c.old, c.new) for c in prov] == [("candidate_commit", "7255fff8", "abcdef12")]


def test_scaled_candidate_verdict_ratio(win_diff, win_expect):
    """The headline number is the ratio the verdict rests on (VERDICTS rule 12), worked from the raw rows by
    an independent reading (tests/verdict_oracle.py): slowed, the timing floor (the candidate's fastest row)
    rises and more shapes sit at it."""
    (before, n_before, floor_before, _), (after, n_after, floor_after, _) = win_expect["before"], win_expect["after"]
    assert (n_before, floor_before, n_after, floor_after) == (11, 1, 7, 5)
    r = win_diff.kernels[0].headline_change
    assert (r.kind, r.old, r.new) == ("verdict_ratio", pytest.approx(before, rel=1e-12), pytest.approx(after, rel=1e-12))
    assert r.significant and r.direction == "regression" and r.text.startswith("verdict ratio (shapes) 1.10x → 0.87x")


def test_scaled_candidate_markdown(win_pair, win_expect, capsys):
    old, new = win_pair
    e = win_expect
    argv = ("diff", str(old), str(new), "--markdown", "--site-url", "https://atlas.example/", "--max-rows", "4")
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == DIFF_MARKER
    move = f"{e['before'][0]:.2f}x → {e['after'][0]:.2f}x ({(e['after'][0] / e['before'][0] - 1) * 100:.1f}%)"
    assert move == "1.10x → 0.87x (-20.9%)"
    assert lines[3] == ("**1 regression, 0 improvements · verdicts WIN 1 → 0, HEADROOM 0 → 1 · "
                        f"biggest moves: Per-Token Quant {move}**")
    row = next(ln for ln in lines if ln.startswith("| [Per-Token Quant]"))
    assert row == (f"| [Per-Token Quant](https://atlas.example/kernels/quant/) | WIN → **HEADROOM** | {move} | "
                   "10 ↓ 0 ↑ of 12 | — | candidate: commit 7255fff8 → abcdef12 (candidate time ×1.20) |")
    assert "<summary>Per-shape changes beyond noise (10)</summary>" in out
    second = "sha1:422f86ffcc8b8536"  # the ledger's second shape, the first beyond its noise
    s = e["speedup"][second]
    assert f"| `M=2048 N=4096 fp16` | {s:.2f}x → {s / 1.2:.2f}x | -16.7% |" in out
    assert "| … and 6 more | | | |" in out  # 10 rows, 4 shown
    assert "- [Per-Token Quant](https://atlas.example/kernels/quant/): 2 shapes moved within noise" in out
    # stable: the same inputs give the same bytes
    assert run_cli(capsys, *argv)[1] == out


def test_scaled_candidate_json_and_exit_status(win_pair, capsys):
    old, new = win_pair
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--json", "--fail-on-regression")
    assert code == 1
    doc = json.loads(out)
    assert doc["format_version"] == 1 and doc["kind"] == "kernel-atlas-diff"
    assert doc["regressions"] == ["quant"] and doc["unchanged"] == []
    assert doc["old"] == {"label": "base", "verdict_counts": {"WIN": 1}}
    kinds = [c["kind"] for c in doc["kernels"][0]["changes"]]
    assert kinds.count("shape") == 12 and kinds[:3] == ["verdict", "verdict_ratio", "geomean"]
    assert str(old) not in out
    code, out, _ = run_cli(capsys, "diff", str(old), str(old), "--fail-on-regression")
    assert code == 0
    assert out.startswith("base → base: no significant change of any kernel's standing · verdicts WIN 1\n")


@pytest.fixture(scope="module")
def vec_add_expect(sweep):
    """What the vec_add pair should show, from the raw rows (tests/verdict_oracle.py) and the sweep's
    expected/verdicts.json (worked apart from the code): ratios, noises, per-shape speedups."""
    folder = sweep / "benchmarks" / "examples" / "vec_add"
    expected = json.loads((sweep / "expected" / "verdicts.json").read_text())["vec_add"]
    pairs = shape_pairs(folder)
    return {"g": expected["geomean_vs_best"], "verdict": expected["verdict"],
            "verdict_ci": expected["verdict_ci"], "uncertain_ci": expected["uncertain_ci"],
            "ratio": verdict_geomean(folder)[0], "slow_ratio": verdict_geomean(folder, scale=1.2)[0],
            "noise": kernel_noise(folder), "shape_noise": shape_noises(folder),
            "speedup": {sid: b["median_us"] / c["median_us"] for sid, (c, b) in pairs.items()},
            "args": {sid: c["args"] for sid, (c, _) in pairs.items()}}


@pytest.fixture(scope="module")
def vec_add_diff(vec_add_pair):
    old, new = vec_add_pair
    return diff_snapshots(snapshot_from_sweep(old), snapshot_from_sweep(new))


def test_vec_add_scaled_candidate_ratios_and_causes(vec_add_diff, vec_add_expect):
    d, e = vec_add_diff, vec_add_expect
    assert e["verdict"] == "HEADROOM" and e["slow_ratio"] < e["ratio"] < 0.95  # HEADROOM on both sides
    sp = e["speedup"].values()  # expected/verdicts.json's geomean is the raw rows' geomean over every shape
    assert e["g"] == pytest.approx(math.exp(sum(math.log(x) for x in sp) / len(sp)), rel=1e-12)
    assert [k.slug for k in d.regressions] == ["vec_add"] and d.improvements == []
    assert d.old_counts == d.new_counts == {"HEADROOM": 1}
    k = d.kernels[0]
    assert k.verdict_change is None and (k.old_verdict, k.new_verdict) == ("HEADROOM", "HEADROOM")
    cause = [{"kind": "candidate", "detail": "commit 7255fff8 → abcdef12 (candidate time ×1.20)",
              "sides": ["candidate"]}]
    g = k.geomean_change
    assert (g.old, g.new, g.ratio) == (pytest.approx(e["g"], rel=1e-12), pytest.approx(e["g"] / 1.2, rel=1e-12),
                                       pytest.approx(1 / 1.2, rel=1e-12))
    assert g.threshold == pytest.approx(e["noise"], rel=1e-12)  # p10 and p90 scaled too: the noise stays
    assert g.significant and g.direction == "regression" and [c.to_json() for c in g.causes] == cause
    r = k.headline_change
    assert (r.kind, r.old, r.new) == ("verdict_ratio", pytest.approx(e["ratio"], rel=1e-12),
                                      pytest.approx(e["slow_ratio"], rel=1e-12))
    assert r.ratio == pytest.approx(e["slow_ratio"] / e["ratio"], rel=1e-12) and r.significant
    # the slowed copy lifts shapes off the timing floor: 7 verdict shapes before (too few for rule 14's
    # interval), enough for one after
    assert r.text.startswith(f"verdict ratio (shapes) {e['ratio']:.2f}x → {e['slow_ratio']:.2f}x "
                             f"({(e['slow_ratio'] / e['ratio'] - 1) * 100:.1f}%, noise ±{(e['noise'] - 1) * 100:.1f}%, "
                             "interval \u2014 → ")
    assert e["verdict_ci"] is None and e["uncertain_ci"] is None
    assert [c.text for c in k.of_kind("flags")] == []
    assert [(c.item, c.old, c.new) for c in k.of_kind("provenance")] == [("candidate_commit", "7255fff8", "abcdef12")]


def test_vec_add_scaled_candidate_shapes(vec_add_diff, vec_add_expect):
    """Each shape's speedup falls by 1/1.2; it counts when 1.2 beats the shape's own noise and 5%."""
    e = vec_add_expect
    k = vec_add_diff.kernels[0]
    shapes = k.of_kind("shape")
    assert [c.shape_id for c in shapes] == list(e["speedup"]) and k.n_shapes_common == len(e["speedup"])
    for c in shapes:
        assert c.old == pytest.approx(e["speedup"][c.shape_id], rel=1e-12)
        assert c.ratio == pytest.approx(1 / 1.2, rel=1e-12) and c.direction == "regression"
        assert c.threshold == pytest.approx(max(e["shape_noise"][c.shape_id], 1.05), rel=1e-12)
        assert c.significant == (c.threshold < 1.2)
        assert c.args == e["args"][c.shape_id]
    assert sum(c.significant for c in shapes) == sum(max(n, 1.05) < 1.2 for n in e["shape_noise"].values())
    assert not k.of_kind("shape-new", "shape-removed", "shape-status", "hotspot")


def test_vec_add_scaled_candidate_markdown(vec_add_pair, vec_add_diff, vec_add_expect, capsys):
    old, new = vec_add_pair
    e = vec_add_expect
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--markdown", "--site-url", "https://atlas.example/")
    assert code == 0
    lines = out.splitlines()
    move = (f"{e['ratio']:.2f}x → {e['slow_ratio']:.2f}x ({(e['slow_ratio'] / e['ratio'] - 1) * 100:.1f}%)")
    n, down = len(e["speedup"]), sum(c.significant for c in vec_add_diff.kernels[0].of_kind("shape"))
    assert lines[0] == DIFF_MARKER
    assert lines[3] == f"**1 regression, 0 improvements · verdicts HEADROOM 1 · biggest moves: Vector Add {move}**"
    row = next(ln for ln in lines if ln.startswith("| [Vector Add]"))
    assert row == (f"| [Vector Add](https://atlas.example/kernels/vec_add/) | HEADROOM | {move} | "
                   f"{down} ↓ 0 ↑ of {n} | — | candidate: commit 7255fff8 → abcdef12 (candidate time ×1.20) |")
    assert f"<summary>Per-shape changes beyond noise ({down})</summary>" in out
    first = next(iter(e["speedup"]))
    assert (f"| `n={e['args'][first]['n']} fp32` | {e['speedup'][first]:.2f}x → {e['speedup'][first] / 1.2:.2f}x | "
            "-16.7% |") in out
    assert run_cli(capsys, "diff", str(old), str(new), "--markdown", "--site-url", "https://atlas.example/")[1] == out


def test_vec_add_scaled_candidate_json_and_exit_status(vec_add_pair, vec_add_expect, capsys):
    old, new = vec_add_pair
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--json", "--fail-on-regression")
    assert code == 1
    doc = json.loads(out)
    assert doc["format_version"] == 1 and doc["kind"] == "kernel-atlas-diff"
    assert doc["regressions"] == ["vec_add"] and doc["unchanged"] == []
    assert doc["old"] == {"label": "base", "verdict_counts": {"HEADROOM": 1}}
    kinds = [c["kind"] for c in doc["kernels"][0]["changes"]]
    assert kinds.count("shape") == len(vec_add_expect["speedup"]) and kinds[:2] == ["verdict_ratio", "geomean"]
    assert str(old) not in out
    code, out, _ = run_cli(capsys, "diff", str(old), str(old), "--fail-on-regression")
    assert code == 0
    assert out.startswith("base → base: no significant change of any kernel's standing · verdicts HEADROOM 1\n")


def test_vec_add_candidate_failing_every_shape(sweep, vec_add_expect, tmp_path, capsys):
    """Every vec_add shape stops being measured: HEADROOM → BLOCKED, each shape counted as lost."""
    e = vec_add_expect
    old = make_sweep_copy(sweep, tmp_path / "old", VEC_ADD_CAPTURE, {"vec_add": None})
    new = make_sweep_copy(sweep, tmp_path / "new", VEC_ADD_CAPTURE,
                          {"vec_add": fail_provider("flydsl", candidate_commit="abcdef12")})
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--markdown")
    n = len(e["speedup"])
    row = next(ln for ln in out.splitlines() if ln.startswith("| [Vector Add]"))
    # the geomean 0.9493 beside HEADROOM: three decimals, never "0.95x" across the 0.95 threshold (issue 40)
    assert 0.9485 <= e["g"] < 0.9495
    # the "Verdict ratio" column gives the ratio the verdict rests on (0.9151 over 7 verdict shapes,
    # expected/verdicts.json), not the geomean vs any baseline: BLOCKED rests on none
    assert row == (f"| [Vector Add](kernels/vec_add/) | HEADROOM → **BLOCKED** | 0.92x → — | "
                   f"{n} ↓ 0 ↑ of {n} | — | candidate: no longer measured on {n} shapes (commit 7255fff8 → abcdef12) |")
    assert f"<summary>Per-shape changes beyond noise ({n})</summary>" in out
    k = diff_snapshots(load_snapshot(old), load_snapshot(new)).kernels[0]
    status = k.of_kind("shape-status")
    assert [c.shape_id for c in status] == list(e["speedup"])
    assert all(c.significant and c.direction == "regression" for c in status)
    first = next(iter(e["speedup"]))
    assert status[0].text == f"no longer measured: failed (was {e['speedup'][first]:.2f}x)"


def test_github_summary_is_appended(vec_add_pair, capsys, tmp_path, monkeypatch):
    old, new = vec_add_pair
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--github-summary")
    assert code == 0 and out == ""
    text = summary.read_text()
    assert text.startswith("# earlier step\n### Kernel Atlas: `base` → `head`\n")
    assert DIFF_MARKER not in text


# ---------------------------------------------------------------- a baseline changed; the environment changed


@pytest.fixture(scope="module")
def quant_expect(sweep):
    """quant (a campaign the slice holds, no bundle) from its raw rows (tests/verdict_oracle.py): each shape's
    fastest baseline is aiter or aiter_triton (pytorch slower, triton failed), both at commit 32e1e6d76."""
    folder = sweep / "benchmarks" / "examples" / "quant"
    expected = json.loads((sweep / "expected" / "verdicts.json").read_text())["quant"]
    pairs = shape_pairs(folder)
    return {"folder": folder, "g": expected["geomean_vs_best"], "ratio": verdict_geomean(folder)[0],
            "noise": kernel_noise(folder), "shape_noise": shape_noises(folder),
            "best": {sid: b["provider"] for sid, (_, b) in pairs.items()}}


def test_baselines_changed_are_named(sweep, quant_expect, tmp_path):
    # every baseline 1.25x slower, the aiter libraries at a new commit: every speedup x1.25, HEADROOM -> WIN;
    # quant's shapes are compared with two baselines, each named as the cause of its own shapes' moves
    e = quant_expect
    faster = chain(scale_provider("pytorch", 1.25), scale_provider("triton", 1.25),
                   *[scale_provider(p, 1.25, candidate_commit="feedbeef", baseline_commit="feedbeef")
                     for p in ("aiter", "aiter_asm", "aiter_ck", "aiter_triton")])
    old = make_sweep_copy(sweep, tmp_path / "a", (), {"quant": None})
    new = make_sweep_copy(sweep, tmp_path / "b", (), {"quant": faster})
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    k = d.kernels[0]
    g = k.geomean_change
    assert g.ratio == pytest.approx(1.25, rel=1e-12) and g.new == pytest.approx(e["g"] * 1.25, rel=1e-12)
    # every baseline row x1.25 is the candidate x0.8 with all times (and the timing floor) x1.25: the same
    # shapes at the floor, so the oracle's ratio at scale 0.8 is the new verdict ratio (1.10x over 11 shapes)
    after, n_after, _, _ = verdict_geomean(e["folder"], scale=0.8)
    r = k.headline_change
    assert (r.kind, r.old, r.new) == ("verdict_ratio", pytest.approx(e["ratio"], rel=1e-12),
                                      pytest.approx(after, rel=1e-12))
    assert e["ratio"] < 0.95 and after >= 1.05  # HEADROOM -> WIN by the VERDICTS thresholds
    assert (k.old_verdict, k.new_verdict, k.direction) == ("HEADROOM", "WIN", "improvement")
    assert [c.text for c in g.causes] == [
        "baseline: aiter 32e1e6d76 → feedbeef (baseline time ×1.25)",
        "baseline: aiter_triton 32e1e6d76 → feedbeef (baseline time ×1.25)"]
    shapes = k.of_kind("shape")
    assert [c.shape_id for c in shapes] == list(e["best"])
    assert all(c.ratio == pytest.approx(1.25, rel=1e-12) and c.direction == "improvement" for c in shapes)
    assert all(c.significant == (max(e["shape_noise"][c.shape_id], 1.05) < 1.25) for c in shapes)
    # a shape that moved beyond its noise names its own baseline (5 aiter, 6 aiter_triton); the one whose
    # noise is wider than x1.25 (sha1:5fc92805404f0aac, p90/p10 1.37) moved within it
    beyond = {c.shape_id for c in shapes if c.significant}
    for provider in ("aiter", "aiter_triton"):
        named = {c.shape_id for c in shapes if c.causes and c.causes[0].detail.startswith(provider + " ")}
        assert named == {sid for sid, p in e["best"].items() if p == provider and sid in beyond} and named, provider
    assert [c.causes[0].kind for c in shapes if not c.significant] == ["noise"]


def test_environment_change_is_named(sweep, quant_expect, tmp_path):
    # ROCm upgraded everywhere and the candidate 15% faster with the same commit: HEADROOM -> PARITY
    e = quant_expect
    old = make_sweep_copy(sweep, tmp_path / "a", (), {"quant": None})
    new = make_sweep_copy(sweep, tmp_path / "b", (), {
        "quant": chain(set_fields(rocm_version="7.3.0"), scale_provider("flydsl", 0.85))})
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    k = d.kernels[0]
    g = k.geomean_change
    assert g.new == pytest.approx(e["g"] / 0.85, rel=1e-12)
    after = verdict_geomean(e["folder"], scale=0.85)[0]  # 0.984x over the same 7 shapes: PARITY
    assert k.headline_change.new == pytest.approx(after, rel=1e-12) and 0.95 <= after < 1.05
    assert (k.old_verdict, k.new_verdict, k.direction) == ("HEADROOM", "PARITY", "improvement")
    assert g.threshold == pytest.approx(e["noise"], rel=1e-12)
    assert [c.text for c in g.causes] == ["environment: rocm 7.2.0 → 7.3.0"]
    shapes = k.of_kind("shape")
    noisy = {sid for sid, n in e["shape_noise"].items() if max(n, 1.05) >= 1 / 0.85}  # 2 of 12
    assert {c.shape_id for c in shapes if not c.significant} == noisy and noisy
    assert sum(c.significant for c in shapes) == len(e["best"]) - len(noisy)
    assert [(c.item, c.old, c.new) for c in k.of_kind("provenance")] == [("rocm", "7.2.0", "7.3.0")]
    # the sweep-level provenance is kernels.json's (7.2.0 on both sides, a hand-kept wart);
    # the environment line comes from what each kernel's results measured
    assert d.provenance == []
    assert render_text(d).splitlines()[1] == "environment: rocm 7.2.0 → 7.3.0 (1 kernel)"
    assert "\nEnvironment changed: rocm 7.2.0 → 7.3.0 (1 kernel)\n" in render_markdown(d)


def test_vec_add_baselines_changed_are_named(sweep, vec_add_expect, tmp_path):
    """Every baseline 1.25x slower, the aiter ones at a new commit: every speedup x1.25, and the cause
    named is the baseline each shape is compared with (vec_add's fastest: aiter_triton, pytorch or triton)."""
    e = vec_add_expect
    slower = chain(scale_provider("pytorch", 1.25), scale_provider("triton", 1.25),
                   *[scale_provider(p, 1.25, candidate_commit="feedbeef", baseline_commit="feedbeef")
                     for p in ("aiter", "aiter_asm", "aiter_ck", "aiter_triton")])
    old = make_sweep_copy(sweep, tmp_path / "a", VEC_ADD_CAPTURE, {"vec_add": None})
    new = make_sweep_copy(sweep, tmp_path / "b", VEC_ADD_CAPTURE, {"vec_add": slower})
    k = diff_snapshots(load_snapshot(old), load_snapshot(new)).kernels[0]
    g = k.geomean_change
    assert g.ratio == pytest.approx(1.25, rel=1e-12) and g.new == pytest.approx(e["g"] * 1.25, rel=1e-12)
    assert e["ratio"] * 1.25 >= 1.05  # the verdict ratio crosses the WIN threshold (VERDICTS)
    assert (k.old_verdict, k.new_verdict, k.direction) == ("HEADROOM", "WIN", "improvement")
    best = {sid: b["provider"] for sid, (_, b) in shape_pairs(sweep / "benchmarks/examples/vec_add").items()}
    assert [c.text for c in g.causes] == ["baseline: aiter_triton 32e1e6d76 → feedbeef (baseline time ×1.25)"]
    shapes = k.of_kind("shape")
    assert [c.shape_id for c in shapes] == list(best)
    assert all(c.ratio == pytest.approx(1.25, rel=1e-12) and c.direction == "improvement" for c in shapes)
    assert all(c.significant == (max(e["shape_noise"][c.shape_id], 1.05) < 1.25) for c in shapes)
    named = {c.shape_id for c in shapes if c.causes and c.causes[0].detail.startswith("aiter_triton")}
    assert named == {sid for sid, p in best.items() if p == "aiter_triton"} and named


def test_vec_add_environment_change_is_named(sweep, vec_add_expect, tmp_path):
    """ROCm upgraded everywhere and the candidate 10% faster at the same commit: HEADROOM -> PARITY."""
    e = vec_add_expect
    old = make_sweep_copy(sweep, tmp_path / "a", VEC_ADD_CAPTURE, {"vec_add": None})
    new = make_sweep_copy(sweep, tmp_path / "b", VEC_ADD_CAPTURE, {
        "vec_add": chain(set_fields(rocm_version="7.3.0"), scale_provider("flydsl", 0.9))})
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    k = d.kernels[0]
    g = k.geomean_change
    assert g.new == pytest.approx(e["g"] / 0.9, rel=1e-12) and g.threshold == pytest.approx(e["noise"], rel=1e-12)
    assert 0.95 <= e["ratio"] / 0.9 < 1.05  # PARITY by the VERDICTS thresholds
    assert (k.old_verdict, k.new_verdict, k.direction) == ("HEADROOM", "PARITY", "improvement")
    assert [c.text for c in g.causes] == ["environment: rocm 7.2.0 → 7.3.0"]
    shapes = k.of_kind("shape")
    noisy = {sid for sid, n in e["shape_noise"].items() if max(n, 1.05) >= 1 / 0.9}
    assert {c.shape_id for c in shapes if not c.significant} == noisy
    assert sum(c.significant for c in shapes) == len(e["speedup"]) - len(noisy)
    assert [(c.item, c.old, c.new) for c in k.of_kind("provenance")] == [("rocm", "7.2.0", "7.3.0")]
    assert render_text(d).splitlines()[1] == "environment: rocm 7.2.0 → 7.3.0 (1 kernel)"


def test_same_speed_new_commit_is_unexplained_only_when_moved(sweep, tmp_path):
    # the candidate is 20% slower and nothing recorded changed: unexplained, rerun
    old = make_sweep_copy(sweep, tmp_path / "a", (), {"vec_add": None})
    new = make_sweep_copy(sweep, tmp_path / "b", (), {"vec_add": scale_provider("flydsl", 1.2)})
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    g = d.kernels[0].geomean_change
    assert [c.text for c in g.causes] == [
        "unexplained: candidate time ×1.20; no commit or environment change recorded"]


# ---------------------------------------------------------------- new, removed and renamed kernels and shapes


def test_new_removed_and_renamed_kernels(sweep, tmp_path, capsys):
    old = make_sweep_copy(sweep, tmp_path / "a", VEC_ADD_CAPTURE, {"vec_add": None, "quant": None})
    new = make_sweep_copy(sweep, tmp_path / "b", VEC_ADD_CAPTURE, {"vec_add": None, "pa_decode": None},
                          rename={"vec_add": "vec_add_v2"})
    ledger = (sweep / "benchmarks/examples/vec_add/shape_ledger.jsonl").read_text().splitlines()
    n = sum(1 for line in ledger if line.strip())  # 12 shapes
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    status = {k.slug: k.status for k in d.kernels}
    # pa_decode takes its bundle's name from kernels.json (pa), though the bundle is not copied
    assert status == {"pa": "new", "quant": "removed", "vec_add": "removed", "vec_add_v2": "new"}
    assert d.notes == [f"kernel 'vec_add' is gone and 'vec_add_v2' is new ({n} of {n} shape ids in common): "
                       "if it was renamed, compare them with --rename vec_add=vec_add_v2"]
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--rename", "vec_add=vec_add_v2", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["notes"] == []
    renamed = next(k for k in doc["kernels"] if k["slug"] == "vec_add_v2")
    assert renamed["old_slug"] == "vec_add" and renamed["status"] == "changed"
    # the same numbers on both sides: only the slug and the capture's folder differ
    assert [(c["kind"], c["item"]) for c in renamed["changes"]] == [("kernel-renamed", "slug"),
                                                                      ("provenance", "capture")]
    code, _, err = run_cli(capsys, "diff", str(old), str(new), "--rename", "nosuch=vec_add_v2")
    assert code == 2
    assert err.strip() == ("kernel-atlas: error: a: --rename nosuch=vec_add_v2: no kernel 'nosuch' on the old side "
                           "(kernels: quant, vec_add)")
    code, _, err = run_cli(capsys, "diff", str(old), str(new), "--rename", "vec_add")
    assert code == 2 and err.strip() == "kernel-atlas: error: --rename: expected OLD_SLUG=NEW_SLUG, got 'vec_add'"


def test_shapes_added_removed_and_failing(sweep, tmp_path):
    """pa_decode (the slice holds it): the NEW ledger drops the first two shapes and adds a hand-made one;
    apart, the first shape fails. Expected numbers from the raw rows (tests/verdict_oracle.py) and
    expected/verdicts.json."""
    folder = sweep / "benchmarks/examples/pa_decode"
    ledger = (folder / "shape_ledger.jsonl").read_text().splitlines()
    first, second = (json.loads(ledger[i])["shape_id"] for i in (0, 1))
    pairs = shape_pairs(folder)
    speedup = {sid: b["median_us"] / c["median_us"] for sid, (c, b) in pairs.items()}
    # "vs any" as the snapshot holds it: over the 10 kernel-clock shapes below every roof (its 2 sliding-window
    # shapes could not be graph-captured, rule 10)
    kernel = kernel_ratios(folder)
    g = math.exp(sum(math.log(x) for x in kernel.values()) / len(kernel))

    def fail_first(row):
        if row["shape_id"] == first and row["provider"] == "flydsl":
            row.update(benchmark_status="failed", correct=None, median_us=None)
        return row

    old = make_sweep_copy(sweep, tmp_path / "a", (), {"pa_decode": None})
    new = make_sweep_copy(sweep, tmp_path / "b", (), {"pa_decode": fail_first})
    target = new / "benchmarks/examples/pa_decode/shape_ledger.jsonl"
    target.unlink()
    extra = json.loads(ledger[1])
    extra.update(shape_id="sha1:handmade0000001", args=dict(extra["args"], batch=2))  # no batch of 2 in the ledger
    target.write_text("\n".join(ledger[2:] + [json.dumps(extra)]) + "\n")  # drops shapes 0 and 1, adds one
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    k = d.kernels[0]
    assert k.slug == "pa"  # the campaign takes its bundle's name from kernels.json, though no bundle is copied
    assert [(c.kind, c.shape_id) for c in k.of_kind("shape-new", "shape-removed")] == [
        ("shape-new", "sha1:handmade0000001"), ("shape-removed", first), ("shape-removed", second)]
    old2 = make_sweep_copy(sweep, tmp_path / "c", (), {"pa_decode": None})
    new2 = make_sweep_copy(sweep, tmp_path / "d", (), {"pa_decode": fail_first})
    k2 = diff_snapshots(load_snapshot(old2), load_snapshot(new2)).kernels[0]
    status = k2.of_kind("shape-status")
    assert len(status) == 1 and status[0].shape_id == first
    assert status[0].significant and status[0].direction == "regression"
    assert status[0].text == f"no longer measured: failed (was {speedup[first]:.2f}x)"
    # the geomean now runs over the other 9 kernel-clock shapes: exp((10 ln G - ln s0) / 9)
    n = len(kernel)
    assert n == 10 and first in kernel and k2.geomean_change.new == pytest.approx(
        math.exp((n * math.log(g) - math.log(kernel[first])) / (n - 1)), rel=1e-12)


def test_vec_add_shapes_added_removed_and_failing(sweep, vec_add_expect, tmp_path):
    """The NEW ledger drops vec_add's first two shapes and adds a hand-made one; apart, the first shape fails."""
    e = vec_add_expect
    ledger = (sweep / "benchmarks/examples/vec_add/shape_ledger.jsonl").read_text().splitlines()
    first, second = (json.loads(ledger[i])["shape_id"] for i in (0, 1))

    def fail_first(row):
        if row["shape_id"] == first and row["provider"] == "flydsl":
            row.update(benchmark_status="failed", correct=None, median_us=None)
        return row

    old = make_sweep_copy(sweep, tmp_path / "a", (), {"vec_add": None})
    new = make_sweep_copy(sweep, tmp_path / "b", (), {"vec_add": fail_first})
    target = new / "benchmarks/examples/vec_add/shape_ledger.jsonl"
    target.unlink()
    extra = json.loads(ledger[1])
    extra.update(shape_id="sha1:handmade0000001", args={"n": 3})
    target.write_text("\n".join(ledger[2:] + [json.dumps(extra)]) + "\n")
    k = diff_snapshots(load_snapshot(old), load_snapshot(new)).kernels[0]
    assert [(c.kind, c.shape_id) for c in k.of_kind("shape-new", "shape-removed")] == [
        ("shape-new", "sha1:handmade0000001"), ("shape-removed", first), ("shape-removed", second)]
    old2 = make_sweep_copy(sweep, tmp_path / "c", (), {"vec_add": None})
    new2 = make_sweep_copy(sweep, tmp_path / "d", (), {"vec_add": fail_first})
    k2 = diff_snapshots(load_snapshot(old2), load_snapshot(new2)).kernels[0]
    status = k2.of_kind("shape-status")
    assert [c.shape_id for c in status] == [first]
    assert status[0].significant and status[0].direction == "regression"
    assert status[0].text == f"no longer measured: failed (was {e['speedup'][first]:.2f}x)"
    # the geomean vs any baseline now runs over the other shapes: exp((n ln G - ln s0) / (n - 1))
    n = len(e["speedup"])
    assert k2.geomean_change.new == pytest.approx(
        math.exp((n * math.log(e["g"]) - math.log(e["speedup"][first])) / (n - 1)), rel=1e-12)


# ---------------------------------------------------------------- bad input


def test_different_format_versions(vec_add_pair, tmp_path, capsys):
    old, _ = vec_add_pair
    api = tmp_path / "site" / "api"
    api.mkdir(parents=True)
    (api / "index.json").write_text(json.dumps({"format_version": 4, "kernels": [{"slug": "softmax"}]}))
    code, out, err = run_cli(capsys, "diff", str(old), str(tmp_path / "site"))
    assert code == 2 and out == ""
    assert err.startswith("kernel-atlas: error: ") and err.count("\n") == 1
    assert err.rstrip().endswith("index.json: format_version 4 is newer than this kernel-atlas reads (1, 2, 3): "
                                 "upgrade kernel-atlas, or rebuild both sides with the same version")
    old_snap = load_snapshot(old)
    new_snap = load_snapshot(old)
    new_snap.format_version = old_snap.format_version + 1  # 2 is now the snapshot format itself
    with pytest.raises(InputError, match="rebuild both sides with the same kernel-atlas"):
        diff_snapshots(old_snap, new_snap)


def test_empty_side(vec_add_pair, tmp_path, capsys):
    old, _ = vec_add_pair
    (tmp_path / "empty" / "examples").mkdir(parents=True)
    code, _, err = run_cli(capsys, "diff", str(old), str(tmp_path / "empty"))
    assert code == 2
    assert "no kernels found, nothing to compare" in err and err.count("\n") == 1


def test_bad_thresholds(vec_add_pair, capsys):
    old, new = vec_add_pair
    code, _, err = run_cli(capsys, "diff", str(old), str(new), "--min-change", "2")
    assert code == 2 and "--min-change: must be a fraction in [0, 1)" in err


def test_min_change_floor_hides_small_moves(vec_add_pair):
    d = diff_snapshots(snapshot_from_sweep(vec_add_pair[0]), snapshot_from_sweep(vec_add_pair[1]))
    assert DiffOptions().min_change == 0.02
    md = render_markdown(d, marker=False)
    assert not md.startswith(DIFF_MARKER)
    assert diff_document(d)["options"] == {"min_change": 0.02, "renames": [], "stall_points": 0.05}


def test_built_sites_diff_like_their_sweeps(vec_add_pair, tmp_path, capsys):
    build = pytest.importorskip("generator.site.build")
    old, new = vec_add_pair
    build.build_site(old, tmp_path / "old-site", progress=False)
    build.build_site(new, tmp_path / "new-site", progress=False)
    labels = ("--old-label", "base", "--new-label", "head", "--markdown")
    _, from_sweeps, _ = run_cli(capsys, "diff", str(old), str(new), *labels)
    _, from_sites, _ = run_cli(capsys, "diff", str(tmp_path / "old-site"), str(tmp_path / "new-site" / "api"), *labels)
    assert from_sites == from_sweeps
    code, out, _ = run_cli(capsys, "diff", str(old), str(tmp_path / "old-site"), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["kernels"] == [] and doc["provenance"] == [] and doc["unchanged"] == ["vec_add"]


# ---------------------------------------------------------------- issue 14, points 1 and 5


def test_site_against_its_own_sweep_reports_no_change(sweep, tmp_path, capsys):
    """A freshly built site of the shared sweep and the sweep itself: nothing removed, nothing changed."""
    site = tmp_path / "site"
    assert cli.main(["build", str(sweep), "--out", str(site), "--quiet"]) == 0
    code, out, err = run_cli(capsys, "diff", str(site), str(sweep), "--json", "--fail-on-regression")
    doc = json.loads(out)
    assert code == 0 and err == ""
    assert doc["kernels"] == [] and doc["provenance"] == [] and doc["regressions"] == []
    assert sorted(doc["unchanged"]) == sorted(snapshot_from_sweep(sweep).kernels)  # 19 in the sweep, 8 in the slice
    code, out, _ = run_cli(capsys, "diff", str(site), str(sweep))
    assert "removed" not in out and "no significant change of any kernel's standing" in out


def test_candidate_failing_every_shape_counts_its_shapes(sweep, win_pair, win_expect, tmp_path, capsys):
    """The WIN's 12 quant shapes stop being measured: ``12 ↓ 0 ↑ of 12`` (it said ``of 0``)."""
    old, _ = win_pair
    new = make_sweep_copy(sweep, tmp_path / "new", (), {"quant": fail_provider("flydsl", candidate_commit="abcdef12")})
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--markdown")
    row = next(ln for ln in out.splitlines() if ln.startswith("| [Per-Token Quant]"))
    assert f"{win_expect['g']:.2f}x" == "1.11x"  # expected/verdicts.json's geomean / 0.8: nothing after it
    # the "Verdict ratio" column: the ratio the WIN rests on (1.102 over 11 verdict shapes), not the
    # geomean vs any baseline (1.113)
    assert f"{win_expect['before'][0]:.2f}x" == "1.10x"
    assert row == ("| [Per-Token Quant](kernels/quant/) | WIN → **BLOCKED** | 1.10x → — | 12 ↓ 0 ↑ of 12 | — | "
                   "candidate: no longer measured on 12 shapes (commit 7255fff8 → abcdef12) |")
    assert "<summary>Per-shape changes beyond noise (12)</summary>" in out


def test_one_kernel_within_noise_is_singular(sweep, vec_add_pair, tmp_path, capsys):
    old, _ = vec_add_pair
    new = make_sweep_copy(sweep, tmp_path / "nudged", VEC_ADD_CAPTURE, {"vec_add": scale_provider("flydsl", 1.01)})
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--markdown")
    assert "<summary>Within noise or below the thresholds (1 kernel)</summary>" in out
    assert "(1 kernels)" not in out


def test_a_change_of_verdict_flags_is_a_change(sweep):
    """The snapshot carries each verdict's flags (moe_blockscale, in the slice too: not_like_for_like,
    suspect_reference, above_roof and graph_partial, as its row of expected/verdicts.json says), and losing or
    gaining one is reported in words."""
    import dataclasses

    from generator.sweeps.diff.compare import diff_kernel
    from generator.sweeps.diff.changes import DiffOptions

    snap = snapshot_from_sweep(sweep)
    moe = snap.kernels["moe_blockscale"]
    want = json.loads((sweep / "expected" / "verdicts.json").read_text())["moe_blockscale"]
    assert want["not_like_for_like"] and want["suspect_reference"] and want["above_roof"] and want["graph_partial"]
    assert moe.flags == ["not_like_for_like", "suspect_reference", "above_roof", "graph_partial"]
    fixed = dataclasses.replace(moe, flags=["suspect_reference", "above_roof", "graph_partial"])
    kd = diff_kernel(moe, fixed, DiffOptions())
    change = next(c for c in kd.changes if c.kind == "flags")
    assert change.text == "verdict flags: no longer not like for like"
    back = next(c for c in diff_kernel(fixed, moe, DiffOptions()).changes if c.kind == "flags")
    assert back.text == "verdict flags: now not like for like"
    assert not [c for c in diff_kernel(moe, moe, DiffOptions()).changes if c.kind == "flags"]
