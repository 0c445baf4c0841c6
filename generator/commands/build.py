"""``kernel-atlas build [SWEEP] [--out DIR]``: the static site of a sweep."""

from __future__ import annotations

import argparse
import gc
import os
import sys

from generator.words import deprecated

NAME = "build"
HELP = "Build the static website of a sweep (overview, a page per kernel, api/ JSON, badges)."
ORDER = 10

#: The cyclic garbage collector's first threshold while the command builds (Python's default: 700).
GC_YOUNG = 50_000


def add_arguments(p) -> None:
    """Sweep, output folder and publishing options."""
    p.add_argument("sweep", nargs="?", default="bundles",
                   help="sweep root, folder of bundles or one bundle (default: bundles/)")
    p.add_argument("--out", default="site", help="output folder (default: site/); replaced as a whole")
    p.add_argument("--base-url", default=os.environ.get("KERNEL_ATLAS_BASE_URL", ""),
                   help="absolute URL the site is served at, for the links in PR snippets "
                        "(default: $KERNEL_ATLAS_BASE_URL; empty: links relative to the site)")
    p.add_argument("--force", action="store_true", help="rebuild every kernel, ignoring the previous build")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="worker processes gathering and rendering kernels (default: one per core, "
                        "%(default)s here); 1 builds in this process; the output is the same bytes either way")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    p.add_argument("--history", metavar="DIR",
                   help="keep this sweep's numbers in DIR (a history folder) and draw every kernel's "
                        "geomean over the recorded sweeps (history.html; retention [history] keep, default 20)")
    p.add_argument("--history-label", dest="label", metavar="TEXT",
                   help="this sweep's label in the history (default: the sweep's date)")
    p.add_argument("--label", dest="label", action=deprecated("--history-label"), help=argparse.SUPPRESS)
    p.add_argument("--commit", help="commit shown with this sweep in the history (default: the candidate commit)")


def run(args) -> int:
    """Build, print warnings and the summary (every broken kernel with its reason) on stderr.

    The one garbage-collector policy of the tool: reading a sweep allocates millions of objects and
    hardly a cycle, so the young generation is collected every GC_YOUNG allocations, not every 700
    (the build's worker processes inherit it). Measured by ``benchmarks/bench_tricks.py`` on the
    shared MI350X sweep (cold builds, a loaded 2-core machine, so CPU time, the build and its
    workers): 6.5 % of the build's CPU time (medians of 11 rounds, 1.460 s with Python's default vs
    1.365 s); two runs of 5 rounds gave 7.7 % and 4.6 %."""
    from generator.site.build import build_site

    before = gc.get_threshold()
    gc.set_threshold(GC_YOUNG, *before[1:])
    try:
        summary = build_site(args.sweep, args.out, base_url=args.base_url, force=args.force,
                             progress=False if args.quiet else None, history_dir=args.history,
                             history_label=args.label, history_commit=args.commit, jobs=max(1, args.jobs))
    finally:
        gc.set_threshold(*before)
    if not args.quiet:
        for w in summary.warnings:
            print(f"kernel-atlas: warning: {w}", file=sys.stderr)
        print(summary.text(), file=sys.stderr)
    return 0
