"""The JSON documents of the site: ``api/index.json`` and ``api/kernels/<slug>.json``.

``api/index.json``, format_version 3 (``generator.model.API_FORMAT_VERSION``)::

    {"format_version": 3,
     "generator": {"name": "kernel-atlas", "version": "0.1.0"},
     "sweep": {"title": "...", "date": "2026-06-01", "candidate": "flydsl",
               "thresholds": {"win": 1.05, "headroom": 0.95},
               "provenance": {"gpu": "AMD Instinct MI350X", "rocm": "7.2.0", ...}},
     "tallies": {"win": 4, "parity": 0, "headroom": 9, "blocked": 0, "untimed": 5, "unscored": 1, "broken": 0},
     "kernels": [{"slug": "softmax", "name": "Softmax", "op": "softmax", "category": "reduction",
                  "verdict": "WIN", "kernel_vs_any": 1.079, "weighted_geomean_vs_best": null,
                  "wins": 40, "parity": 20, "losses": 13, "n_measured": 73, "n_shapes": 73,
                  "hard_failures": 0, "harness_failures": 0, "best_baseline": "aiter",
                  "top_stall_type": "VMEM-load", "stall_ratio": 0.764, "occupancy": 8,
                  "limiter": "NONE", "flags": ["uncertain"], "flag_texts": ["uncertain (noise 1.08x)"],
                  "missing": [], "broken": [],
                  "page": "kernels/softmax/index.html", "permalink": "kernels/softmax/",
                  "json": "api/kernels/softmax.json", "badge": "badges/softmax.svg"}, ...],
     "errors": {"<slug>": "benchmarks/examples/x/benchmark_results.csv:3: ..."},
     "sweep_findings": [{"key": "limiter:VGPR", "title": "...", "kernels": [...], "headroom_share": 0.31,
                         "headroom_kernels": [...], ...}]}

Two geomeans against the best baseline, each under one name: a kernel row's ``kernel_vs_any`` is "vs any"
as the pages show it, over its ``kernel_shapes`` (kernel clock, no rule flags; null where the graph replay
misses work; pa 0.764 over 10); ``score.geomean_vs_best`` (and ``state.geomean_vs_best``) is VERDICTS' per-kernel
geomean over every measured shape against its fastest usable baseline, whatever the clock or flag (pa 0.493
over 12). Format 2 named the row's number ``geomean_vs_best`` too.
``verdict`` is WIN, PARITY, HEADROOM, BLOCKED, UNTIMED (a campaign with a ledger and no
results) or null (no campaign). ``flags`` are machine words shown beside the verdict
(``hard_failures``, ``uncertain``, ``reference_only``, ``not_like_for_like``,
``suspect_reference``, ``above_roof``, ``partial``); ``flag_texts`` the same as a person reads them. Each kernel
also has ``diagnosis``, ``first_step``, ``severity``, ``coverage`` (per model), ``headline_speedup`` /
``headline_verdict`` (null for a pair on the call clock, ``pair_clock`` "call": a reading, no verdict; VERDICTS
rule 13) (``generator.site.views.diagnosis``, ``.coverage``), ``timed_commits``,
``profiled_commit`` and ``commit_note``; the index adds ``coverage``: the models x kernels matrix's
``models`` and ``kernels`` in page order, a cell being that kernel row's ``coverage[model]``
(format 1 also had them as ``cells``).
A ``sweep_findings`` group's ``rests_on`` is what its kernels' captures hold (``{captures, waves_sampled,
waves_working, stall_cycles, stall_samples}``, null for "no capture"); its ``headroom_share`` is the gaps (ln 1/ratio the verdict rests on) of the
HEADROOM kernels whose first step it is (``headroom_kernels``) over the gaps of every HEADROOM kernel
(``advice.sweep_findings``): each gap counted once, the shares add up to at most 1.
``api/kernels/<slug>.json`` holds ``format_version``,
``kernel`` (the index record), ``state`` (``analyze.state.KernelState``: status, verdict,
flags, broken / missing / skipped lines, hotspot, commits; what ``diff`` and ``history`` read), ``primary_rule``
(why the primary capture is primary, as ``read.discover.choose_primary`` says it), ``score`` (``verdicts.KernelScore.to_json()``, with
``shapes``, each shape's ``providers`` records without their null fields (an absent field is null)
and without a ``scope`` whose flags are all false (an absent scope: the kernel alone was timed);
a campaign of the second layout adds ``variants`` {provider: [geomean vs the verdict
baseline, n]}, each shape's ``variants`` rows, and ``logged_failures`` (the failures its run's logs
and reports record: ``[{provider, label, kind, file, line}]``, absent when none)), ``headline``, ``hotspot`` (primary capture: top stall type, stall ratio,
waves per SIMD, limiter), ``captures`` (each: ``analysis`` as ``analyze --json``, whose ``capture_kind`` is ``att``,
``pc_sampling`` (AMD PC sampling: ``stall_unit`` "samples", ``extra.stall_by_reason``, no wave fields) or ``ncu``,
every ``lines`` entry, the ``timeline`` bins, ``advice`` (each finding as ``analyze --json --advice`` prints it, its ``premise`` a message
``[catalogue key, {param: value}]``, plus ``i18n``: its title, summary, suggestion and premise as
such messages, worded by ``generator.site.wording``, and ``rests_on``: what it rests on, ``{basis, stall_cycles,
cycles, instructions, waves_sampled, waves_working, unit, finding_stall_cycles}`` (``analyze.advice.basis``;
fused_rope_cache's top finding: 9,648 of 12,412 stall cycles, 207 instructions, 4 waves sampled))),
``counters``, ``runstats``, ``roofline`` (without the rows it could not place: each shape's
provider statuses say why; a point's args are its shape's, by ``shape_id``, and an absent
``ridge`` is ``ridges[precision]``), ``compare``, ``report_html``, ``campaign_reports``
(the campaign folder's ``BENCHMARK_REPORT.md`` / ``REPORT_<suite>.md``: ``[{file, html}]``), ``report_checks``
(REPORT.md's occupancy and wave-state claims: ``[{what, report, computed, holds, why}]``,
``generator.analyze.report_checks``), ``capture_config`` (DOMAIN §1.7, ``generator.analyze.config_match.check``:
``{capture: {tile, stages, split_k}, timed: [{config, rows}], unread, matches: bool|null, differs: [...]}``, null
when the primary capture's name carries no configuration; hgemm_splitk: tile 32x64x256, 2 stages, split-K 14
against 25 rows of 128x128x64 and 5 of 16x64x128, 4 stages, split-K 1: ``matches`` false), ``missing``,
``broken``. ``tallies.broken`` counts kernels whose campaign could not be read (``unscored``: no campaign).
Format 1 also had each capture's ``isa`` rows (``isa_columns``, ``locs``) and ``mfma`` notes, the
roofline's ``skipped`` rows, each point's ``args`` and ``ridge``, null provider fields and all-false scopes: the pages show the ISA listing
(``kernels/<slug>/src/c<i>/isa.html``) and no reader needed the rest; every field ``diff`` and
``history`` read is in both, and ``generator.sweeps.snapshot_sources`` reads both formats.
A reader must check ``format_version`` and refuse versions it does not know.
"""

