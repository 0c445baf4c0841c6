"""Find the kernels of a sweep: bundles, their captures, and the timing campaigns.

Accepted inputs (DOMAIN §1): a sweep root (``examples/`` and maybe
``benchmarks/examples/``), a folder holding bundles directly, one bundle, or one
capture directory (of any registered format).

Primary capture rule: the capture that ``source/hotspot_output.txt`` names on its
``Loading:`` line; without it, the first usable capture of label ``big`` (else of the
first label in sorted order), taking within that label the last name in sorted order
(a suffixed re-capture such as ``..._after_loc_fix`` sorts after its original).
"""

from __future__ import annotations

import os
import re

from generator.read import campaign, formats
from generator.config import CONFIG_NAME
from generator.errors import InputError
from generator.model import Bundle, CaptureRef, Sweep

BUNDLE_MARKERS = ("att_viewer", "compute_viewer", "ncu", "source", "pmc")
_LOADING = re.compile(r"^\s*Loading:\s*(\S+)", re.M)


def rel_path(path: str, root: str) -> str:
    """``path`` relative to ``root``, with forward slashes (how every output names a file)."""
    return os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")


def _files(folder: str) -> dict[str, str]:
    """Plain files of a folder: name -> path, sorted by name."""
    if not os.path.isdir(folder):
        return {}
    return {n: os.path.join(folder, n) for n in sorted(os.listdir(folder))
            if os.path.isfile(os.path.join(folder, n))}


#: Files that make a folder a bundle on their own (DOMAIN §2; docs/formats-other-tools.md): counters
#: (rocprof-compute, rocprofv3 --pmc) and run statistics (rocprof v1 --stats, Nsight Systems stats).
BUNDLE_FILES = re.compile(r"^(pmc_perf\.csv|.*counter_collection\.csv|results\.stats\.csv|.*kernel_stats\.csv"
                          r"|.*_cuda_(gpu_kern_sum|gpu_trace|kern_exec_trace)\.csv|.*\.sqlite|.*\.trace\.json|.*nsys.*\.(txt|log))$")


def is_bundle(path: str) -> bool:
    """True when a folder looks like a kernel bundle: a marker folder (captures, traces, sources,
    ``pmc/``) or, at its top, a counter or run-statistics file another tool wrote."""
    if not os.path.isdir(path):
        return False
    if any(os.path.isdir(os.path.join(path, m)) for m in BUNDLE_MARKERS):
        return True
    try:
        return any(BUNDLE_FILES.match(n) for n in os.listdir(path))
    except OSError:
        return False


def is_sweep_root(folder: str) -> bool:
    """True for a sweep's root: it holds kernel-atlas.toml, benchmarks/examples/, or examples/
    with at least one bundle (a tool checkout holding ``bundles/`` is not one)."""
    examples = os.path.join(folder, "examples")
    return (os.path.isfile(os.path.join(folder, CONFIG_NAME))
            or os.path.isdir(os.path.join(folder, "benchmarks", "examples"))
            or (os.path.isdir(examples) and any(is_bundle(os.path.join(examples, n)) for n in os.listdir(examples))))


def enclosing_sweep(start: str) -> str | None:
    """The sweep root ``start`` is, or is inside (the nearest one going up), else None."""
    folder = os.path.abspath(start)
    while True:
        if is_sweep_root(folder):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def capture_format(path: str) -> formats.CaptureFormat | None:
    """The format for which ``path`` is itself one capture."""
    for fmt in formats.all_formats():
        if fmt.is_capture(path):
            return fmt
    return None


def reference_capture_name(bundle_dir: str) -> str | None:
    """The capture directory named by ``source/hotspot_output.txt``, if any."""
    path = os.path.join(bundle_dir, "source", "hotspot_output.txt")
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            m = _LOADING.search(fh.read(4096))
    except OSError:
        return None
    return m.group(1).rstrip("/").rsplit("/", 1)[-1] if m else None


def choose_primary(bundle_dir: str, captures: list[CaptureRef]) -> tuple[str | None, str]:
    """(rel path of the primary capture, the rule that chose it)."""
    usable = [c for c in captures if c.skipped is None]
    named = reference_capture_name(bundle_dir)
    if named:
        for c in usable:
            if c.name == named:
                return c.rel, "named by source/hotspot_output.txt"
    if not usable:
        return None, "no usable capture"
    labels = sorted({c.label for c in usable})
    label = "big" if "big" in labels else labels[0]
    pick = sorted((c for c in usable if c.label == label), key=lambda c: c.name)[-1]
    return pick.rel, f"label {label or '(none)'}, last capture by name"


