"""What the stream says (DOMAIN.md §6): the check of each pull request per runner, the health of
each runner's latest push to main against the release tag, and FlyDSL against AIter."""

from __future__ import annotations

import math
import re
from dataclasses import field

from generator.analyze.ci.moves import (IMPROVEMENT, MIN_STEPS, NOISE, REGRESSION, Move, Series, bound, build_series,
                                        classify, noise_summary)
from generator.analyze.verdicts.rules import verdict_of_speedup
from generator.model import record
from generator.read.ci_stream import CiRecord, Run, Stream

SPEEDUP = "speedup"
#: A speedup row is stored the other way round when its value is this close to flydsl_us / aiter_us.
INVERTED_TOLERANCE = 0.02
#: The runs whose speedups give a verdict's spread.
LAST_RUNS = 5


class Sorted:
    """Moves sorted into kinds (REGRESSION, IMPROVEMENT, NOISE)."""

    moves: list[Move]

    def of(self, kind: str) -> list[Move]:
        return [m for m in self.moves if m.kind == kind]


@record
class Check(Sorted):
    """One pull request on one runner, its latest run: every usable pair sorted into its kind,
    and their own -3 % flags beside."""

    pr: int
    runner: str
    run_id: int
    ts: str
    commit: str
    moves: list[Move]
    flags: list[CiRecord]  # their own regression flags in this run
    flags_noise: int  # of those, within noise or resolution (or without a usable pair)


@record
class Health(Sorted):
    """A runner's latest push to main against the release tag."""

    runner: str
    run_id: int
    ts: str
    commit: str
    tag: str
    moves: list[Move]


@record
class Speedup:
    """A FlyDSL-vs-AIter series: the latest ratio aiter_us / flydsl_us, its verdict, the last runs."""

    runner: str
    op: str
    shape: str
    dtype: str
    ratio: float
    verdict: str
    last: list[float]  # ratios of the last LAST_RUNS rows, oldest first
    ts: str
    history: list[tuple[str, float]] = field(default_factory=list)  # (ts, ratio), oldest first
    source: str = ""  # the latest row's run: "#N" (a pull request: its branch), "main" (a push) or its run id


@record
class Report:
    """Everything ``ci`` prints and the site shows."""

    stream: Stream
    series: dict[tuple, Series]
    checks: list[Check]
    health: dict[str, Health]
    speedups: list[Speedup]
    inverted: list[CiRecord]
    flags_total: int
    flags_noise: int
    runs: dict[int, Run]
    pr_runs: dict[int, tuple[int, set[str]]] = field(default_factory=dict)  # pr -> (latest run id, its runners)
    runners: set[str] = field(default_factory=set)  # every runner of the stream

    @property
    def prs(self) -> list[int]:
        return sorted({c.pr for c in self.checks})


def latest(records: list[CiRecord]) -> list[CiRecord]:
    """The records of the latest run: the largest run id, then the latest time."""
    top = max(r.order for r in records)
    return [r for r in records if r.order == top]


def _moves(records: list[CiRecord], series: dict[tuple, Series], baseline: str) -> list[Move]:
    out = [classify(r, getattr(r, baseline), series[r.series]) for r in records if r.metric != SPEEDUP]
    return sorted((m for m in out if m is not None), key=lambda m: m.record.series)


def at_tag_level(m: Move, series: dict[tuple, Series]) -> Move | None:
    """A pull request's move against main whose value is within noise of the release tag measured in the same
    job (vs_tag, by the same test), while main's baseline is itself past the bound from the tag's, on the
    move's side: the gap is main's own move since the tag, which the branch does not show (three PRs'
    gemm_async 9728 int8 on mi355 at 0.65-0.68x: each at 1.000x of the tag, main 1.5x above it). The tag's
    move, else None."""
    r, s = m.record, series[m.record.series]
    if m.kind == NOISE or m.pair is not r.vs_main or m.pair.baseline is None:
        return None
    t = classify(r, r.vs_tag, s)
    if t is None or t.kind != NOISE or t.pair.baseline is None or t.pair.baseline <= 0:
        return None
    main_over_tag = m.pair.baseline / t.pair.baseline
    steps = round(abs(m.pair.baseline - t.pair.baseline) / s.unit)
    moved = abs(math.log(main_over_tag)) > bound(s.noise) and steps >= MIN_STEPS
    return t if moved and (main_over_tag > 1) == (m.ratio < 1) else None


def flag_is_noise(r: CiRecord, series: dict[tuple, Series]) -> bool:
    """Their flag is not a move of ours: within noise or resolution, or no usable pair."""
    m = classify(r, r.vs_main, series[r.series])
    return m is None or m.kind != REGRESSION


