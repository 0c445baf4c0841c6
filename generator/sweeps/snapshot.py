"""A sweep reduced to what two sweeps are compared on: the input of ``diff`` and history.

A ``SweepSnapshot`` holds, per kernel, the multi-shape verdict numbers (geomean, noise,
wins, failures), every shape's speedup with its args and times, the primary capture's
hotspot summary (top stall type, stall ratio, occupancy and its limiter) and who made
the numbers (candidate commit, baseline commits, environment). It comes from either side
of a comparison:

* a sweep folder (``snapshot_from_sweep``): each kernel's state (``analyze.state``: the
  kernels ``analyze.kernels.pair_kernels`` finds, their campaigns scored, the capture each is
  read by analyzed), by the rules ``build`` uses;
* a built site's ``api/`` folder (``snapshot_from_api``): ``api/index.json`` and
  ``api/kernels/<slug>.json``, written by ``build``;
* a snapshot document (``snapshot_from_json``): what ``history`` keeps per sweep.

Kernel identity is the slug of the kernel page (``kernels/<slug>/``): the bundle name
(``examples/<bundle>/``) when the kernel has a bundle, else its campaign name. A campaign
and its bundle (``flash_attn`` and ``flash_attn_func``) are one kernel.

The snapshot document (``SweepSnapshot.to_json``), abridged::

    {"format_version": 1, "kind": "kernel-atlas-snapshot", "label": "base",
     "provenance": {"capture_date": "2026-06-01", "gpu": "AMD Instinct MI350X", ...},
     "errors": {"gemm": "benchmarks/examples/gemm/benchmark_results.jsonl:3: not JSON"},
     "kernels": {"softmax": {"slug": "softmax", "name": "Softmax", "op": "softmax",
        "bundle": "softmax", "verdict": "WIN", "geomean_vs_best": 1.079, "noise": 1.079,
        "wins": 40, "n_measured": 73, "hard_failures": 0,
        "candidate_commit": "7255fff8", "baselines": {"aiter": "32e1e6d76"},
        "environment": {"gpu": "AMD Instinct MI350X", "rocm": "7.2.0", ...},
        "hotspot": {"capture": "examples/softmax/att_viewer/big/ui_output_agent_47920_dispatch_13",
                    "top_stall_type": "VMEM-load", "stall_ratio": 0.764,
                    "waves_per_simd": 8, "limiter": "NONE"},
        "shapes": [{"shape_id": "sha1:a5bf9702ded2560e", "args": {"M": 32768, "N": 8192},
                    "dtype": "bf16", "speedup": 1.02, "candidate_us": 217.4, "candidate_status": "ok",
                    "best_baseline": "aiter_triton", "best_baseline_us": 222.1, "noise": 1.19}]}}}

Every document carries ``format_version``; a version this tool does not read is an
``InputError`` that says what to do (rebuild the site, or upgrade kernel-atlas).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Mapping

from generator.analyze.commits import declared_provenance, sweep_profiled_commit
from generator.analyze.provenance import display_text as _text, sweep_provenance
from generator.analyze.state import Hotspot, KernelState
from generator.read.att import read_json
from generator.errors import InputError
from generator.model import API_FORMAT_VERSION, FORMAT_VERSION

#: Format versions of snapshots this module reads.
SUPPORTED_FORMATS = (FORMAT_VERSION,)
#: Format versions of ``api/`` documents this module reads: 2 drops only fields it does not read.
API_FORMATS = (1, 2, API_FORMAT_VERSION)
SNAPSHOT_KIND = "kernel-atlas-snapshot"
#: Environment keys (campaign provenance names) that, when they change, change every number.
ENVIRONMENT_KEYS = ("gpu", "arch", "rocm", "driver", "torch", "triton")
API_INDEX = "index.json"
API_KERNELS = "kernels"



# ---------------------------------------------------------------- the typed snapshot


@dataclass
class ShapePoint:
    """One ledger shape of one kernel: its speedup and the times behind it."""

    shape_id: str
    args: dict[str, Any]
    dtype: str  # "" when unknown
    speedup: float | None  # None: not measured in this sweep
    candidate_us: float | None
    candidate_status: str | None  # ok, failed, oom, incorrect, ... (None: no candidate row)
    best_baseline: str | None
    best_baseline_us: float | None
    noise: float | None  # larger p90/p10 of the candidate and the best baseline
    stage: str = ""  # the ledger's stage and model: what tells apart two shapes of equal args
    model: str = ""
    #: every baseline's status on this shape ("ok": usable, else why not); None: not recorded
    baseline_status: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "shape_id": self.shape_id,
            "args": self.args,
            "dtype": self.dtype,
            "speedup": self.speedup,
            "candidate_us": self.candidate_us,
            "candidate_status": self.candidate_status,
            "best_baseline": self.best_baseline,
            "best_baseline_us": self.best_baseline_us,
            "noise": self.noise,
            "stage": self.stage,
            "model": self.model,
            "baseline_status": dict(self.baseline_status) if self.baseline_status is not None else None,
        }


#: Verdict-engine numbers a snapshot carries as they are when the score has them (None otherwise):
#: the verdict ratio's interval ``[lo, hi]``, the launch overhead ``[median_us, n]``, the launch-bound
#: shapes ``[k, n]``, the clock the pair basis read, the geomean per call.
#: The verdict's clock and certainty (VERDICTS rules 13-14), kept per kernel as ``KernelScore.to_json`` words them.
SCORE_EXTRAS = ("launch_overhead_us", "launch_baseline", "launch_bound_shapes", "pair_device_us", "pair_clock",
                "clock", "call_geomean", "verdict_ci", "verdict_ci_models", "uncertain_ci", "uncertain_models")


def baseline_status(providers: Mapping[str, Any], candidate: str | None) -> dict[str, str]:
    """Each baseline's status on a shape: "ok" when usable, else its status ("unusable" for an ok row
    that is not usable); ``providers`` holds ProviderResults or their JSON."""
    out = {}
    for name, p in providers.items():
        if name == candidate:
            continue
        usable = p.get("usable") if isinstance(p, Mapping) else getattr(p, "usable", False)
        status = p.get("status") if isinstance(p, Mapping) else getattr(p, "status", None)
        out[str(name)] = "ok" if usable else (status if status and status != "ok" else "unusable")
    return dict(sorted(out.items()))


@dataclass
class KernelSnapshot:
    """One kernel of a sweep: verdict numbers, shapes, hotspot, provenance."""

    slug: str
    name: str
    op: str | None  # campaign name (None: a bundle without timings)
    bundle: str | None  # bundle name (None: a campaign without captures)
    verdict: str | None  # WIN / PARITY / HEADROOM / BLOCKED / UNTIMED; None without a campaign
    geomean_vs_best: float | None
    noise: float | None
    wins: int
    n_measured: int
    hard_failures: int
    shapes: list[ShapePoint] = field(default_factory=list)
    hotspot: Hotspot | None = None
    candidate_commit: str | None = None
    baselines: dict[str, str] = field(default_factory=dict)  # provider -> commit / version
    environment: dict[str, str] = field(default_factory=dict)  # ENVIRONMENT_KEYS present
    flags: list[str] = field(default_factory=list)  # the verdict's flags (KernelScore.flag_keys)
    profiled_commit: str | None = None  # the candidate commit of the profile
    broken: list[str] = field(default_factory=list)  # the campaign's or primary capture's problem
    verdict_basis: str | None = None  # the rung of the evidence ladder (VERDICTS rule 12)
    verdict_value: float | None = None  # the ratio the verdict rests on
    extras: dict[str, Any] = field(default_factory=dict)  # SCORE_EXTRAS the score had (JSON values)

    @property
    def headline_value(self) -> float | None:
        """The ratio the verdict rests on; a snapshot written before the ladder has only the
        geomean vs the best baseline."""
        return self.verdict_value if self.verdict_basis is not None else self.geomean_vs_best

    @property
    def shape_ids(self) -> set[str]:
        return {s.shape_id for s in self.shapes}

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "name": self.name,
            "op": self.op,
            "bundle": self.bundle,
            "verdict": self.verdict,
            "geomean_vs_best": self.geomean_vs_best,
            "noise": self.noise,
            "wins": self.wins,
            "n_measured": self.n_measured,
            "hard_failures": self.hard_failures,
            "shapes": [s.to_json() for s in self.shapes],
            "hotspot": self.hotspot.to_json() if self.hotspot else None,
            "candidate_commit": self.candidate_commit,
            "baselines": dict(sorted(self.baselines.items())),
            "environment": dict(sorted(self.environment.items())),
            "flags": list(self.flags),
            "profiled_commit": self.profiled_commit,
            "verdict_basis": self.verdict_basis,
            "verdict_value": self.verdict_value,
            "broken": list(self.broken),
            **{key: self.extras[key] for key in SCORE_EXTRAS if self.extras.get(key) is not None},
        }


@dataclass
class SweepSnapshot:
    """Every kernel of one sweep, keyed by slug, with the sweep's provenance."""

    format_version: int
    label: str
    provenance: dict[str, str]
    kernels: dict[str, KernelSnapshot]  # slug -> kernel, sorted by slug
    errors: dict[str, str] = field(default_factory=dict)  # item -> one-line problem

    @property
    def date(self) -> str | None:
        """The sweep's own date (``capture_date``, else ``date``), if known."""
        return self.provenance.get("capture_date") or self.provenance.get("date")

    def verdict_counts(self) -> dict[str, int]:
        """Kernels per verdict (kernels without a verdict are not counted)."""
        out: dict[str, int] = {}
        for k in self.kernels.values():
            if k.verdict:
                out[k.verdict] = out.get(k.verdict, 0) + 1
        return dict(sorted(out.items()))

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": self.format_version,
            "kind": SNAPSHOT_KIND,
            "label": self.label,
            "provenance": dict(sorted(self.provenance.items())),
            "errors": dict(sorted(self.errors.items())),
            "kernels": {slug: self.kernels[slug].to_json() for slug in sorted(self.kernels)},
        }


