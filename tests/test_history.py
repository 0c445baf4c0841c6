"""History: step detection on small synthetic series (exact output), recording with retention
on sweeps made from the shared one, series, regression marks and chart data."""

from __future__ import annotations

import json
import os

import pytest

from generator.errors import InputError
from generator.sweeps.history import load_history, record, record_snapshot
from generator.sweeps.history_series import (
    history_chart_data,
    history_document,
    load_series,
    points_from_rows,
    regression_marks,
    with_current,
)
from generator.sweeps.steps import Step, StepReport, detect_steps
from generator.sweeps.snapshot_sources import snapshot_from_sweep
from test_snapshot import fail_provider, make_sweep_copy, scale_provider
from verdict_oracle import kernel_noise, verdict_geomean

# A WIN that regresses, on quant (a campaign the slice holds too): its candidate's times x0.8, then x0.96
# (1.2x slower than that) at commit abcdef12. The ratio its verdict rests on (VERDICTS rule 12) on each side
# and its noise, worked from the raw rows by tests/verdict_oracle.py: verdict_geomean(<quant>, scale=0.8),
# verdict_geomean(<quant>, scale=0.96), kernel_noise(<quant>) (the p10 and p90 scale with the median).
WIN_G = 1.1023806081224217
WIN_SLOW = 0.8715928705337713
WIN_NOISE = 1.0746788501378224


# ---------------------------------------------------------------- step detection (synthetic series)


def test_one_step():
    r = detect_steps([1.0, 1.0, 1.0, 0.8, 0.8, 0.8], [1.02] * 6)
    assert r == StepReport([Step(index=3, before=1.0, after=0.8, ratio=0.8, regression=True, confirmed=True)], [])


def test_blip_that_reverts_is_ignored():
    r = detect_steps([1.0, 1.0, 0.7, 1.0, 1.0], [1.02] * 5)
    assert r == StepReport([], [2])


def test_noise_only():
    # every point within a factor 1.05 (the noise, and the 5% floor) of the running level
    assert detect_steps([1.00, 1.03, 0.98, 1.02, 0.99, 1.01], [1.05] * 6) == StepReport([], [])


def test_noise_wider_than_the_floor_hides_a_move():
    # a 15% move inside a measured noise of 1.2 is no step; with a noise of 1.02 it is
    assert detect_steps([1.0, 1.0, 0.85, 0.85], [1.2] * 4) == StepReport([], [])
    r = detect_steps([1.0, 1.0, 0.85, 0.85], [1.02] * 4)
    assert [(s.index, s.ratio) for s in r.steps] == [(2, pytest.approx(0.85, rel=1e-12))]


def test_two_steps():
    r = detect_steps([1.0, 1.0, 0.8, 0.8, 0.8, 1.1, 1.1], [1.02] * 7)
    assert r.blips == []
    assert r.steps == [
        Step(index=2, before=1.0, after=0.8, ratio=0.8, regression=True, confirmed=True),
        Step(index=5, before=0.8, after=pytest.approx(1.1, rel=1e-12), ratio=pytest.approx(1.375, rel=1e-12),
             regression=False, confirmed=True),
    ]


def test_last_point_alone_is_unconfirmed():
    r = detect_steps([1.0, 1.0, 1.0, 0.8], [1.02] * 4)
    assert r.steps == [Step(index=3, before=1.0, after=0.8, ratio=0.8, regression=True, confirmed=False)]


def test_levels_are_medians_and_missing_points_are_skipped():
    # level before = median(1.00, 1.01, 0.99) = 1.00; after = median(0.80, 0.82, 0.79) = 0.80
    r = detect_steps([1.00, None, 1.01, 0.99, 0.80, 0.82, 0.79], None)
    assert r.steps == [Step(index=4, before=1.0, after=0.8, ratio=pytest.approx(0.8, rel=1e-12),
                            regression=True, confirmed=True)]
    assert detect_steps([], []) == StepReport([], [])
    assert detect_steps([None, None], None) == StepReport([], [])
    with pytest.raises(ValueError):
        detect_steps([1.0], [1.0, 1.0])


