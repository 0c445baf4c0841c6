"""A sweep reduced to what two sweeps are compared on: the input of ``diff`` and history.

A ``SweepSnapshot`` holds, per kernel, the multi-shape verdict numbers (geomean, noise,
wins, failures), every shape's speedup with its args and times, the primary capture's
hotspot summary (top stall type, stall ratio, occupancy and its limiter) and who made
the numbers (candidate commit, baseline commits, environment). It is read back from its
document (``snapshot_from_json``: what ``history`` keeps per sweep);
``generator.sweeps.snapshot_sources`` makes one from a sweep folder or a built site's ``api/``.

Kernel identity is the slug of the kernel page (``kernels/<slug>/``): the bundle name
(``examples/<bundle>/``) when the kernel has a bundle, else its campaign name. A campaign
and its bundle (``flash_attn`` and ``flash_attn_func``) are one kernel.

The snapshot document (``SweepSnapshot.to_json``), abridged::

    {"format_version": 2, "kind": "kernel-atlas-snapshot", "label": "base",
     "provenance": {"capture_date": "2026-06-01", "gpu": "AMD Instinct MI350X", ...},
     "errors": {"gemm": "benchmarks/examples/gemm/benchmark_results.jsonl:3: not JSON"},
     "kernels": {"softmax": {"slug": "softmax", "name": "Softmax", "op": "softmax",
        "bundle": "softmax", "verdict": "WIN", "kernel_vs_any": 1.079, "noise": 1.079,
        "wins": 40, "n_measured": 73, "hard_failures": 0,
        "candidate_commit": "7255fff8", "baselines": {"aiter": "32e1e6d76"},
        "environment": {"gpu": "AMD Instinct MI350X", "rocm": "7.2.0", ...},
        "hotspot": {"capture": "examples/softmax/att_viewer/big/ui_output_agent_47920_dispatch_13",
                    "top_stall_type": "VMEM-load", "stall_ratio": 0.764,
                    "waves_per_simd": 8, "limiter": "NONE"},
        "shapes": [{"shape_id": "sha1:a5bf9702ded2560e", "args": {"M": 32768, "N": 8192},
                    "dtype": "bf16", "speedup": 1.02, "candidate_us": 217.4, "candidate_status": "ok",
                    "best_baseline": "aiter_triton", "best_baseline_us": 222.1, "noise": 1.19}]}}}

``kernel_vs_any`` is the kernel row's "vs any" geomean (the API's ``kernel_vs_any``): the geomean
of the candidate's speedup against the fastest usable baseline over the kernel-clock shapes no rule
flags (pa_decode 0.764 over 10 shapes on the shared sweep); null where no such shape is left (a
replay that misses work, VERDICTS rule 16). It is not VERDICTS' per-kernel ``geomean_vs_best`` (the
score's, over every measured shape: pa_decode 0.493 over 12), which a new snapshot does not carry:
a kernel read from a format-1 document that stored the score's keeps it as ``geomean_vs_best``.

Every document carries ``format_version`` (``SNAPSHOT_FORMAT_VERSION``); a version this tool does
not read is an ``InputError`` that says what to do (rebuild the site, or upgrade kernel-atlas).
Format 1 named the one geomean ``geomean_vs_best``, which held two numbers over time
(``stored_geomeans``): the score's ``geomean_vs_best`` until 2 Dec 2026, ``kernel_vs_any`` after.
A format-1 kernel without ``verdict_basis`` (written before the evidence ladder, 1 Dec 2026) is read
as the score's geomean (``score_geomean``, its headline; no ``kernel_vs_any``); one with it, as
``kernel_vs_any``: the few format-1 files written on the ladder before 2 Dec 2026 16:08 UTC, which
held the score's geomean, cannot be told apart from the later ones and are read the same way.
"""

from __future__ import annotations

import os
from dataclasses import field
from typing import Any, Mapping

from generator.analyze.provenance import display_text as _text
from generator.analyze.state import Hotspot
from generator.errors import InputError
from generator.model import FORMAT_VERSION, record

#: Format of the snapshot documents this tool writes: 2 names the kernel's "vs any" geomean
#: ``kernel_vs_any`` (1: ``geomean_vs_best``, the score's name for another number).
SNAPSHOT_FORMAT_VERSION = 2
#: Format versions of snapshots this module reads (``stored_geomeans``: what format 1 held).
SUPPORTED_FORMATS = (1, SNAPSHOT_FORMAT_VERSION)
SNAPSHOT_KIND = "kernel-atlas-snapshot"
#: Environment keys (campaign provenance names) that, when they change, change every number.
ENVIRONMENT_KEYS = ("gpu", "arch", "rocm", "driver", "torch", "triton")


# ---------------------------------------------------------------- the typed snapshot


@record
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