# ---------------------------------------------------------------- format versions


def check_format_version(doc: Mapping[str, Any], path: str, what: str = "this site's api/ JSON",
                         supported: tuple[int, ...] = SUPPORTED_FORMATS) -> int:
    """The document's format version; an InputError that says what to do when unsupported."""
    version = doc.get("format_version")
    known = ", ".join(map(str, supported))
    if isinstance(version, bool) or not isinstance(version, int):
        raise InputError(path, f"no format_version: {what} was written by an older kernel-atlas; "
                               f"rebuild it with this version (`kernel-atlas build`), which writes format "
                               f"{max(supported)}")
    if version in supported:
        return version
    if version > max(supported):
        raise InputError(path, f"format_version {version} is newer than this kernel-atlas reads "
                               f"({known}): upgrade kernel-atlas, or rebuild both sides with the same version")
    raise InputError(path, f"format_version {version} is older than this kernel-atlas reads "
                           f"({known}): rebuild it with this version (`kernel-atlas build`)")


# ---------------------------------------------------------------- from a sweep folder


def snapshot_from_sweep(path: str | os.PathLike, label: str | None = None, config=None) -> SweepSnapshot:
    """Discover a sweep folder and read each kernel's state (``analyze.state``) as ``build`` does."""
    from generator.analyze.kernels import pair_kernels
    from generator.analyze.state import read_kernel_state
    from generator.analyze.verdicts import load_kernels_json, sweep_floor
    from generator.config import load_config
    from generator.read import discover

    path = os.fspath(path)
    sweep = discover.discover(path)
    root = sweep.root
    config = config if config is not None else load_config(root)
    kernels_json = load_kernels_json(root)
    profiled = sweep_profiled_commit(declared_provenance(kernels_json, config.provenance), config.candidate)
    kernels: dict[str, KernelSnapshot] = {}
    provenances = []
    floor = sweep_floor(root, config)
    for ref in pair_kernels(sweep, config, kernels_json):
        st, score = read_kernel_state(ref, root, config, kernels_json, profiled, floor)
        kernels[ref.slug] = kernel_snapshot(st, score)
        if score is not None:
            provenances.append(score.provenance)
    provenance = sweep_provenance(provenances, config, kernels_json)
    return SweepSnapshot(
        format_version=FORMAT_VERSION,
        label=label or os.path.basename(os.path.normpath(path)),
        provenance=provenance,
        kernels=dict(sorted(kernels.items())),
        errors=state_errors(kernels.values()),
    )


