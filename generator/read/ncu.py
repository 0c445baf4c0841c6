"""NVIDIA Nsight Compute exports: find them and read them (``load_capture``); no analysis.

An NVIDIA capture is a folder ``examples/<kernel>/ncu/<label>/`` (written by
``kernel-atlas capture``; any subset of the files works, the source page alone does)::

    source_sass.csv       ncu -i R --page source --csv --print-source sass
    source_cuda_sass.csv  ncu -i R --page source --csv --print-source cuda,sass
    details.csv           ncu -i R --page details --csv
    raw.csv               ncu -i R --page raw --csv
    provenance.json       who captured it: GPU, driver, CUDA, torch, triton, ncu, commit, shapes,
                          and source_root (the folder the kernel paths of the exports start in)

or one of those export files on its own, or a binary report (``*.ncu-rep``): read through
``ncu --import FILE --csv`` when Nsight Compute is on the PATH (``export_report``), else refused
in one line that names the export commands (``REP_EXPORTS``).

This module finds the exports and reads provenance.json; ``generator.read.ncu_pages`` reads
each CSV page; ``generator.analyze.ncu_capture`` computes (``ncu_metrics`` the details page).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from typing import Any

from generator.errors import InputError
from generator.model import CaptureRef, record
from generator.read import formats
from generator.read.ncu_pages import (
    CudaLaunch,
    DetailsLaunch,
    RawLaunch,
    SassLaunch,
    parse_details,
    parse_raw,
    parse_source_cuda_sass,
    parse_source_sass,
)

SOURCE_SASS = "source_sass.csv"
SOURCE_CUDA_SASS = "source_cuda_sass.csv"
DETAILS = "details.csv"
RAW = "raw.csv"
PROVENANCE = "provenance.json"
EXPORT_FILES = (SOURCE_SASS, SOURCE_CUDA_SASS, DETAILS, RAW)


# ---------------------------------------------------------------- files

@record
class Exports:
    """The export files of one NVIDIA capture (None where absent)."""

    base: str  # the capture folder, or the single file given
    source_sass: str | None = None
    source_cuda_sass: str | None = None
    details: str | None = None
    raw: str | None = None
    provenance: str | None = None

    @property
    def present(self) -> list[str]:
        return [os.path.basename(p) for p in (self.source_sass, self.source_cuda_sass, self.details, self.raw) if p]


def sniff(path: str) -> str | None:
    """Which export a CSV file is, from its first lines (None: not an NCU export)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(8192)
    except OSError:
        return None
    first = head.lstrip().split("\n", 1)[0]
    if first.startswith('"File Path"'):
        return SOURCE_CUDA_SASS
    if first.startswith('"Kernel Name"') or first.startswith('"Address","Source"'):
        return SOURCE_SASS
    if first.startswith('"ID"'):
        return DETAILS if '"Section Name"' in first and '"Metric Name"' in first else RAW
    return None


def find_exports(path: str) -> Exports:
    """The exports of a capture folder, or of one export file."""
    if os.path.isfile(path):
        kind = sniff(path)
        if kind is None:
            raise InputError(path, "not an Nsight Compute CSV export (source, details or raw page)")
        ex = Exports(base=path)
        setattr(ex, {SOURCE_SASS: "source_sass", SOURCE_CUDA_SASS: "source_cuda_sass",
                     DETAILS: "details", RAW: "raw"}[kind], path)
        prov = os.path.join(os.path.dirname(path), PROVENANCE)
        ex.provenance = prov if os.path.isfile(prov) else None
        return ex
    ex = Exports(base=path)
    for name, attr in ((SOURCE_SASS, "source_sass"), (SOURCE_CUDA_SASS, "source_cuda_sass"),
                       (DETAILS, "details"), (RAW, "raw"), (PROVENANCE, "provenance")):
        full = os.path.join(path, name)
        if os.path.isfile(full):
            setattr(ex, attr, full)
    return ex


