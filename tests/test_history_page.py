"""The history page after sweeps that differ the way real ones do (issue 33): it opens on what the
latest sweep changed against the one before, says who moved, and lists every kernel of every sweep
(BLOCKED included) with its verdicts over the sweeps.

Four weekly sweeps made from copies of the shared one (campaigns the slice holds too):

* w1: quant with aiter and aiter_triton failing everywhere; vec_add with FlyDSL failing everywhere (BLOCKED);
* w2: vec_add's FlyDSL fixed (the shared rows);
* w3: moe_blockscale's campaign arrives;
* w4: aiter and aiter_triton pass on quant again (the shared rows: the comparison changed), vec_add's
  candidate is 1.2x slower at commit abcdef12 (the candidate's regression), moe_blockscale is gone and
  pa_decode arrives.

Expected counts come from the copied raw rows (tests/verdict_oracle.py), apart from the code under test.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from generator import cli
from generator.site import build
from generator.site.views.history import strip_cells
from generator.sweeps.history import load_history
from generator.sweeps.history_series import history_chart_data, load_series
from test_snapshot import chain, fail_provider, make_sweep_copy, scale_provider
from verdict_oracle import shape_pairs

NO_AITER = chain(fail_provider("aiter"), fail_provider("aiter_triton"))
WEEKS = {
    "w1": {"quant": NO_AITER, "vec_add": fail_provider("flydsl")},
    "w2": {"quant": NO_AITER, "vec_add": None},
    "w3": {"quant": NO_AITER, "vec_add": None, "moe_blockscale": None},
    "w4": {"quant": None, "vec_add": scale_provider("flydsl", 1.2, candidate_commit="abcdef12"), "pa_decode": None},
}


def build_weeks(sweep: Path, base: Path, weeks: dict = WEEKS) -> tuple[Path, Path, dict[str, Path]]:
    """Each week's sweep copied and built in turn into one site with one history."""
    out, hist, folders = base / "site", base / "history", {}
    for label, campaigns in weeks.items():
        folders[label] = make_sweep_copy(sweep, base / label, (), campaigns)
        build.build_site(folders[label], out, progress=False, history_dir=hist, history_label=label)
    return out, hist, folders


@pytest.fixture(scope="module")
def weeks(sweep, tmp_path_factory):
    return build_weeks(sweep, tmp_path_factory.mktemp("weeks"))


def best_counts(folder: Path) -> dict[str, int]:
    """Fastest usable baseline -> its shapes, from the raw rows."""
    out: dict[str, int] = {}
    for _, b in shape_pairs(folder).values():
        out[b["provider"]] = out.get(b["provider"], 0) + 1
    return out


def test_the_lead_says_what_the_latest_sweep_changed(weeks, sweep):
    out, hist, folders = weeks
    page = (out / "history.html").read_text()
    quant = sweep / "benchmarks/examples/quant"
    rows = [json.loads(ln) for ln in (quant / "benchmark_results.jsonl").read_text().splitlines() if ln.strip()]
    passing = {p: sum(1 for r in rows if r["provider"] == p and r["benchmark_status"] == "ok" and r["correct"])
               for p in ("aiter", "aiter_triton")}
    assert passing == {"aiter": 12, "aiter_triton": 12}
    assert best_counts(folders["w3"] / "benchmarks/examples/quant") == {"pytorch": 12}
    now = best_counts(quant)
    assert now == {"aiter": 5, "aiter_triton": 7}
    lead = page[page.index('id="latest"'):page.index('<p><span data-i18n="history.sweeps">')]
    assert '<strong translate="no">w4</strong> <span data-i18n="hist.lead.against">against</span> <strong translate="no">w3</strong>' in lead
    assert ("regressions: 1 · improvements: 0 · comparison changes: 1 · new kernels: 1 · removed kernels: 1") in lead
    heads = [h.split("</span>")[0].split(">")[-1] for h in lead.split("<h3>")[1:]]
    assert heads == ["Regressions", "Comparison changes (not the candidate&#39;s)", "New kernels", "Removed kernels"]
    groups = {g.split('"')[0]: g for g in lead.split('<div class="lead-group lead-')[1:]}
    assert list(groups) == ["regressed", "compared", "new", "removed"]
    assert '<a href="#h-vec_add" translate="no">Vector Add</a>' in groups["regressed"]
    assert 'data-i18n="hist.who.candidate">moved by the candidate' in groups["regressed"]
    assert "candidate commit 7255fff8 → abcdef12" in groups["regressed"]
    assert '<a href="#h-quant" translate="no">Per-Token Quant</a>' in groups["compared"]
    assert 'data-i18n="hist.who.comparison">moved by the comparison' in groups["compared"]
    assert "hist.who.candidate" not in groups["compared"]
    for p, n in passing.items():
        assert f"{p} now passes on {n} shapes (was failed)" in groups["compared"]
    for p, n in now.items():
        assert f"best baseline pytorch → {p} on {n} shapes" in groups["compared"]
    assert '<a href="#h-pa" translate="no">Paged-Attn Decode (PS)</a>' in groups["new"]
    assert '<a href="#h-moe_blockscale" translate="no">MoE Block-Scale (2-stage)</a>' in groups["removed"]
    # the comparison's move is no regression mark, on the history page or the overview; the candidate's is
    index = {k["slug"]: k for k in json.loads((out / "api/index.json").read_text())["kernels"]}
    assert not index["quant"]["regression"] and index["vec_add"]["regression"].startswith("regressed ")