# ---------------------------------------------------------------- recording real sweeps


@pytest.fixture(scope="module")
def sides(sweep, tmp_path_factory):
    """Snapshots of quant winning (its candidate x0.8), and with the candidate 1.2x slower at a new commit."""
    base = tmp_path_factory.mktemp("hist")
    same = make_sweep_copy(sweep, base / "same", (), {"quant": scale_provider("flydsl", 0.8)})
    slow = make_sweep_copy(sweep, base / "slow", (),
                           {"quant": scale_provider("flydsl", 0.96, candidate_commit="abcdef12")})
    folder = sweep / "benchmarks" / "examples" / "quant"
    assert (verdict_geomean(folder, scale=0.8)[0], verdict_geomean(folder, scale=0.96)[0], kernel_noise(folder)) == (
        pytest.approx(WIN_G, rel=1e-12), pytest.approx(WIN_SLOW, rel=1e-12), pytest.approx(WIN_NOISE, rel=1e-12))
    return same, slow, snapshot_from_sweep(same), snapshot_from_sweep(slow)


def test_record_series_and_regression_mark(sides, tmp_path):
    same, slow, snap_same, snap_slow = sides
    hist = tmp_path / "history"
    record(same, hist, "s1", "c1")
    record_snapshot(snap_same, hist, "s2", "c2")
    record_snapshot(snap_slow, hist, "s3", "c3")
    series = load_series(hist)
    assert list(series) == ["quant"]
    pts = series["quant"]
    # issue 14: a point carries the timed candidate commit (the flydsl rows' candidate_commit:
    # 7255fff8 in the x0.8 copy, as measured; abcdef12 in the slowed one), and the profiled one
    # (kernels.json's flydsl_commit 18c5a7ed) since it differs; the commit given to record() is the sweep's only
    assert [(p.label, p.commit, p.profiled_commit, p.date, p.verdict) for p in pts] == [
        ("s1", "7255fff8", "18c5a7ed", "2026-06-01", "WIN"), ("s2", "7255fff8", "18c5a7ed", "2026-06-01", "WIN"),
        ("s3", "abcdef12", "18c5a7ed", "2026-06-01", "HEADROOM")]
    assert [e.commit for e in load_history(hist).entries] == ["c1", "c2", "c3"]
    assert pts[0].geomean == pytest.approx(WIN_G, rel=1e-12)
    assert pts[2].geomean == pytest.approx(WIN_SLOW, rel=1e-12)
    assert pts[0].band == (pytest.approx(WIN_G / WIN_NOISE, rel=1e-12),
                           pytest.approx(WIN_G * WIN_NOISE, rel=1e-12))
    mark = regression_marks(series)["quant"]
    assert mark == {"from": "s2", "to": "s3", "commit": "abcdef12", "before": pytest.approx(WIN_G, rel=1e-12),
                    "after": pytest.approx(WIN_SLOW, rel=1e-12), "ratio": pytest.approx(WIN_SLOW / WIN_G, rel=1e-12),
                    "confirmed": False, "verdict": "WIN → HEADROOM"}
    record_snapshot(snap_slow, hist, "s4", "c4")
    assert regression_marks(load_series(hist))["quant"]["confirmed"] is True
    record_snapshot(snap_same, hist, "s5", "c5")  # fixed again: the latest step is an improvement
    assert regression_marks(load_series(hist)) == {}


def test_blip_in_real_history_is_not_marked(sides, tmp_path):
    _, _, snap_same, snap_slow = sides
    hist = tmp_path / "history"
    for label, snap in (("a", snap_same), ("b", snap_same), ("c", snap_slow), ("d", snap_same)):
        record_snapshot(snap, hist, label)
    doc = history_document(load_series(hist))
    k = doc["kernels"]["quant"]
    assert k["steps"] == [] and k["blips"] == [2] and k["regression"] is None
    assert [p["verdict"] for p in k["points"]] == ["WIN", "WIN", "HEADROOM", "WIN"]
    assert doc["format_version"] == 1


