"""Analyze every capture of a sweep through the format registry, collecting failures.

A broken capture never stops the sweep: its error is kept beside the bundle so the
report and the site can say what is wrong with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.read import formats
from generator.errors import InputError
from generator.model import Bundle, CaptureAnalysis, CaptureRef, Sweep


@dataclass
class CaptureResult:
    """The outcome for one capture directory: analyses, or why there are none."""

    bundle: Bundle
    ref: CaptureRef
    analyses: list[CaptureAnalysis] = field(default_factory=list)
    error: InputError | None = None

    @property
    def status(self) -> str:
        if self.ref.skipped:
            return "skipped"
        return "broken" if self.error else "ok"

    @property
    def is_primary(self) -> bool:
        return self.bundle.primary == self.ref.rel


def analyze_ref(ref: CaptureRef, bundle: Bundle | None) -> list[CaptureAnalysis]:
    """Analyses of one capture (raises InputError on bad input)."""
    return formats.get(ref.format).analyze(ref, bundle)


def analyze_bundle(bundle: Bundle) -> list[CaptureResult]:
    """One result per capture of the bundle, in discovery order."""
    results = []
    for ref in bundle.captures:
        result = CaptureResult(bundle=bundle, ref=ref)
        if not ref.skipped:
            try:
                result.analyses = analyze_ref(ref, bundle)
            except InputError as err:
                result.error = err
        results.append(result)
    return results


def select_bundles(sweep: Sweep, kernel: str | None) -> list[Bundle]:
    """Bundles whose name equals ``kernel`` (all when None); unknown names are an error."""
    if not kernel:
        return list(sweep.bundles)
    picked = [b for b in sweep.bundles if b.name == kernel]
    if not picked:
        names = ", ".join(b.name for b in sweep.bundles) or "none"
        raise InputError(sweep.root, f"no kernel named {kernel!r} (kernels: {names})")
    return picked


def analyze_sweep(sweep: Sweep, kernel: str | None = None) -> list[CaptureResult]:
    """Results for every capture of every (selected) bundle."""
    out = []
    for bundle in select_bundles(sweep, kernel):
        out.extend(analyze_bundle(bundle))
    return out
