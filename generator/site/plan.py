"""Plan a site build: the optional stages, one ``KernelPlan`` per kernel, and the hashes
that say which kernels changed since the last build (STYLE.md 5).
"""

from __future__ import annotations

import datetime as _dt
import importlib
import os
import re
import dataclasses
from typing import Any

from generator import __version__
from generator.config import SweepConfig, load_config
from generator.errors import InputError
from generator.model import FORMAT_VERSION, WaveFile, record
from generator.analyze import kernels
from generator.read import att, campaign, discover
from generator.site import publish, render

#: Bump when the build's output changes for the same input (part of the global hash).
SITE_VERSION = 1
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
#: Bundle files no stage reads, left out of the input hash: the sampled waves (only the drawn
#: one is read, hashed on its own) and rocprof-compute-viewer's ``<label>_results.json`` (about
#: half the bytes of a bundle; the counters come from its CSV files).
_NOT_READ = re.compile(r"^se\d+_sm\d+_sl\d+_wv\d+\.json$|_results\.json$")
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


# ---------------------------------------------------------------- kernels


@record
class KernelPlan(kernels.KernelRef):
    """One kernel of the site: its ``KernelRef`` and its neighbours in page order."""

    prev: tuple[str, str] | None = None
    next: tuple[str, str] | None = None


def plan_kernels(sweep, config: SweepConfig, kernels_json: dict[str, Any] | None) -> list[KernelPlan]:
    """Every kernel (``analyze.kernels.pair_kernels``) in page order, linked to its neighbours."""
    plans = [KernelPlan(**vars(r)) for r in kernels.pair_kernels(sweep, config, kernels_json)]
    for i, p in enumerate(plans):
        p.prev = (plans[i - 1].slug, plans[i - 1].name) if i > 0 else None
        p.next = (plans[i + 1].slug, plans[i + 1].name) if i + 1 < len(plans) else None
    return plans


# ---------------------------------------------------------------- hashes


def global_hash(sweep, config: SweepConfig, base_url: str, tool: render.ToolFacts, missing: list[str],
                history: bool = False, floor_us: float | None = None, ci: str = "") -> str:
    """Hash of everything every page depends on (STYLE.md 5), the sweep's timing floor and replay cost
    included: one campaign's rows move every kernel's floor (VERDICTS rule 11) and the replay cost beside it;
    ``ci``: the CI stream's digest (``build --ci``: every kernel page's CI panel)."""
    parts = [f"site:{SITE_VERSION}", f"format:{FORMAT_VERSION}", f"tool:{__version__}", f"base:{base_url}",
             f"history:{history}", f"floor:{floor_us!r}", f"replay:{config.replay_cost_us!r}",
             "missing:" + ",".join(missing), "templates:" + tool.templates,
             "assets:" + ",".join(sorted(tool.assets.files))]
    parts += tool.code + ([f"ci:{ci}"] if ci else [])
    if config.path and os.path.isfile(config.path):
        parts.append("config:" + publish.sha256_file(config.path))
    if sweep.kernels_json and os.path.isfile(sweep.kernels_json):
        parts.append("kernels_json:" + publish.sha256_file(sweep.kernels_json))
    findings = os.path.join(sweep.root, "FINDINGS.md")  # views.findings.FINDINGS, on the overview
    if os.path.isfile(findings):
        parts.append("findings:" + publish.sha256_file(findings))
    return publish.combine(parts)


def floor_inputs(root: str, config: SweepConfig) -> str:
    """Hash of what the sweep's timing floor and replay cost are computed from (``verdicts.sweep_floor``,
    ``sweep_replay_cost``, VERDICTS rule 11): the configured values and every campaign's results file. The manifest keeps the
    floor under it, so a rebuild whose campaigns did not change does not parse every campaign
    again (issue 41: it was 0.18 s of the 0.34 s no-op rebuild of the shared sweep, cProfile)."""
    parts = [f"floor_us:{config.floor_us!r}", f"replay_cost_us:{config.replay_cost_us!r}"]
    for op, folder in sorted(campaign.find_campaign_folders(root).items()):
        try:
            path = campaign.results_file(folder)
        except InputError:
            parts.append(f"{op}:unreadable")
            continue
        parts.append(f"{op}:{publish.sha256_file(path) if path else '-'}")
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
        parts += publish.tree_hash(plan.bundle.path, skip=_NOT_READ.search)
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


# ---------------------------------------------------------------- the plan of a build

