"""The build's steps after the plan (``generator.site.build``): gather and render each changed
kernel (in worker processes), then the overview, the history and the reference pages, then
publish. A rebuild that changes nothing never imports this module or the views it renders
(issue 41: 0.1 s of the no-op rebuild's 0.4 s as a user runs it).
"""

from __future__ import annotations

import dataclasses
import gc
import os
import re
import time
from contextlib import contextmanager
from dataclasses import field
from typing import Any, Callable

from generator import __version__
from generator.analyze import provenance
from generator.analyze.kernels import category_labels
from generator.model import record
from generator.read import campaign_suite
from generator.site import api, deferred, gather, plan, publish, render, source_pages
from generator.site.summary import BuildSummary, Progress, record_problems
from generator.site.views import base as base_views
from generator.site.views import glossary as glossary_views
from generator.site.views import docs as docs_views
from generator.site.views import findings as findings_views
from generator.site.views import kernel as kernel_views
from generator.site.views import index_row as row_views
from generator.site.views import overview as overview_views
from generator.site.views import pr as pr_views


@record
class Site:
    """The sweep-wide files of the new site, as bytes, the kernels' files already placed, and
    what the manifest records per kernel."""

    files: dict[str, bytes] = field(default_factory=dict)  # the overview, history, assets
    placed: list[str] = field(default_factory=list)  # kernels' files, in the staging folder
    written: list[str] = field(default_factory=list)  # of those, new or changed bytes
    keep: list[str] = field(default_factory=list)  # files of unchanged kernels, kept as they are
    rows: dict[str, row_views.IndexRow] = field(default_factory=dict)
    extras: dict[str, dict[str, Any]] = field(default_factory=dict)
    items: dict[str, publish.ManifestItem] = field(default_factory=dict)



# ---------------------------------------------------------------- the build


def build_planned(bp: plan.BuildPlan, out: str, summary: BuildSummary, t0: float, *, base_url, stream, progress,
                  history_dir, history_label, history_commit, jobs, ci=None) -> BuildSummary:
    """Gather, render and publish a planned build whose site is not up to date (``out``: its folder)."""
    env = gather.Env(root=bp.root, config=bp.config, kernels_json=bp.kernels_json, mods=bp.mods,
                     warn=summary.warnings.append, floor_us=bp.floor_us)
    ctx = base_views.SiteContext(title=bp.config.title or gather.default_title(bp.kernels_json),
                                 candidate=bp.config.candidate, win=bp.config.win, headroom=bp.config.headroom,
                                 base_url=base_url, missing_stages=bp.missing, history=bp.hmod is not None,
                                 severity_near=bp.config.severity_near, severity_tune=bp.config.severity_tune,
                                 category_labels=category_labels(bp.kernels), supersedes=dict(bp.config.op_supersedes))
    ci_ops = {}
    if ci is not None:
        from generator.site import ci_site

        ci_ops = ci_site.kernel_ops(bp.kernels)
        ctx.ci_series = ci_site.kernel_series(ci.report, ci_ops)
    site = Site()
    staging = publish.Staging.open(out)
    try:
        docs: list = []  # the reference pages' links, rendered while the workers gather (sweep-independent)
        kernel_pages(bp, env, ctx, site, summary, Progress(len(bp.kernels), stream, progress), jobs, staging,
                     meanwhile=lambda: docs.extend(reference_pages(ctx, site, bp.assets)))
        ordered = overview_views.order_rows(list(site.rows.values()))
        prov = provenance.sweep_provenance([site.extras[s].get("provenance") or {} for s in sorted(site.extras)],
                                           bp.config, bp.kernels_json)
        placed = identity = hist_commit = None
        if bp.hmod is not None:
            hist_commit = history_commit or prov.get("candidate_commit") or prov.get("flydsl_commit")
            kj = os.path.join(bp.root, "docs", "data", "kernels.json")  # the sweep-wide input beside the kernels'
            identity = bp.hmod.sweep_identity([prov.get("candidate_commit"), prov.get("flydsl_commit"),
                                               prov.get("profiled_commit"),
                                               publish.sha256_file(kj) if os.path.isfile(kj) else None],
                                              {s: it.input_hash for s, it in site.items.items()})
            placed = bp.hmod.place(os.fspath(history_dir), identity,
                                   history_label or (bp.date if re.match(r"^\d{4}-\d{2}-\d{2}", bp.date)
                                                     else bp.hmod.undated_label(bp.root)),
                                   explicit=bool(history_label))
            site.files.update(history_files(bp.hmod, os.fspath(history_dir), placed, hist_commit, bp.date, ordered,
                                            ctx, bp.assets, (staging.tmp, staging.old), prov))
        overview_pages(bp, ctx, site, ordered, prov, docs, ci is not None)
        if ci is not None:
            site.files.update(ci_site.ci_files(ci.report, ctx.title, bp.assets, ci_ops, ci_only=False))
        publish_site(bp, site, summary, staging)
    except BaseException:
        staging.discard()
        raise
    if bp.hmod is not None:
        bp.hmod.record(os.path.join(out, "api"), os.fspath(history_dir), placed.label, hist_commit,
                       retention=bp.config.history_keep, identity=identity)
        kept = len(bp.hmod.load_history(os.fspath(history_dir)).entries)
        summary.history = bp.hmod.placement_text(placed, kept)
    summary.seconds = time.perf_counter() - t0
    return summary


