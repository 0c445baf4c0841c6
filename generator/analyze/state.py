"""One model of a kernel's state, computed once and read by every output.

``kernel_state`` turns what was read about one kernel (its ``KernelRef``, the campaign's
score or the campaign's error, the primary capture's analysis, the captures that broke or
were skipped) into a ``KernelState``: the verdict and its flags, why the kernel is broken,
untimed or without a campaign (one line each), the primary capture's hotspot (top stall
type, stall ratio, waves per SIMD and the occupancy limiter) and the commits (timed and
profiled). ``build`` writes it as ``state`` in ``api/kernels/<slug>.json`` and takes the
overview row's verdict, flags and problems from it; ``diff`` and ``history`` snapshot it from
a sweep or from a site's ``api/``; ``verdicts`` and ``analyze`` print the score and the
analysis it is made of. ``build`` gathers every capture and panel and then calls
``kernel_state``; ``read_kernel_state`` reads only what the state needs (the campaign and the
capture the kernel is read by), by the same rules, for ``diff`` and ``history``.
"""

from __future__ import annotations

import os
from dataclasses import field
from typing import Any

from generator.analyze import analysis, commits
from generator.analyze.kernels import KernelRef, pair_kernels, read_first
from generator.analyze.message import sentence
from generator.analyze.verdicts import load_kernels_json, score_folder, sweep_floor
from generator.config import load_config
from generator.errors import InputError, relative_text
from generator.model import CaptureAnalysis, record
from generator.read import discover

@record
class Hotspot:
    """The primary capture's summary: what the kernel waits on and how many waves fit."""

    capture: str  # capture path relative to the sweep root
    top_stall_type: str | None
    stall_ratio: float | None
    waves_per_simd: int | None
    limiter: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "capture": self.capture,
            "top_stall_type": self.top_stall_type,
            "stall_ratio": self.stall_ratio,
            "waves_per_simd": self.waves_per_simd,
            "limiter": self.limiter,
        }


def hotspot_of(capture_rel: str, a: CaptureAnalysis) -> Hotspot:
    """The hotspot summary of an analyzed capture, on the overview row's basis (DOMAIN §1.5): its
    working waves when it has their hotspots (pa: top type "other", 35.0 % of the 8 working waves' 44,892 stall
    cycles; stall ratio 57.0 %, 44,892 of their 78,696 cycles), else all sampled waves; the
    row's ``stall_basis`` names it (snapshot.py's round trip keeps no basis field)."""
    occ = a.occupancy
    working = a.working is not None and a.working.total_stall_cycles > 0
    src = a.working if working else a
    top = next((name for name, cycles in src.stall_by_type.items() if cycles > 0), None)
    return Hotspot(capture=capture_rel, top_stall_type=top, stall_ratio=src.stall_ratio,
                   waves_per_simd=occ.waves_per_simd if occ else None, limiter=occ.limiter if occ else None)


