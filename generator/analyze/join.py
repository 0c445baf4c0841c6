"""Which timing campaign a bundle is, when nobody said so (no configuration, no kernels.json entry).

The sweep itself says it, in this order (the first rule that names exactly one campaign decides):

1. ``matrix``: a campaign's ``baseline_matrix.yaml`` ``kernel:`` is the bundle's name
   (``benchmarks/examples/gemm`` says ``kernel: hgemm_splitk``);
2. ``report``: the bundle's hand-written ``REPORT.md`` names one campaign's folder
   (``benchmarks/examples/<op>``);
3. ``traced``: the campaign's name (or its ``kernel:``) is the first words of a kernel the bundle
   traced or of a source file its captures name (``kernel_include_regex`` of ``source/input_trace*.yaml``,
   the file names of ``snapshots.json``): ``pa`` traces ``pa_decode_ps_kernel_0`` from
   ``pa_decode_fp8.py``, so it is ``pa_decode``; the bundle's own name counts too
   (``flash_attn_func`` begins with ``flash_attn``). The longest such name wins; a tie names none.

Only campaigns that no bundle claims by name are joined, and a campaign two bundles would take is
joined to neither. Each join keeps the rule and the name that made it (``Join``), so that the page
can say the join was inferred.
"""

from __future__ import annotations

import glob
import json
import os
import re
from collections.abc import Iterable, Mapping

from generator.analyze.naming import words
from generator.model import record

MATRIX, TRACED, REPORT = "matrix", "traced", "report"
#: The captures whose ``snapshots.json`` a bundle's traced names are read from.
MAX_CAPTURES = 3
_REGEX = re.compile(r"^\s*kernel_include_regex:\s*['\"]?([^'\"#\n]+)", re.M)


@record(frozen=True)
class Join:
    """An inferred bundle-campaign join: the campaign, the rule (``matrix``, ``traced``) and the name that matched."""

    op: str
    rule: str
    evidence: str


def matrix_kernel(folder: str) -> str | None:
    """The ``kernel:`` a campaign's ``baseline_matrix.yaml`` names, or None (absent, unreadable, not text)."""
    path = os.path.join(folder, "baseline_matrix.yaml")
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(65536)
    except (OSError, UnicodeDecodeError):
        return None
    m = re.search(r"^kernel:\s*['\"]?([A-Za-z0-9_.\-]+)", text, re.M)
    return m.group(1) if m else None


def traced_names(bundle) -> list[str]:
    """The kernels a bundle traced and the source files its captures name (stems), then its own name."""
    names: list[str] = []
    for path in sorted(glob.glob(os.path.join(bundle.path, "source", "input_trace*.yaml"))):
        try:
            with open(path, encoding="utf-8") as fh:
                names += [m.strip() for m in _REGEX.findall(fh.read(65536))]
        except (OSError, UnicodeDecodeError):
            continue
    # the primary capture first, and at most MAX_CAPTURES of them: a bundle of thousands of captures
    # names the same sources in each
    for cap in sorted(bundle.captures, key=lambda c: c.rel != bundle.primary)[:MAX_CAPTURES]:
        names += _snapshot_files(os.path.join(cap.path, "snapshots.json"))
    names.append(bundle.name)
    return list(dict.fromkeys(n for n in names if n))


def report_campaigns(bundle, ops: Iterable[str]) -> list[str]:
    """The campaigns among ``ops`` whose folder (``benchmarks/examples/<op>``) the bundle's REPORT.md names."""
    if not bundle.report:
        return []
    try:
        with open(bundle.report, encoding="utf-8") as fh:
            text = fh.read(1 << 20)
    except (OSError, UnicodeDecodeError):
        return []
    return [op for op in ops if re.search(rf"benchmarks/examples/{re.escape(op)}(?![A-Za-z0-9_.-])", text)]


def _snapshot_files(path: str) -> list[str]:
    """The stems of the source files a ``snapshots.json`` tree names (its keys ending in ``.py`` and the like)."""
    try:
        with open(path, encoding="utf-8") as fh:
            tree = json.load(fh)
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    found: list[str] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and "." in key:
                    found.append(key.rsplit(".", 1)[0])
                walk(value)
    walk(tree)
    return found


def _begins(name: str, prefix: str) -> bool:
    """True when ``prefix``'s words are the first words of ``name`` (case-insensitive)."""
    a, b = [w.lower() for w in words(name)], [w.lower() for w in words(prefix)]
    return bool(b) and a[:len(b)] == b


def infer_joins(bundles: Iterable, campaigns: Mapping[str, str], open_ops: Iterable[str]) -> dict[str, Join]:
    """Bundle name -> its inferred ``Join`` (see the module docstring), for the ``bundles`` nobody
    paired, among the campaigns ``open_ops`` that no bundle claims."""
    bundles = list(bundles)
    ops = [op for op in open_ops if op in campaigns]
    kernel_of = {op: matrix_kernel(campaigns[op]) for op in ops}
    found: dict[str, Join] = {}
    for b in bundles:
        by_matrix = [op for op in ops if kernel_of[op] == b.name]
        if len(by_matrix) == 1:
            found[b.name] = Join(by_matrix[0], MATRIX, b.name)
            continue
        by_report = report_campaigns(b, ops)
        if len(by_report) == 1:
            found[b.name] = Join(by_report[0], REPORT, f"benchmarks/examples/{by_report[0]}")
            continue
        best: list[tuple[int, str, str]] = []
        for traced in traced_names(b):
            for op in ops:
                for name in dict.fromkeys(n for n in (op, kernel_of[op]) if n):
                    if _begins(traced, name):
                        best.append((len(words(name)), op, traced))
        if not best:
            continue
        top = max(n for n, _, _ in best)
        winners = list(dict.fromkeys((op, traced) for n, op, traced in best if n == top))
        if len({op for op, _ in winners}) == 1:
            found[b.name] = Join(winners[0][0], TRACED, winners[0][1])
    taken: dict[str, int] = {}
    for j in found.values():
        taken[j.op] = taken.get(j.op, 0) + 1
    return {name: j for name, j in found.items() if taken[j.op] == 1}