def kernel_pages(bp: plan.BuildPlan, env: gather.Env, ctx: base_views.SiteContext, site: Site,
                 summary: BuildSummary, bar: Progress, jobs: int | None, staging: publish.Staging,
                 meanwhile: Callable[[], Any] = lambda: None) -> None:
    """Gather and render each changed kernel (in worker processes when ``jobs`` > 1), its files
    placed in ``staging`` at once; keep the files of the unchanged ones. Results are taken in
    plan order, so the manifest never depends on which worker finished first. ``meanwhile``: the
    main process's own work, done while the workers gather (first, in a serial build)."""
    todo = [kp for kp in bp.kernels if not bp.reusable(kp.slug)]
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo)))
    summary.jobs = jobs
    done: dict[str, KernelResult] = {}
    rows_json: dict[str, dict[str, Any]] = {}  # a worker's row as the manifest keeps it, taken as it comes in
    try:
        if jobs > 1:
            from concurrent.futures import as_completed  # a serial build needs none
            import multiprocessing

            if multiprocessing.get_start_method() == "fork":
                render.compile_templates(kernel_only=True)  # once here, not once per worker
            wctx = WorkerContext(bp.root, bp.config, bp.kernels_json, ctx, dataclasses.replace(bp.assets, files={}),
                                 staging, hash_inputs=not bp.hashes, floor_us=bp.floor_us)
            with frozen_heap(), worker_pool(jobs, wctx) as pool:
                futures = {pool.submit(build_kernel_in_worker, kp): kp.slug for kp in todo}
                campaign_suite.forget_campaigns()  # the workers have their copies: let go of this one now
                render.compile_templates(history=ctx.history)  # the overview's, while the workers work
                meanwhile()
                for fut in as_completed(futures):
                    done[futures[fut]] = res = fut.result()
                    rows_json[futures[fut]] = res.row.to_json()  # while the other workers work
                    bar.step(futures[fut])
        else:
            meanwhile()
        for kp in bp.kernels:
            if bp.reusable(kp.slug):
                item = bp.manifest.items[kp.slug]
                site.rows[kp.slug] = row_views.IndexRow.from_json(item.row)
                site.extras[kp.slug] = item.extra
                site.keep += item.files
                site.items[kp.slug] = item
                summary.skipped.append(kp.slug)
                bar.step(kp.slug + " (unchanged)")
                continue
            res = done.pop(kp.slug, None)
            if res is None:
                res = build_kernel(kp, env, ctx, bp.assets, staging)
                bar.step(kp.slug)
            for w in res.warnings:
                env.warn(w)
            if publish.FileHashes.active is not None:
                publish.FileHashes.active.seen.update(res.file_hashes)
            site.placed += res.files
            site.written += res.written
            site.rows[kp.slug], site.extras[kp.slug] = res.row, res.extra
            ihash = bp.hashes.get(kp.slug) or res.input_hash or plan.input_hash(kp, bp.root)
            row_json = rows_json.pop(kp.slug, None) or res.row.to_json()
            site.items[kp.slug] = publish.ManifestItem(ihash, res.files, row_json, res.extra)
            summary.built.append(kp.slug)
    finally:
        bar.close()


