"""The sweep's provenance, one rule for the site's header and ``api/index.json`` and for the
snapshots ``diff`` and ``history`` compare.

Later sources win: the values every campaign's candidate rows agree on (``KernelScore.provenance``;
never ``baseline_commit``, which differs by baseline), then ``docs/data/kernels.json``
``provenance`` (its ``generated`` date as ``capture_date`` when it gives none), then
``[provenance]`` of ``kernel-atlas.toml``, then the commit the sweep profiled.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from generator.analyze.commits import declared_provenance, sweep_profiled_commit


def display_text(value: Any) -> str:
    """A scalar as a display string (booleans lower case)."""
    if isinstance(value, bool):
        return str(value).lower()
    return value if isinstance(value, str) else str(value)


def agreed(provenances: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The keys whose one value every campaign that records them agrees on."""
    provs = [p for p in provenances if p]
    out = {}
    for key in sorted({key for p in provs for key in p}):
        values = {display_text(p[key]) for p in provs if p.get(key) not in (None, "")}
        if len(values) == 1 and key != "baseline_commit":
            out[key] = values.pop()
    return out


def sweep_provenance(provenances: Iterable[Mapping[str, Any]], config, kernels_json: Mapping[str, Any] | None) -> dict[str, str]:
    """The sweep's provenance from its campaigns' provenances, kernels.json and the configuration."""
    out = agreed(provenances)
    if kernels_json:
        prov = kernels_json.get("provenance")
        if isinstance(prov, dict):
            out.update({str(k): display_text(v) for k, v in prov.items() if v is not None and not isinstance(v, (dict, list))})
        if isinstance(kernels_json.get("generated"), str) and kernels_json["generated"]:
            out.setdefault("capture_date", kernels_json["generated"])
    out.update(config.provenance)
    profiled = sweep_profiled_commit(declared_provenance(kernels_json, config.provenance), config.candidate)
    if profiled:
        out["profiled_commit"] = profiled
    return dict(sorted(out.items()))