def state_errors(kernels) -> dict[str, str]:
    """Slug -> its broken lines joined by "; " (the sweep's ``errors``, as ``api/index.json`` has them)."""
    return {k.slug: "; ".join(k.broken) for k in sorted(kernels, key=lambda k: k.slug) if k.broken}


def kernel_snapshot(st: KernelState, score) -> KernelSnapshot:
    """A KernelSnapshot from a kernel's state and its campaign's KernelScore (None without one)."""
    scored = score is not None and score.verdict != "UNTIMED"
    prov = score.provenance if score is not None else {}
    return KernelSnapshot(
        slug=st.slug,
        name=st.name,
        op=st.op,
        bundle=st.bundle,
        verdict=st.verdict,
        # "vs any" as shown beside the verdict: over the kernel-clock shapes no rule flags (the API's, issue 37)
        geomean_vs_best=(score.kernel_vs_any or [None])[0] if score is not None else None,
        verdict_basis=st.verdict_basis,
        verdict_value=st.verdict_value,
        noise=score.noise if score is not None else None,
        wins=score.wins if score is not None else 0,
        n_measured=score.n_measured if score is not None else 0,
        hard_failures=score.hard_failures if score is not None else 0,
        shapes=[ShapePoint(
            shape_id=s.shape_id, args=dict(s.args), dtype=s.dtype or "", speedup=s.speedup, candidate_us=s.candidate_us,
            candidate_status=s.candidate_status, best_baseline=s.best_baseline,
            best_baseline_us=s.best_baseline_us, noise=s.noise, stage=s.stage or "", model=s.model or "",
            baseline_status=baseline_status(s.providers, score.candidate),
        ) for s in score.shapes] if score is not None else [],
        hotspot=st.hotspot,
        flags=list(st.flags) if scored else [],
        candidate_commit=prov.get("candidate_commit"),
        baselines=dict(score.baseline_commits) if score is not None else {},
        environment={k: prov[k] for k in ENVIRONMENT_KEYS if k in prov},
        profiled_commit=st.profiled_commit,
        broken=list(st.broken),
        extras=score_extras(score),
    )


