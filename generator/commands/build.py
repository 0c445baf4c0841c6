"""``kernel-atlas build [SWEEP] [--out DIR] [--ci HISTORY.json [--ci-runs RUNS.json]]``: the static site of a
sweep, with the FlyDSL CI stream's pages under ``ci/`` (``--ci``; alone, without SWEEP: a site of the stream)."""

from __future__ import annotations

import argparse
import os
import sys

from generator.words import deprecated

NAME = "build"
HELP = "Build the static website of a sweep (overview, a page per kernel, api/ JSON, badges)."
ORDER = 10


def add_arguments(p) -> None:
    """Sweep, output folder and publishing options."""
    p.add_argument("sweep", nargs="?", default=None,
                   help="sweep root, folder of bundles or one bundle (default: bundles/; with --ci alone: none)")
    p.add_argument("--out", default="site", help="output folder (default: site/); replaced as a whole")
    p.add_argument("--base-url", default=os.environ.get("KERNEL_ATLAS_BASE_URL", ""),
                   help="absolute URL the site is served at, for the links in PR snippets "
                        "(default: $KERNEL_ATLAS_BASE_URL; empty: links relative to the site)")
    p.add_argument("--force", action="store_true", help="rebuild every kernel, ignoring the previous build")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="worker processes gathering and rendering kernels (default: one per core, "
                        "%(default)s here); 1 builds in this process; the output is the same bytes either way")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    p.add_argument("--wait", type=float, default=300.0, metavar="SECONDS",
                   help="another build writing the same --out: wait at most this long for it, then stop "
                        "(default: %(default)g; 0: stop at once)")
    p.add_argument("--history", metavar="DIR",
                   help="keep this sweep's numbers in DIR (a history folder) and draw every kernel's "
                        "geomean over the recorded sweeps (history.html; retention [history] keep, default 20)")
    p.add_argument("--history-label", dest="label", metavar="TEXT",
                   help="this sweep's label in the history (default: the sweep's date)")
    p.add_argument("--label", dest="label", action=deprecated("--history-label"), help=argparse.SUPPRESS)
    p.add_argument("--commit", help="commit shown with this sweep in the history (default: the candidate commit)")
    p.add_argument("--ci", metavar="HISTORY.json",
                   help="the FlyDSL CI benchmark stream (history.json, schema 1): adds ci/ (health, PR checks, "
                        "trends, FlyDSL vs AIter); without SWEEP, a site of the stream alone")
    p.add_argument("--ci-runs", metavar="RUNS.json", help="runs.json beside the stream (skips pull-request runs among pushes)")


def run(args) -> int:
    """Build (under the tool's garbage-collector policy, ``commands.collector_policy``), print warnings
    and the summary (every broken kernel with its reason) on stderr."""
    from generator.commands import collector_policy
    from generator.errors import InputError

    if args.ci_runs and not args.ci:
        raise InputError(args.ci_runs, "--ci-runs needs --ci HISTORY.json")
    ci = None
    if args.ci:
        from generator.site import ci_site

        ci = ci_site.load(args.ci, args.ci_runs)
        for w in ci.report.stream.warnings:
            print(f"kernel-atlas: warning: {w}", file=sys.stderr)
        if args.sweep is None:
            written, seconds = ci_site.build_ci_site(ci, args.out)
            if not args.quiet:
                print(f"kernel-atlas: CI stream: {written} files written; {seconds:.2f} s: {args.out}", file=sys.stderr)
            return 0
    from generator.site import publish, render

    with collector_policy():
        # A cold build's templates compile in another process from here on, while this one imports the
        # rest of the build and plans it (render.CompiledAhead: forked before those imports).
        ahead = (render.CompiledAhead.start(max(1, args.jobs), history=args.history is not None)
                 if publish.cold_build(args.out, args.force) else None)
        try:
            from generator.site.build import build_site

            summary = build_site(args.sweep or "bundles", args.out, base_url=args.base_url, force=args.force,
                                 progress=False if args.quiet else None, history_dir=args.history,
                                 history_label=args.label, history_commit=args.commit, jobs=max(1, args.jobs),
                                 lock_wait=max(0.0, args.wait), ci=ci, ahead=ahead)
        finally:
            if ahead is not None:
                ahead.close()
    if not args.quiet:
        for w in summary.warnings:
            print(f"kernel-atlas: warning: {w}", file=sys.stderr)
        head, *rest = summary.text().split("\n")
        if not args.base_url:  # the PR snippets link relative to the site: broken once pasted into a pull request
            head += (" (no --base-url: the links of pr/<slug>.md and its badge are relative; pass --base-url "
                     "https://<where the site is published>/ for a pull request)")
        print("\n".join([head, *rest]), file=sys.stderr)
    return 0