@record
class KernelState:
    """What every output says about one kernel."""

    slug: str
    name: str
    op: str | None  # campaign
    bundle: str | None  # bundle name
    verdict: str | None  # WIN / PARITY / HEADROOM / BLOCKED / UNTIMED; None: no score
    flags: list[str] = field(default_factory=list)  # machine words beside the verdict
    geomean_vs_best: float | None = None
    broken: list[str] = field(default_factory=list)  # "campaign <rel>: <problem>", "capture <rel>: <problem>"
    missing: list[str] = field(default_factory=list)  # what the kernel lacks, in words
    skipped: list[str] = field(default_factory=list)  # "capture <rel> skipped: <why>"
    hotspot: Hotspot | None = None
    timed_commits: list[str] = field(default_factory=list)
    profiled_commit: str | None = None
    verdict_basis: str | None = None  # the rung of the evidence ladder (VERDICTS rule 12)
    verdict_value: float | None = None  # the ratio the verdict rests on
    blocked_reason: str | None = None

    @property
    def status(self) -> str:
        """``broken`` (something could not be read), ``untimed``, ``no-campaign`` or ``scored``."""
        if self.broken:
            return "broken"
        if self.verdict == "UNTIMED":
            return "untimed"
        return "scored" if self.verdict else "no-campaign"

    @property
    def commit_note(self) -> str:
        return commits.commit_note(self.profiled_commit, self.timed_commits)

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug, "name": self.name, "op": self.op, "bundle": self.bundle,
            "status": self.status, "verdict": self.verdict, "flags": list(self.flags),
            "geomean_vs_best": self.geomean_vs_best,
            "broken": list(self.broken), "missing": list(self.missing), "skipped": list(self.skipped),
            "hotspot": self.hotspot.to_json() if self.hotspot else None,
            "timed_commits": list(self.timed_commits), "profiled_commit": self.profiled_commit,
            "verdict_basis": self.verdict_basis, "verdict_value": self.verdict_value,
            "blocked_reason": self.blocked_reason,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> KernelState:
        """The inverse of ``to_json`` (a site's ``api/kernels/<slug>.json`` ``state``)."""
        hot = doc.get("hotspot")
        return cls(slug=doc["slug"], name=doc.get("name") or doc["slug"], op=doc.get("op"), bundle=doc.get("bundle"),
                   verdict=doc.get("verdict"), flags=list(doc.get("flags") or []),
                   geomean_vs_best=doc.get("geomean_vs_best"), broken=list(doc.get("broken") or []),
                   missing=list(doc.get("missing") or []), skipped=list(doc.get("skipped") or []),
                   hotspot=Hotspot(**hot) if isinstance(hot, dict) else None,
                   timed_commits=list(doc.get("timed_commits") or []), profiled_commit=doc.get("profiled_commit"),
                   verdict_basis=doc.get("verdict_basis"), verdict_value=doc.get("verdict_value"),
                   blocked_reason=doc.get("blocked_reason"))


def campaign_problem(rel: str, err: InputError | str) -> str:
    """The one line of a campaign that could not be scored, naming its path once."""
    text = err.message if isinstance(err, InputError) else err
    if text.startswith((rel + ":", rel + "/")):  # the message already starts with the folder
        return sentence("msg.broken.campaign.path", error=text)
    return sentence("msg.broken.campaign", rel=rel, error=text)


def capture_problem(rel: str, err: InputError | str) -> str:
    """The one line of a capture that could not be analyzed."""
    return sentence("msg.broken.capture", rel=rel, error=err.message if isinstance(err, InputError) else err)


def kernel_state(ref: KernelRef, score: Any = None, *, broken: list[str] = (), skipped: list[str] = (),
                 primary: tuple[str, CaptureAnalysis] | None = None, analyzed: bool = False,
                 sweep_profiled: str | None = None) -> KernelState:
    """The state of one kernel from what was read about it.

    ``score`` is its campaign's ``KernelScore`` (None: no campaign, or one that broke, its line
    in ``broken``); ``primary`` the (path, analysis) of the capture the kernel is read by (the
    primary capture when it analyzes, else the first that does); ``analyzed`` whether any
    capture could be analyzed; ``sweep_profiled`` the commit the sweep says it profiled (a
    capture's own record wins).
    """
    verdict = score.verdict if score is not None else None
    scored = score is not None and score.is_verdict
    missing = []
    if ref.bundle is None:
        missing.append(sentence("msg.missing.bundle"))
    elif not ref.bundle.captures:
        missing.append(sentence("msg.missing.captures"))
    elif not analyzed:
        missing.append(sentence("msg.missing.analyzed"))
    if ref.op is None:
        missing.append(sentence("msg.missing.campaign"))
    elif score is not None and not scored:
        missing.append(sentence("msg.missing.results", op=ref.op))
    hotspot = hotspot_of(*primary) if primary is not None else None
    profiled = (commits.capture_commit(primary[1]) or sweep_profiled) if primary is not None else None
    return KernelState(
        slug=ref.slug, name=ref.name, op=ref.op, bundle=ref.bundle.name if ref.bundle else None,
        verdict=verdict, flags=list(score.flag_keys) if scored else [],
        geomean_vs_best=score.geomean_vs_best if scored else None,
        broken=list(broken), missing=missing, skipped=list(skipped), hotspot=hotspot,
        timed_commits=commits.timed_commits(score if scored else None), profiled_commit=profiled,
        verdict_basis=score.verdict_basis if scored else None, verdict_value=score.verdict_value if scored else None,
        blocked_reason=score.blocked_reason if scored else None)