def score_extras(score: Any) -> dict[str, Any]:
    """The SCORE_EXTRAS a KernelScore (or its JSON) has, as JSON values; absent or None ones left out."""
    out = {}
    for key in SCORE_EXTRAS:
        value = score.get(key) if isinstance(score, Mapping) else getattr(score, key, None)
        if isinstance(value, tuple):
            value = list(value)
        if value is not None:
            out[key] = value
    return out


# ---------------------------------------------------------------- from JSON documents


def snapshot_from_json(doc: Any, path: str = "<snapshot>") -> SweepSnapshot:
    """Rebuild a SweepSnapshot from its ``to_json`` document (format version checked)."""
    if not isinstance(doc, dict) or doc.get("kind") != SNAPSHOT_KIND:
        raise InputError(path, "not a kernel-atlas snapshot (expected \"kind\": \"kernel-atlas-snapshot\")")
    version = check_format_version(doc, path, "this snapshot")
    kernels_doc = doc.get("kernels")
    if not isinstance(kernels_doc, dict):
        raise InputError(path, "snapshot has no \"kernels\" object")
    kernels = {}
    for slug, k in sorted(kernels_doc.items()):
        kernels[slug] = kernel_from_json(k, f"{path}: kernel {slug!r}")
    return SweepSnapshot(
        format_version=version,
        label=str(doc.get("label") or os.path.basename(path)),
        provenance={str(k): _text(v) for k, v in (doc.get("provenance") or {}).items()},
        kernels=kernels,
        errors={str(k): str(v) for k, v in (doc.get("errors") or {}).items()},
    )


