"""Analyze every capture of a sweep through the format registry, collecting failures.

A broken capture never stops the sweep: its error is kept beside the bundle so the
report and the site can say what is wrong with it.
"""

from __future__ import annotations

from dataclasses import field

from generator.analyze import hotspots, ncu_capture, waves
from generator.analyze import occupancy as occ_model
from generator.analyze.message import sentence
from generator.errors import InputError
from generator.model import Bundle, CaptureAnalysis, CaptureRef, Sweep, record
from generator.read import att, formats, ncu, pcsampling

#: The message of each reason a reader gives for skipping an empty capture (``CaptureRef.skipped``).
SKIP_KEYS = {att.NO_FILES: "msg.skip.att", att.NO_INSTRUCTIONS: "msg.skip.att.noinstr",
             ncu.EMPTY_FILE: "msg.skip.ncufile", ncu.EMPTY_EXPORTS: "msg.skip.ncu"}


#: The older writer of each legacy code.json layout (``att.legacy_layout``), as a note names it.
LEGACY_WRITERS = {"att-decoder": "att-decoder 3.0.0 (rocprofv3)", "rocprofv2": "the rocprofv2 ATT plugin"}


def skip_reason(reason: str) -> str:
    """A reader's reason for skipping a capture, as the sentence of its message."""
    return sentence(SKIP_KEYS[reason]) if reason in SKIP_KEYS else reason


def skipped_note(rel: str, reason: str) -> str:
    """``capture <rel> skipped: <why>``."""
    return sentence("msg.note.skipped", rel=rel, msg_problem=skip_reason(reason))


@record
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


def analyze_att(ref: CaptureRef, bundle: Bundle | None = None) -> list[CaptureAnalysis]:
    """Full analysis of one ATT capture (one dispatch): hotspots, waves, occupancy, opcodes.

    A PC-sampling capture (same files, another mode) is read as a capture of its own kind:
    its numbers are samples (``stall_unit`` "samples"), it has no wave sections, and a note says why.
    """
    sampled = pcsampling.is_pc_sampling(ref.path)
    cap = pcsampling.load_capture(ref) if sampled else att.load_capture(ref)
    instructions = cap.instructions
    notes = [sentence("msg.cap.pcsampling")] if sampled else []
    legacy = getattr(cap, "legacy", None)
    if legacy:
        notes.append(sentence("msg.cap.legacy", writer=LEGACY_WRITERS[legacy]))
    if cap.odd_cells:
        notes.append(sentence("msg.cap.oddcells", n=cap.odd_cells))
    if not instructions:
        notes.append(sentence("msg.cap.noinstructions"))
    summary = hotspots.summarize(instructions)
    if instructions and summary["source_mapped"][0] == 0:
        notes.append(sentence("msg.cap.nosource"))
    occupancy, arch, arch_source = occ_model.for_capture(ref, bundle, instructions, cap.jit_name)
    if occupancy:
        notes.extend(occupancy.notes)
    wave_reading = waves.read_waves(cap.path, cap.waves, instructions) if cap.waves and instructions else None
    if wave_reading:
        notes.extend(wave_reading.notes)
    return [CaptureAnalysis(
        kernel=bundle.name if bundle else (cap.jit_name or ref.name),
        capture=ref.name,
        label=ref.label,
        path=ref.rel,
        vendor="amd",
        arch=arch,
        arch_source=arch_source,
        stall_unit="samples" if sampled else "cycles",
        instructions=instructions,
        instruction_mix=hotspots.instruction_mix(instructions),
        waves=cap.waves,
        wave_states=cap.wave_states,
        occupancy=occupancy,
        sources=cap.sources,
        jit_kernel=cap.jit_name,
        notes=notes,
        waves_summary=wave_reading.summary if wave_reading else None,
        working=hotspots.hotspots(wave_reading.working) if wave_reading and wave_reading.working else None,
        stall_by_opcode=waves.stall_by_opcode(instructions),
        extra={"stall_by_reason": pcsampling.stall_by_reason(instructions),
               "stall_reasons": list(pcsampling.STALL_REASONS)} if sampled else
              {"legacy": legacy} if legacy else {},
        **summary,
    )]


#: Formats whose reader only reads: their analysis lives in analyze/ (by format name).
ANALYZERS = {"att": analyze_att, "ncu": ncu_capture.analyze_capture}


def analyze_ref(ref: CaptureRef, bundle: Bundle | None) -> list[CaptureAnalysis]:
    """Analyses of one capture (raises InputError on bad input)."""
    analyzer = ANALYZERS.get(ref.format) or formats.get(ref.format).analyze
    return analyzer(ref, bundle)


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