def test_retention_and_relabel(va_sides, tmp_path):
    """vec_add (the slice holds it) as measured and slowed, recorded in turn with a retention of 3."""
    snaps, _, e = va_sides
    hist = tmp_path / "history"
    for i in range(1, 6):
        record_snapshot(snaps["same"] if i % 2 else snaps["slow"], hist, f"sweep {i}", f"c{i}", retention=3)
    h = load_history(hist)
    assert [(e.seq, e.label, e.file) for e in h.entries] == [
        (3, "sweep 3", "sweeps/0003-sweep-3.json"), (4, "sweep 4", "sweeps/0004-sweep-4.json"),
        (5, "sweep 5", "sweeps/0005-sweep-5.json")]
    assert sorted(os.listdir(hist / "sweeps")) == ["0003-sweep-3.json", "0004-sweep-4.json", "0005-sweep-5.json"]
    # the same label again replaces its entry in place (here: the measured side where the slowed one was)
    record_snapshot(snaps["same"], hist, "sweep 4", "c4b", retention=3)
    h = load_history(hist)
    assert [(e.label, e.commit) for e in h.entries] == [("sweep 3", "c3"), ("sweep 4", "c4b"), ("sweep 5", "c5")]
    pts = load_series(hist)["vec_add"]
    assert [(p.label, p.commit) for p in pts] == [("sweep 3", "7255fff8"), ("sweep 4", "7255fff8"),
                                                  ("sweep 5", "7255fff8")]
    assert [p.geomean for p in pts] == pytest.approx([e["g"]] * 3, rel=1e-12)
    manifest = json.loads((hist / "history.json").read_text())
    assert manifest["kind"] == "kernel-atlas-history" and manifest["retention"] == 3


def test_history_keeps_only_small_json(sweep, tmp_path):
    # the whole shared sweep (or its slice), recorded twice: no pages; the newest keeps its per-shape
    # rows (the next build's lead compares with them), the one before is compacted to its kernels' numbers
    hist = tmp_path / "history"
    record(sweep, hist, "full", "18c5a7ed")
    newest = json.loads((hist / "sweeps" / "0001-full.json").read_text())
    kernels = snapshot_from_sweep(sweep).kernels  # 19 in the sweep, 8 in the slice
    assert sorted(newest["kernels"]) == sorted(kernels)
    assert {s: len(k["shapes"]) for s, k in newest["kernels"].items()} == {s: len(k.shapes) for s, k in kernels.items()}
    record(sweep, hist, "again", "18c5a7ed")
    files = [os.path.join(d, f) for d, _, fs in os.walk(hist) for f in fs]
    assert sorted(os.path.relpath(f, hist) for f in files) == ["history.json", "sweeps/0001-full.json",
                                                               "sweeps/0002-again.json"]
    stored = json.loads((hist / "sweeps" / "0001-full.json").read_text())
    assert sorted(stored["kernels"]) == sorted(kernels) and any(k.shapes for k in kernels.values()) and all(k["shapes"] == [] for k in stored["kernels"].values())
    assert os.path.getsize(hist / "sweeps" / "0001-full.json") < 20_000
    assert json.loads((hist / "sweeps" / "0002-again.json").read_text())["kernels"] == newest["kernels"]
    text = (hist / "sweeps" / "0002-again.json").read_text()
    assert str(sweep.resolve().parent) not in text and str(tmp_path) not in text


