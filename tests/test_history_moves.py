"""The history names who moved between successive sweeps, as ``diff`` does (issue 40, points 3 and 5).

Three successive sweeps made from the shared one as the team keeps them (every folder linked, no
docs/data/kernels.json), moe_gemm's rows edited by hand the way its real weeks differed (the fixtures
say "handmade" in their names): week 1 aiter fails every shape and the fp8 check is tight (flydsl
incorrect on 6 shapes); week 2 aiter is fixed (it passes on the 3 shapes it passes in the shared sweep),
flydsl and aiter both fail the tight check on the other 6; week 3 the check is loosened (the shared
rows). Then the published sweep itself (with kernels.json). Expected facts are read from the raw rows.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from generator.site.views import history as history_views
from generator.sweeps import history, history_series
from generator.sweeps.labels import undated_label
from generator.sweeps.snapshot_sources import load_snapshot

#: moe_gemm's shapes where aiter passes in the shared sweep (``test_diff_sweeps.AITER_PASSES``).
KEPT = {"sha1:1ffd9226bf013782", "sha1:3e1f04d82bff6672", "sha1:f006ff8500772932"}
FIELDS = ("median_us", "p10_us", "p90_us", "mean_us", "min_us", "std_us", "graph_median_us", "eager_median_us")


def handmade_fail(row: dict) -> dict:
    return dict(row, benchmark_status="failed", correct=None, **{k: None for k in FIELDS})


def handmade_tight(row: dict, providers: set[str]) -> dict:
    if row["provider"] in providers and row["correct"] and row["shape_id"] not in KEPT:
        return dict(row, correct=False, correctness_error="handmade: max abs err 0.0625 > atol 0.05")
    return row


WEEKS = {
    "handmade-w1-aiter-failing": lambda r: handmade_tight(handmade_fail(r) if r["provider"] == "aiter" else r, {"flydsl"}),
    "handmade-w2-aiter-fixed": lambda r: handmade_tight(r, {"flydsl", "aiter"}),
    "handmade-w3-check-loosened": None,
}


def make_week(shared: Path, root: Path, edit) -> Path:
    """The whole sweep linked under ``root`` without docs/data/kernels.json, moe_gemm's rows through ``edit``."""
    (root / "benchmarks" / "examples").mkdir(parents=True)
    (root / "examples").symlink_to(shared / "examples", target_is_directory=True)
    for op in sorted(os.listdir(shared / "benchmarks" / "examples")):
        src, dst = shared / "benchmarks" / "examples" / op, root / "benchmarks" / "examples" / op
        if op != "moe_gemm" or edit is None:
            dst.symlink_to(src, target_is_directory=True)
            continue
        dst.mkdir()
        for f in ("shape_ledger.jsonl", "baseline_matrix.yaml"):
            (dst / f).symlink_to(src / f)
        rows = [json.loads(ln) for ln in (src / "benchmark_results.jsonl").open() if ln.strip()]
        (dst / "benchmark_results.jsonl").write_text("".join(json.dumps(edit(r)) + "\n" for r in rows))
    return root


@pytest.fixture(scope="module")
def weeks(sweep, tmp_path_factory) -> Path:
    """The history of the three weeks and the published sweep, recorded in order (labels: folder names)."""
    base = tmp_path_factory.mktemp("weeks")
    hist = base / "history"
    for name, edit in WEEKS.items():
        folder = make_week(sweep, base / name, edit)
        history.record_snapshot(load_snapshot(folder), hist, undated_label(folder))
    history.record_snapshot(load_snapshot(sweep), hist, "2026-06-01")
    return hist


@pytest.mark.full_sweep
def test_each_sweep_keeps_who_moved_against_the_one_before(weeks, sweep):
    rows = [json.loads(ln) for ln in (sweep / "benchmarks/examples/moe_gemm/benchmark_results.jsonl").open() if ln.strip()]
    both = {r["shape_id"] for r in rows if r["provider"] == "flydsl" and r["correct"]} & \
        {r["shape_id"] for r in rows if r["provider"] == "aiter" and r["correct"]}
    assert KEPT <= both and len(both - KEPT) == 6  # the raw rows: 3 fixed, 6 the check decides
    entries = history.load_history(weeks).entries
    assert [e.label for e in entries] == list(WEEKS) + ["2026-06-01"]
    assert entries[0].moves == {}  # the first sweep has none before it
    w2 = entries[1].moves["moe_gemm"]
    assert w2["who"] == ["comparison"]  # a baseline's fix: the comparison moved, not the candidate
    said = [f["sentence"][0] for f in w2["facts"]]
    assert "aiter now passes on 3 shapes (was failed)" in said and "best baseline pytorch → aiter on 3 shapes" in said
    w3 = entries[2].moves["moe_gemm"]
    assert "check" in w3["who"] and "candidate" not in w3["who"]
    assert ("the correctness check changed: the candidate and a baseline at the same commit now pass it together "
            "on 6 shapes (neither kernel's doing)") in [f["sentence"][0] for f in w3["facts"]]
    # the published sweep against week 3: the same results; only kernels.json (the profiled pairs) differs
    pub = entries[3].moves
    assert set(pub) <= {"moe_gemm", "moe_blockscale"} and all(m["who"] == ["comparison"] for m in pub.values())
    assert all(f["sentence"][1] == "msg.hist.lead.basis" for m in pub.values() for f in m["facts"])


