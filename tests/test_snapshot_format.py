"""Snapshot format 2 (snap13): the kernel's "vs any" geomean is stored as ``kernel_vs_any``.

Format 1 stored one geomean per kernel as ``geomean_vs_best``, the name the API and VERDICTS give to the score's
per-kernel geomean (pa_decode 0.493 over its 12 measured shapes), and it held two numbers over time: the score's
geomean until 2 Dec 2026 (332f7bb; 371d3ed for a sweep recorded from a site's api/), the kernel row's "vs any"
after (pa 0.764 over its 10 kernel-clock shapes, VERDICTS rule 10). Both fixtures are real format-1 snapshots of
tests/data/mi350x-slice written by the old writers (no snapshot was in tests/data before), compacted as the
history keeps an older sweep:

* ``snapshot_format1_by_29611a3.json``: ``build --history`` at 29611a3 (main before this change); pa's field
  holds 0.764, its "vs any".
* ``snapshot_format1_by_3529d6c_before_ladder.json``: ``snapshot_from_sweep`` at 3529d6c (1 Dec 2026, the commit
  before the evidence ladder: no ``verdict_basis``); pa's field holds 0.493, the score's geomean.

Every expected number is worked here from pa_decode's raw rows (benchmark_results.jsonl, shape_ledger.jsonl).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from generator.site import build
from generator.sweeps.diff import DiffOptions
from generator.sweeps.diff.compare import diff_kernel
from generator.sweeps.history_series import load_series
from generator.sweeps.snapshot import SNAPSHOT_FORMAT_VERSION, snapshot_from_json
from generator.sweeps.snapshot_sources import snapshot_from_sweep

DATA = Path(__file__).parent / "data"
ON_LADDER = DATA / "snapshot_format1_by_29611a3.json"
BEFORE_LADDER = DATA / "snapshot_format1_by_3529d6c_before_ladder.json"
HBM_GBS = 8000.0  # MI350X HBM peak, 8.0 TB/s (DOMAIN §5 table)
MFMA_TFLOPS = {"bf16": 2300.0, "fp16": 2300.0, "fp8": 4600.0, "fp8_e4m3": 4600.0}  # DOMAIN §5 table


# ---------------------------------------------------------------- pa_decode's two geomeans, from its raw rows

def usable(r: dict) -> bool:
    return r.get("benchmark_status") == "ok" and (r.get("median_us") or 0) > 0 and r.get("correct") is not False


def flagged_above_roof(r: dict) -> bool:
    """VERDICTS rule 9: above 1.10 x the HBM peak, or 0.95 x the dtype's MFMA peak."""
    peak = MFMA_TFLOPS.get(r.get("dtype"))
    return r["effective_gbps"] > 1.10 * HBM_GBS or (peak is not None and r["effective_tflops"] > 0.95 * peak)


def pa_shapes(sweep: Path) -> list[tuple[dict, dict]]:
    """(candidate row, fastest usable baseline row) of each measured ledger shape of pa_decode (rules 1, 5)."""
    folder = sweep / "benchmarks" / "examples" / "pa_decode"
    rows = [json.loads(ln) for ln in (folder / "benchmark_results.jsonl").read_text().splitlines() if ln.strip()]
    ledger = [json.loads(ln)["shape_id"] for ln in (folder / "shape_ledger.jsonl").read_text().splitlines() if ln.strip()]
    out = []
    for shape in ledger:
        mine = [r for r in rows if r["shape_id"] == shape]
        cand = [r for r in mine if r["provider"] == "flydsl" and usable(r)]
        base = [r for r in mine if r["provider"] != "flydsl" and usable(r)]
        if cand and base:
            out.append((cand[-1], min(base, key=lambda r: r["median_us"])))
    return out


def geomean(pairs: list[tuple[dict, dict]]) -> float:
    return math.exp(sum(math.log(b["median_us"] / c["median_us"]) for c, b in pairs) / len(pairs))


def pa_geomeans(sweep: Path) -> dict[str, tuple[float, int]]:
    """"vs any": the shapes where both rows are graph-replayed and neither is above a roof; the score's: all."""
    pairs = pa_shapes(sweep)
    kernel = [(c, b) for c, b in pairs if "eager_event" not in (c["timing_method"], b["timing_method"])
              and not flagged_above_roof(c) and not flagged_above_roof(b)]
    left_out = [c["timing_method"] for c, b in pairs if (c, b) not in kernel]
    assert left_out == ["eager_event", "eager_event"]  # the two sliding-window shapes: graph capture failed
    return {"vs_any": (geomean(kernel), len(kernel)), "score": (geomean(pairs), len(pairs))}


def test_the_two_numbers_from_the_raw_rows(sweep):
    g = pa_geomeans(sweep)
    assert (round(g["vs_any"][0], 3), g["vs_any"][1], round(g["score"][0], 3), g["score"][1]) == (0.764, 10, 0.493, 12)
    expected = json.loads((sweep / "expected" / "verdicts.json").read_text())["pa_decode"]
    assert expected["geomean_vs_best"] == pytest.approx(g["score"][0])  # the score's name is the score's number


# ---------------------------------------------------------------- a new build writes format 2