def test_chart_data(sides, tmp_path):
    _, _, snap_same, snap_slow = sides
    hist = tmp_path / "history"
    for label, snap in (("a", snap_same), ("b", snap_same), ("c", snap_slow), ("d", snap_slow)):
        record_snapshot(snap, hist, label, f"sha-{label}")
    fig = history_chart_data(load_series(hist))["quant"]
    upper, lower, line, marks = fig["data"]
    assert line["x"] == ["a", "b", "c", "d"]
    assert line["y"] == pytest.approx([WIN_G, WIN_G, WIN_SLOW, WIN_SLOW], rel=1e-12)
    assert upper["y"][0] == pytest.approx(WIN_G * WIN_NOISE, rel=1e-12)
    assert lower["y"][3] == pytest.approx(WIN_SLOW / WIN_NOISE, rel=1e-12)
    assert lower["fill"] == "tonexty"
    # 0.8716 -> "0.872x", noise 1.0747 -> "±7.5%", 0.8716 / 1.1024 - 1 -> "-20.9%"
    # rule 13 beside it: quant's launch overhead, +35.795 us over 8 launch shapes in expected/verdicts.json
    assert line["text"][2] == ("c @ abcdef12 (profiled at 18c5a7ed)<br>2026-06-01<br>verdict ratio 0.872x (noise ±7.5%)"
                               "<br>call gap 35.8 µs (8 launch shapes)<br>HEADROOM")
    assert line["marker"]["color"] == ["#1a7f37", "#1a7f37", "#bc4c00", "#bc4c00"]
    assert marks["name"] == "regression" and marks["x"] == ["c"] and marks["text"] == ["regression -20.9%"]
    assert [s["y0"] for s in fig["layout"]["shapes"]] == [0.95, 1.05]
    json.dumps(fig)  # plain JSON values only


# ---------------------------------------------------------------- bad input


def test_bad_history_inputs(sweep, tmp_path):
    snap_same = snapshot_from_sweep(sweep)
    with pytest.raises(InputError, match="retention must be a positive number of sweeps, got 0"):
        record_snapshot(snap_same, tmp_path / "h", "x", retention=0)
    with pytest.raises(InputError, match="non-empty label"):
        record_snapshot(snap_same, tmp_path / "h", " ")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "history.json").write_text(json.dumps({"kind": "kernel-atlas-history", "format_version": 9,
                                                   "entries": []}))
    with pytest.raises(InputError, match="format_version 9 is newer than this kernel-atlas reads"):
        load_history(bad)
    (bad / "history.json").write_text(json.dumps({"kind": "kernel-atlas-history", "format_version": 1,
                                                   "entries": [{"label": "a", "file": "../../etc/passwd"}]}))
    with pytest.raises(InputError, match="outside the history folder"):
        load_history(bad)
    (bad / "history.json").write_text("[]")
    with pytest.raises(InputError, match="not a kernel-atlas history manifest"):
        load_history(bad)
    assert load_history(tmp_path / "nothing-yet").entries == []


def test_current_points_join_the_recorded_series(va_sides, sweep, tmp_path):
    snaps, _, e = va_sides
    hist = tmp_path / "history"
    record_snapshot(snaps["same"], hist, "a", "ca")
    record_snapshot(snaps["same"], hist, "b", "cb")
    # the build's in-memory index rows of the current sweep (vec_add slower; a new kernel, pa, with its
    # geomean from expected/verdicts.json's pa_decode row)
    pa_g = json.loads((sweep / "expected" / "verdicts.json").read_text())["pa_decode"]["geomean_vs_best"]
    rows = [{"slug": "vec_add", "name": "Vector Add", "verdict": "HEADROOM", "geomean_vs_best": e["slow"],
             "noise": e["noise"]},
            {"slug": "pa", "name": "Paged-Attn Decode (PS)", "verdict": "HEADROOM", "geomean_vs_best": pa_g}]
    current = points_from_rows(rows, "c", "cc", "2026-06-02")
    series = with_current(load_series(hist), current)
    assert [p.label for p in series["vec_add"]] == ["a", "b", "c"]
    assert series["pa"][0].band == (pa_g, pa_g)  # no noise in the row
    assert regression_marks(series)["vec_add"]["to"] == "c"
    again = with_current(series, points_from_rows(rows[:1], "b", "cb2"))  # a label already recorded is replaced
    # recorded points carry the timed commit (7255fff8); rows without timed_commits the sweep's commit
    assert [(p.label, p.commit) for p in again["vec_add"]] == [("a", "7255fff8"), ("c", "cc"), ("b", "cb2")]