def read_provenance(path: str | None) -> dict[str, Any]:
    """provenance.json ({} when absent); a broken file is an InputError."""
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as err:
        raise InputError(path, f"not valid JSON: {err}") from None
    except RecursionError:
        raise InputError(path, "not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise InputError(path, "provenance must be a JSON object")
    return data


@record
class NcuCapture:
    """The exports of one NVIDIA capture as read, launch by launch (None: export absent)."""

    exports: Exports
    sass: list[SassLaunch] | None
    cuda: list[CudaLaunch] | None
    details: list[DetailsLaunch] | None
    raw: list[RawLaunch] | None
    provenance: dict[str, Any]

    @property
    def pages(self) -> dict[str, list | None]:
        """Launches of each export by file name (None where absent)."""
        return {SOURCE_SASS: self.sass, SOURCE_CUDA_SASS: self.cuda, DETAILS: self.details, RAW: self.raw}


def load_exports(ex: Exports) -> NcuCapture:
    """Read every export present; the cuda,sass page is split into launches with the sass page's help."""
    sass = parse_source_sass(ex.source_sass) if ex.source_sass else None
    expected = [{row.address for row in launch.rows} for launch in sass] if sass else None
    cuda = parse_source_cuda_sass(ex.source_cuda_sass, expected) if ex.source_cuda_sass else None
    details = parse_details(ex.details) if ex.details else None
    raw = parse_raw(ex.raw) if ex.raw else None
    return NcuCapture(ex, sass, cuda, details, raw, read_provenance(ex.provenance))


REP_SUFFIX = ".ncu-rep"
#: The pages a binary report is exported to: (file, ``ncu --import FILE --csv`` arguments).
REP_EXPORTS = ((DETAILS, ("--page", "details")), (RAW, ("--page", "raw")),
               (SOURCE_SASS, ("--page", "source", "--print-source", "sass")),
               (SOURCE_CUDA_SASS, ("--page", "source", "--print-source", "cuda,sass")))
#: Seconds one ``ncu --import`` export may take.
EXPORT_TIMEOUT = 300


def report_file(path: str) -> str | None:
    """The binary report a capture is: the file itself, or the one ``*.ncu-rep`` of a folder that holds
    no CSV export (None otherwise)."""
    if os.path.isfile(path):
        return path if path.endswith(REP_SUFFIX) else None
    if not os.path.isdir(path) or any(os.path.isfile(os.path.join(path, f)) for f in EXPORT_FILES):
        return None
    reps = sorted(n for n in os.listdir(path) if n.endswith(REP_SUFFIX) and os.path.isfile(os.path.join(path, n)))
    return os.path.join(path, reps[0]) if reps else None


def export_commands(rep: str) -> str:
    """The commands that export a report to the CSV pages this tool reads."""
    return "; ".join(f"ncu --import {os.path.basename(rep)} --csv {' '.join(args)} > {name}" for name, args in REP_EXPORTS)


def export_report(rep: str, ncu_bin: str) -> NcuCapture:
    """Read a binary report through ``ncu --import REP --csv --page ...`` (each page to a temporary file)."""
    with tempfile.TemporaryDirectory(prefix="kernel-atlas-ncu-") as tmp:
        ex = Exports(base=rep, provenance=None)
        for name, args in REP_EXPORTS:
            out = os.path.join(tmp, name)
            try:
                with open(out, "wb") as fh:
                    done = subprocess.run([ncu_bin, "--import", rep, "--csv", *args], stdout=fh,
                                          stderr=subprocess.PIPE, timeout=EXPORT_TIMEOUT, check=False)
            except (OSError, subprocess.TimeoutExpired) as err:
                raise InputError(rep, f"ncu --import failed ({type(err).__name__}: {err}); export by hand: "
                                      + export_commands(rep)) from None
            if done.returncode != 0 or os.path.getsize(out) == 0:
                why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
                raise InputError(rep, f"ncu --import {' '.join(args)} gave no CSV ({why[0][:200]})")
            setattr(ex, {SOURCE_SASS: "source_sass", SOURCE_CUDA_SASS: "source_cuda_sass",
                         DETAILS: "details", RAW: "raw"}[name], out)
        prov = os.path.join(os.path.dirname(rep), PROVENANCE)
        ex.provenance = prov if os.path.isfile(prov) else None
        cap = load_exports(ex)
    return cap


def load_capture(ref: CaptureRef) -> NcuCapture:
    """Read one NVIDIA capture (folder, export file, or binary report)."""
    if not os.path.exists(ref.path):
        raise InputError(ref.path, "no such file or directory")
    rep = report_file(ref.path)
    if rep is not None:
        ncu_bin = shutil.which("ncu")
        if ncu_bin is None:
            raise InputError(rep, "a binary Nsight Compute report, and ncu is not on the PATH to read it: export its "
                                  "pages and give the folder (" + export_commands(rep) + ")")
        return export_report(rep, ncu_bin)
    return load_exports(find_exports(ref.path))


# ---------------------------------------------------------------- the format

def is_capture(path: str) -> bool:
    """True for a folder holding an NCU export, or for one export file."""
    if os.path.isfile(path):
        return path.endswith(REP_SUFFIX) or (path.endswith(".csv") and sniff(path) is not None)
    return os.path.isdir(path) and (any(os.path.isfile(os.path.join(path, f)) for f in EXPORT_FILES)
                                    or report_file(path) is not None)


#: Why a capture holds nothing (``empty_reason``; ``analyze.analysis.SKIP_KEYS`` names their messages).
EMPTY_FILE = "empty export file"
EMPTY_EXPORTS = "empty shell: every Nsight Compute export is empty"


def empty_reason(path: str) -> str | None:
    """Why a capture holds nothing to analyze (every export empty), else None."""
    if os.path.isfile(path):
        return None if os.path.getsize(path) > 0 else EMPTY_FILE
    if report_file(path) is not None:
        return None
    sizes = [os.path.getsize(os.path.join(path, f)) for f in EXPORT_FILES if os.path.isfile(os.path.join(path, f))]
    if sizes and not any(sizes):
        return EMPTY_EXPORTS
    return None


def find_captures(bundle_dir: str) -> list[tuple[str, str]]:
    """``(label, dir)`` of every ``ncu/<label>/`` capture of a bundle."""
    root = os.path.join(bundle_dir, "ncu")
    if not os.path.isdir(root):
        return []
    return [(label, os.path.join(root, label)) for label in sorted(os.listdir(root))
            if is_capture(os.path.join(root, label))]


formats.register(formats.CaptureFormat(
    name="ncu",
    vendor="nvidia",
    order=20,
    find=find_captures,
    is_capture=is_capture,
    empty_reason=empty_reason,
))