@record
class KernelResult:
    """One changed kernel, gathered, rendered and placed: its overview row, the paths of its
    files (sorted) and of those written (not linked from the previous site), and its extra."""

    row: row_views.IndexRow
    files: list[str]
    written: list[str]
    extra: dict[str, Any]
    warnings: list[str] = field(default_factory=list)  # said by a worker; the parent prints them
    input_hash: str = ""  # taken by a worker when the plan has none (no previous manifest)
    file_hashes: dict[str, list] = field(default_factory=dict)  # the files it hashed (publish.FileHashes.seen)


@record
class WorkerContext:
    """What a worker process needs besides the kernel's plan (picklable: no modules, no
    callbacks, the assets without their bytes)."""

    root: str
    config: Any
    kernels_json: dict[str, Any] | None
    ctx: base_views.SiteContext
    assets: render.Assets
    staging: publish.Staging
    hash_inputs: bool = False  # take each kernel's input hash (the plan has none)
    floor_us: float | None = None  # the sweep's timing floor (VERDICTS rule 11)


def build_kernel(kp: plan.KernelPlan, env: gather.Env, ctx: base_views.SiteContext,
                 assets: render.Assets, staging: publish.Staging) -> KernelResult:
    """Gather and render one kernel and place its files; only its row and extra stay."""
    k, extra = gather.gather_kernel(kp, env)
    skipped = [n for n in k.notes if " skipped: " in n]
    if skipped:
        extra["skipped"] = skipped
    row, kfiles = render_kernel(kp.slug, k, ctx, assets)
    written = staging.put(kfiles)
    return KernelResult(row, sorted(kfiles), written, extra)


