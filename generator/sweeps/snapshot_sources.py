"""Where a snapshot comes from: a sweep folder, a built site's ``api/``, or a snapshot file (``load_snapshot``).

A ``SweepSnapshot`` (``generator.sweeps.snapshot``) is made from either side of a comparison:

* a sweep folder (``snapshot_from_sweep``): each kernel's state (``analyze.state``: the
  kernels ``analyze.kernels.pair_kernels`` finds, their campaigns scored, the capture each is
  read by analyzed), by the rules ``build`` uses;
* a built site's ``api/`` folder (``snapshot_from_api``): ``api/index.json`` and
  ``api/kernels/<slug>.json``, written by ``build``;
* a snapshot document (``snapshot_from_json``): what ``history`` keeps per sweep.

``load_snapshot`` takes any of them (a built site's folder too) as one side of ``diff`` or the
sweep ``history`` records.
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from generator.analyze.commits import declared_provenance, sweep_profiled_commit
from generator.analyze.provenance import display_text as _text, sweep_provenance
from generator.analyze.state import KernelState
from generator.read.att import read_json
from generator.errors import InputError
from generator.model import API_FORMAT_VERSION
from generator.sweeps.snapshot import (
    ENVIRONMENT_KEYS,
    SNAPSHOT_FORMAT_VERSION,
    SNAPSHOT_KIND,
    KernelSnapshot,
    ShapePoint,
    SweepSnapshot,
    baseline_status,
    check_format_version,
    kernel_from_json,
    score_extras,
    snapshot_from_json,
)

#: Format versions of ``api/`` documents this module reads: 2 drops only fields it does not read.
API_FORMATS = (1, 2, API_FORMAT_VERSION)
API_INDEX = "index.json"
API_KERNELS = "kernels"


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
        format_version=SNAPSHOT_FORMAT_VERSION,
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
        kernel_vs_any=(score.kernel_vs_any or [None])[0] if score is not None else None,
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


# ---------------------------------------------------------------- from a built site's api/


def snapshot_from_api(api_dir: str | os.PathLike, label: str | None = None) -> SweepSnapshot:
    """Read a built site's ``api/``: ``index.json`` for the kernels, ``kernels/<slug>.json`` for each.

    ``index.json`` carries ``format_version``, the sweep (its provenance) and one row per
    kernel (``slug``, ``name``, ``op``, ``verdict``, ``kernel_vs_any``...); a kernel's
    own document adds the shapes, the hotspot and the provenance. A kernel document that
    is missing leaves the index row's numbers (no shapes, no hotspot). API formats 1 to 3
    (``API_FORMATS``) hold the same fields for this reader but the row's geomean (``api_geomeans``);
    the snapshot is of ``SNAPSHOT_FORMAT_VERSION``.
    """
    api_dir = os.fspath(api_dir)
    index_path = os.path.join(api_dir, API_INDEX)
    index = read_json(index_path)
    if not isinstance(index, dict):
        raise InputError(index_path, "expected a JSON object")
    api_version = check_format_version(index, index_path, supported=API_FORMATS)
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
        kernels[slug] = kernel_from_api(row, doc, doc_path, api_version)
        stated += isinstance(doc.get("state"), dict)
    sweep = index.get("sweep") if isinstance(index.get("sweep"), dict) else {}
    provenance = next((p for p in (index.get("provenance"), sweep.get("provenance")) if isinstance(p, dict)), sweep)
    errors = index.get("errors") if isinstance(index.get("errors"), dict) else {}
    if kernels and stated == len(kernels):  # every kernel's state, as a sweep's snapshot has them
        errors = state_errors(kernels.values())
    return SweepSnapshot(
        format_version=SNAPSHOT_FORMAT_VERSION,  # a snapshot, whichever api/ format it was read from
        label=label or _api_label(api_dir),
        provenance={str(k): _text(v) for k, v in sorted(provenance.items())
                    if v is not None and not isinstance(v, (dict, list))},
        kernels=dict(sorted(kernels.items())),
        errors={str(k): str(v) for k, v in sorted(errors.items())},
    )


def api_geomeans(rec: Mapping[str, Any], score: Mapping[str, Any], api_version: int | None = None) -> tuple[Any, Any]:
    """(kernel_vs_any, score_geomean) of an api/ kernel row: the row's ``kernel_vs_any`` (API format 3);
    else its ``geomean_vs_best``, which held ``kernel_vs_any`` in format 2 since 2 Dec 2026 (371d3ed;
    read so: format 2's earlier rows cannot be told apart) and the score's geomean in format 1; else the
    score's own ``geomean_vs_best``, VERDICTS' per-kernel geomean, never taken for "vs any"."""
    if "kernel_vs_any" in rec:
        return rec["kernel_vs_any"], None
    if "geomean_vs_best" in rec:
        return (None, rec["geomean_vs_best"]) if api_version == 1 else (rec["geomean_vs_best"], None)
    return None, score.get("geomean_vs_best")


def kernel_from_api(row: Mapping[str, Any], doc: Mapping[str, Any], where: str,
                    api_version: int | None = None) -> KernelSnapshot:
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

    The document's own row wins over the index row; ``api_version`` (the index's format, None:
    format 2 or 3) says what a row's ``geomean_vs_best`` held (``api_geomeans``). Baseline commits come from the
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
        **dict(zip(("kernel_vs_any", "geomean_vs_best"), api_geomeans(rec, score, api_version))),
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