# ---------------------------------------------------------------- issue 14, point 3: verdict transitions


def test_candidate_failing_every_shape_is_a_regression(sides, sweep, tmp_path):
    """HEADROOM/WIN -> BLOCKED has no geomean after it, yet it is marked, at the timed commit."""
    _, _, snap_same, _ = sides
    broken = make_sweep_copy(sweep, tmp_path / "broken", (),
                             {"quant": fail_provider("flydsl", candidate_commit="abcdef12")})
    snap_broken = snapshot_from_sweep(broken)
    k = snap_broken.kernels["quant"]
    # the raw copy: all 12 flydsl rows (one per shape of the ledger) failed, so no shape is measured
    ledger = (sweep / "benchmarks/examples/quant/shape_ledger.jsonl").read_text().splitlines()
    shapes = sum(1 for ln in ledger if ln.strip())
    assert (k.verdict, k.kernel_vs_any, k.hard_failures, k.candidate_commit) == ("BLOCKED", None, shapes, "abcdef12")
    assert shapes == 12
    hist = tmp_path / "history"
    record_snapshot(snap_same, hist, "s1")
    record_snapshot(snap_broken, hist, "s2")
    series = load_series(hist)
    pts = series["quant"]
    assert [(p.verdict, p.commit, p.profiled_commit) for p in pts] == [
        ("WIN", "7255fff8", "18c5a7ed"), ("BLOCKED", "abcdef12", "18c5a7ed")]
    mark = regression_marks(series)["quant"]
    assert mark == {"from": "s1", "to": "s2", "commit": "abcdef12", "before": pytest.approx(WIN_G, rel=1e-12),
                    "after": None, "ratio": None, "confirmed": False, "verdict": "WIN → BLOCKED"}
    record_snapshot(snap_broken, hist, "s3")
    assert regression_marks(load_series(hist))["quant"]["confirmed"] is True
    doc = history_document(load_series(hist))
    assert doc["kernels"]["quant"]["regression"]["verdict"] == "WIN → BLOCKED"
    assert doc["kernels"]["quant"]["points"][1]["profiled_commit"] == "18c5a7ed"
    record_snapshot(snap_same, hist, "s4")  # fixed: the latest verdict change is upward
    assert regression_marks(load_series(hist)) == {}


def test_verdict_transitions_are_pure():
    from generator.sweeps.history_series import HistoryPoint, verdict_transition

    def pts(*verdicts):
        return [HistoryPoint(str(i), None, None, None, None, v, "k") for i, v in enumerate(verdicts)]

    assert verdict_transition(pts("WIN", "HEADROOM")) == (0, 1)
    assert verdict_transition(pts("PARITY", "UNTIMED", "BLOCKED")) == (0, 2)
    assert verdict_transition(pts("HEADROOM", "BLOCKED", "BLOCKED")) == (0, 1)
    assert verdict_transition(pts("WIN", "PARITY")) is None  # PARITY is no regression mark
    assert verdict_transition(pts("BLOCKED", "HEADROOM")) is None  # upward
    assert verdict_transition(pts("WIN", "BLOCKED", "WIN")) is None
    assert verdict_transition(pts("WIN")) is None


def test_current_point_from_index_rows_carries_timed_and_profiled_commits():
    rows = [{"slug": "softmax", "name": "Softmax", "geomean_vs_best": 1.0, "verdict": "WIN",
             "timed_commits": ["7255fff8"], "profiled_commit": "18c5a7ed"},
            {"slug": "same", "verdict": "WIN", "timed_commits": ["18c5a7ed9"], "profiled_commit": "18c5a7ed"},
            {"slug": "untimed", "verdict": "UNTIMED", "timed_commits": [], "profiled_commit": "18c5a7ed"}]
    got = points_from_rows(rows, "now", "sweepcommit")
    assert [(s, p.commit, p.profiled_commit) for s, p in got.items()] == [
        ("same", "18c5a7ed9", None), ("softmax", "7255fff8", "18c5a7ed"), ("untimed", "sweepcommit", None)]


