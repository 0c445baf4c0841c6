"""How the overview's numbers were measured (issue 23, 3): the timing methods and cache states
counted from the result rows that count, the scope (kernels, timed shapes, baselines by name),
the candidate and its commits; all from the data, worded by message keys (``measure.*``).

Per kernel, ``kernel_timing(score)`` counts what its campaign timed; the overview row keeps it
(an unchanged kernel is not scored again), and ``measurement_view`` adds the rows up. A row that
counts is the one VERDICTS rule 1 picks per (shape, provider), when it is usable: a shape timed
twice by one provider counts once, a failed or placeholder row not at all.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from generator.analyze.message import Msg, msg
from generator.model import record
from generator.site import wording
from generator.site.views.base import fmt_num

#: The catalogue key of a timing method as the harnesses write it (``timing_method``).
METHODS = {"cudagraph": "measure.method.graph", "hipgraph": "measure.method.graph", "graph": "measure.method.graph",
           "eager_event": "measure.method.eager", "cuda_events": "measure.method.eager", "": "measure.method.none"}
#: The catalogue key of a cache state (``cache_state``).
CACHES = {"l2_flushed_graph": "measure.cache.flushed", "l2_flushed": "measure.cache.flushed",
          "": "measure.cache.none"}


def kernel_timing(score: Any) -> dict[str, Any] | None:
    """What one campaign timed: ``{"methods": [[timing_method, cache_state, rows], ...],
    "timed_shapes": n, "baselines": [names]}`` over the usable rows that count (None: untimed).
    A shape is timed when one of its providers has such a row; a baseline is any other provider
    than the candidate with one."""
    if score is None or not score.is_verdict:
        return None
    counts: Counter[tuple[str, str]] = Counter()
    shapes, baselines, eager = 0, set(), 0
    for sh in score.shapes:
        timed = [(p, r) for p, r in sh.providers.items() if r.usable]
        shapes += bool(timed)
        for p, r in timed:
            counts[(r.timing_method or "", r.cache_state or "")] += 1
            eager += bool(r.eager_median_us)
            if p != score.candidate:
                baselines.add(p)
    return {"methods": [[m, c, n] for (m, c), n in sorted(counts.items())], "timed_shapes": shapes,
            "baselines": sorted(baselines), "eager_rows": eager, "clock": getattr(score, "clock", "kernel")}


@record
class MeasuredFact:
    """One line of the block: its label's key and its text in both languages."""

    key: str
    said: wording.Said


def _method(name: str) -> Msg:
    key = METHODS.get(name)
    return msg(key) if key else msg("measure.method.other", method=name)


def _cache(name: str) -> Msg:
    key = CACHES.get(name)
    return msg(key) if key else msg("measure.cache.other", state=name)


def timing_message(methods: Counter) -> Msg:
    """``1,938 rows graph-replayed, L2 flushed; 53 rows eager (event-timed), cache state not
    recorded``: the largest group first."""
    groups = [msg("measure.group", n=fmt_num(n), method=_method(m), cache=_cache(c))
              for (m, c), n in sorted(methods.items(), key=lambda kv: (-kv[1], kv[0]))]
    out = groups.pop()
    while groups:  # "a; b; c" (each group holds a comma of its own)
        out = msg("measure.then", first=groups.pop(), rest=out)
    return out


def measurement_view(rows: Sequence[Any], candidate: str) -> list[MeasuredFact]:
    """The block's lines from the overview rows (``IndexRow.timing``, ``timed_commits``,
    ``profiled_commit``); empty when nothing was timed."""
    timed = [r for r in rows if r.timing]
    if not timed:
        return []
    methods: Counter[tuple[str, str]] = Counter()
    for r in timed:
        for m, c, n in r.timing["methods"]:
            methods[(m, c)] += n
    baselines = sorted({b for r in timed for b in r.timing["baselines"]})
    shapes = sum(r.timing["timed_shapes"] for r in timed)
    scope = msg("measure.scope.text", kernels=len(timed), shapes=shapes, n=len(baselines), baselines=baselines)
    commits = sorted({c for r in timed for c in r.timed_commits})
    profiled = sorted({r.profiled_commit for r in rows if r.profiled_commit})
    if commits and profiled:
        cand = msg("measure.candidate.both", candidate=candidate, timed=commits, profiled=profiled)
    elif commits:
        cand = msg("measure.candidate.timed", candidate=candidate, timed=commits)
    else:
        cand = msg("measure.candidate.none", candidate=candidate)
    graph = sum(n for (m, _c), n in methods.items() if METHODS.get(m) == "measure.method.graph")
    clocks = msg("measure.clocks.text", graph=fmt_num(graph), eager=fmt_num(sum(r.timing.get("eager_rows", 0) for r in timed)),
                 events=sum(1 for r in timed if r.timing.get("clock") == "call"))
    return [MeasuredFact("measure.timing", wording.said(timing_message(methods))),
            MeasuredFact("measure.clocks", wording.said(clocks)),
            MeasuredFact("measure.scope", wording.said(scope)),
            MeasuredFact("measure.candidate", wording.said(cand))]