def test_a_new_build_stores_kernel_vs_any(sweep, tmp_path):
    hist = tmp_path / "history"
    build.build_site(sweep, tmp_path / "site", progress=False, history_dir=hist, history_label="new", jobs=1)
    (stored,) = sorted((hist / "sweeps").glob("*.json"))
    doc = json.loads(stored.read_text())
    assert doc["format_version"] == SNAPSHOT_FORMAT_VERSION == 2
    pa = doc["kernels"]["pa"]
    assert pa["kernel_vs_any"] == pytest.approx(pa_geomeans(sweep)["vs_any"][0], rel=1e-12)
    assert "geomean_vs_best" not in pa and all("geomean_vs_best" not in k for k in doc["kernels"].values())
    assert snapshot_from_sweep(sweep).to_json()["kernels"]["pa"]["kernel_vs_any"] == pa["kernel_vs_any"]


# ---------------------------------------------------------------- format 1, as its writers left it

def test_format1_on_the_ladder_reads_its_field_as_kernel_vs_any(sweep):
    doc = json.loads(ON_LADDER.read_text())
    assert doc["format_version"] == 1 and all("verdict_basis" in k for k in doc["kernels"].values())
    snap = snapshot_from_json(doc, str(ON_LADDER))
    for slug, k in doc["kernels"].items():
        read = snap.kernels[slug]
        assert (read.kernel_vs_any, read.score_geomean) == (k["geomean_vs_best"], None), slug
        old_headline = k["verdict_value"] if k["verdict_basis"] is not None else k["geomean_vs_best"]
        assert (read.headline_value, read.noise, read.verdict) == (old_headline, k["noise"], k["verdict"]), slug
    assert snap.kernels["pa"].kernel_vs_any == pytest.approx(pa_geomeans(sweep)["vs_any"][0], rel=1e-12)
    rewritten = snap.to_json()  # what a later build writes when it compacts this file
    renamed = {s: {("kernel_vs_any" if f == "geomean_vs_best" else f): v for f, v in k.items()}
               for s, k in doc["kernels"].items()}
    assert rewritten == {**doc, "format_version": 2, "kernels": renamed}


def test_format1_before_the_ladder_held_the_score_geomean(sweep):
    doc = json.loads(BEFORE_LADDER.read_text())
    assert doc["format_version"] == 1 and not any("verdict_basis" in k for k in doc["kernels"].values())
    g = pa_geomeans(sweep)
    assert doc["kernels"]["pa"]["geomean_vs_best"] == pytest.approx(g["score"][0], rel=1e-12)  # 0.493, not 0.764
    snap = snapshot_from_json(doc, str(BEFORE_LADDER))
    for slug, k in doc["kernels"].items():
        read = snap.kernels[slug]
        assert (read.kernel_vs_any, read.score_geomean) == (None, k["geomean_vs_best"]), slug
        assert (read.headline_value, read.noise, read.verdict) == (k["geomean_vs_best"], k["noise"], k["verdict"])
    again = snapshot_from_json(snap.to_json())  # format 2 keeps the score's number under the score's name
    assert again.kernels["pa"].score_geomean == doc["kernels"]["pa"]["geomean_vs_best"]
    assert again.kernels["pa"].kernel_vs_any is None


def test_diff_compares_only_like_geomeans(sweep):
    """pa's raw rows are the same in all three: no "vs any" change may come from the two numbers' gap."""
    new = snapshot_from_sweep(sweep).kernels["pa"]
    before = snapshot_from_json(json.loads(BEFORE_LADDER.read_text())).kernels["pa"]
    on = snapshot_from_json(json.loads(ON_LADDER.read_text())).kernels["pa"]
    for old in (before, on):
        kd = diff_kernel(old, new, DiffOptions())
        assert [c for c in kd.changes if c.kind == "geomean"] == []
    kd = diff_kernel(before, new, DiffOptions())
    assert (kd.old_geomean, kd.new_geomean) == (None, None)  # 0.493 and 0.764: not one quantity
    assert (diff_kernel(before, before, DiffOptions()).old_geomean
            == pytest.approx(pa_geomeans(sweep)["score"][0], rel=1e-12))  # like with like: the score's


def write_history(root: Path, doc: dict) -> Path:
    """A history folder holding ``doc`` as its one recorded sweep."""
    (root / "sweeps").mkdir(parents=True)
    (root / "sweeps" / "0001-slice.json").write_text(json.dumps(doc))
    (root / "history.json").write_text(json.dumps({
        "format_version": 1, "kind": "kernel-atlas-history", "retention": 20,
        "entries": [{"seq": 1, "label": "slice", "commit": None, "date": None, "file": "sweeps/0001-slice.json"}]}))
    return root


@pytest.mark.parametrize("fixture", [ON_LADDER, BEFORE_LADDER])
def test_history_draws_the_same_points_from_either_format(fixture, tmp_path):
    doc = json.loads(fixture.read_text())
    rewritten = snapshot_from_json(doc).to_json()
    assert rewritten["format_version"] == 2
    old = load_series(write_history(tmp_path / "old", doc))
    new = load_series(write_history(tmp_path / "new", rewritten))
    assert {s: [p.to_json() for p in pts] for s, pts in old.items()} == \
        {s: [p.to_json() for p in pts] for s, pts in new.items()}
    pa = old["pa"][0]
    assert pa.geomean == (doc["kernels"]["pa"].get("verdict_value") or doc["kernels"]["pa"]["geomean_vs_best"])
