"""Issue 22: each case where something was lost without a word, through the CLI (exit status and
the words). The campaigns here are hand-made (``tests/handmade.py``)."""

from __future__ import annotations

import json
import os

from generator.cli import main

from handmade import handmade_suite_campaign, write_csv, write_jsonl


def run_cli(capsys, *argv):
    rc = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def handmade_sweep(root):
    """A sweep (hand-made) with one second-layout campaign ``attn`` and one folder that is no campaign."""
    handmade_suite_campaign(root / "benchmarks" / "examples" / "attn")
    (root / "benchmarks" / "examples" / "odd").mkdir()
    (root / "benchmarks" / "examples" / "odd" / "notes.txt").write_text("not a campaign\n")
    return root


ODD = ("benchmarks/examples/odd: not a campaign folder: no shape_ledger.jsonl, benchmark_results.jsonl or .csv, "
       "or results_<suite>.jsonl or .csv")


def test_a_second_layout_campaign_is_scored_not_broken(tmp_path, capsys):
    root = tmp_path / "sweep"
    handmade_suite_campaign(root / "benchmarks" / "examples" / "attn")
    rc, out, err = run_cli(capsys, "verdicts", root, "--json")
    assert (rc, err) == (0, "")
    doc = json.loads(out)
    assert doc["errors"] == {} and doc["campaigns"]["attn"]["results_file"] == "results_full.jsonl"
    assert doc["campaigns"]["attn"]["notes"][0].startswith("suite full read (12 rows")


def test_broken_campaigns_are_in_markdown_and_text(tmp_path, capsys):
    root = handmade_sweep(tmp_path / "sweep")
    rc, out, err = run_cli(capsys, "verdicts", root, "--markdown")
    assert rc == 1
    assert "| `odd` | **broken** |" + " \u2014 |" * 10 in out.splitlines()
    assert f"- `odd`: broken: {ODD}" in out.splitlines()
    assert err == f"kernel-atlas: broken odd: {ODD}\n"
    rc, out, err = run_cli(capsys, "verdicts", root)
    assert rc == 1
    assert [line.split() for line in out.splitlines() if line.startswith("odd ")] == [["odd", "broken", *["\u2014"] * 12]]
    assert f"odd: broken: {ODD}" in out.splitlines()
    rc, out, err = run_cli(capsys, "verdicts", root, "--json")
    assert rc == 1 and json.loads(out)["errors"] == {"odd": ODD}


def test_the_overview_tile_says_broken_and_the_path_once(tmp_path, capsys):
    root = handmade_sweep(tmp_path / "sweep")
    rc, out, err = run_cli(capsys, "build", root, "--out", tmp_path / "site", "--jobs", "1")
    assert rc == 0
    assert err.splitlines()[-1] == f"  broken odd: campaign {ODD}"
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'data-filter-verdict="BROKEN">' in index and 'data-i18n="verdict.broken">BROKEN</span>' in index
    assert 'data-filter-verdict="NONE"' not in index  # no "no campaign" tile: every kernel has one
    api = json.loads((tmp_path / "site" / "api" / "index.json").read_text(encoding="utf-8"))
    assert api["tallies"]["broken"] == 1 and api["tallies"]["unscored"] == 0
    doc = json.loads((tmp_path / "site" / "api" / "kernels" / "odd.json").read_text(encoding="utf-8"))
    assert doc["broken"] == [f"campaign {ODD}"]


def test_csv_and_jsonl_that_disagree_say_which_was_read(tmp_path, capsys):
    folder = tmp_path / "op"
    folder.mkdir()
    write_jsonl(folder / "shape_ledger.jsonl", [{"shape_id": "s1", "stage": "prefill", "args": {"n": 1}}])
    rows = [{"shape_id": "s1", "provider": p, "benchmark_status": "ok", "correct": True, "median_us": us}
            for p, us in (("flydsl", 10.0), ("pytorch", 20.0))]
    write_jsonl(folder / "benchmark_results.jsonl", rows)
    write_csv(folder / "benchmark_results.csv", [{**rows[0], "median_us": 40.0}, rows[1]])  # edited later
    os.utime(folder / "benchmark_results.jsonl", ns=(10**18, 10**18))
    os.utime(folder / "benchmark_results.csv", ns=(2 * 10**18, 2 * 10**18))
    rc, out, err = run_cli(capsys, "verdicts", folder)
    assert rc == 0
    assert ("op: benchmark_results.csv and benchmark_results.jsonl disagree (row 1: median_us 40.0 vs 10.0): "
            "read benchmark_results.csv, the newer") in out.splitlines()
    assert "0.50x" in out  # 20 / 40: the CSV's numbers


def test_build_with_nothing_to_build_exits_2_and_keeps_the_site(tmp_path, capsys):
    root = handmade_sweep(tmp_path / "sweep")
    site = tmp_path / "site"
    assert run_cli(capsys, "build", root, "--out", site, "--quiet", "--jobs", "1")[0] == 0
    before = sorted(p.relative_to(site) for p in site.rglob("*"))
    empty = tmp_path / "empty"
    (empty / "examples").mkdir(parents=True)
    (empty / "benchmarks" / "examples").mkdir(parents=True)
    rc, out, err = run_cli(capsys, "build", empty, "--out", site)
    assert (rc, out) == (2, "")
    assert err == (f"kernel-atlas: error: {empty}: nothing to build: no kernel bundle (examples/<kernel>/ with "
                   "att_viewer/ or ncu/ captures) and no campaign (benchmarks/examples/<op>/)\n")
    assert sorted(p.relative_to(site) for p in site.rglob("*")) == before
    rc, out, err = run_cli(capsys, "verdicts", empty)
    assert rc == 2 and err.count("\n") == 1


