"""``kernel-atlas build [SWEEP] [--out DIR]``: the static site of a sweep."""

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


def run(args) -> int:
    """Build (under the tool's garbage-collector policy, ``commands.collector_policy``), print warnings
    and the summary (every broken kernel with its reason) on stderr."""
    from generator.commands import collector_policy
    from generator.site.build import build_site

    with collector_policy():
        summary = build_site(args.sweep, args.out, base_url=args.base_url, force=args.force,
                             progress=False if args.quiet else None, history_dir=args.history,
                             history_label=args.label, history_commit=args.commit, jobs=max(1, args.jobs),
                             lock_wait=max(0.0, args.wait))
    if not args.quiet:
        for w in summary.warnings:
            print(f"kernel-atlas: warning: {w}", file=sys.stderr)
        print(summary.text(), file=sys.stderr)
        if not args.base_url:  # the PR snippets link relative to the site: broken once pasted into a pull request
            print("kernel-atlas: note: no --base-url: the links of pr/<slug>.md and its badge are relative "
                  "(pass --base-url https://<where the site is published>/ for a pull request)", file=sys.stderr)
    return 0