def read_primary(bundle, root: str) -> tuple[tuple[str, CaptureAnalysis] | None, list[str]]:
    """The capture a kernel is read by (``kernels.read_first``: the primary when it analyzes,
    else the first that does, in discovery order) and the primary's problem line if it broke."""
    problems: list[str] = []

    def read(ref) -> CaptureAnalysis | None:
        try:
            analyses = analysis.analyze_ref(ref, bundle)
        except InputError as err:
            if ref.rel == bundle.primary:
                problems.append(capture_problem(ref.rel, relative_text(err.message, root)))
            return None
        return analyses[0] if analyses else None

    found = read_first([c for c in bundle.captures if not c.skipped], lambda c: c.rel == bundle.primary, read)
    return ((found[0].rel, found[1]) if found else None), problems


def read_kernel_state(ref: KernelRef, root: str, config, kernels_json, sweep_profiled: str | None,
                      floor_us: float | None = None) -> tuple[KernelState, Any]:
    """Score the kernel's campaign (against the sweep's timing floor ``floor_us``, ``sweep_floor``)
    and analyze the capture it is read by: (its state, its score)."""
    score, broken = None, []
    if ref.op and ref.campaign_dir:
        rel = discover.rel_path(ref.campaign_dir, root)
        res = score_folder(ref.campaign_dir, config, kernels_json, name=ref.op, rel=rel, floor_us=floor_us)
        if isinstance(res, InputError):
            broken.append(campaign_problem(rel, relative_text(res.message, root)))
        else:
            score = res
    primary = None
    if ref.bundle is not None:
        primary, problems = read_primary(ref.bundle, root)
        broken.extend(problems)
    skipped = [analysis.skipped_note(c.rel, c.skipped) for c in ref.bundle.captures if c.skipped] if ref.bundle else []
    st = kernel_state(ref, score, broken=broken, skipped=skipped, primary=primary, analyzed=primary is not None,
                      sweep_profiled=sweep_profiled)
    return st, score


def bundle_timing(bundle, sweeps: dict | None = None) -> tuple[Any, Any]:
    """(the KernelScore of the campaign that times ``bundle`` in the sweep it sits in, that sweep's
    configuration): what ``build`` scores it with. The score is None without such a campaign, when
    it broke, or when it has no results; the configuration is None outside a sweep. ``sweeps``
    keeps each sweep's discovery and pairing for the next bundle of the same sweep."""
    root = discover.enclosing_sweep(os.path.dirname(os.path.abspath(bundle.path)))
    if root is None:
        return None, None
    sweeps = {} if sweeps is None else sweeps
    if root not in sweeps:
        config, kernels_json = load_config(root), load_kernels_json(root)
        sweeps[root] = (config, kernels_json, pair_kernels(discover.discover(root), config, kernels_json),
                        sweep_floor(root, config))
    config, kernels_json, refs, floor = sweeps[root]
    ref = next((r for r in refs if r.bundle is not None and os.path.samefile(r.bundle.path, bundle.path)), None)
    if ref is None or not ref.op or not ref.campaign_dir:
        return None, config
    res = score_folder(ref.campaign_dir, config, kernels_json, name=ref.op,
                       rel=discover.rel_path(ref.campaign_dir, root), floor_us=floor)
    return (None if isinstance(res, InputError) or not res.is_verdict else res), config
