"""Which candidate commit was profiled, which was timed, and whether the two agree."""

from __future__ import annotations

from typing import Any, Mapping

#: Commit ids shorter than this are not compared by prefix (too ambiguous).
MIN_COMMIT_CHARS = 7


def timed_commits(score: Any) -> list[str]:
    """The candidate commits of the campaign's candidate rows (``candidate_commit``), sorted."""
    text = (getattr(score, "provenance", None) or {}).get("candidate_commit", "") if score is not None else ""
    return split_commits(text)


def split_commits(text: str | None) -> list[str]:
    """The commits of a ``candidate_commit`` value (several are joined by ", "), sorted."""
    return sorted({c.strip() for c in (text or "").split(",") if c.strip()})


def declared_provenance(kernels_json: Mapping[str, Any] | None, config_provenance: Mapping[str, Any]) -> dict:
    """What the sweep says of its profile: kernels.json's ``provenance`` overlaid with the
    configuration's ``[provenance]`` (never the timings' columns: those say what was timed)."""
    kj = (kernels_json or {}).get("provenance")
    return {**(kj if isinstance(kj, dict) else {}), **config_provenance}


def sweep_profiled_commit(provenance: Mapping[str, Any], candidate: str) -> str | None:
    """The commit the sweep profiled: ``profiled_commit``, ``<candidate>_commit`` or ``candidate_commit``."""
    for key in ("profiled_commit", f"{candidate}_commit", "candidate_commit"):
        value = provenance.get(key)
        if value:
            return str(value)
    return None


def capture_commit(analysis: Any) -> str | None:
    """The candidate commit a capture records (Nsight Compute bundles' provenance.json)."""
    prov = (getattr(analysis, "extra", None) or {}).get("provenance") or {}
    commit = prov.get("candidate_commit") if isinstance(prov, dict) else None
    return str(commit) if commit else None


def same_commit(a: str, b: str) -> bool:
    """True when two commit ids name the same commit (one is a prefix of the other)."""
    a, b = a.strip().lower(), b.strip().lower()
    if min(len(a), len(b)) < MIN_COMMIT_CHARS:
        return a == b
    return a.startswith(b) or b.startswith(a)


def commit_note(profiled: str | None, timed: list[str]) -> str:
    """A sentence when the profiled commit is not among the timed ones ("" when they agree or one is unknown)."""
    if not profiled or not timed or all(same_commit(profiled, t) for t in timed):
        return ""
    many = "commits" if len(timed) > 1 else "commit"
    return (f"The profile was captured at commit {profiled} but the timings ran at {many} {', '.join(timed)}: "
            "the hotspots and the verdict may describe different code.")
