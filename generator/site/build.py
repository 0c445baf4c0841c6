"""Build the site: discover -> analyze -> score -> view models -> render -> publish.

``build_site(sweep, out)`` gathers everything first (STYLE.md 2): it plans one kernel
per bundle and per campaign no bundle claims, hashes each kernel's inputs, analyzes
and scores only the kernels whose inputs changed since the last build (the manifest
in the output keeps the overview row of the others), builds the view models, renders
every page to bytes, and only then publishes them (``generator.site.publish``: a fresh
folder and a swap, so a failed build leaves the previous site untouched).

Site layout (every link relative, so it works from ``file://`` and under a sub-path)::

    index.html                       the overview
    kernels/<slug>/index.html        one page per kernel (slug: the bundle folder name,
                                     lower-cased, other characters -> "-"; or the campaign
                                     name for a kernel with no bundle)
    api/index.json                   every kernel's numbers (below)
    api/kernels/<slug>.json          everything a kernel page shows
    badges/<slug>.svg                verdict and geomean badge
    pr/<slug>.md                     Markdown for a pull request
    static/<stem>.<hash10><ext>      site.css, site.js, plotly.min.js (one copy)
    kernel-atlas-manifest.json       what the next build needs (generator.site.publish)

``api/index.json``, format_version 1 (``generator.model.FORMAT_VERSION``)::

    {"format_version": 1,
     "generator": {"name": "kernel-atlas", "version": "0.1.0"},
     "sweep": {"title": "...", "date": "2026-06-01", "candidate": "flydsl",
               "thresholds": {"win": 1.05, "headroom": 0.95},
               "provenance": {"gpu": "AMD Instinct MI350X", "rocm": "7.2.0", ...}},
     "tallies": {"win": 4, "parity": 0, "headroom": 9, "blocked": 0, "untimed": 5, "unscored": 1},
     "kernels": [{"slug": "softmax", "name": "Softmax", "op": "softmax", "category": "reduction",
                  "verdict": "WIN", "geomean_vs_best": 1.079, "weighted_geomean_vs_best": null,
                  "wins": 40, "parity": 20, "losses": 13, "n_measured": 73, "n_shapes": 73,
                  "hard_failures": 0, "harness_failures": 0, "best_baseline": "aiter",
                  "top_stall_type": "VMEM-load", "stall_ratio": 0.764, "occupancy": 8,
                  "limiter": "NONE", "flags": ["uncertain"], "flag_texts": ["uncertain (noise 1.08x)"],
                  "missing": [], "broken": [],
                  "page": "kernels/softmax/index.html", "permalink": "kernels/softmax/",
                  "json": "api/kernels/softmax.json", "badge": "badges/softmax.svg"}, ...],
     "errors": {"<slug>": "benchmarks/examples/x/benchmark_results.csv:3: ..."},
     "sweep_findings": [{"key": "limiter:VGPR", "title": "...", "kernels": [...], ...}]}

``verdict`` is WIN, PARITY, HEADROOM, BLOCKED, UNTIMED (a campaign with a ledger and no
results) or null (no campaign). ``flags`` are machine words shown beside the verdict
(``hard_failures``, ``uncertain``, ``reference_only``, ``not_like_for_like``,
``suspect_reference``, ``above_roof``); ``flag_texts`` the same as a person reads them. ``api/kernels/<slug>.json`` holds ``format_version``,
``kernel`` (the index record), ``score`` (``verdicts.KernelScore.to_json()``, with
``shapes``), ``headline``, ``hotspot`` (primary capture: top stall type, stall ratio,
waves per SIMD, limiter), ``captures`` (each: ``analysis`` as ``analyze --json``,
every ``lines`` entry, the ``isa`` rows (columns in ``isa_columns``; ``loc`` indexes
``locs``), the ``timeline`` bins, ``advice``, ``mfma``),
``counters``, ``runstats``, ``roofline``, ``compare``, ``report_html``, ``missing``,
``broken``. A reader must check ``format_version`` and refuse versions it does not know.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from generator import __version__
from generator.analyze import analysis
from generator.read import att, discover
from generator.site import publish, render
from generator.site import source_pages  # issue 13: source and ISA pages of each capture
from generator.config import CONFIG_NAME, SweepConfig, load_config
from generator.errors import InputError
from generator.model import (
    FORMAT_VERSION,
    STALL_TYPES,
    Bundle,
    CaptureAnalysis,
    WaveFile,
)
from generator.site.views import base as base_views
from generator.site.views import history as history_views
from generator.site.views import kernel as kernel_views
from generator.site.views import overview as overview_views
from generator.site.views import pr as pr_views

#: Bump when the build's output changes for the same input (part of the global hash).
SITE_VERSION = 1
TIMELINE_BINS = 120
MAX_SOURCE_BYTES = 2_000_000
#: Optional stages, imported when present (other modules may not exist in a build).
OPTIONAL = {
    "verdicts": "verdicts (multi-shape timings)",
    "advice": "advice (optimization plan)",
    "pmc": "PMC counters",
    "runstats": "run statistics",
    "roofline": "roofline",
    "compare": "capture comparison",
    "ncu_summary": "Nsight Compute summary",
}
_WAVE_FILE = re.compile(r"^se\d+_sm\d+_sl\d+_wv\d+\.json$")
_SLUG = re.compile(r"[^a-z0-9_.-]+")


#: Where each optional stage lives.
STAGE_MODULES = {
    "verdicts": "generator.analyze.verdicts",
    "advice": "generator.analyze.advice",
    "pmc": "generator.analyze.pmc",
    "runstats": "generator.analyze.runstats",
    "roofline": "generator.analyze.roofline",
    "compare": "generator.analyze.compare",
    "ncu_summary": "generator.analyze.ncu_summary",
    "history": "generator.sweeps.history",
}


def optional(name: str):
    """The stage module ``name`` when it exists, else None (a missing piece is shown, not fatal)."""
    path = STAGE_MODULES[name]
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError as err:
        if err.name == path:
            return None
        raise


def slugify(name: str) -> str:
    """The URL slug of a kernel: lower case, runs of other characters become ``-``.

    The same rule as ``generator.sweeps.snapshot.slugify`` (the diff of two sweeps matches
    kernels by slug); real bundle names are already slugs.
    """
    return _SLUG.sub("-", name.lower()).strip("-.") or "kernel"


def relative_text(text: str, root: str) -> str:
    """A message with the sweep root's absolute path removed (pages carry no local paths)."""
    root = os.path.abspath(root)
    return text.replace(root + os.sep, "").replace(root, ".")