def pr_checks(records: list[CiRecord], series: dict[tuple, Series]) -> list[Check]:
    """One check per pull request and runner, from the latest run of that PR on that runner."""
    groups: dict[tuple[int, str], list[CiRecord]] = {}
    for r in records:
        if r.pr is not None:
            groups.setdefault((r.pr, r.runner), []).append(r)
    out = []
    for (pr, runner), rs in sorted(groups.items()):
        run = latest(rs)
        flags = sorted((r for r in run if r.regression), key=lambda r: r.series)
        out.append(Check(pr, runner, run[0].run_id, run[0].ts, run[0].commit, _moves(run, series, "vs_main"),
                         flags, sum(flag_is_noise(r, series) for r in flags)))
    return out


def is_push(r: CiRecord, runs: dict[int, Run]) -> bool:
    """A record of a push to main: ``pr`` null, and not a run that runs.json marks as a pull_request
    event (a few ``pr``-null runs are pull requests: their numbers are a branch's, not main's)."""
    return r.pr is None and not (r.run_id in runs and runs[r.run_id].event == "pull_request")


def latest_on_main(s: Series, runs: dict[int, Run]) -> CiRecord | None:
    """The series' latest measurement of main: its latest push record with status ok and a value above 0
    (a PR's records measure its branch; a 0 is a value printed below its last digit, no measurement)."""
    return next((r for r in reversed(s.records) if is_push(r, runs) and r.status == "ok"
                 and r.value is not None and r.value > 0), None)


def health(records: list[CiRecord], series: dict[tuple, Series], runs: dict[int, Run]) -> dict[str, Health]:
    """Per runner, its latest push to main (``is_push``) read against the release tag by the same test."""
    groups: dict[str, list[CiRecord]] = {}
    for r in records:
        if is_push(r, runs):
            groups.setdefault(r.runner, []).append(r)
    out = {}
    for runner in sorted(groups):
        run = latest(groups[runner])
        tags = sorted({r.vs_tag.label for r in run if r.vs_tag is not None and r.vs_tag.label})
        out[runner] = Health(runner, run[0].run_id, run[0].ts, run[0].commit, ", ".join(tags),
                             _moves(run, series, "vs_tag"))
    return out


def speedup_ratio(r: CiRecord) -> float | None:
    """aiter_us / flydsl_us (> 1: FlyDSL faster); None when either latency is missing."""
    if r.flydsl_us and r.aiter_us and r.flydsl_us > 0 and r.aiter_us > 0:
        return r.aiter_us / r.flydsl_us
    return None


def is_inverted(r: CiRecord) -> bool:
    """The row's value was printed flydsl/aiter (the 2026-06-11 wart), and cannot be read the other way."""
    ratio = speedup_ratio(r)
    if ratio is None or r.value is None:
        return False
    return abs(r.value - 1 / ratio) <= INVERTED_TOLERANCE and abs(r.value - ratio) > INVERTED_TOLERANCE


def run_source(r: CiRecord, runs: dict[int, Run]) -> str:
    """Whose code a row measured: ``#N`` (a pull request's branch), ``main`` (a push), else its run id."""
    if r.pr is not None:
        return f"#{r.pr}"
    return "main" if is_push(r, runs) and r.run_id in runs else str(r.run_id)


def speedups(series: dict[tuple, Series], runs: dict[int, Run] | None = None) -> list[Speedup]:
    """Per speedup series, its latest row's ratio and verdict (and whose run it is), and the ratios of its last runs."""
    runs = runs or {}
    out = []
    for key, s in series.items():
        if key[4] != SPEEDUP:
            continue
        rows = [(r, speedup_ratio(r)) for r in s.records]
        rows = [(r, q) for r, q in rows if q is not None]
        if not rows:
            continue
        r, q = rows[-1]
        out.append(Speedup(key[0], key[1], key[2], key[3], q, verdict_of_speedup(q),
                           [x for _, x in rows[-LAST_RUNS:]], r.ts, [(x.ts, y) for x, y in rows], run_source(r, runs)))
    return out


def analyze(stream: Stream, runs: dict[int, Run] | None = None) -> Report:
    """The whole reading of one stream (``runs``: runs.json, to skip pull requests among pushes)."""
    runs = runs or {}
    series = build_series(stream.records)
    flags = [r for r in stream.records if r.pr is not None and r.regression]
    return Report(stream, series, pr_checks(stream.records, series), health(stream.records, series, runs),
                  speedups(series, runs), [r for r in stream.records if r.metric == SPEEDUP and is_inverted(r)],
                  len(flags), sum(flag_is_noise(r, series) for r in flags), runs, pr_runs(stream.records),
                  {r.runner for r in stream.records})


# ---------------------------------------------------------------- JSON