@contextmanager
def frozen_heap():
    """The objects alive now left out of garbage collection while worker processes run (``gc.freeze``):
    a forked worker's collections then never walk, and so never copy, the heap it inherited. Issue 41:
    cold builds of the 25-kernel benchmark sweep, 7 alternating runs, medians: 1.92 s -> 1.82 s, and
    2.83 s -> 2.70 s of user CPU, the build and its workers together."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextmanager
def worker_pool(jobs: int, wctx: WorkerContext):
    """The build's worker processes, each given ``wctx`` (``take_context``), let go without waiting for them
    to end: they exit while this process makes the overview (issue 41: 6 ms less of a cold build's serial end
    on the shared sweep); after an error, the kernels not started yet are dropped."""
    from concurrent.futures import ProcessPoolExecutor  # a serial build needs none

    pool = ProcessPoolExecutor(max_workers=jobs, initializer=take_context, initargs=(wctx,))
    try:
        yield pool
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


#: The worker process's context (``take_context``).
_CONTEXT: list[WorkerContext] = []


def take_context(w: WorkerContext) -> None:
    """A worker process's initializer: the context every kernel it builds shares, given once per
    process instead of pickled with each kernel (a fork hands it over as it is). Issue 41: on the 25-kernel
    benchmark sweep each kernel's task carried 154 KB (kernels.json 130 KB of it), 0.04 s of CPU to pickle
    and unpickle 25 times."""
    _CONTEXT[:] = [w]


def build_kernel_in_worker(kp: plan.KernelPlan) -> KernelResult:
    """``build_kernel`` in a worker process (top level, so spawn can pickle it), in its ``take_context``."""
    w = _CONTEXT[0]
    warnings: list[str] = []
    mods = {name: plan.optional(name) for name in plan.OPTIONAL}
    env = gather.Env(root=w.root, config=w.config, kernels_json=w.kernels_json, mods=mods, warn=warnings.append,
                     floor_us=w.floor_us)
    res = build_kernel(kp, env, w.ctx, w.assets, w.staging)
    res.warnings = warnings
    if w.hash_inputs:
        inherited = publish.FileHashes.active  # the build's record as the fork left it
        publish.FileHashes.active = inherited.for_worker() if inherited is not None else publish.FileHashes()
        res.input_hash = plan.input_hash(kp, w.root)
        res.file_hashes = publish.FileHashes.active.seen
        publish.FileHashes.active = None
    return res


def render_kernel(slug: str, k: base_views.KernelData, ctx: base_views.SiteContext,
                  assets: render.Assets) -> tuple[row_views.IndexRow, dict[str, bytes]]:
    """One kernel's overview row and files: its page, its JSON document, its badge, its PR text."""
    row = row_views.index_row(k, ctx)
    page = kernel_views.kernel_page(k, row, ctx)
    return row, {
        f"kernels/{slug}/index.html": render.render_kernel(page, assets),
        f"api/kernels/{slug}.json": publish.json_compact(api.kernel_doc(k, row)),
        f"badges/{slug}.svg": render.render_badge(pr_views.badge_view(row)),
        f"pr/{slug}.md": render.render_pr(pr_views.pr_view(k, row, ctx)),
        **source_pages.kernel_source_files(k, ctx, assets),  # src/<capture>/<file>.html and isa.html
    }


def reference_pages(ctx: base_views.SiteContext, site: Site, assets) -> list:
    """Render the tool's reference (``docs/*.md``) as ``docs/<name>.html``; their links for the glossary."""
    texts = render.reference_texts()
    links = docs_views.doc_links(texts)
    for link in links:
        page = docs_views.doc_page(ctx.title, link, render.reference_html(link.name, texts[link.name]), links, ctx.history)
        site.files[link.href] = render.render_doc(page, assets)
    return links


def overview_pages(bp: plan.BuildPlan, ctx: base_views.SiteContext, site: Site,
                   ordered: list[row_views.IndexRow], prov: dict[str, str], docs: list, ci_nav: bool = False) -> None:
    """Render index.html (with the sweep-level advice; linking to ``ci/`` with ``ci_nav``), api/index.json
    and the static assets."""
    reading = gather.sweep_reading(site.extras, site.rows, bp.mods.get("advice"))
    facts = [overview_views.Fact(gather.PROVENANCE_LABELS.get(key, key.replace("_", " ")), value)
             for key, value in prov.items()]
    overview = overview_views.overview_page(ordered, ctx, facts, bp.date, reading, notes=gather.overview_notes(bp.root))
    overview.ci_nav = ci_nav  # base.html's link to ci/ (build --ci)
    findings = os.path.join(bp.root, findings_views.FINDINGS)
    if os.path.isfile(findings):
        text = render.read_report(findings)
        date = findings_views.findings_date(text, os.path.getmtime(findings))
        page = findings_views.findings_page(ctx.title, render.render_markdown(text), date, ctx.history)
        site.files["findings.html"] = render.render_findings(page, bp.assets)
        overview.findings = findings_views.FindingsLink("findings.html", date)
    moved = deferred.Deferred.for_rows(len(ordered))
    site.files["index.html"] = render.render_overview(overview, bp.assets, moved)
    if moved.active:
        site.files[deferred.DATA_FILE] = moved.data_js()
    glossary = glossary_views.glossary_page(ctx)
    glossary.docs = docs
    site.files["glossary.html"] = render.render_glossary(glossary, bp.assets)
    site.files["api/index.json"] = publish.json_bytes(api.index_doc(ordered, overview, ctx, prov, bp.date, reading))
    site.files.update(bp.assets.files)
    site.files[".nojekyll"] = b""