# ---------------------------------------------------------------- plan

@dataclass
class KernelPlan:
    """One kernel of the site, before any analysis: what it is and which files make it."""

    slug: str
    name: str
    category: str | None
    bundle: Bundle | None
    op: str | None
    campaign_dir: str | None
    entry: dict[str, Any] | None  # its docs/data/kernels.json entry
    prev: tuple[str, str] | None = None
    next: tuple[str, str] | None = None


def _entries(kernels_json: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """kernels.json entries by bundle name."""
    if not kernels_json:
        return {}
    return {e["example"]: e for e in kernels_json.get("kernels", [])
            if isinstance(e, dict) and isinstance(e.get("example"), str)}


def plan_kernels(sweep, config: SweepConfig, kernels_json: dict[str, Any] | None) -> list[KernelPlan]:
    """Every kernel: one per bundle, plus one per campaign that no bundle claims; in page order."""
    vmod = optional("verdicts")
    entries = _entries(kernels_json)
    campaigns = dict(sweep.campaigns)
    plans: list[KernelPlan] = []
    claimed: set[str] = set()
    used: set[str] = set()

    def unique(slug: str) -> str:
        base, n = slug, 2
        while slug in used:
            slug, n = f"{base}-{n}", n + 1
        used.add(slug)
        return slug

    for b in sweep.bundles:
        op = None
        if vmod is not None:
            op = vmod.campaign_for_bundle(b.name, config, kernels_json, campaigns=campaigns)
        elif b.name in campaigns:
            op = b.name
        if op:
            claimed.add(op)
        settings = config.kernel(b.name)
        entry = entries.get(b.name, {})
        name = settings.name or (entry.get("name") if isinstance(entry.get("name"), str) else None) or b.name
        category = settings.category or (entry.get("op_category") if isinstance(entry.get("op_category"), str) else None)
        if not category and op:
            category = config.kernel(op).category
        plans.append(KernelPlan(unique(slugify(b.name)), name, category, b, op, campaigns.get(op) if op else None,
                                entries.get(b.name)))
    for op, folder in sorted(campaigns.items()):
        if op in claimed:
            continue
        owners = vmod.bundles_for_campaign(op, config, kernels_json) if vmod is not None else []
        entry = next((entries[o] for o in owners if o in entries), None) or {}
        settings = config.kernel(op)
        name = (settings.name or next((config.kernel(o).name for o in owners if config.kernel(o).name), None)
                or (entry.get("name") if isinstance(entry.get("name"), str) else None) or op)
        category = (settings.category or next((config.kernel(o).category for o in owners if config.kernel(o).category), None)
                    or (entry.get("op_category") if isinstance(entry.get("op_category"), str) else None))
        slug = slugify(owners[0]) if owners else slugify(op)
        plans.append(KernelPlan(unique(slug), name, category, None, op, folder, entry or None))
    plans.sort(key=lambda p: ((p.category or base_views.UNCATEGORIZED) == base_views.UNCATEGORIZED,
                              p.category or base_views.UNCATEGORIZED, p.name.lower(), p.slug))
    for i, p in enumerate(plans):
        p.prev = (plans[i - 1].slug, plans[i - 1].name) if i > 0 else None
        p.next = (plans[i + 1].slug, plans[i + 1].name) if i + 1 < len(plans) else None
    return plans


# ---------------------------------------------------------------- hashes

def _source_fingerprint() -> list[str]:
    """Hashes of the generator package (code and data): any change to an analysis rebuilds all."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return publish.tree_hash(root, skip=lambda n: not n.endswith((".py", ".toml", ".json", ".yaml")))


def global_hash(sweep, config: SweepConfig, base_url: str, assets: render.Assets, missing: list[str],
                history: bool = False) -> str:
    """Hash of everything every page depends on (STYLE.md 5)."""
    parts = [f"site:{SITE_VERSION}", f"format:{FORMAT_VERSION}", f"tool:{__version__}", f"base:{base_url}",
             f"history:{history}",
             "missing:" + ",".join(missing), "templates:" + render.templates_fingerprint(),
             "assets:" + ",".join(sorted(assets.files))]
    parts += _source_fingerprint()
    if config.path and os.path.isfile(config.path):
        parts.append("config:" + publish.sha256_file(config.path))
    if sweep.kernels_json and os.path.isfile(sweep.kernels_json):
        parts.append("kernels_json:" + publish.sha256_file(sweep.kernels_json))
    return publish.combine(parts)


def pick_wave(waves: list[WaveFile]) -> WaveFile | None:
    """The wave whose timeline the page draws: the longest (ties: the first in file order)."""
    best = None
    for w in waves:
        if best is None or w.duration > best.duration:
            best = w
    return best


def input_hash(plan: KernelPlan, root: str) -> str:
    """Hash of one kernel's inputs: its bundle's files (sampled waves: only the drawn one),
    its campaign's files, its identity and its neighbours on the page."""
    parts = [f"slug:{plan.slug}", f"name:{plan.name}", f"category:{plan.category}", f"op:{plan.op}",
             f"prev:{plan.prev}", f"next:{plan.next}"]
    if plan.bundle is not None:
        parts.append("bundle:" + os.path.relpath(plan.bundle.path, root))
        parts += publish.tree_hash(plan.bundle.path, skip=_WAVE_FILE.match)
        for ref in plan.bundle.captures:
            try:
                wave = pick_wave(att.load_waves(ref.path)) if ref.format == "att" and not ref.skipped else None
            except InputError:
                wave = None
            if wave is not None:
                path = os.path.join(ref.path, wave.file)
                if os.path.isfile(path):
                    parts.append(f"wave:{ref.rel}/{wave.file}:{publish.sha256_file(path)}")
    if plan.campaign_dir:
        parts.append("campaign:" + os.path.relpath(plan.campaign_dir, root))
        parts += publish.tree_hash(plan.campaign_dir)
    return publish.combine(parts)


# ---------------------------------------------------------------- gather

def load_timeline(capture_dir: str, a: CaptureAnalysis, bins: int = TIMELINE_BINS) -> tuple[base_views.WaveTimeline | None, str]:
    """Issue and stall cycles over time of the longest sampled wave (only that wave file is parsed)."""
    wave = pick_wave(a.waves)
    if wave is None:
        return None, "No sampled wave is listed in filenames.json."
    rows = att.read_wave(capture_dir, wave)
    if not rows:
        return None, f"The sampled wave {wave.file} holds no instructions."
    types = {ins.pc_index: ins.type for ins in a.instructions}
    start = rows[0][0]
    end = max(r[0] + max(r[3], 0) for r in rows)
    span = max(1, end - start)
    width = max(1, -(-span // bins))
    n = -(-span // width)
    issue = [0] * n
    stall: dict[str, list[int]] = {t: [0] * n for t in STALL_TYPES}
    for t, _kind, st, dur, pc in rows:
        b = min(n - 1, max(0, (t - start) // width))
        st = max(st, 0)
        issue[b] += max(dur - st, 0)
        if st:
            name = types.get(pc, "other")
            stall.setdefault(name, [0] * n)[b] += st
    stall = {k: v for k, v in stall.items() if any(v)}
    return base_views.WaveTimeline(
        wave=wave, n_instructions=len(rows), bin_cycles=width, starts=[i * width for i in range(n)],
        issue=issue, stall=stall, total_stall=sum(sum(v) for v in stall.values()), total_issue=sum(issue),
    ), ""


def read_sources(a: CaptureAnalysis) -> dict[str, list[str]]:
    """Snapshot source files of a capture that exist (paths were checked to stay inside it)."""
    out = {}
    for vpath, local in sorted(a.sources.items()):
        try:
            if not os.path.isfile(local) or os.path.getsize(local) > MAX_SOURCE_BYTES:
                continue
            with open(local, encoding="utf-8", errors="replace") as fh:
                out[vpath] = fh.read().splitlines()
        except OSError:
            continue
    return out


@dataclass
class Env:
    """What gathering needs besides the plan."""

    root: str
    config: SweepConfig
    kernels_json: dict[str, Any] | None
    mods: dict[str, Any]
    warn: Callable[[str], None]


def _stage(k: base_views.KernelData, env: Env, what: str, fn: Callable, *args, **kwargs):
    """Run an optional stage; its failure is recorded against the kernel, never fatal."""
    try:
        return fn(*args, **kwargs)
    except InputError as err:
        k.broken.append(f"{what}: {relative_text(err.message, env.root)}")
    except Exception as err:  # a bug in one stage must not take the whole site down
        msg = relative_text(f"{type(err).__name__}: {err}", env.root)
        k.broken.append(f"{what} failed: {msg}")
        env.warn(f"{k.slug}: {what} failed: {msg}")
    return None


def gather_kernel(plan: KernelPlan, env: Env) -> tuple[base_views.KernelData, dict[str, Any]]:
    """Analyze and score one kernel: its KernelData, and the extra the overview caches."""
    m = env.mods
    k = base_views.KernelData(slug=plan.slug, name=plan.name, op=plan.op, category=plan.category,
                         bundle_rel=relative_text(plan.bundle.path, env.root).replace(os.sep, "/") if plan.bundle else None,
                         prev=plan.prev, next=plan.next)
    extra: dict[str, Any] = {}
    vmod = m.get("verdicts")
    if plan.op and plan.campaign_dir and vmod is not None:
        rel = discover.rel_path(plan.campaign_dir, env.root)
        res = _stage(k, env, "scoring", vmod.score_folder, plan.campaign_dir, env.config, env.kernels_json,
                     name=plan.op, rel=rel)
        if isinstance(res, InputError):
            k.score_error = relative_text(res.message, env.root)
            k.broken.append(f"campaign {rel}: {k.score_error}")
        elif res is not None:
            k.score = res
            k.headline, k.headline_note = res.headline, res.headline_note
            extra["provenance"] = dict(res.provenance)
    elif plan.entry and vmod is not None:
        t = vmod.Thresholds.from_config(env.config)
        k.headline = vmod.headline_pair(plan.entry, env.config.candidate, t)
    if plan.bundle is not None:
        _gather_bundle(plan.bundle, k, env, plan.campaign_dir)
    if plan.campaign_dir and m.get("roofline") is not None and k.score is not None and k.score.is_verdict:
        r = _stage(k, env, "roofline", m["roofline"].campaign_roofline, plan.campaign_dir, env.config)
        if r is not None and r.points:
            k.roofline = r.to_json()
    _missing(plan, k)
    prim = k.primary
    if prim is not None and prim.findings is not None:
        extra["findings"] = prim.findings
    return k, extra


def _gather_bundle(bundle: Bundle, k: base_views.KernelData, env: Env, campaign_dir: str | None = None) -> None:
    """Captures (analysis, timeline, sources, advice), counters, run statistics, comparisons, report."""
    m = env.mods
    results = analysis.analyze_bundle(bundle)
    analyses: list[CaptureAnalysis] = []
    for r in results:
        base = dict(label=r.ref.label, rel=r.ref.rel, is_primary=r.is_primary)
        if r.status == "skipped":
            k.captures.append(base_views.CaptureData(name=r.ref.name, status="skipped", problem=r.ref.skipped, **base))
            continue
        if r.error is not None:
            msg = relative_text(r.error.message, env.root)
            k.captures.append(base_views.CaptureData(name=r.ref.name, status="broken", problem=msg, **base))
            k.broken.append(f"capture {r.ref.rel}: {msg}")
            continue
        for j, a in enumerate(r.analyses):
            name = r.ref.name if len(r.analyses) == 1 else f"{r.ref.name} #{j + 1} ({a.capture})"
            cd = base_views.CaptureData(name=name, status="ok", analysis=a, **base)
            cd.is_primary = r.is_primary and j == 0
            if a.vendor == "amd" and r.ref.format == "att":
                tl = _stage(k, env, f"timeline of {r.ref.rel}", load_timeline, r.ref.path, a)
                if tl is not None:
                    cd.timeline, cd.timeline_note = tl
            else:
                cd.timeline_note = "Nsight Compute samples warps, not one wave's timeline: no timeline."
            cd.source_text = read_sources(a)
            k.captures.append(cd)
            analyses.append(a)
    score = k.score
    verdict = score if score is not None and score.is_verdict else None
    geomean = score.geomean_vs_best if verdict is not None else None
    prim = k.primary
    jit = prim.analysis.jit_kernel if prim and prim.analysis else None
    counters = None
    if m.get("pmc") is not None:
        counters = _stage(k, env, "counters", m["pmc"].analyze_bundle_counters, bundle.path, jit or None)
        if counters is not None:
            k.counters = counters.to_json()
            k.counter_reading = list(getattr(counters, "reading", []) or [])
    if m.get("runstats") is not None:
        rs = _stage(k, env, "run statistics", m["runstats"].bundle_run_stats, bundle.path, jit)
        if rs is not None:
            k.runstats = rs.to_json()
    adv = m.get("advice")
    if adv is not None:
        for cd in k.captures:
            if cd.analysis is None:
                continue
            ctx = _stage(k, env, f"advice context of {cd.rel}", adv.context_for, cd.analysis, bundle,
                         counters if cd.is_primary else None, verdict, geomean, env.config)
            found = _stage(k, env, f"advice for {cd.rel}", adv.advise, cd.analysis, ctx)
            if found is not None:
                cd.findings = [f.to_json() for f in found]
                if cd.is_primary and score is not None and score.verdict == "HEADROOM":
                    text = _stage(k, env, "why not winning", adv.why_not_winning, found, cd.analysis)
                    if text:
                        k.why_not = {"text": text, "findings": [f.to_json() for f in found if f.ranked][:3]}
            if cd.analysis.vendor != "amd":
                continue  # MFMA latencies are CDNA facts
            notes = _stage(k, env, f"MFMA notes of {cd.rel}", adv.mfma_annotations, cd.analysis)
            if notes:
                cd.mfma = {pc: n.to_json() for pc, n in notes.items()}
    if m.get("compare") is not None and len(analyses) > 1:
        pairs = _stage(k, env, "comparison", m["compare"].pairs_to_compare, bundle, analyses) or []
        for pair in pairs:
            cmp = _stage(k, env, "comparison", m["compare"].compare_captures, pair.a, pair.b)
            if cmp is not None:
                k.compare.append({"title": pair.title, "kind": pair.kind, "comparison": cmp.to_json()})
    nsum = m.get("ncu_summary")
    if nsum is not None and prim is not None and prim.analysis is not None and prim.analysis.vendor == "nvidia":
        launches = [c.analysis for c in k.captures if c.analysis is not None and c.rel == prim.rel]
        rows, ledger = [], []
        if campaign_dir:
            from generator.read import campaign as campaign_mod

            camp = _stage(k, env, "campaign rows", campaign_mod.read_campaign, campaign_dir)
            if camp is not None:
                rows, ledger = camp.rows, camp.ledger
        summary = _stage(k, env, "Nsight Compute summary", nsum.ncu_summary, launches, rows, ledger,
                         env.config.candidate, env.config.win, env.config.headroom)
        if summary is not None:
            k.ncu_summary = summary
    if bundle.report:
        text = _stage(k, env, "REPORT.md", render.read_report, bundle.report)
        if text is not None:
            k.report_html = render.render_markdown(text)


def _missing(plan: KernelPlan, k: base_views.KernelData) -> None:
    """Say plainly what this kernel lacks."""
    if plan.bundle is None:
        k.missing.append("no profiling bundle: nothing was captured")
    elif not plan.bundle.captures:
        k.missing.append("the bundle holds no capture")
    elif not any(c.analysis is not None for c in k.captures):
        k.missing.append("no capture could be analyzed")
    if plan.op is None:
        k.missing.append("no timing campaign: no verdict")
    elif k.score is not None and not k.score.is_verdict:
        k.missing.append(f"campaign {plan.op} has a shape ledger but no benchmark results")
    for c in k.captures:
        if c.status == "skipped":
            k.notes.append(f"capture {c.rel} skipped: {c.problem}")
        elif c.analysis is not None and c.analysis.instructions and c.analysis.source_mapped[0] == 0:
            k.notes.append(f"capture {c.rel}: no instruction maps to source (built without debug info)")


# ---------------------------------------------------------------- overview data

PROVENANCE_LABELS = {
    "gpu": "GPU", "gpu_count": "GPUs", "arch": "arch", "rocm": "ROCm", "rocprofv3": "rocprofv3",
    "driver": "driver", "torch": "torch", "triton": "triton", "flydsl_version": "FlyDSL",
    "flydsl_commit": "FlyDSL commit", "flydsl_branch": "FlyDSL branch", "candidate_commit": "candidate commit",
    "capture_date": "captured", "cuda": "CUDA",
}


def sweep_provenance(rows_extra: list[dict[str, Any]], config: SweepConfig,
                     kernels_json: dict[str, Any] | None) -> dict[str, str]:
    """Values every campaign agrees on, then kernels.json's provenance, then the config's."""
    out: dict[str, str] = {}
    provs = [e.get("provenance") or {} for e in rows_extra if e.get("provenance")]
    keys = sorted({key for p in provs for key in p})
    for key in keys:
        values = {str(p[key]) for p in provs if p.get(key) not in (None, "")}
        if len(values) == 1 and key not in ("baseline_commit",):
            out[key] = values.pop()
    if kernels_json and isinstance(kernels_json.get("provenance"), dict):
        for key, v in kernels_json["provenance"].items():
            if v is not None and not isinstance(v, (dict, list)):
                out[str(key)] = str(v)
    out.update(config.provenance)
    return dict(sorted(out.items()))


def build_date(config: SweepConfig, kernels_json: dict[str, Any] | None) -> str:
    """The one date the site shows: SOURCE_DATE_EPOCH, else the sweep's own date."""
    sde = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if sde.isdigit():
        return _dt.datetime.fromtimestamp(int(sde), tz=_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    for key in ("capture_date", "captured", "date"):
        if config.provenance.get(key):
            return config.provenance[key]
    if kernels_json:
        prov = kernels_json.get("provenance") if isinstance(kernels_json.get("provenance"), dict) else {}
        for value in (prov.get("capture_date"), kernels_json.get("generated")):
            if isinstance(value, str) and value:
                return value
    return "unknown (set SOURCE_DATE_EPOCH or provenance.capture_date)"


def sweep_reading(extras: dict[str, dict[str, Any]], rows: dict[str, overview_views.IndexRow], adv) -> list[dict[str, Any]]:
    """The sweep-level advice (``advice.sweep_findings``) as display items."""
    if adv is None or not hasattr(adv, "sweep_findings"):
        return []
    per_kernel = {}
    for slug, e in extras.items():
        if "findings" not in e:
            continue
        found = [adv.Finding(**{key: f[key] for key in ("detector", "title", "stall_share", "evidence",
                                                          "suggestion", "priority", "kind", "stall_cycles")
                                 if key in f}) for f in e["findings"]]
        row = rows.get(slug)
        per_kernel[slug] = (found, row.verdict if row else None, row.geomean if row else None)
    if not per_kernel:
        return []
    items = []
    for sf in adv.sweep_findings(per_kernel):
        text = sf.text[len(sf.title) + 2:] if sf.text.startswith(sf.title + ": ") else sf.text
        items.append({
            "title": sf.title,
            "text": text,
            "priority": sf.priority,
            "kernels": [{"href": rows[s].href, "name": rows[s].name} for s in sf.kernels if s in rows],
            "json": sf.to_json(),
        })
    return items


# ---------------------------------------------------------------- progress and summary

class Progress:
    """A one-line progress bar on stderr (only on a terminal)."""

    def __init__(self, total: int, stream=None, enabled: bool | None = None):
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled if enabled is not None else bool(getattr(self.stream, "isatty", lambda: False)())

    def step(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 28
        filled = int(width * self.done / max(1, self.total))
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {label[:40]:<40}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 80 + "\r")
            self.stream.flush()


@dataclass
class BuildSummary:
    """What a build did."""

    out: str
    kernels: int = 0
    built: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # unchanged, not re-rendered
    broken: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    seconds: float = 0.0
    up_to_date: bool = False
    warnings: list[str] = field(default_factory=list)

    def text(self) -> str:
        if self.up_to_date:
            return (f"kernel-atlas: {self.kernels} kernels, site up to date (nothing rewritten), "
                    f"{self.seconds:.2f} s: {self.out}")
        return (f"kernel-atlas: {self.kernels} kernels: {len(self.built)} built, {len(self.skipped)} skipped "
                f"(unchanged), {len(self.broken)} broken; {len(self.written)} files written, "
                f"{len(self.deleted)} deleted; {self.seconds:.2f} s: {self.out}")


# ---------------------------------------------------------------- the build

def build_site(sweep_path: str | os.PathLike, out_dir: str | os.PathLike, *, base_url: str = "",
               force: bool = False, progress: bool | None = None, stream=None,
               history_dir: str | os.PathLike | None = None, history_label: str | None = None,
               history_commit: str | None = None) -> BuildSummary:
    """Build (or update) the site of a sweep in ``out_dir``; see the module docstring.

    With ``history_dir`` the site gains ``history.html`` and ``api/history.json`` (every
    kernel's geomean over the recorded sweeps, this one included, and regression marks on
    the overview), and this sweep is recorded in the history once the site is published
    (``generator.sweeps.history``; retention ``[history] keep`` of the configuration).
    """
    t0 = time.perf_counter()
    stream = stream or sys.stderr
    out = os.path.abspath(os.fspath(out_dir))
    summary = BuildSummary(out=os.fspath(out_dir))
    publish.check_output(out)
    sweep = discover.discover(sweep_path)
    root = sweep.root
    config = load_config(root)
    mods = {name: optional(name) for name in OPTIONAL}
    missing = [OPTIONAL[n] for n, mod in mods.items() if mod is None and n != "ncu_summary"]
    kernels_json = None
    if mods["verdicts"] is not None:
        kernels_json = mods["verdicts"].load_kernels_json(root)
    assets = render.load_assets()
    hmod = None
    if history_dir is not None:
        hmod = optional("history")
        if hmod is None:
            raise InputError(os.fspath(history_dir), "history is not available in this kernel-atlas (no generator.sweeps.history)")
    ghash = global_hash(sweep, config, base_url, assets, missing, history=hmod is not None)
    plans = plan_kernels(sweep, config, kernels_json)
    hashes = {p.slug: input_hash(p, root) for p in plans}
    date = build_date(config, kernels_json)
    manifest = None if force else publish.read_manifest(out)
    old_files = set(publish.site_files(out)) if manifest else set()

    def reusable(slug: str) -> bool:
        item = manifest.items.get(slug) if manifest and manifest.global_hash == ghash else None
        return bool(item and item.input_hash == hashes[slug] and all(f in old_files for f in item.files))

    summary.kernels = len(plans)
    if (hmod is None and manifest and manifest.global_hash == ghash and manifest.build_date == date
            and set(manifest.items) == set(hashes) and all(reusable(s) for s in hashes)
            and set(manifest.files) <= old_files):
        summary.up_to_date = True
        summary.skipped = sorted(hashes)
        summary.broken = sorted(s for s, it in manifest.items.items() if it.row.get("broken"))
        summary.seconds = time.perf_counter() - t0
        return summary

    def warn(msg: str) -> None:
        summary.warnings.append(msg)

    env = Env(root=root, config=config, kernels_json=kernels_json, mods=mods, warn=warn)
    ctx = base_views.SiteContext(title=config.title or _default_title(kernels_json), candidate=config.candidate,
                            win=config.win, headroom=config.headroom, base_url=base_url,
                            missing_stages=missing, history=hmod is not None)
    bar = Progress(len(plans), stream, progress)
    files: dict[str, bytes] = {}
    keep: list[str] = []
    rows: dict[str, overview_views.IndexRow] = {}
    extras: dict[str, dict[str, Any]] = {}
    items: dict[str, publish.ManifestItem] = {}
    try:
        for plan in plans:
            if reusable(plan.slug):
                item = manifest.items[plan.slug]
                rows[plan.slug] = overview_views.IndexRow.from_json(item.row)
                extras[plan.slug] = item.extra
                keep += item.files
                items[plan.slug] = item
                summary.skipped.append(plan.slug)
                bar.step(plan.slug + " (unchanged)")
                continue
            k, extra = gather_kernel(plan, env)
            row = overview_views.index_row(k)
            page = kernel_views.kernel_page(k, row, ctx)
            kfiles = {
                f"kernels/{plan.slug}/index.html": render.render_kernel(page, assets),
                f"api/kernels/{plan.slug}.json": publish.json_compact(_kernel_doc(k, row)),
                f"badges/{plan.slug}.svg": render.render_badge(pr_views.badge_view(row)),
                f"pr/{plan.slug}.md": render.render_pr(pr_views.pr_view(k, row, ctx)),
            }
            kfiles.update(source_pages.kernel_source_files(k, ctx, assets))  # issue 13: src/<capture>/*.html
            files.update(kfiles)
            rows[plan.slug], extras[plan.slug] = row, extra
            items[plan.slug] = publish.ManifestItem(hashes[plan.slug], sorted(kfiles), row.to_json(), extra)
            summary.built.append(plan.slug)
            bar.step(plan.slug)
    finally:
        bar.close()
    ordered = overview_views.order_rows(list(rows.values()))
    prov = sweep_provenance([extras[s] for s in sorted(extras)], config, kernels_json)
    hist_label = hist_commit = None
    if hmod is not None:
        hist_label = history_label or (date if re.match(r"^\d{4}-\d{2}-\d{2}", date) else "sweep")
        hist_commit = history_commit or prov.get("candidate_commit") or prov.get("flydsl_commit")
        files.update(_history_files(hmod, os.fspath(history_dir), hist_label, hist_commit, date, ordered, ctx, assets))
    reading = sweep_reading(extras, rows, mods.get("advice"))
    facts = [overview_views.Fact(PROVENANCE_LABELS.get(key, key.replace("_", " ")), value) for key, value in prov.items()]
    overview = overview_views.overview_page(ordered, ctx, facts, date, reading,
                                   notes=_overview_notes(root))
    files["index.html"] = render.render_overview(overview, assets)
    files["api/index.json"] = publish.json_bytes(_index_doc(ordered, overview, ctx, prov, date, reading))
    files.update(assets.files)
    files[".nojekyll"] = b""
    summary.broken = sorted(s for s, r in rows.items() if r.broken)
    all_files = sorted(set(files) | set(keep) | {publish.MANIFEST})
    man = publish.Manifest(tool_version=__version__, global_hash=ghash, build_date=date, items=items, files=all_files)
    files[publish.MANIFEST] = man.to_bytes()
    result = publish.publish(out, files, keep)
    summary.written, summary.deleted = result.written, result.deleted
    if hmod is not None:
        hmod.record(os.path.join(out, "api"), os.fspath(history_dir), hist_label, hist_commit,
                    retention=config.history_keep)
    summary.seconds = time.perf_counter() - t0
    return summary


def _history_files(hmod, history_dir: str, label: str, commit: str | None, date: str,
                   rows: list[overview_views.IndexRow], ctx: base_views.SiteContext, assets: render.Assets) -> dict[str, bytes]:
    """history.html and api/history.json: the recorded sweeps plus this one (nothing written yet);
    marks each overview row that regressed at its latest step."""
    series = hmod.load_series(history_dir)
    day = date if re.match(r"^\d{4}-\d{2}-\d{2}", date) else None
    current = hmod.points_from_rows([r.api() for r in rows], label, commit, day)
    full = hmod.with_current(series, current)
    marks = hmod.regression_marks(full)
    for r in rows:
        r.regression = history_views.regression_text(marks[r.slug]) if r.slug in marks else ""
    figures = hmod.history_chart_data(full, thresholds=(ctx.headroom, ctx.win))
    labels = [e.label for e in hmod.load_history(history_dir).entries if e.label != label] + [label]
    page = history_views.history_page(rows, figures, marks, labels, ctx)
    return {"history.html": render.render_history(page, assets),
            "api/history.json": publish.json_bytes(hmod.history_document(full))}


def _default_title(kernels_json: dict[str, Any] | None) -> str:
    """Title without configuration: the sweep's GPU when kernels.json names it."""
    prov = (kernels_json or {}).get("provenance") if isinstance((kernels_json or {}).get("provenance"), dict) else {}
    gpu = prov.get("gpu") if isinstance(prov, dict) else None
    return f"Kernel Atlas: {gpu}" if isinstance(gpu, str) and gpu else "Kernel Atlas"


def _overview_notes(root: str) -> list[str]:
    """Sweep-level notes: which configuration is in use."""
    if os.path.isfile(os.path.join(root, CONFIG_NAME)):
        return [f"configuration: {CONFIG_NAME} at the sweep root"]
    return [f"no {CONFIG_NAME}: defaults (candidate flydsl, thresholds 1.05 / 0.95)"]


def _kernel_doc(k: base_views.KernelData, row: overview_views.IndexRow) -> dict[str, Any]:
    """``api/kernels/<slug>.json``."""
    doc = kernel_views.kernel_json(k, row, FORMAT_VERSION)
    prim = k.primary
    if prim is not None and prim.analysis is not None:
        a = prim.analysis
        doc["hotspot"] = {"capture": prim.rel, "top_stall_type": a.top_stall_type, "stall_ratio": a.stall_ratio,
                          "waves_per_simd": a.occupancy.waves_per_simd if a.occupancy else None,
                          "limiter": a.occupancy.limiter if a.occupancy else None}
    else:
        doc["hotspot"] = None
    for key in ("slug", "name", "op", "verdict"):
        doc[key] = doc["kernel"][key]
    return doc


def _index_doc(rows: list[overview_views.IndexRow], overview: overview_views.OverviewPage, ctx: base_views.SiteContext,
               prov: dict[str, str], date: str, reading: list[dict[str, Any]]) -> dict[str, Any]:
    """``api/index.json``."""
    return {
        "format_version": FORMAT_VERSION,
        "generator": {"name": "kernel-atlas", "version": __version__},
        "sweep": {"title": ctx.title, "date": date, "candidate": ctx.candidate,
                  "thresholds": {"win": ctx.win, "headroom": ctx.headroom}, "provenance": prov},
        "tallies": overview.tally.to_json(),
        "kernels": [r.api() for r in rows],
        "errors": {r.slug: "; ".join(r.broken) for r in rows if r.broken},
        "sweep_findings": [item["json"] for item in reading],
    }