def kernel_from_json(k: Any, where: str) -> KernelSnapshot:
    """One kernel object of a snapshot document (or of an api/ kernel document)."""
    if not isinstance(k, dict) or not isinstance(k.get("slug"), str):
        raise InputError(where, "expected a kernel object with a \"slug\"")
    hot = k.get("hotspot")
    return KernelSnapshot(
        slug=k["slug"],
        name=str(k.get("name") or k["slug"]),
        op=k.get("op"),
        bundle=k.get("bundle"),
        verdict=k.get("verdict"),
        geomean_vs_best=_num(k.get("geomean_vs_best")),
        verdict_basis=k.get("verdict_basis") if isinstance(k.get("verdict_basis"), str) else None,
        verdict_value=_num(k.get("verdict_value")),
        noise=_num(k.get("noise")),
        wins=int(k.get("wins") or 0),
        n_measured=int(k.get("n_measured") or 0),
        hard_failures=int(k.get("hard_failures") or 0),
        shapes=[shape_from_json(s) for s in k.get("shapes") or [] if isinstance(s, dict) and s.get("shape_id")],
        hotspot=Hotspot(
            capture=str(hot.get("capture") or ""),
            top_stall_type=hot.get("top_stall_type"),
            stall_ratio=_num(hot.get("stall_ratio")),
            waves_per_simd=hot.get("waves_per_simd"),
            limiter=hot.get("limiter"),
        ) if isinstance(hot, dict) else None,
        candidate_commit=k.get("candidate_commit"),
        baselines={str(p): _text(c) for p, c in (k.get("baselines") or {}).items() if c is not None},
        environment={str(e): _text(v) for e, v in (k.get("environment") or {}).items() if v is not None},
        flags=[str(f) for f in k.get("flags") or []],
        profiled_commit=_text(k["profiled_commit"]) if k.get("profiled_commit") else None,
        broken=[str(b) for b in k.get("broken") or [] if isinstance(b, str)],
        extras=score_extras(k),
    )


def shape_from_json(s: Mapping[str, Any]) -> ShapePoint:
    """One shape object (snapshot or api/ per-shape row)."""
    args = s.get("args")
    return ShapePoint(
        shape_id=str(s["shape_id"]),
        args=dict(args) if isinstance(args, dict) else {},
        dtype=str(s.get("dtype") or ""),
        speedup=_num(s.get("speedup")),
        candidate_us=_num(s.get("candidate_us")),
        candidate_status=s.get("candidate_status"),
        best_baseline=s.get("best_baseline"),
        best_baseline_us=_num(s.get("best_baseline_us")),
        noise=_num(s.get("noise")),
        stage=str(s.get("stage") or ""),
        model=str(s.get("model") or ""),
        baseline_status=({str(p): str(v) for p, v in s["baseline_status"].items()}
                         if isinstance(s.get("baseline_status"), dict) else None),
    )