def test_every_kernel_of_every_sweep_has_its_verdicts(weeks):
    out, hist, _ = weeks
    page = (out / "history.html").read_text()
    series = load_series(hist)
    assert sorted(series) == ["moe_blockscale", "pa", "quant", "vec_add"]
    for slug in series:
        assert f'<section class="panel" id="h-{slug}">' in page
    section = page[page.index('id="h-vec_add"'):]
    section = section[:section.index("</table>")]
    assert [v for v in ("BLOCKED", "HEADROOM") if v in section] == ["BLOCKED", "HEADROOM"]
    # vec_add in w1: FlyDSL fails every shape, so BLOCKED without a ratio; a verdict word in the strip
    assert [p.verdict for p in series["vec_add"]][:2] == ["BLOCKED", "HEADROOM"]
    assert series["vec_add"][0].geomean is None
    assert '<td class="verdict-blocked" translate="no">BLOCKED</td>' in section
    # only the newest recorded sweep keeps its shapes
    files = [hist / e.file for e in load_history(hist).entries]
    assert [bool(any(k["shapes"] for k in json.loads(f.read_text())["kernels"].values())) for f in files] == [
        False, False, False, True]


def test_only_a_baselines_correctness_changed(sweep, tmp_path, capsys):
    """Two sweeps where only quant's aiter and aiter_triton start to pass: diff and the history say so,
    count no regression, and --fail-on-regression exits 0."""
    out, hist, folders = build_weeks(sweep, tmp_path, {"a": {"quant": NO_AITER}, "b": {"quant": None}})
    page = (out / "history.html").read_text()
    assert "regressions: 0 · improvements: 0 · comparison changes: 1 · new kernels: 0 · removed kernels: 0" in page
    assert "hist.who.candidate" not in page[:page.index('<p><span data-i18n="history.sweeps">')]
    index = {k["slug"]: k for k in json.loads((out / "api/index.json").read_text())["kernels"]}
    assert not index["quant"]["regression"]
    assert cli.main(["diff", str(folders["a"]), str(folders["b"]), "--fail-on-regression"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].startswith("a → b: no significant change of any kernel's standing · "
                                           "1 comparison change (not the candidate's): Per-Token Quant ")


def test_handmade_interval_and_launch_overhead_are_shown_when_present(weeks, tmp_path):
    """Handmade: the newest stored sweep with the verdict engine's ``verdict_ci`` and ``launch_overhead_us``
    written into its vec_add record (keys the engine adds); the series, chart and strip show them."""
    _, hist, _ = weeks
    copy_dir = tmp_path / "history"
    copy_dir.mkdir()
    (copy_dir / "sweeps").mkdir()
    entries = load_history(hist).entries
    (copy_dir / "history.json").write_text((hist / "history.json").read_text())
    for e in entries:
        doc = json.loads((hist / e.file).read_text())
        if e is entries[-1]:
            doc = copy.deepcopy(doc)
            g = doc["kernels"]["vec_add"]["verdict_value"]
            doc["kernels"]["vec_add"].update(verdict_ci=[g * 0.9, g * 1.1], launch_overhead_us=[4.25, 7])
        (copy_dir / e.file).write_text(json.dumps(doc))
    pts = load_series(copy_dir)["vec_add"]
    last = pts[-1]
    assert last.ci == (pytest.approx(last.geomean * 0.9), pytest.approx(last.geomean * 1.1))
    assert last.launch_overhead == (4.25, 7) and pts[-2].ci is None
    line = history_chart_data({"vec_add": pts})["vec_add"]["data"][2]
    assert line["error_y"]["array"][-1] == pytest.approx(last.geomean * 0.1)
    assert line["error_y"]["arrayminus"][:-1] == [None] * (len(pts) - 1)
    assert line["text"][-1].split("<br>")[-3:] == [
        f"interval {last.geomean * 0.9:.3f}x to {last.geomean * 1.1:.3f}x", "call gap 4.2 µs (7 launch shapes)",
        last.verdict]
    cell = strip_cells(pts)[-1]
    assert cell.ratio == f"{last.geomean:.2f}x [{last.geomean * 0.9:.2f}x, {last.geomean * 1.1:.2f}x]"
    assert cell.launch == "4.2 µs (7 launch shapes)" and strip_cells(pts)[0].launch == ""


def test_a_long_group_is_counted_not_listed(sweep, tmp_path, monkeypatch):
    """Every kernel of the sweep is new against a sweep of quant alone: the group counts them all and lists
    the first MAX_ITEMS (set to 2 here), the rest as ``and N more``."""
    from generator.site.views import latest as latest_views
    from generator.sweeps.diff import diff_snapshots
    from generator.sweeps.snapshot_sources import load_snapshot, snapshot_from_sweep

    monkeypatch.setattr(latest_views, "MAX_ITEMS", 2)
    old = load_snapshot(make_sweep_copy(sweep, tmp_path / "q", (), {"quant": None}))
    new = snapshot_from_sweep(sweep)
    added = sorted(set(new.kernels) - set(old.kernels))
    lead = latest_views.lead_view(diff_snapshots(old, new))
    group = next(g for g in lead.groups if g.key == "hist.lead.new")
    assert group.total == len(added) > 2 and [i.slug for i in group.items] == added[:2]
    assert group.more == f"and {len(added) - 2} more"
    assert lead.summary.endswith(f"new kernels: {len(added)} · removed kernels: 0")