# ---------------------------------------------------------------- the same on vec_add (the slice holds it)

VEC_ADD_CAPTURE = ("vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25",)


@pytest.fixture(scope="module")
def va_sides(sweep, tmp_path_factory):
    """vec_add as measured, slowed 1.2x at commit abcdef12, and failing every shape at abcdef12; with the
    numbers each side should carry, worked from the raw rows by tests/verdict_oracle.py."""
    base = tmp_path_factory.mktemp("va-hist")
    same = make_sweep_copy(sweep, base / "same", VEC_ADD_CAPTURE, {"vec_add": None})
    slow = make_sweep_copy(sweep, base / "slow", VEC_ADD_CAPTURE,
                           {"vec_add": scale_provider("flydsl", 1.2, candidate_commit="abcdef12")})
    broken = make_sweep_copy(sweep, base / "broken", VEC_ADD_CAPTURE,
                             {"vec_add": fail_provider("flydsl", candidate_commit="abcdef12")})
    folder = sweep / "benchmarks" / "examples" / "vec_add"
    kj = json.loads((sweep / "docs" / "data" / "kernels.json").read_text())["provenance"]
    expect = {"g": verdict_geomean(folder)[0], "slow": verdict_geomean(folder, scale=1.2)[0],
              "noise": kernel_noise(folder), "date": kj["capture_date"], "profiled": kj["flydsl_commit"],
              "shapes": sum(1 for ln in (folder / "shape_ledger.jsonl").read_text().splitlines() if ln.strip())}
    return ({n: snapshot_from_sweep(p) for n, p in (("same", same), ("slow", slow), ("broken", broken))},
            same, expect)


def test_vec_add_record_series_and_regression_mark(va_sides, tmp_path):
    snaps, same, e = va_sides
    assert (e["g"], e["slow"]) == (pytest.approx(0.9151231704652795, rel=1e-12),
                                   pytest.approx(0.7777767042716599, rel=1e-12))  # the oracle, on vec_add
    hist = tmp_path / "history"
    record(same, hist, "s1", "c1")
    record_snapshot(snaps["same"], hist, "s2", "c2")
    record_snapshot(snaps["slow"], hist, "s3", "c3")
    series = load_series(hist)
    assert list(series) == ["vec_add"]
    pts = series["vec_add"]
    # both sides under the PARITY threshold (0.95, VERDICTS): HEADROOM, yet the ratio steps down beyond the noise
    assert [(p.label, p.commit, p.profiled_commit, p.date, p.verdict) for p in pts] == [
        ("s1", "7255fff8", e["profiled"], e["date"], "HEADROOM"),
        ("s2", "7255fff8", e["profiled"], e["date"], "HEADROOM"),
        ("s3", "abcdef12", e["profiled"], e["date"], "HEADROOM")]
    assert [p.geomean for p in pts] == pytest.approx([e["g"], e["g"], e["slow"]], rel=1e-12)
    assert pts[0].band == (pytest.approx(e["g"] / e["noise"], rel=1e-12), pytest.approx(e["g"] * e["noise"], rel=1e-12))
    assert pts[2].band == (pytest.approx(e["slow"] / e["noise"], rel=1e-12),
                           pytest.approx(e["slow"] * e["noise"], rel=1e-12))  # p10 and p90 scaled too
    mark = regression_marks(series)["vec_add"]
    assert mark == {"from": "s2", "to": "s3", "commit": "abcdef12", "before": pytest.approx(e["g"], rel=1e-12),
                    "after": pytest.approx(e["slow"], rel=1e-12), "ratio": pytest.approx(e["slow"] / e["g"], rel=1e-12),
                    "confirmed": False, "verdict": None}
    record_snapshot(snaps["slow"], hist, "s4", "c4")
    assert regression_marks(load_series(hist))["vec_add"]["confirmed"] is True
    record_snapshot(snaps["same"], hist, "s5", "c5")  # fixed again: the latest step is an improvement
    assert regression_marks(load_series(hist)) == {}