def move_json(m: Move) -> dict:
    """{op, shape, dtype, metric, ratio, threshold} and how it was read (noise, steps, baseline)."""
    r = m.record
    return {"op": r.op, "shape": r.shape, "dtype": r.dtype, "metric": r.metric, "ratio": m.ratio,
            "threshold": m.threshold, "noise": m.noise, "basis": m.basis, "value": r.value, "baseline": m.pair.baseline,
            "label": m.pair.label, "steps": m.steps, "resolution": m.by_resolution}


def _flag_json(r: CiRecord) -> dict:
    return {"op": r.op, "shape": r.shape, "dtype": r.dtype, "metric": r.metric,
            "ratio": r.vs_main.ratio if r.vs_main else None}


def check_json(c: Check) -> dict:
    return {"pr": c.pr, "runner": c.runner, "run_id": c.run_id, "ts": c.ts, "commit": c.commit,
            "regressions": [move_json(m) for m in c.of(REGRESSION)],
            "improvements": [move_json(m) for m in c.of(IMPROVEMENT)],
            "within_noise": [move_json(m) for m in c.of(NOISE)],
            "flags": [_flag_json(r) for r in c.flags], "flags_within_noise": c.flags_noise}


def speedup_json(s: Speedup) -> dict:
    return {"runner": s.runner, "op": s.op, "shape": s.shape, "dtype": s.dtype, "ratio": round(s.ratio, 3),
            "verdict": s.verdict, "last": [round(x, 3) for x in s.last],
            "range": [round(min(s.last), 3), round(max(s.last), 3)], "ts": s.ts}


def to_json(rep: Report) -> dict:
    """The document ``ci --json`` prints."""
    return {
        "file": rep.stream.path, "updated": rep.stream.updated, "repo": rep.stream.repo,
        "records": len(rep.stream.records), "skipped": len(rep.stream.warnings), "series": len(rep.series),
        "prs": len(rep.prs), "noise": noise_summary(rep.series),
        "their_flags": {"on_pr_records": rep.flags_total, "within_noise": rep.flags_noise},
        "pr_checks": [check_json(c) for c in rep.checks],
        "pr_runs": [{"pr": pr, "run_id": rep.pr_runs[pr][0],
                     "missing": [{"runner": r, "job": state} for r, state in missing_runners(rep, pr)]}
                    for pr in rep.prs],
        "health": {k: [move_json(m) for m in h.of(REGRESSION)] for k, h in rep.health.items()},
        "health_runs": {k: {"run_id": h.run_id, "ts": h.ts, "commit": h.commit, "tag": h.tag,
                            "compared": len(h.moves), "improvements": len(h.of(IMPROVEMENT))}
                        for k, h in rep.health.items()},
        "inverted": len(rep.inverted),
        "inverted_rows": [{"runner": r.runner, "op": r.op, "shape": r.shape, "ts": r.ts, "value": r.value,
                           "ratio": round(speedup_ratio(r), 3)} for r in rep.inverted],
        "speedups": [speedup_json(s) for s in rep.speedups],
    }


# ---------------------------------------------------------------- pages and runs

def pr_page(pr: int) -> str:
    """The site path of a pull request's check page."""
    return f"ci/pr-{pr}.html"


def slug(text: str) -> str:
    """Lower case, every run of other characters one ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def op_page(runner: str, op: str) -> str:
    """The page of one op on one runner, relative to ``ci/``."""
    return f"op-{slug(runner)}--{slug(op)}.html"


def series_anchor(key: tuple) -> str:
    """The section id of one series (runner, op, shape, dtype, metric) on its op page."""
    return "s-" + slug(f"{key[2]}-{key[3]}-{key[4]}")


def series_page(key: tuple) -> str:
    """The site path of one series' trend: its op page and its section."""
    return f"ci/{op_page(key[0], key[1])}#{series_anchor(key)}"


def missing_runners(rep: Report, pr: int) -> list[tuple[str, str]]:
    """(runner, job state) of the stream's runners with no record in the pull request's latest run:
    still in progress, or failed (the state from runs.json when it knows the run, else "unknown")."""
    if pr not in rep.pr_runs:
        return []
    run_id, have = rep.pr_runs[pr]
    jobs = dict(rep.runs[run_id].jobs) if run_id in rep.runs else {}
    return [(r, jobs.get(r, "unknown")) for r in sorted(rep.runners - have)]


def pr_runs(records: list[CiRecord]) -> dict[int, tuple[int, set[str]]]:
    """pull request -> (its latest run id, the runners with records in it)."""
    out: dict[int, tuple[int, set[str]]] = {}
    for r in records:
        if r.pr is None:
            continue
        cur = out.get(r.pr)
        if cur is None or r.run_id > cur[0]:
            out[r.pr] = (r.run_id, {r.runner})
        elif r.run_id == cur[0]:
            cur[1].add(r.runner)
    return out
