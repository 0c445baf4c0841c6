"""Benchmark: analyze every capture of a sweep vs merely parsing its JSON files.

    python benchmarks/bench_analyze.py [SWEEP]     (default ../shared/mi350x-sweep)

Prints the wall time of (a) the full analysis of every capture in one process and
(b) ``json.load`` of every JSON file in those capture folders (code, wave, state
files: what a parse-everything analyzer reads), and their ratio. Target (issue 2):
(a) <= 3 s on a 2-core machine and ratio (a)/(b) <= 1.0.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from generator.analyze import analysis
from generator.read import discover  # noqa: E402
from timing import best_of  # noqa: E402


def analyze_all(root: str) -> int:
    """Analyze every capture; return the instruction count (to keep the work honest)."""
    results = analysis.analyze_sweep(discover.discover(root))
    return sum(len(a.instructions) for r in results for a in r.analyses)


def parse_all(root: str) -> tuple[int, int]:
    """json.load every JSON file of every capture; return (files, bytes)."""
    files = size = 0
    for bundle in discover.discover(root).bundles:
        for ref in bundle.captures:
            for name in sorted(os.listdir(ref.path)):
                if name.endswith(".json"):
                    path = os.path.join(ref.path, name)
                    with open(path, "rb") as fh:
                        data = fh.read()
                    json.loads(data)
                    files += 1
                    size += len(data)
    return files, size


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(HERE), "..", "shared", "mi350x-sweep")
    t_an, n_ins = best_of(analyze_all, root)
    t_js, (n_files, n_bytes) = best_of(parse_all, root)
    print(f"captures' JSON files: {n_files} files, {n_bytes / 1e6:.1f} MB")
    print(f"analyze all captures : {t_an:.3f} s  ({n_ins} instructions)   target <= 3 s")
    print(f"json.load all files  : {t_js:.3f} s")
    print(f"ratio analyze/parse  : {t_an / t_js:.2f}   target <= 1.0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
