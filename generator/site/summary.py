"""What a build did (``BuildSummary``, its closing lines) and its progress bar: shared by
``generator.site.build`` and the steps after the plan (``generator.site.assemble``)."""

from __future__ import annotations

import sys
from dataclasses import field

from generator.model import record
from generator.words import plural


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
        """End the line: the finished bar stays on the terminal above the summary."""
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()


@record
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
    jobs: int = 1  # worker processes used (1: serial)
    problems: dict[str, list[str]] = field(default_factory=dict)  # broken kernel -> its reasons
    skipped_captures: dict[str, list[str]] = field(default_factory=dict)  # kernel -> captures not analyzed
    history: str = ""  # the one line on what the build did to the history (``--history``)

    def text(self) -> str:
        """The closing lines: the counts, then every broken kernel and every kernel with a
        skipped capture, one line each with its reason (also when nothing was rebuilt)."""
        if self.up_to_date:
            head = (f"kernel-atlas: {plural(self.kernels, 'kernel')}, site up to date (nothing rewritten), "
                    f"{len(self.broken)} broken; {self.seconds:.2f} s: {self.out}")
        else:
            head = (f"kernel-atlas: {plural(self.kernels, 'kernel')}: {len(self.built)} built, {len(self.skipped)} skipped "
                    f"(unchanged), {len(self.broken)} broken; {plural(len(self.written), 'file')} written, "
                    f"{len(self.deleted)} deleted; {self.seconds:.2f} s: {self.out}")
        return "\n".join([head, *([self.history] if self.history else []), *self.problem_lines()])

    def problem_lines(self) -> list[str]:
        """``broken <slug>: <first reason>`` and ``skipped <slug>: <reason>``, sorted by slug."""
        lines = []
        for slug in self.broken:
            reasons = self.problems.get(slug) or ["(no reason recorded)"]
            more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
            lines.append(f"  broken {slug}: {one_line(reasons[0])}{more}")
        for slug, notes in sorted(self.skipped_captures.items()):
            more = f" (and {len(notes) - 1} more)" if len(notes) > 1 else ""
            lines.append(f"  skipped {slug}: {one_line(notes[0])}{more}")
        return lines


def one_line(text: str, width: int = 300) -> str:
    """A reason on one line, cut at ``width`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 1] + "\u2026"


def record_problems(summary: BuildSummary, per_kernel: dict[str, tuple[list[str], list[str]]]) -> None:
    """Fill the summary's broken kernels (with reasons) and kernels with skipped captures."""
    summary.broken = sorted(s for s, (broken, _) in per_kernel.items() if broken)
    summary.problems = {s: list(broken) for s, (broken, _) in sorted(per_kernel.items()) if broken}
    summary.skipped_captures = {s: list(sk) for s, (_, sk) in sorted(per_kernel.items()) if sk}