@record
class BuildPlan:
    """Everything a build decides before it analyzes a kernel (the *plan* step)."""

    root: str
    config: SweepConfig
    mods: dict[str, Any]  # optional stage -> its module (None: absent)
    missing: list[str]  # optional stages absent, as every page names them
    kernels_json: dict[str, Any] | None
    assets: render.Assets
    hmod: Any  # generator.sweeps.history when a history is kept, else None
    global_hash: str
    kernels: list[KernelPlan]
    hashes: dict[str, str]  # slug -> input hash; empty without a previous manifest (taken as built)
    date: str
    manifest: publish.Manifest | None  # the previous build's (None: none, or forced)
    old_files: set[str]
    floor_us: float | None = None  # the sweep's timing floor (VERDICTS rule 11)
    floor_inputs: str = ""  # what it was computed from (floor_inputs)

    def reusable(self, slug: str) -> bool:
        """True when the kernel's inputs and files are those of the previous build."""
        man = self.manifest
        item = man.items.get(slug) if man and man.global_hash == self.global_hash else None
        return bool(item and item.input_hash == self.hashes[slug] and all(f in self.old_files for f in item.files))

    def up_to_date(self) -> bool:
        """True when the previous build is this build: nothing to write."""
        man = self.manifest
        return bool(self.hmod is None and man and man.global_hash == self.global_hash and man.build_date == self.date
                    and set(man.items) == set(self.hashes) and all(self.reusable(s) for s in self.hashes)
                    and set(man.files) <= self.old_files)


def plan_build(sweep_path: str | os.PathLike, out: str, base_url: str, force: bool,
               history_dir: str | os.PathLike | None, ci: str = "", tool: render.ToolFacts | None = None) -> BuildPlan:
    """Discover the sweep, load the stages, plan every kernel and hash its inputs (``tool``: the tool's
    own facts when another process took them, ``render.CompiledAhead.facts``)."""
    sweep = discover.discover(sweep_path)
    root = sweep.root
    if not sweep.bundles and not sweep.campaigns:  # an empty site would replace the previous one
        raise InputError(os.fspath(sweep_path), "nothing to build: no kernel bundle (examples/<kernel>/ with "
                                                "att_viewer/ or ncu/ captures) and no campaign (benchmarks/examples/<op>/)")
    config = load_config(root)
    mods = {name: optional(name) for name in OPTIONAL}
    missing = [OPTIONAL[n] for n, mod in mods.items() if mod is None and n != "ncu_summary"]
    kernels_json = None
    if mods["verdicts"] is not None:
        kernels_json = mods["verdicts"].load_kernels_json(root)
    tool = tool or render.tool_facts()
    if publish.FileHashes.active is not None:
        publish.FileHashes.active.seen.update(tool.hashed)  # the code files another process hashed
    assets = tool.assets
    hmod = None
    if history_dir is not None:
        hmod = optional("history")
        if hmod is None:
            raise InputError(os.fspath(history_dir), "history is not available in this kernel-atlas (no generator.sweeps.history)")
    manifest = None if force else publish.read_manifest(out)
    floor, floor_key = None, ""
    if mods["verdicts"] is not None:  # the floor and the replay cost: one sweep, one of each (kept in the manifest)
        floor_key = floor_inputs(root, config)
        reuse = manifest is not None and manifest.floor_inputs == floor_key
        if reuse:
            floor, replay = manifest.floor_us, manifest.replay_us
        else:  # the campaigns read for them are kept for their kernels' scoring
            fields = mods["roofline"].ROW_FIELDS if mods["roofline"] is not None else ()  # its rows' fields, kept too
            floor, replay = mods["verdicts"].sweep_numbers(root, config, keep=True, fields=fields)
        if config.replay_cost_us is None:
            config = dataclasses.replace(config, replay_cost_us=replay)
    ghash = global_hash(sweep, config, base_url, tool, missing, history=hmod is not None, floor_us=floor, ci=ci)
    plans = plan_kernels(sweep, config, kernels_json)
    # Without a previous build nothing is compared: each kernel's hash is taken where it is built
    # (in the workers, side by side), for the new manifest.
    hashes = {p.slug: input_hash(p, root) for p in plans} if manifest is not None else {}
    date = build_date(config, kernels_json)
    old_files = set(publish.site_files(out)) if manifest else set()
    return BuildPlan(root, config, mods, missing, kernels_json, assets, hmod, ghash, plans, hashes, date,
                     manifest, old_files, floor, floor_key)