def publish_site(bp: plan.BuildPlan, site: Site, summary: BuildSummary, staging: publish.Staging) -> None:
    """Place the sweep-wide files and the manifest, and swap the new site in (``generator.site.publish``)."""
    record_problems(summary, {s: (r.broken, site.extras.get(s, {}).get("skipped") or [])
                              for s, r in site.rows.items()})
    if publish.FileHashes.active is not None:
        site.files[publish.HASHES] = publish.FileHashes.active.to_bytes()
    all_files = sorted(set(site.files) | set(site.placed) | set(site.keep) | {publish.MANIFEST})
    man = publish.Manifest(tool_version=__version__, global_hash=bp.global_hash, build_date=bp.date,
                           items=site.items, files=all_files, floor_inputs=bp.floor_inputs, floor_us=bp.floor_us,
                           replay_us=bp.config.replay_cost_us)
    site.files[publish.MANIFEST] = man.to_bytes()
    written = site.written + staging.put(site.files)
    result = staging.finish(set(site.placed) | set(site.files), written, site.keep)
    summary.written, summary.deleted = result.written, result.deleted


def history_files(hmod, history_dir: str, placed, commit: str | None, date: str,
                  rows: list[row_views.IndexRow], ctx: base_views.SiteContext, assets: render.Assets,
                  folders: tuple[str | None, ...] = (), prov: dict[str, str] | None = None) -> dict[str, bytes]:
    """history.html and api/history.json: the recorded sweeps plus this one where ``placed``
    (``history.place``) puts it (nothing written yet; its kernel documents are read from ``folders``, the
    staging folder then the published site); the page opens on this sweep against the newest recorded
    one (``sweeps.latest``); marks each overview row that regressed at its latest step."""
    from generator.sweeps import history_series, latest, moves  # beside the history module: all only with --history
    from generator.site.views import history as history_views, latest as latest_views

    label = placed.label
    replaced = placed.replaces.label if placed.replaces is not None else None
    series = history_series.load_series(history_dir)
    day = date if re.match(r"^\d{4}-\d{2}-\d{2}", date) else None
    api_rows = [r.api() for r in rows]
    snap = latest.snapshot_from_documents(api_rows, latest.document_reader(*folders), label, prov)
    current = history_series.points_from_rows(api_rows, label, commit, day)
    for slug, point in current.items():  # the verdict engine's interval and launch overhead, when it gives them
        extras = history_series.point_extras(snap.kernels[slug].extras) if slug in snap.kernels else {}
        point.ci = point.ci or extras.get("ci")
        point.launch_overhead = point.launch_overhead or extras.get("launch_overhead")
    full = history_series.with_current(series, current, replaced)
    before = latest.previous_snapshot(history_dir, (label, replaced))
    change = latest.latest_change(before[1] if before else None, snap)
    moves.attach(current, change)  # the strip's "what moved" under this sweep (issue 40)
    lead = latest_views.lead_view(change)
    marks = latest.not_the_comparisons(history_series.regression_marks(full), change, label)
    for r in rows:
        r.regression = history_views.regression_text(marks[r.slug]) if r.slug in marks else ""
        r.regression_zh = history_views.regression_zh(marks[r.slug]) if r.slug in marks else ""
    figures = history_series.history_chart_data(full, thresholds=(ctx.headroom, ctx.win))
    labels = [e.label for e in hmod.load_history(history_dir).entries if e.label not in (label, replaced)] + [label]
    page = history_views.history_page(rows, figures, marks, labels, ctx, full, lead)
    doc = history_series.history_document(full)
    for slug, k in doc["kernels"].items():  # the marks the page shows (a comparison's move is none)
        k["regression"] = marks.get(slug)
    return {"history.html": render.render_history(page, assets), "api/history.json": publish.json_bytes(doc)}
