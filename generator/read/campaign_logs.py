"""The failures a second-layout run records in its own logs and reports, per provider.

A provider that crashes (a GPU memory fault kills its process) or raises (an ``AssertionError``
in the harness) usually writes no result row: its failure is only in the run's log and in the
report written after it. Read here:

* ``*.log`` and ``*.txt`` files of the campaign folder and of its ``logs/`` folder (sorted), and
  its Markdown reports (``BENCHMARK_REPORT.md``, ``REPORT_<suite>.md``);
* a *failure line* is one that matches a signature of ``SIGNATURES`` (the HSA runtime's
  ``Memory access fault by GPU``, or "GPU memory fault"; ``AssertionError``; a ``hipError...`` or
  "HIP error"; "out of memory"; ``Segmentation fault``);
* its provider and label: the campaign's providers and labels the line names as whole words
  (``provider=flydsl_t64``, a Markdown table row), else, in a log, the last ones a line before it
  named (a traceback under ``label=... provider=... start``); a failure line naming no provider
  of the campaign, before or on it, is not counted.

One failure is a (provider, label, kind): the same one in the log and in the report counts once.
"""

from __future__ import annotations

import os
import re

from generator.model import record

#: (kind, pattern) of a failure line, the first that matches naming its kind.
SIGNATURES = (
    ("GPU memory fault", re.compile(r"Memory access fault by GPU|GPU memory (access )?fault", re.I)),
    ("AssertionError", re.compile(r"\bAssertionError\b")),
    ("HIP error", re.compile(r"\bhipError\w+|\bHIP error\b", re.I)),
    ("out of memory", re.compile(r"\bout of memory\b|OutOfMemoryError", re.I)),
    ("segmentation fault", re.compile(r"\bSegmentation fault\b|\bSIGSEGV\b", re.I)),
)
LOG_EXTENSIONS = (".log", ".txt")
_WORD = re.compile(r"[A-Za-z0-9_.\-]+")


@record(frozen=True)
class LoggedFailure:
    """One failure a run recorded: its provider, label (None when unknown), kind, and where."""

    provider: str
    label: str | None
    kind: str
    file: str  # the first file that records it (its name in the folder)
    line: int


def log_files(folder: str) -> list[str]:
    """The run's logs: ``*.log`` / ``*.txt`` in the folder, then in its ``logs/`` folder, by name."""
    out = []
    for where in (folder, os.path.join(folder, "logs")):
        try:
            names = sorted(os.listdir(where))
        except OSError:
            continue
        out += [os.path.join(where, n) for n in names
                if n.lower().endswith(LOG_EXTENSIONS) and os.path.isfile(os.path.join(where, n))]
    return out


def kind_of(line: str) -> str | None:
    """The failure kind a line records, or None."""
    return next((kind for kind, pattern in SIGNATURES if pattern.search(line)), None)


def read_failures(folder: str, files: list[str], providers: list[str], labels: list[str]) -> list[LoggedFailure]:
    """The distinct failures ``files`` record for ``providers`` (see the module docstring), in
    the order first seen; a failure known with its label replaces the same one without."""
    known_p, known_l = set(providers), set(labels)
    found: dict[tuple[str, str | None, str], LoggedFailure] = {}
    for path in files:
        carry = not path.lower().endswith(".md")  # a log's context runs on; a report's line stands alone
        provider = label = None
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:
            continue
        for n, line in enumerate(lines, 1):
            words = _WORD.findall(line.replace("=", " "))
            here_p = next((w for w in words if w in known_p), None)
            here_l = next((w for w in words if w in known_l), None)
            if carry and here_p is not None and here_p != provider:
                provider, label = here_p, here_l  # another provider's block begins
            elif carry and here_l is not None:
                label = here_l
            kind = kind_of(line)
            who, where = (provider, label) if carry else (here_p, here_l)
            if kind is None or who is None:
                continue
            key = (who, where, kind)
            if key not in found and (who, None, kind) not in found:
                found[key] = LoggedFailure(who, where, kind, os.path.relpath(path, folder).replace(os.sep, "/"), n)
            elif where is not None and (who, None, kind) in found:
                found[key] = found.pop((who, None, kind))
    return list(found.values())


def failures_by_provider(failures: list[LoggedFailure]) -> dict[str, list[LoggedFailure]]:
    """Provider -> its failures (first-seen order of providers and failures)."""
    out: dict[str, list[LoggedFailure]] = {}
    for f in failures:
        out.setdefault(f.provider, []).append(f)
    return out
