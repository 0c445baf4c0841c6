"""diff between sweeps that differ the way real ones do (issue 33): who moved, the candidate, a baseline
or the comparison, and what ``--fail-on-regression`` fails on.

Each pair is made from copies of the shared sweep (``test_snapshot.make_sweep_copy``) whose rows differ
by a few edited fields. Expected speedups come from the copied raw rows through tests/verdict_oracle.py
(the candidate's last usable row and the fastest usable baseline's, per shape), apart from the code
under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator import cli
from generator.sweeps.diff import diff_snapshots, render_markdown, render_text, shape_text, unique_labels
from generator.sweeps.snapshot_sources import load_snapshot
from test_snapshot import fail_provider, make_sweep_copy, scale_provider
from verdict_oracle import shape_pairs

#: moe_gemm's fp8 shapes where aiter is correct in the shared sweep: M=1 and M=32 of DeepSeek-R1's
#: 7168x512 (model_config) and the synthetic E=4 M=256 one.
AITER_PASSES = ("sha1:1ffd9226bf013782", "sha1:3e1f04d82bff6672", "sha1:f006ff8500772932")


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def only_on(shapes, edit):
    """A row edit applied to the rows of ``shapes`` only."""
    def on(row: dict) -> dict:
        return edit(row) if row["shape_id"] in shapes else row
    return on


def drop_provider(root: Path, op: str, provider: str) -> None:
    """Remove every row of ``provider`` from a copied campaign (the baseline was not run then)."""
    path = root / "benchmarks" / "examples" / op / "benchmark_results.jsonl"
    lines = [ln for ln in path.read_text().splitlines() if ln.strip() and json.loads(ln)["provider"] != provider]
    path.unlink()  # a link to the shared file: replace it, never write through it
    path.write_text("\n".join(lines) + "\n")


def speedups(folder: Path) -> dict[str, tuple[float, str]]:
    """shape id -> (fastest usable baseline / candidate, that baseline) from the raw rows."""
    return {sid: (b["median_us"] / c["median_us"], b["provider"]) for sid, (c, b) in shape_pairs(folder).items()}


# ---------------------------------------------------------------- a baseline starts to pass


@pytest.fixture(scope="module")
def aiter_pair(sweep, tmp_path_factory):
    """moe_gemm with aiter failing on every shape, then correct on the three shapes it passes in the
    shared sweep (the aiter fix of the kernel team's week); FlyDSL's rows unchanged."""
    base = tmp_path_factory.mktemp("aiter")
    old = make_sweep_copy(sweep, base / "failed", (), {"moe_gemm": fail_provider("aiter")})
    new = make_sweep_copy(sweep, base / "fixed", (), {"moe_gemm": only_on(
        {s for s in _moe_gemm_shapes(sweep) if s not in AITER_PASSES}, fail_provider("aiter"))})
    return old, new


def _moe_gemm_shapes(sweep) -> set[str]:
    ledger = (sweep / "benchmarks/examples/moe_gemm/shape_ledger.jsonl").read_text().splitlines()
    return {json.loads(ln)["shape_id"] for ln in ledger if ln.strip()}


@pytest.mark.full_sweep
def test_a_baseline_starting_to_pass_is_the_comparison(aiter_pair):
    old, new = aiter_pair
    before = speedups(old / "benchmarks/examples/moe_gemm")
    after = speedups(new / "benchmarks/examples/moe_gemm")
    # by the raw rows: pytorch is the only baseline before; aiter is the fastest on its three shapes after
    assert {p for _, p in before.values()} == {"pytorch"}
    assert {sid for sid, (_, p) in after.items() if p == "aiter"} == set(AITER_PASSES)
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    k = d.kernels[0]
    assert k.slug == "moe_gemm" and (k.old_verdict, k.new_verdict) == ("WIN", "WIN")
    assert d.regressions == [] and d.improvements == [] and d.failing() == ([], [])
    assert [x.slug for x in d.comparison_changes] == ["moe_gemm"] and k.comparison_only
    summary = "aiter now passes (was failed) on 3 shapes; best baseline pytorch → aiter on 3 shapes"
    # moe_gemm's graph replay misses work (VERDICTS rule 16): no "vs any" geomean rests on its rows, on either side;
    # the launch overhead moves with the fastest baseline call (aiter's now), the comparison's move too
    assert k.geomean_change is None and (k.old_geomean, k.new_geomean) == (None, None)
    launch = next(c for c in k.changes if c.kind == "launch")
    assert launch.significant and [c.text for c in launch.causes] == ["comparison: " + summary]
    assert k.standing == "neutral" and k.movers == ("comparison",)
    moved = [c for c in k.of_kind("shape") if c.significant]
    assert {c.shape_id for c in moved} == set(AITER_PASSES)
    for c in moved:
        assert (c.old, c.new) == (pytest.approx(before[c.shape_id][0], rel=1e-12),
                                  pytest.approx(after[c.shape_id][0], rel=1e-12))
        assert c.cause_text == "comparison: aiter now passes (was failed); best baseline pytorch → aiter"
        assert c.comparison_only and not c.counts() and c.counts(strict=True)
    # the candidate's own times did not move: every other shape's speedup is the same
    assert all(c.ratio == pytest.approx(1.0, rel=1e-12) for c in k.of_kind("shape") if c.shape_id not in AITER_PASSES)
    text = render_text(d)
    assert text.splitlines()[0].startswith(
        "failed → fixed: no significant change of any kernel's standing · 1 comparison change (not the candidate's): "
        "MoE GEMM (2-stage)")
    assert "unexplained" not in text
    row = next(ln for ln in render_markdown(d).splitlines() if ln.startswith("| [MoE GEMM"))
    assert row.endswith(f"| 0 ↓ 0 ↑ of 29, 3 by the comparison | — | comparison: {summary} |")


@pytest.mark.full_sweep
def test_fail_on_regression_passes_a_baseline_starting_to_pass(aiter_pair, capsys):
    old, new = aiter_pair
    code, _, err = run_cli(capsys, "diff", str(old), str(new), "--fail-on-regression")
    assert code == 0 and err == ""
    code, _, err = run_cli(capsys, "diff", str(old), str(new), "--fail-on-any-regression")
    lines = err.splitlines()
    # no geomean change to name first: moe_gemm's replay misses work (rule 16), so no "vs any" rests on its rows
    assert code == 1 and lines[0] == ("regressed: MoE GEMM (2-stage) (moe_gemm); 3 shapes slower [comparison: aiter "
                                      "now passes (was failed) on 3 shapes; best baseline pytorch → aiter on 3 shapes]")
    assert [ln.split(":")[0].strip() for ln in lines[1:]] == [
        "Dim1=7168 Dim2=512 E=256 M=1 TopK=8 fp8", "Dim1=7168 Dim2=512 E=256 M=32 TopK=8 fp8",
        "Dim1=1024 Dim2=512 E=4 M=256 TopK=2 fp8"]
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--json")
    doc = json.loads(out)
    assert doc["regressions"] == [] and doc["comparison_changes"] == ["moe_gemm"]
    assert doc["candidate_regressions"] == [] and doc["candidate_shape_regressions"] == []
    assert doc["kernels"][0]["movers"] == ["comparison"] and doc["kernels"][0]["standing"] == "neutral"


def test_baselines_starting_to_pass_on_quant(sweep, tmp_path, capsys):
    """quant (in the slice): aiter and aiter_triton failing everywhere, then passing (the shared rows):
    each shape's speedup falls to its real one, the comparison's move, no regression."""
    folder = sweep / "benchmarks/examples/quant"
    old = make_sweep_copy(sweep, tmp_path / "a", (), {"quant": lambda r: fail_provider("aiter_triton")(
        fail_provider("aiter")(r))})
    new = make_sweep_copy(sweep, tmp_path / "b", (), {"quant": None})
    before, after = speedups(old / "benchmarks/examples/quant"), speedups(folder)
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    k = d.kernels[0]
    assert d.regressions == [] and d.failing() == ([], []) and k.comparison_only
    for c in k.of_kind("shape"):
        assert c.new / c.old == pytest.approx(after[c.shape_id][0] / before[c.shape_id][0], rel=1e-12)
        if c.significant:
            assert c.causes[0].kind == "comparison" and c.movers == ("comparison",)
            assert c.causes[0].detail.endswith(f"best baseline {before[c.shape_id][1]} → {after[c.shape_id][1]}")
    code, _, err = run_cli(capsys, "diff", str(old), str(new), "--fail-on-regression")
    assert code == 0 and err == ""


# ---------------------------------------------------------------- the candidate starts to pass


def test_the_candidate_starting_to_pass_is_the_candidates(sweep, tmp_path, capsys):
    """moe_blockscale (in the slice): FlyDSL incorrect on 6 of its 12 shapes at 4bd3b24d, correct on
    them at 10793515 (its fp8 tolerance fix); the kernel's cause sums its shapes' causes."""
    def fixed(row: dict) -> dict:
        if row["provider"] == "flydsl" and row["benchmark_status"] == "incorrect":
            row.update(benchmark_status="ok", correct=True, correctness_error=None)
        return row
    old = make_sweep_copy(sweep, tmp_path / "a", (), {"moe_blockscale": scale_provider(
        "flydsl", 1.0, candidate_commit="4bd3b24d")})
    new = make_sweep_copy(sweep, tmp_path / "b", (), {"moe_blockscale": fixed})
    incorrect = [json.loads(ln)["shape_id"] for ln in (sweep / "benchmarks/examples/moe_blockscale/"
                 "benchmark_results.jsonl").read_text().splitlines()
                 if ln.strip() and json.loads(ln)["provider"] == "flydsl"
                 and json.loads(ln)["benchmark_status"] == "incorrect"]
    assert len(incorrect) == 6
    after = speedups(new / "benchmarks/examples/moe_blockscale")
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    k = d.kernels[0]
    status = k.of_kind("shape-status")
    assert [c.shape_id for c in status] == incorrect
    for c in status:
        assert c.text == f"now measured: {after[c.shape_id][0]:.2f}x (was incorrect)"
        assert c.cause_text == "candidate: incorrect → ok, commit 4bd3b24d → 10793515"
    assert [c.text for c in k.causes] == ["candidate: now measured on 6 more shapes (commit 4bd3b24d → 10793515)"]
    assert "unexplained" not in render_text(d)
    # its verdict rests on the profiled pair (unchanged) and its replay misses work (rule 16): no kernel-level ratio
    # moves, so the shapes now measured are the candidate's shape changes, not a kernel improvement
    assert d.improvements == [] and d.comparison_changes == [] and k.movers == ("candidate",)
    code, _, _ = run_cli(capsys, "diff", str(new), str(old), "--fail-on-regression")  # and back: it fails
    assert code == 1


# ---------------------------------------------------------------- a baseline added, a campaign added, a commit


def test_a_baseline_added_is_the_comparison(sweep, tmp_path):
    """quant without any aiter row, then with them (the shared rows): the shapes aiter is now fastest
    on name it as added."""
    old = make_sweep_copy(sweep, tmp_path / "a", (), {"quant": None})
    drop_provider(old, "quant", "aiter")
    new = make_sweep_copy(sweep, tmp_path / "b", (), {"quant": None})
    before, after = speedups(old / "benchmarks/examples/quant"), speedups(new / "benchmarks/examples/quant")
    took = {sid for sid, (_, p) in after.items() if p == "aiter"}
    assert took  # aiter is the fastest baseline on 5 of quant's shapes
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    k = d.kernels[0]
    facts = k.of_kind("comparison")[0].new
    was = [before[sid][1] for sid in after if sid in took]  # ledger order
    assert facts == {"moves": [["aiter", None, "ok", len(after)]],
                     "best": [[p, "aiter", was.count(p)] for p in dict.fromkeys(was)]}
    assert [x.slug for x in d.comparison_changes] == ["quant"] and k.movers == ()  # the geomean held
    # aiter is barely faster than aiter_triton where it took over: those moves stay within their noise,
    # and a shape whose best baseline stayed did not move
    for c in k.of_kind("shape"):
        if c.shape_id in took:
            assert c.causes[0].kind in ("comparison", "noise")
            assert c.ratio == pytest.approx(after[c.shape_id][0] / before[c.shape_id][0], rel=1e-12)
        else:
            assert c.ratio == pytest.approx(1.0, rel=1e-12)
    assert render_text(d).splitlines()[0] == (
        "a → b: no significant change of any kernel's standing · 1 comparison change (not the candidate's): "
        f"Per-Token Quant with aiter added on 12 shapes; best baseline aiter_triton → aiter on {len(took)} shapes"
        " · verdicts HEADROOM 1")
    assert d.failing() == ([], [])


def test_a_campaign_added_is_a_new_kernel(sweep, tmp_path, capsys):
    old = make_sweep_copy(sweep, tmp_path / "a", (), {"quant": None})
    new = make_sweep_copy(sweep, tmp_path / "b", (), {"quant": None, "vec_add": None})
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    assert [(k.slug, k.status) for k in d.kernels] == [("quant", "same"), ("vec_add", "new")]
    assert d.regressions == d.improvements == d.comparison_changes == []
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--markdown", "--fail-on-regression")
    # its geomean vs any baseline 0.9493 (expected/verdicts.json) beside HEADROOM: not "0.95x" (issue 40)
    assert code == 0 and "- [Vector Add](kernels/vec_add/): new kernel (HEADROOM, 0.949x)" in out


def test_a_commit_changed_without_a_time_change(sweep, tmp_path, capsys):
    old = make_sweep_copy(sweep, tmp_path / "a", (), {"vec_add": None})
    new = make_sweep_copy(sweep, tmp_path / "b", (), {"vec_add": scale_provider("flydsl", 1.0,
                                                                                candidate_commit="4bd3b24d")})
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    k = d.kernels[0]
    assert [(c.kind, c.item, c.old, c.new) for c in k.changes] == [
        ("provenance", "candidate_commit", "7255fff8", "4bd3b24d")]
    assert not k.significant and k.movers == () and d.comparison_changes == []
    code, _, err = run_cli(capsys, "diff", str(old), str(new), "--fail-on-any-regression")
    assert code == 0 and err == ""


# ---------------------------------------------------------------- shape labels


@pytest.mark.full_sweep
def test_shape_labels_are_unique_in_a_table(sweep, tmp_path):
    """layernorm's ledger has two shapes printed ``M=1 N=4096 eps=1e-05 bf16`` (a model_config one and a
    synthetic one): every shape 1.3x slower, each row of the table tells them apart by its stage."""
    ledger = [json.loads(ln) for ln in (sweep / "benchmarks/examples/layernorm/shape_ledger.jsonl")
              .read_text().splitlines() if ln.strip()]
    twins = [r for r in ledger if r["args"] == {"M": 1, "N": 4096, "eps": 1e-05} and r["dtype"] == "bf16"]
    assert sorted(r["stage"] for r in twins) == ["model_config", "synthetic"]
    old = make_sweep_copy(sweep, tmp_path / "a", (), {"layernorm": None})
    new = make_sweep_copy(sweep, tmp_path / "b", (), {"layernorm": scale_provider("flydsl", 1.3)})
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    k = d.kernels[0]
    labels = [k.label(c) for c in k.of_kind("shape")]
    assert len(labels) == len(set(labels))
    for r in twins:
        assert k.labels[r["shape_id"]] == f"M=1 N=4096 eps=1e-05 bf16 stage={r['stage']}"
    rows = [ln for ln in render_markdown(d, max_rows=1000).splitlines() if ln.startswith("| `")]
    assert len(rows) == len(set(ln.split("|")[1] for ln in rows))


def test_handmade_shapes_alike_but_for_their_model_or_id(sweep, tmp_path):
    """Handmade: two copies of a real quant shape that differ only by model (preshuffle_gemm's ledger has
    such a pair), then only by id."""
    import dataclasses
    s = load_snapshot(make_sweep_copy(sweep, tmp_path / "q", (), {"quant": None})).kernels["quant"].shapes[0]
    a = dataclasses.replace(s, shape_id="sha1:a", model="DeepSeek-V3")
    b = dataclasses.replace(s, shape_id="sha1:b", model="Kimi-K2")
    base = shape_text(s.args, s.dtype)
    assert unique_labels([a, b]) == {"sha1:a": f"{base} model=DeepSeek-V3", "sha1:b": f"{base} model=Kimi-K2"}
    c = dataclasses.replace(b, model="DeepSeek-V3")
    assert unique_labels([a, c]) == {"sha1:a": f"{base} (sha1:a)", "sha1:b": f"{base} (sha1:b)"}
    assert unique_labels([s]) == {s.shape_id: base}


# ---------------------------------------------------------------- keys the verdict engine adds


def test_handmade_engine_keys_pair_clock_launch_overhead_and_interval(sweep, tmp_path, capsys):
    """Handmade: a real quant snapshot written twice with the verdict engine's new keys (``pair_clock``,
    ``launch_overhead_us``, ``verdict_ci``) set by hand, the rest unchanged: the clock is the comparison's
    change, the launch overhead the launcher's, the interval shown; nothing fails --fail-on-regression."""
    doc = load_snapshot(make_sweep_copy(sweep, tmp_path / "q", (), {"quant": None})).to_json()
    k = doc["kernels"]["quant"]
    g = k["verdict_value"]
    sides = {}
    for name, clock, launch, ci in (("old", "kernel", [5.0, 12], [g * 0.9, g * 1.1]),
                                    ("new", "wall", [9.0, 12], [g * 0.8, g * 1.2])):
        edited = json.loads(json.dumps(doc))
        edited["kernels"]["quant"].update(pair_clock=clock, launch_overhead_us=launch, verdict_ci=ci)
        sides[name] = tmp_path / f"{name}.json"
        sides[name].write_text(json.dumps(edited))
    old, new = load_snapshot(sides["old"]), load_snapshot(sides["new"])
    extras = old.kernels["quant"].extras
    assert {key: extras[key] for key in ("pair_clock", "launch_overhead_us", "verdict_ci")} == {
        "pair_clock": "kernel", "launch_overhead_us": [5.0, 12], "verdict_ci": [g * 0.9, g * 1.1]}
    # the engine's own keys the hand edit left alone: quant's fastest call is aiter_triton's (rule 13)
    assert extras["launch_baseline"] == "aiter_triton" and extras["clock"] == "kernel"
    d = diff_snapshots(old, new)
    kd = d.kernels[0]
    assert [(c.kind, c.item, c.significant) for c in kd.changes] == [
        ("comparison", "pair_clock", True), ("launch", "launch_overhead_us", True)]
    assert kd.of_kind("comparison")[0].cause_text == "comparison: pair clock kernel → wall"
    launch = kd.of_kind("launch")[0]
    assert launch.text == "launch overhead 5.0 → 9.0 µs (+4.0 µs)" and launch.direction == "regression"
    assert launch.cause_text == "unexplained: no commit or environment change recorded"
    assert [x.slug for x in d.comparison_changes] == ["quant"] and d.regressions == []
    code, _, err = run_cli(capsys, "diff", str(sides["old"]), str(sides["new"]), "--fail-on-regression")
    assert code == 0 and err == ""
    # the interval travels with a move of the verdict ratio
    moved = json.loads(sides["new"].read_text())
    moved["kernels"]["quant"]["verdict_value"] = g * 0.5
    sides["new"].write_text(json.dumps(moved))
    r = diff_snapshots(old, load_snapshot(sides["new"])).kernels[0].headline_change
    assert r.text.endswith(f", interval {g * 0.9:.2f}x–{g * 1.1:.2f}x → {g * 0.8:.2f}x–{g * 1.2:.2f}x)")
