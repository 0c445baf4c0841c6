"""Benchmark: score every campaign of a sweep vs merely parsing its campaign files.

    python benchmarks/bench_verdicts.py [SWEEP]     (default ../shared/mi350x-sweep)

Prints the wall time of (a) ``score_sweep`` (read results, ledgers and baseline matrices,
score every shape and kernel, headline pairs from kernels.json) in one process, (b) the
peer: ``json.loads`` of every line of every ``benchmark_results.jsonl`` and
``shape_ledger.jsonl`` (the files the scorer reads, parsed and nothing else), their ratio,
and (c) the whole ``kernel-atlas verdicts SWEEP --json`` command in a fresh interpreter.
Target (issue 3): (a) under 1 s on a 2-core machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)

from generator.read.campaign import find_campaign_folders  # noqa: E402
from generator.analyze.verdicts import KernelScore, score_sweep  # noqa: E402
from timing import best_of  # noqa: E402


def score_all(root: str) -> tuple[int, int, int]:
    """Score the sweep; return (timed campaigns, their shapes, ledger-only shapes)."""
    scores = [s for s in score_sweep(root).values() if isinstance(s, KernelScore)]
    timed = [s for s in scores if s.results_file]
    return len(timed), sum(s.n_shapes for s in timed), sum(s.n_shapes for s in scores if not s.results_file)


def parse_all(root: str) -> tuple[int, int]:
    """json.loads every line of the JSONL files the scorer reads; return (lines, bytes)."""
    lines = size = 0
    for folder in find_campaign_folders(root).values():
        for name in ("benchmark_results.jsonl", "shape_ledger.jsonl"):
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8") as fh:
                for text in fh:
                    json.loads(text)
                    lines += 1
                    size += len(text)
    return lines, size


def cli_time(root: str) -> float:
    """Wall time of ``python -m generator verdicts ROOT --json`` (interpreter start included)."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "generator", "verdicts", root, "--json"], cwd=REPO,
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "..", "shared", "mi350x-sweep")
    t0 = time.perf_counter()
    score_all(root)
    t_cold = time.perf_counter() - t0
    t_score, (n_timed, n_shapes, n_untimed) = best_of(score_all, root, repeat=5)
    t_parse, (n_lines, n_bytes) = best_of(parse_all, root, repeat=5)
    t_cli = min(cli_time(root) for _ in range(3))
    print(f"campaign JSONL files: {n_lines} lines, {n_bytes / 1e6:.1f} MB")
    print(f"scored: {n_shapes} shapes in {n_timed} timed campaigns (+ {n_untimed} shapes of ledger-only ones)")
    print(f"score_sweep (first run):        {t_cold:.3f} s")
    print(f"score_sweep (best of 5):        {t_score:.3f} s")
    print(f"peer: json.loads every line:    {t_parse:.3f} s")
    print(f"ratio score / parse:            {t_score / t_parse:.2f}")
    print(f"verdicts --json, whole command: {t_cli:.3f} s (best of 3, interpreter start included)")
    print(f"target: score_sweep < 1 s: {'met' if t_score < 1.0 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
