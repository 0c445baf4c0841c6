"""How it was measured, on the overview (issue 23, 3): the counts the block shows equal counts taken
here straight from the real sweep's result files, with none of the tool's readers or rules."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from html import unescape
from pathlib import Path

from generator.site.views import measurement
from test_render import build_real_site  # same test folder


def _records(folder: Path) -> list[dict]:
    """The rows of a campaign's results file: the JSONL when there is one, else the CSV."""
    jsonl, csv_file = folder / "benchmark_results.jsonl", folder / "benchmark_results.csv"
    if jsonl.is_file():
        return [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]
    if csv_file.is_file():
        with open(csv_file, newline="") as fh:
            return list(csv.DictReader(fh))
    return []


def _usable(r: dict) -> bool:
    """status ok, verified correct, a positive median (VERDICTS rule 1's usable row)."""
    try:
        median = float(r.get("median_us") or 0)
    except ValueError:
        return False
    return r.get("benchmark_status") == "ok" and r.get("correct") in (True, "True", "true") and median > 0


def counted_from_files(sweep: Path) -> tuple[Counter, int, int, set[str]]:
    """(rows per (timing_method, cache_state), timed campaigns, timed shapes, baselines): per campaign,
    per (ledger shape, provider) the last usable row."""
    methods: Counter = Counter()
    campaigns = shapes = 0
    baselines: set[str] = set()
    for folder in sorted((sweep / "benchmarks" / "examples").iterdir()):
        rows = _records(folder)
        if not rows:
            continue
        campaigns += 1
        ledger = {json.loads(line)["shape_id"] for line in (folder / "shape_ledger.jsonl").read_text().splitlines()
                  if line.strip()}
        last: dict[tuple[str, str], dict] = {}
        for r in rows:
            if r["shape_id"] in ledger and _usable(r):
                last[(r["shape_id"], r["provider"])] = r
        for (_shape, provider), r in last.items():
            methods[(r.get("timing_method") or "", r.get("cache_state") or "")] += 1
            methods["eager"] += bool(r.get("eager_median_us"))
            if provider != "flydsl":
                baselines.add(provider)
        shapes += len({s for s, _ in last})
    return methods, campaigns, shapes, baselines


def _block_text(site: Path) -> str:
    html = (site / "index.html").read_text(encoding="utf-8")
    block = html[html.index('id="measured"'):html.index('data-i18n="measure.help"')]
    english = re.findall(r'<span class="l-en">(.*?)</span>', block)
    return unescape(re.sub(r"<[^>]+>", "", " | ".join(english)))  # glossary links ("call clock") as their text


def test_the_block_counts_what_the_result_files_hold(tmp_path_factory, sweep):
    methods, campaigns, shapes, baselines = counted_from_files(sweep)
    assert methods[("cudagraph", "l2_flushed_graph")] > 100 and methods[("eager_event", "")] > 0  # both, on the slice too
    text = _block_text(build_real_site(tmp_path_factory, sweep))
    graph, eager = methods[("cudagraph", "l2_flushed_graph")], methods[("eager_event", "")]
    assert f"{graph:,} rows graph-replayed, L2 flushed before each sample; " in text
    assert f"{eager:,} rows timed eagerly (events), cache state not recorded" in text
    assert sum(methods.values()) - methods["eager"] == graph + eager  # no other method in this sweep
    # rule 13's two clocks, counted from the same rows: the graph replays, the rows with an eager call time (the
    # eager-event rows among them: their call time is all they hold, so not "also carry", audit4)
    assert (f"verdicts read the kernel clock: {graph:,} rows graph-replayed (one replay after an L2 flush, the kernel "
            f"and a fixed replay cost); the launcher's call clock stands beside it: {methods['eager']:,} rows carry "
            "an eager call time (a call from the host, launch path inside), and 0 campaigns timed with events only") in text
    assert (f"{campaigns} kernels, {shapes} timed shapes, {len(baselines)} baselines: "
            + ", ".join(sorted(baselines))) in text
    # the candidate's own rows name its commits (baseline rows carry another commit column value)
    commits = sorted({r["candidate_commit"] for f in (sweep / "benchmarks" / "examples").iterdir()
                      for r in _records(f) if r.get("provider") == "flydsl" and r.get("candidate_commit")})
    assert f"flydsl: timed at {', '.join(commits)}; profiled at 18c5a7ed" in text


def test_the_block_has_its_chinese_and_nothing_when_nothing_was_timed():
    class Row:
        timing = None
        timed_commits: list = []
        profiled_commit = None

    assert measurement.measurement_view([Row()], "flydsl") == []
    row = Row()
    row.timing = {"methods": [["", "", 1]], "timed_shapes": 1, "baselines": ["pytorch"]}
    facts = measurement.measurement_view([row], "triton")
    assert [f.key for f in facts] == ["measure.timing", "measure.clocks", "measure.scope", "measure.candidate"]
    assert facts[0].said.en == "1 row with no timing method recorded, cache state not recorded"
    assert facts[1].said.en.startswith("verdicts read the kernel clock: 0 rows graph-replayed")
    assert facts[3].said.en == "triton (no commit recorded)"
    assert "".join(s.text for s in facts[2].said.zh) == "1 个内核，1 个已计时形状，1 个基线：pytorch"