def load_bundle(bundle_dir: str, root: str, only: str | None = None) -> Bundle:
    """A bundle with every capture of every format (``only``: keep that capture dir alone)."""
    captures = []
    for fmt in formats.all_formats():
        for label, cdir in fmt.find(bundle_dir):
            if only and os.path.realpath(cdir) != os.path.realpath(only):
                continue
            captures.append(CaptureRef(
                path=cdir, rel=rel_path(cdir, root), name=os.path.basename(cdir),
                label=label, format=fmt.name, skipped=fmt.empty_reason(cdir),
            ))
    primary, rule = choose_primary(bundle_dir, captures)
    vendors = {c.format for c in captures}
    report = os.path.join(bundle_dir, "REPORT.md")
    readme = os.path.join(bundle_dir, "README.md")
    return Bundle(
        name=os.path.basename(os.path.normpath(bundle_dir)),
        path=bundle_dir,
        rel=rel_path(bundle_dir, root),
        captures=captures,
        primary=primary,
        primary_rule=rule,
        compute_files=_files(os.path.join(bundle_dir, "compute_viewer")),
        source_files=_files(os.path.join(bundle_dir, "source")),
        report=report if os.path.isfile(report) else None,
        readme=readme if os.path.isfile(readme) else None,
        vendor="nvidia" if vendors == {"ncu"} else "amd",
    )


def find_campaigns(root: str) -> dict[str, str]:
    """Campaign folders under ``benchmarks/examples/`` (op name -> folder), broken ones included."""
    return campaign.sweep_campaign_folders(root)


def _capture_sweep(path: str, fmt: formats.CaptureFormat) -> Sweep:
    """A sweep of one capture, keeping its bundle's files when it sits in a bundle.

    ``path`` may be a capture folder or one export file inside a capture folder.
    """
    path = os.path.normpath(path)
    folder = os.path.dirname(path) if os.path.isfile(path) else path
    for up in (2, 3):  # <bundle>/att_viewer/<label>/<capture> or <bundle>/ncu/<label>
        bundle_dir = folder
        for _ in range(up):
            bundle_dir = os.path.dirname(bundle_dir)
        if is_bundle(bundle_dir) and folder.startswith(os.path.join(bundle_dir, "")):
            root = os.path.dirname(bundle_dir)
            bundle = load_bundle(bundle_dir, root, only=folder)
            if bundle.captures and folder != path:  # keep just the file given
                ref = bundle.captures[0]
                ref.path, ref.rel = path, rel_path(path, root)
                bundle.primary = ref.rel
            if bundle.captures:
                return Sweep(root=root, bundles=[bundle], campaigns={})
    parent = os.path.dirname(path)
    ref = CaptureRef(path=path, rel=os.path.basename(path), name=os.path.basename(path),
                     label="", format=fmt.name, skipped=fmt.empty_reason(path))
    bundle = Bundle(name=ref.name, path=path, rel=ref.rel, captures=[ref], primary=ref.rel,
                    primary_rule="the capture given", compute_files={}, source_files={},
                    report=None, readme=None, vendor=fmt.vendor)
    return Sweep(root=parent, bundles=[bundle], campaigns={})


def discover(path: str | os.PathLike) -> Sweep:
    """Find every bundle and capture under ``path`` (sweep, bundle folder, bundle or capture)."""
    path = os.path.abspath(os.fspath(path))
    if not os.path.exists(path):
        raise InputError(path, "no such file or directory")
    fmt = capture_format(path)
    if fmt:
        return _capture_sweep(path, fmt)
    if not os.path.isdir(path):
        raise InputError(path, "not a sweep, bundle or capture")
    examples = os.path.join(path, "examples")
    kernels_json = os.path.join(path, "docs", "data", "kernels.json")
    if os.path.isdir(examples):
        bundles = [load_bundle(os.path.join(examples, n), path) for n in sorted(os.listdir(examples))
                   if is_bundle(os.path.join(examples, n))]
        return Sweep(root=path, bundles=bundles, campaigns=find_campaigns(path),
                     kernels_json=kernels_json if os.path.isfile(kernels_json) else None)
    if is_bundle(path):
        return Sweep(root=os.path.dirname(path), bundles=[load_bundle(path, os.path.dirname(path))],
                     campaigns={})
    subdirs = [os.path.join(path, n) for n in sorted(os.listdir(path))]
    bundles = [load_bundle(d, path) for d in subdirs if is_bundle(d)]
    campaigns = find_campaigns(path)
    if not bundles and not campaigns:
        raise InputError(path, "no kernel bundles or captures found (expected examples/<kernel>/att_viewer/...)")
    return Sweep(root=path, bundles=bundles, campaigns=campaigns)