from __future__ import annotations

from typing import Any

from generator import __version__
from generator.model import API_FORMAT_VERSION
from generator.site.views import base as base_views, kernel as kernel_views, overview as overview_views
from generator.site.views import index_row as row_views


def kernel_doc(k: base_views.KernelData, row: row_views.IndexRow) -> dict[str, Any]:
    """``api/kernels/<slug>.json``."""
    doc = kernel_views.kernel_json(k, row, API_FORMAT_VERSION)
    doc["score"] = lean_score(doc["score"])
    if doc["score"] is not None and getattr(k.score, "logged_failures", None):
        doc["score"]["logged_failures"] = [{"provider": f.provider, "label": f.label, "kind": f.kind, "file": f.file,
                                            "line": f.line} for f in k.score.logged_failures]
    doc["roofline"] = lean_roofline(doc["roofline"])
    st = k.state
    doc["hotspot"] = st.hotspot.to_json() if st is not None and st.hotspot is not None else None
    doc["state"] = st.to_json() if st is not None else None
    for key in ("slug", "name", "op", "verdict"):
        doc[key] = doc["kernel"][key]
    return doc


def lean_score(score: dict[str, Any] | None) -> dict[str, Any] | None:
    """The score with each shape's provider records trimmed (``lean_provider``); a copy."""
    if not score or not score.get("shapes"):
        return score
    shapes = [dict(s, providers={p: lean_provider(rec) for p, rec in s["providers"].items()})
              if isinstance(s.get("providers"), dict) else s for s in score["shapes"]]
    return dict(score, shapes=shapes)


def lean_provider(rec: dict[str, Any]) -> dict[str, Any]:
    """A provider record without its null fields, and without ``scope`` when every flag is false.

    On the real MI350X sweep a third of the records' 3.4 MB were null fields (most providers of a
    shape did not run: not configured, failed) and 0.5 MB all-false scopes."""
    out = {key: v for key, v in rec.items() if v is not None}
    if isinstance(out.get("scope"), dict) and all(v is False for v in out["scope"].values()):
        del out["scope"]
    return out


def lean_roofline(roofline: dict[str, Any] | None) -> dict[str, Any] | None:
    """The roofline without what the document says elsewhere: the ``skipped`` rows (each shape's
    provider statuses), each point's ``args`` (its shape's, by ``shape_id``) and ``ridge``
    (``ridges`` by its ``precision``)."""
    if not isinstance(roofline, dict):
        return roofline
    out = {key: v for key, v in roofline.items() if key != "skipped"}
    ridges = roofline.get("ridges") or {}
    out["points"] = [{key: v for key, v in p.items() if key != "args"
                      and not (key == "ridge" and ridges.get(p.get("precision")) == v)}
                     for p in roofline.get("points") or []]
    return out


def index_doc(rows: list[row_views.IndexRow], overview: overview_views.OverviewPage, ctx: base_views.SiteContext,
               prov: dict[str, str], date: str, reading: list[dict[str, Any]]) -> dict[str, Any]:
    """``api/index.json``."""
    return {
        "format_version": API_FORMAT_VERSION,
        "generator": {"name": "kernel-atlas", "version": __version__},
        "sweep": {"title": ctx.title, "date": date, "candidate": ctx.candidate,
                  "thresholds": {"win": ctx.win, "headroom": ctx.headroom}, "provenance": prov},
        "tallies": overview.tally.to_json(),
        "kernels": [r.api() for r in rows],
        "errors": {r.slug: "; ".join(r.broken) for r in rows if r.broken},
        "sweep_findings": [item["json"] for item in reading],
        "coverage": coverage_axes(overview.coverage.to_json()) if overview.coverage else None,
    }


def coverage_axes(coverage: dict[str, Any]) -> dict[str, Any]:
    """The index's models x kernels matrix by its axes: each cell is already its kernel row's
    ``coverage[model]`` (98 cells, 14 KB of the real sweep's index said twice)."""
    return {key: v for key, v in coverage.items() if key != "cells"}

