"""Coverage: which models and shapes each kernel's campaign covers, and how it fares on them.

Per kernel, per model of its ledger (``model`` split on ``|``, a shape counting for each of
its models; no model -> ``(no model)``; names differing only in case are one model, spelled as
first seen: one row per model in the matrix, the kernels' own spelling in each cell's link): ledger
shapes, measured (candidate usable and a best baseline exists), kernel_clock (those whose speedup is
on the kernel clock: the Wins column's shapes, ``replay.kernel_evidence``), won / lost (speedup >= win
/ < headroom threshold, as the verdict counts them, over the kernel-clock shapes), unsupported (the
candidate's status is ``unsupported``), failed (the candidate's own hard failures: failed, oom or
incorrect where a baseline ran), harness (every provider failed: nobody is blamed), suspect (the
candidate and an independent library both fail the check: the check is the likely culprit, VERDICTS
rule 7) and the geomean of the kernel-clock speedups. The overview shows
models x kernels; a cell links to the kernel page filtered to that model's shapes
(``kernels/<slug>/index.html#model=<model>``, read by site.js).
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import quote

from generator.model import record
from generator.site import i18n
from generator.site.views.base import DASH, SiteContext, fmt_x

NO_MODEL = "(no model)"
COUNTS = ("shapes", "measured", "kernel_clock", "won", "lost", "unsupported", "failed", "harness", "suspect")
#: The letters of a cell's counts (harness failures and suspect checks never read as "failed").
LETTERS = {"won": "W", "lost": "L", "unsupported": "U", "failed": "F", "harness": "H", "suspect": "S"}


def shape_models(sh: Any) -> tuple[str, ...]:
    """The models of one scored shape (``a|b`` -> a, b), ``(no model)`` when none."""
    models = tuple(m.strip() for m in (sh.models or ()) if m and m.strip())
    return models or (NO_MODEL,)


def kernel_clock_ids(score: Any) -> set[int]:
    """The shapes whose speedup is a kernel-clock ratio no rule flags (``replay.kernel_evidence``: what the
    overview's Wins column counts): pa's two graph-capture failures (an eager call against a graph replay)
    and every shape of a replay that misses work (moe_gemm, moe_blockscale) are measured, never won or lost."""
    return {id(sh) for sh in score.kernel_shapes() if sh.speedup}


def model_coverage(score: Any) -> dict[str, dict[str, Any]]:
    """Per model (sorted): the counts of ``COUNTS``; won, lost and ``geomean`` over its kernel-clock shapes."""
    if score is None:
        return {}
    cells: dict[str, dict[str, Any]] = {}
    logs: dict[str, list[float]] = {}
    spelled: dict[str, str] = {}
    kernel = kernel_clock_ids(score)
    for sh in score.shapes:
        for m in dict.fromkeys(spelled.setdefault(x.casefold(), x) for x in shape_models(sh)):
            c = cells.setdefault(m, dict.fromkeys(COUNTS, 0))
            c["shapes"] += 1
            c["measured"] += bool(sh.measured and sh.speedup)
            if id(sh) in kernel:
                c["kernel_clock"] += 1
                logs.setdefault(m, []).append(math.log(sh.speedup))
                c["won"] += sh.outcome == "win"
                c["lost"] += sh.outcome == "loss"
            c["unsupported"] += sh.candidate_status == "unsupported"
            c["failed"] += sh.hard_failure
            c["harness"] += sh.harness_failure
            c["suspect"] += sh.suspect_reference
    for m, c in cells.items():
        c["geomean"] = math.exp(sum(logs[m]) / len(logs[m])) if logs.get(m) else None
    return {m: cells[m] for m in sorted(cells)}


def model_href(page: str, model: str) -> str:
    """The kernel page filtered to one model's shapes (site.js reads ``#model=``)."""
    return f"{page}#model={quote(model, safe='')}"


# ---------------------------------------------------------------- the overview matrix

@record
class CoverageCell:
    """One (model, kernel) cell: display text, colour class, link and the counts."""

    text: str
    detail: str  # won / lost / unsupported / failed in letters
    title: str
    css: str
    href: str
    counts: dict[str, Any]
    title_zh: str = ""


@record
class CoverageColumn:
    slug: str
    name: str
    href: str


@record
class CoverageRow:
    model: str
    n_shapes: int
    cells: list[CoverageCell | None]  # one per column; None: the model has no shape there


@record
class CoverageView:
    columns: list[CoverageColumn]
    rows: list[CoverageRow]

    def to_json(self) -> dict[str, Any]:
        """``coverage`` in ``api/index.json``: models, kernels and the counts of every non-empty cell."""
        return {
            "models": [r.model for r in rows_sorted(self.rows)],
            "kernels": [c.slug for c in self.columns],
            "cells": {r.model: {col.slug: cell.counts for col, cell in zip(self.columns, r.cells) if cell}
                      for r in rows_sorted(self.rows)},
        }


def rows_sorted(rows: list[CoverageRow]) -> list[CoverageRow]:
    return sorted(rows, key=lambda r: (-r.n_shapes, r.model.lower(), r.model))


def cell_css(c: dict[str, Any], ctx: SiteContext) -> str:
    """Colour class of a cell from its geomean: win, parity, loss, or none when nothing was measured."""
    g = c.get("geomean")
    if g is None:
        return "cov-none"
    if g >= ctx.win:
        return "cov-win"
    return "cov-parity" if g >= ctx.headroom else "cov-loss"


def coverage_cell(model: str, c: dict[str, Any], page: str, ctx: SiteContext, link: str | None = None) -> CoverageCell:
    """Display values of one cell (``link``: the model as the kernel spells it, for its page's filter)."""
    letters = [f"{c.get(k, 0)}{letter}" for k, letter in LETTERS.items() if c.get(k)]
    title, title_zh = i18n.both("cov.title", model=model, geomean=fmt_x(c["geomean"]) if c["geomean"] is not None else DASH,
                                **{k: c.get(k, 0) for k in COUNTS})
    return CoverageCell(text=f"{c['measured']}/{c['shapes']}", detail=" ".join(letters), title=title,
                        css=cell_css(c, ctx), href=model_href(page, link or model), counts=dict(c), title_zh=title_zh)


def coverage_view(rows: list[Any], ctx: SiteContext) -> CoverageView:
    """The models x kernels matrix from the overview rows (kernels in display order)."""
    cols = [r for r in rows if r.coverage]
    models: dict[str, int] = {}  # one row per model whatever its case: the first kernel's spelling
    spelled: dict[str, str] = {}
    for r in cols:
        for m, c in r.coverage.items():
            m = spelled.setdefault(m.casefold(), m)
            models[m] = models.get(m, 0) + c["shapes"]
    out = []
    for m in models:
        own = [next((k for k in r.coverage if k.casefold() == m.casefold()), None) for r in cols]
        # a cell links with the kernel's own spelling: its page's rows carry that one
        cells = [coverage_cell(m, r.coverage[k], r.href, ctx, link=k) if k is not None else None
                 for r, k in zip(cols, own)]
        out.append(CoverageRow(m, models[m], cells))
    return CoverageView([CoverageColumn(r.slug, r.name, r.href) for r in cols], rows_sorted(out))