def test_vec_add_blip_is_not_marked(va_sides, tmp_path):
    snaps, _, _ = va_sides
    hist = tmp_path / "history"
    for label, name in (("a", "same"), ("b", "same"), ("c", "slow"), ("d", "same")):
        record_snapshot(snaps[name], hist, label)
    k = history_document(load_series(hist))["kernels"]["vec_add"]
    assert k["steps"] == [] and k["blips"] == [2] and k["regression"] is None


def test_vec_add_retention(va_sides, tmp_path):
    snaps, _, e = va_sides
    hist = tmp_path / "history"
    for i in range(1, 6):
        record_snapshot(snaps["same"] if i % 2 else snaps["slow"], hist, f"sweep {i}", f"c{i}", retention=2)
    assert [(e.seq, e.file) for e in load_history(hist).entries] == [
        (4, "sweeps/0004-sweep-4.json"), (5, "sweeps/0005-sweep-5.json")]
    assert sorted(os.listdir(hist / "sweeps")) == ["0004-sweep-4.json", "0005-sweep-5.json"]
    assert [p.geomean for p in load_series(hist)["vec_add"]] == pytest.approx([e["slow"], e["g"]], rel=1e-12)


def test_vec_add_chart_data(va_sides, tmp_path):
    snaps, _, e = va_sides
    hist = tmp_path / "history"
    for label, name in (("a", "same"), ("b", "same"), ("c", "slow"), ("d", "slow")):
        record_snapshot(snaps[name], hist, label, f"sha-{label}")
    upper, lower, line, marks = history_chart_data(load_series(hist))["vec_add"]["data"]
    assert line["x"] == ["a", "b", "c", "d"]
    assert line["y"] == pytest.approx([e["g"], e["g"], e["slow"], e["slow"]], rel=1e-12)
    assert upper["y"][0] == pytest.approx(e["g"] * e["noise"], rel=1e-12)
    assert lower["y"][3] == pytest.approx(e["slow"] / e["noise"], rel=1e-12)
    noise_pct = f"{(e['noise'] - 1) * 100:.1f}"
    # the slowed copy lifts shapes off the floor: enough verdict shapes for rule 14's interval, fewer launch shapes
    assert line["text"][2].startswith(f"c @ abcdef12 (profiled at {e['profiled']})<br>{e['date']}<br>"
                                      f"verdict ratio {e['slow']:.3f}x (noise ±{noise_pct}%)<br>interval ")
    assert "<br>call gap " in line["text"][2] and line["text"][2].endswith("<br>HEADROOM")
    drop = f"{(e['slow'] / e['g'] - 1) * 100:.1f}"
    assert marks["x"] == ["c"] and marks["text"] == [f"regression {drop}%"]


def test_vec_add_candidate_failing_every_shape_is_a_regression(va_sides, tmp_path):
    """HEADROOM -> BLOCKED has no ratio after it, yet it is marked, at the timed commit."""
    snaps, _, e = va_sides
    k = snaps["broken"].kernels["vec_add"]
    assert (k.verdict, k.kernel_vs_any, k.hard_failures, k.candidate_commit) == (
        "BLOCKED", None, e["shapes"], "abcdef12")  # every flydsl row failed
    hist = tmp_path / "history"
    record_snapshot(snaps["same"], hist, "s1")
    record_snapshot(snaps["broken"], hist, "s2")
    series = load_series(hist)
    assert [(p.verdict, p.commit) for p in series["vec_add"]] == [("HEADROOM", "7255fff8"), ("BLOCKED", "abcdef12")]
    assert regression_marks(series)["vec_add"] == {
        "from": "s1", "to": "s2", "commit": "abcdef12", "before": pytest.approx(e["g"], rel=1e-12),
        "after": None, "ratio": None, "confirmed": False, "verdict": "HEADROOM → BLOCKED"}
    record_snapshot(snaps["same"], hist, "s3")
    assert regression_marks(load_series(hist)) == {}