def test_sweep_findings_are_rendered_and_linked(tmp_path, capsys):
    root = tmp_path / "sweep"
    handmade_suite_campaign(root / "benchmarks" / "examples" / "attn")
    (root / "FINDINGS.md").write_text("# Findings 2026-06-01\n\n- attn loses at b4 <img src=x onerror=alert(1)>\n",
                                      encoding="utf-8")
    site = tmp_path / "site"
    assert run_cli(capsys, "build", root, "--out", site, "--quiet", "--jobs", "1")[0] == 0
    index = (site / "index.html").read_text(encoding="utf-8")
    assert ('<a href="findings.html" data-i18n="findings.link">Findings (hand-written)</a> '
            '<span class="muted" translate="no">2026-06-01</span>') in index
    page = (site / "findings.html").read_text(encoding="utf-8")
    assert "<li>attn loses at b4 &lt;img src=x onerror=alert(1)&gt;</li>" in page  # raw HTML kept as text
    assert 'data-i18n="findings.handwritten"' in page
    (root / "FINDINGS.md").write_text("# Findings, undated\n", encoding="utf-8")
    assert run_cli(capsys, "build", root, "--out", site, "--quiet", "--jobs", "1")[0] == 0
    assert "Findings, undated" in (site / "findings.html").read_text(encoding="utf-8")
    (root / "FINDINGS.md").unlink()
    assert run_cli(capsys, "build", root, "--out", site, "--quiet", "--jobs", "1")[0] == 0
    assert not (site / "findings.html").exists() and "findings.html" not in (site / "index.html").read_text()


def test_history_keeps_every_sweep_of_a_day(tmp_path, capsys, monkeypatch):
    """Two different sweeps dated alike are two entries; a rebuild of one replaces its own."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    a, b = handmade_sweep(tmp_path / "a"), handmade_sweep(tmp_path / "b")
    for root in (a, b):
        (root / "kernel-atlas.toml").write_text('[provenance]\ncapture_date = "2026-06-01"\n', encoding="utf-8")
    rows = [json.loads(line) for line in (b / "benchmarks/examples/attn/results_full.jsonl").read_text().splitlines()]
    rows[0]["us_median"] = 30.0  # sweep b: flydsl slower on b1 (hand-made)
    write_jsonl(b / "benchmarks/examples/attn/results_full.jsonl", rows)
    site, hist = tmp_path / "site", tmp_path / "history"

    def build(root, *more):
        rc, out, err = run_cli(capsys, "build", root, "--out", site, "--history", hist, "--jobs", "1", *more)
        assert rc == 0
        return [line for line in err.splitlines() if line.startswith("history: ")]

    assert build(a) == ["history: added '2026-06-01', a new sweep; 1 sweep kept"]
    assert build(a, "--force") == ["history: replaced '2026-06-01', the same sweep; 1 sweep kept"]
    assert build(b) == ["history: added '2026-06-01.2', a different sweep of the same date; 2 sweeps kept"]
    entries = json.loads((hist / "history.json").read_text())["entries"]
    assert [e["label"] for e in entries] == ["2026-06-01", "2026-06-01.2"]
    assert entries[0]["identity"] != entries[1]["identity"]
    page = (site / "history.html").read_text(encoding="utf-8")
    # issue 33: every kernel of every sweep has its section; odd has no timings: its verdicts, no empty chart
    odd = page[page.index('id="h-odd"'):]
    odd = odd[:odd.index("</section>")]
    assert 'id="h-attn"' in page and 'data-figure="fig-history-attn"' in page and "data-figure" not in odd


def test_one_shape_slower_beyond_its_noise_fails_the_diff(tmp_path, capsys):
    from handmade import handmade_classic_campaign

    old, new = tmp_path / "old", tmp_path / "new"
    handmade_classic_campaign(old / "benchmarks" / "examples" / "norm")
    handmade_classic_campaign(new / "benchmarks" / "examples" / "norm", slower={"n4": 1.17})
    rc, out, err = run_cli(capsys, "diff", old, new)
    assert rc == 0
    lines = out.splitlines()
    # the kernel's geomean moves 1.6 % (1.17 ** (1 / 10)): within its 3 % noise; the shape moved 14.5 %
    assert "1 shape slower beyond its noise in 1 kernel that held its geomean" in lines[0]
    assert "  n=4 bf16: 1.20x \u2192 1.03x (-14.5%)  [unexplained: candidate time \u00d71.17; no commit or " \
           "environment change recorded]" in lines
    # the kernel is listed for its shape: the line says so and names the geomean's move as within noise,
    # and the cause line gives the shape's cause, not "noise" for a geomean change it does not list
    assert lines[2].startswith("norm (norm): 1 shape beyond its noise; within noise: ")
    assert "  cause of the shape moves: unexplained: candidate time \u00d71.17; no commit or " \
           "environment change recorded" in lines
    assert not any("cause of the geomean change" in line for line in lines)
    assert not any(line.strip().startswith("cause: ") for line in lines)
    rc, out, err = run_cli(capsys, "diff", old, new, "--fail-on-regression")
    assert rc == 1
    rc, out, err = run_cli(capsys, "diff", old, new, "--json")
    assert json.loads(out)["shape_regressions"] == [["norm", "n4"]] and json.loads(out)["regressions"] == []
    rc, out, err = run_cli(capsys, "diff", old, old, "--fail-on-regression")
    assert rc == 0