@pytest.mark.full_sweep
def test_the_strip_shows_what_diff_finds(weeks):
    from generator.site.views.base import SiteContext

    series = history_series.load_series(weeks)
    page = history_views.history_page([], {}, {}, [e.label for e in history.load_history(weeks).entries],
                                      SiteContext(), series)
    moe = next(h for h in page.charts if h.slug == "moe_gemm")
    assert moe.moved and [c.verdict for c in moe.strip][:3] == ["BLOCKED", "BLOCKED", "BLOCKED"]
    cells = {c.label: c for c in moe.strip}
    assert cells["handmade-w2-aiter-fixed"].who == ["hist.who.comparison"]
    assert "aiter now passes on 3 shapes (was failed)" in [str(f) for f in cells["handmade-w2-aiter-fixed"].facts]
    assert "hist.who.check" in cells["handmade-w3-check-loosened"].who
    assert cells["handmade-w1-aiter-failing"].who == [] and cells["handmade-w1-aiter-failing"].facts == []


def test_an_undated_sweep_is_labelled_by_its_commit_or_folder(tmp_path):
    plain = tmp_path / "sweep-w23"
    plain.mkdir()
    assert undated_label(plain) == "sweep-w23"
    repo = tmp_path / "team sweep"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    try:
        subprocess.run(git + ["init", "-q"], check=True)
        (repo / "README").write_text("x\n")
        subprocess.run(git + ["add", "README"], check=True)
        subprocess.run(git + ["commit", "-q", "-m", "x"], check=True)
        head = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as err:
        pytest.skip(f"git is not usable here: {err}")
    assert undated_label(repo) == head[:8]
    (repo / "sweeps" / "w23").mkdir(parents=True)  # a sweep kept inside the checkout: its commit too
    assert undated_label(repo / "sweeps" / "w23") == head[:8]
    subprocess.run(git + ["pack-refs", "--all"], check=True)  # the ref only in packed-refs
    assert undated_label(repo) == head[:8]


def test_a_build_of_an_undated_sweep_records_its_folder_name(sweep, tmp_path):
    from generator.site import build
    from test_snapshot import make_sweep_copy

    folder = make_sweep_copy(sweep, tmp_path / "sweep-w24", (), {"vec_add": None}, kernels_json=False)
    build.build_site(folder, tmp_path / "site", progress=False, history_dir=tmp_path / "history")
    assert [e.label for e in history.load_history(tmp_path / "history").entries] == ["sweep-w24"]


@pytest.mark.full_sweep
def test_the_built_history_page_shows_this_sweeps_moves(sweep, tmp_path):
    """Weeks 1 and 2 recorded, week 3 built with --history: the page's strip says, under week 3, that the
    check moved moe_gemm (the build's own diff against week 2, before week 3 is recorded)."""
    import html
    import re

    from generator.site import build

    hist = tmp_path / "history"
    for name in ("handmade-w1-aiter-failing", "handmade-w2-aiter-fixed"):
        folder = make_week(sweep, tmp_path / name, WEEKS[name])
        history.record_snapshot(load_snapshot(folder), hist, undated_label(folder))
    w3 = make_week(sweep, tmp_path / "handmade-w3-check-loosened", None)
    build.build_site(w3, tmp_path / "site", progress=False, history_dir=hist)
    page = (tmp_path / "site" / "history.html").read_text(encoding="utf-8")
    section = page[page.index('id="h-moe_gemm"'):]
    section = section[:section.index("</table>")]
    row = section[section.index('data-i18n="hist.strip.moved"'):]
    row = row[:row.index("</tr>")]
    cells = [html.unescape(re.sub(r"<[^>]+>", " ", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
    assert len(cells) == 3 and cells[0].strip() == "—"
    assert "moved by the comparison" in cells[1] and "aiter now passes on 3 shapes (was failed)" in cells[1]
    assert "moved by the check" in cells[2] and "now pass it together on 6 shapes" in cells[2]
    assert [e.label for e in history.load_history(hist).entries][-1] == "handmade-w3-check-loosened"