@record
class KernelSnapshot:
    """One kernel of a sweep: verdict numbers, shapes, hotspot, provenance."""

    slug: str
    name: str
    op: str | None  # campaign name (None: a bundle without timings)
    bundle: str | None  # bundle name (None: a campaign without captures)
    verdict: str | None  # WIN / PARITY / HEADROOM / BLOCKED / UNTIMED; None without a campaign
    kernel_vs_any: float | None  # "vs any" over the kernel-clock shapes no rule flags (KernelScore.kernel_vs_any)
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
    #: VERDICTS' per-kernel geomean_vs_best, known only from a document whose one geomean held it
    #: (a format-1 snapshot written before the evidence ladder, an API format 1 row); None otherwise
    score_geomean: float | None = None

    @property
    def headline_value(self) -> float | None:
        """The ratio the verdict rests on; without a ladder rung, the "vs any" geomean (a snapshot
        written before the ladder: the score's geomean, its headline then)."""
        if self.verdict_basis is not None:
            return self.verdict_value
        return self.kernel_vs_any if self.kernel_vs_any is not None else self.score_geomean

    @property
    def vs_any_unrecorded(self) -> bool:
        """True for a kernel of an old document that stored the score's geomean, not the "vs any" one."""
        return self.kernel_vs_any is None and self.score_geomean is not None

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
            "kernel_vs_any": self.kernel_vs_any,
            **({"geomean_vs_best": self.score_geomean} if self.score_geomean is not None else {}),
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


@record
class SweepSnapshot:
    """Every kernel of one sweep, keyed by slug, with the sweep's provenance."""

    format_version: int  # the model's, SNAPSHOT_FORMAT_VERSION (an older document is read into it)
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
            "format_version": SNAPSHOT_FORMAT_VERSION,  # the fields below are this format's
            "kind": SNAPSHOT_KIND,
            "label": self.label,
            "provenance": dict(sorted(self.provenance.items())),
            "errors": dict(sorted(self.errors.items())),
            "kernels": {slug: self.kernels[slug].to_json() for slug in sorted(self.kernels)},
        }


# ---------------------------------------------------------------- format versions


def check_format_version(doc: Mapping[str, Any], path: str, what: str = "this site's api/ JSON",
                         supported: tuple[int, ...] = (FORMAT_VERSION,)) -> int:
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


# ---------------------------------------------------------------- from JSON documents


def snapshot_from_json(doc: Any, path: str = "<snapshot>") -> SweepSnapshot:
    """Rebuild a SweepSnapshot from its ``to_json`` document (format version checked; an older
    format is read into this one, ``stored_geomeans``)."""
    if not isinstance(doc, dict) or doc.get("kind") != SNAPSHOT_KIND:
        raise InputError(path, "not a kernel-atlas snapshot (expected \"kind\": \"kernel-atlas-snapshot\")")
    version = check_format_version(doc, path, "this snapshot", SUPPORTED_FORMATS)
    kernels_doc = doc.get("kernels")
    if not isinstance(kernels_doc, dict):
        raise InputError(path, "snapshot has no \"kernels\" object")
    kernels = {}
    for slug, k in sorted(kernels_doc.items()):
        kernels[slug] = kernel_from_json(k, f"{path}: kernel {slug!r}", version)
    return SweepSnapshot(
        format_version=SNAPSHOT_FORMAT_VERSION,
        label=str(doc.get("label") or os.path.basename(path)),
        provenance={str(k): _text(v) for k, v in (doc.get("provenance") or {}).items()},
        kernels=kernels,
        errors={str(k): str(v) for k, v in (doc.get("errors") or {}).items()},
    )


def stored_geomeans(k: Mapping[str, Any], version: int) -> tuple[float | None, float | None]:
    """(kernel_vs_any, score_geomean) of a kernel object of snapshot format ``version``.

    Format 1's one ``geomean_vs_best`` held the score's geomean (VERDICTS' per-kernel
    ``geomean_vs_best``) from its first writer until 2 Dec 2026 (332f7bb; 371d3ed for a sweep recorded
    from a site's api/), the kernel row's ``kernel_vs_any`` after. A kernel without ``verdict_basis``
    was written before the ladder (d88ac7a, 1 Dec 2026): the score's. One with it is read as
    ``kernel_vs_any``, what every format-1 writer since 2 Dec 2026 stored (those of the day between
    cannot be told apart)."""
    if version >= 2:
        return _num(k.get("kernel_vs_any")), _num(k.get("geomean_vs_best"))
    g = _num(k.get("geomean_vs_best"))
    return (g, None) if "verdict_basis" in k else (None, g)


def kernel_from_json(k: Any, where: str, version: int = SNAPSHOT_FORMAT_VERSION) -> KernelSnapshot:
    """One kernel object of a snapshot document of format ``version`` (or the flat kernel
    ``kernel_from_api`` makes of an api/ kernel document, in this format)."""
    if not isinstance(k, dict) or not isinstance(k.get("slug"), str):
        raise InputError(where, "expected a kernel object with a \"slug\"")
    hot = k.get("hotspot")
    vs_any, score_geomean = stored_geomeans(k, version)
    return KernelSnapshot(
        slug=k["slug"],
        name=str(k.get("name") or k["slug"]),
        op=k.get("op"),
        bundle=k.get("bundle"),
        verdict=k.get("verdict"),
        kernel_vs_any=vs_any,
        score_geomean=score_geomean,
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