def _num(value: Any) -> float | None:
    """A JSON number as float; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


# ---------------------------------------------------------------- from a built site's api/


def snapshot_from_api(api_dir: str | os.PathLike, label: str | None = None) -> SweepSnapshot:
    """Read a built site's ``api/``: ``index.json`` for the kernels, ``kernels/<slug>.json`` for each.

    ``index.json`` carries ``format_version``, the sweep (its provenance) and one row per
    kernel (``slug``, ``name``, ``op``, ``verdict``, ``kernel_vs_any``...); a kernel's
    own document adds the shapes, the hotspot and the provenance. A kernel document that
    is missing leaves the index row's numbers (no shapes, no hotspot). API formats 1 to 3
    (``API_FORMATS``) hold the same fields for this reader (3 renames the row's ``geomean_vs_best``, ``vs_any``); the snapshot is of ``FORMAT_VERSION``.
    """
    api_dir = os.fspath(api_dir)
    index_path = os.path.join(api_dir, API_INDEX)
    index = read_json(index_path)
    if not isinstance(index, dict):
        raise InputError(index_path, "expected a JSON object")
    check_format_version(index, index_path, supported=API_FORMATS)
    rows = index.get("kernels")
    if isinstance(rows, dict):
        rows = [dict(v, slug=v.get("slug", k)) for k, v in sorted(rows.items()) if isinstance(v, dict)]
    if not isinstance(rows, list):
        raise InputError(index_path, "no \"kernels\" list: not a kernel-atlas api/index.json")
    kernels: dict[str, KernelSnapshot] = {}
    stated = 0
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("slug"), str):
            raise InputError(index_path, f"kernels[{i}] has no \"slug\"")
        slug = row["slug"]
        doc_path = os.path.join(api_dir, API_KERNELS, f"{slug}.json")
        doc: dict[str, Any] = {}
        if os.path.isfile(doc_path):
            loaded = read_json(doc_path)
            if not isinstance(loaded, dict):
                raise InputError(doc_path, "expected a JSON object")
            if "format_version" in loaded:
                check_format_version(loaded, doc_path, supported=API_FORMATS)
            doc = loaded
        kernels[slug] = kernel_from_api(row, doc, doc_path)
        stated += isinstance(doc.get("state"), dict)
    sweep = index.get("sweep") if isinstance(index.get("sweep"), dict) else {}
    provenance = next((p for p in (index.get("provenance"), sweep.get("provenance")) if isinstance(p, dict)), sweep)
    errors = index.get("errors") if isinstance(index.get("errors"), dict) else {}
    if kernels and stated == len(kernels):  # every kernel's state, as a sweep's snapshot has them
        errors = state_errors(kernels.values())
    return SweepSnapshot(
        format_version=FORMAT_VERSION,  # a snapshot, whichever api/ format it was read from
        label=label or _api_label(api_dir),
        provenance={str(k): _text(v) for k, v in sorted(provenance.items())
                    if v is not None and not isinstance(v, (dict, list))},
        kernels=dict(sorted(kernels.items())),
        errors={str(k): str(v) for k, v in sorted(errors.items())},
    )


def vs_any(rec: Mapping[str, Any], score: Mapping[str, Any]) -> Any:
    """The row's "vs any" geomean over kernel-clock shapes: ``kernel_vs_any`` (API format 3), else the row's
    ``geomean_vs_best`` (formats 1 and 2, the same number), else the score's."""
    return rec["kernel_vs_any"] if "kernel_vs_any" in rec else rec.get("geomean_vs_best", score.get("geomean_vs_best"))


def kernel_from_api(row: Mapping[str, Any], doc: Mapping[str, Any], where: str) -> KernelSnapshot:
    """Merge a kernel's ``api/index.json`` row and its ``api/kernels/<slug>.json`` document.

    The kernel document, as ``build`` writes it::

        {"format_version": 1,
         "kernel": {"slug": "softmax", "name": "Softmax", "op": "softmax", "verdict": "WIN",
                    "kernel_vs_any": 1.079, "wins": 40, "n_measured": 73, "hard_failures": 0,
                    "top_stall_type": "VMEM-load", "stall_ratio": 0.764, "occupancy": 8,
                    "limiter": "VGPR", ...},
         "score": {... KernelScore.to_json(): "noise", "shapes": [...], "provenance": {...}},
         "bundle": "examples/softmax",
         "captures": [{"path": "examples/softmax/att_viewer/big/...", "primary": true,
                       "analysis": {...}}, ...]}

    The document's own row wins over the index row. Baseline commits come from the
    score's ``baseline_commits`` (provider -> commit) when present, else its merged
    ``provenance.baseline_commit``, kept under the provider name ``*`` (all baselines).
    """
    rec: dict[str, Any] = {**row, **(doc.get("kernel") if isinstance(doc.get("kernel"), dict) else {})}
    score = doc.get("score") if isinstance(doc.get("score"), dict) else {}
    prov = score.get("provenance") if isinstance(score.get("provenance"), dict) else {}
    baselines = score.get("baseline_commits")
    if not isinstance(baselines, dict):
        baselines = {"*": prov["baseline_commit"]} if prov.get("baseline_commit") else {}
    bundle = doc.get("bundle")
    bundle = os.path.basename(bundle.rstrip("/")) if isinstance(bundle, str) and bundle else None
    flat = {
        "slug": rec["slug"],
        "name": rec.get("name") or score.get("name"),
        "op": rec.get("op") or score.get("op"),
        "bundle": bundle,
        "verdict": rec.get("verdict") or score.get("verdict"),
        "geomean_vs_best": vs_any(rec, score),
        "noise": score.get("noise", rec.get("noise")),
        "wins": rec.get("wins", score.get("wins")),
        "n_measured": rec.get("n_measured", score.get("n_measured")),
        "hard_failures": rec.get("hard_failures", score.get("hard_failures")),
        "shapes": [_api_shape(sh, score.get("candidate")) for sh in score.get("shapes") or [] if isinstance(sh, dict)],
        "hotspot": doc["hotspot"] if "hotspot" in doc else _api_hotspot(rec, doc.get("captures")),
        "candidate_commit": prov.get("candidate_commit"),
        "baselines": baselines,
        "environment": {k: prov[k] for k in ENVIRONMENT_KEYS if prov.get(k) is not None},
        "flags": score.get("flags") or [],
        "verdict_basis": score.get("verdict_basis"),
        "verdict_value": score.get("verdict_value"),
        **score_extras(score),
    }
    st = doc.get("state")
    if isinstance(st, dict):  # the kernel's state as build computed it (analyze.state)
        flat.update({key: st.get(key) for key in ("hotspot", "profiled_commit", "broken", "verdict_basis",
                                                   "verdict_value")})
        flat["flags"] = st.get("flags") or []
    return kernel_from_json(flat, where)


def _api_shape(shape: Mapping[str, Any], candidate: Any) -> dict[str, Any]:
    """An api/ score shape with its baselines' statuses (from its providers) when it has none."""
    if "baseline_status" in shape or not isinstance(shape.get("providers"), dict):
        return dict(shape)
    return {**shape, "baseline_status": baseline_status(shape["providers"], candidate)}


def _api_hotspot(rec: Mapping[str, Any], captures: Any) -> dict[str, Any] | None:
    """The hotspot of an api/ kernel: the row's summary, the primary capture's path."""
    analyzed = [c for c in captures or [] if isinstance(c, dict) and isinstance(c.get("analysis"), dict)]
    primary = next((c for c in analyzed if c.get("primary")), analyzed[0] if analyzed else None)
    if primary is None and rec.get("top_stall_type") is None and rec.get("stall_ratio") is None:
        return None
    waves = rec.get("occupancy")
    return {
        "capture": primary.get("path") if primary else "",
        "top_stall_type": rec.get("top_stall_type"),
        "stall_ratio": rec.get("stall_ratio"),
        "waves_per_simd": waves if isinstance(waves, int) and not isinstance(waves, bool) else None,
        "limiter": rec.get("limiter"),
    }


def _api_label(api_dir: str) -> str:
    """A label for an api/ folder: the site folder's name (``site`` for ``site/api``)."""
    norm = os.path.normpath(os.path.abspath(api_dir))
    if os.path.basename(norm) == "api":
        norm = os.path.dirname(norm)
    return os.path.basename(norm) or "api"


# ---------------------------------------------------------------- any side


def is_api_dir(path: str) -> bool:
    """True when ``path`` holds an ``index.json`` (a built site's api/ folder)."""
    return os.path.isfile(os.path.join(path, API_INDEX))


#: What one side of ``diff`` may be, for the message about a path that is none of them.
EXPECTED_SIDE = "expected a sweep folder, a built site, its api/ folder or a history snapshot (.json)"


def _snapshot_document(path: str) -> dict:
    """A file given as a side: a snapshot document, else an InputError saying what a side is."""
    try:
        doc = read_json(path)
    except InputError as err:
        raise InputError(path, f"not a snapshot file ({err.problem}); {EXPECTED_SIDE}") from None
    if not isinstance(doc, dict) or doc.get("kind") != SNAPSHOT_KIND:
        raise InputError(path, f"not a kernel-atlas snapshot (no \"kind\": \"{SNAPSHOT_KIND}\"); {EXPECTED_SIDE}")
    return doc


def load_snapshot(path: str | os.PathLike, label: str | None = None) -> SweepSnapshot:
    """One side of a comparison: a snapshot JSON file, an api/ folder, a built site, or a sweep.

    A side with no kernel at all is an InputError: there is nothing to compare.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InputError(path, "no such file or directory")
    if os.path.isfile(path):
        snap = snapshot_from_json(_snapshot_document(path), path)
        if label:
            snap.label = label
    elif is_api_dir(path):
        snap = snapshot_from_api(path, label)
    elif is_api_dir(os.path.join(path, "api")):
        snap = snapshot_from_api(os.path.join(path, "api"), label)
    else:
        snap = snapshot_from_sweep(path, label)
    if not snap.kernels:
        problems = "; ".join(f"{k}: {v}" for k, v in snap.errors.items())
        raise InputError(path, "no kernels found, nothing to compare: expected a sweep (examples/<kernel>/ or "
                               "benchmarks/examples/<op>/), a built site's api/ folder, or a snapshot file"
                         + (f" ({problems})" if problems else ""))
    return snap
