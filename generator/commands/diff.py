"""``kernel-atlas diff OLD NEW``: what changed between two sweeps, and who caused it.

Each side is a sweep folder, a built site (or its ``api/`` folder), or a snapshot file
kept by the history. Output: a terminal report (default), ``--markdown`` (the pull-request
comment, starting with the ``<!-- kernel-atlas-diff -->`` marker a bot looks for to update
its one comment), ``--github-summary`` (the same Markdown without the marker, appended to
``$GITHUB_STEP_SUMMARY`` when that is set, else printed) or ``--json``.

Exit status: 0; 1 with ``--fail-on-regression`` when the candidate regressed: a kernel beyond
noise, or one shape (beyond its own noise and 5 %, or no longer measured), with the candidate among
who moved (not a baseline's or the comparison's move alone; ``--fail-on-any-regression`` counts
those too); the kernels and shapes are named on stderr;
2 with one line on bad input (a missing side, a side without kernels, an unreadable
format version, a ``--rename`` naming no kernel).
"""

from __future__ import annotations

import json
import os
import sys

from generator.sweeps import diff as diffmod
from generator.errors import InputError
from generator.sweeps.snapshot_sources import load_snapshot

NAME = "diff"
HELP = "Compare two sweeps (folders, built sites or api/ folders): verdict, speed and hotspot changes."
ORDER = 60


def add_arguments(p) -> None:
    """OLD NEW, the output format and the thresholds."""
    p.add_argument("old", metavar="OLD", help="the earlier sweep: sweep folder, built site, api/ folder or snapshot file")
    p.add_argument("new", metavar="NEW", help="the later sweep, same kinds")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="print the pull-request comment (Markdown)")
    fmt.add_argument("--json", action="store_true", help="print every change as JSON")
    fmt.add_argument("--github-summary", action="store_true",
                     help="write the Markdown to $GITHUB_STEP_SUMMARY (appended; printed when unset)")
    p.add_argument("--site-url", metavar="URL",
                   help="published site; kernel links become URL/kernels/<slug>/ (default: relative links)")
    p.add_argument("--old-label", metavar="TEXT", help="name of the old side in the output (default: its folder name)")
    p.add_argument("--new-label", metavar="TEXT", help="name of the new side in the output")
    p.add_argument("--rename", action="append", default=[], metavar="OLD_SLUG=NEW_SLUG",
                   help="compare a renamed kernel with its old self (repeatable)")
    p.add_argument("--min-change", type=float, default=diffmod.DiffOptions.min_change, metavar="FRACTION",
                   help="a timing change must also beat this relative size (default 0.02 = 2%%)")
    p.add_argument("--stall-points", type=float, default=diffmod.DiffOptions.stall_points * 100, metavar="POINTS",
                   help="stall-ratio change, in percentage points, that counts as a hotspot shift (default 5)")
    p.add_argument("--max-rows", type=int, default=20, metavar="N", help="shape rows per kernel (default 20)")
    p.add_argument("--fail-on-regression", action="store_true",
                   help="exit with status 1 when the candidate regressed (a kernel, or one shape, beyond noise); "
                        "a move of a baseline or of the comparison alone does not count")
    p.add_argument("--fail-on-any-regression", action="store_true",
                   help="like --fail-on-regression, counting the moves of the baselines and the comparison too")


def parse_renames(items: list[str]) -> tuple[tuple[str, str], ...]:
    """``old=new`` pairs; a malformed one is an InputError."""
    out = []
    for item in items:
        a, sep, b = item.partition("=")
        if not sep or not a.strip() or not b.strip():
            raise InputError("--rename", f"expected OLD_SLUG=NEW_SLUG, got {item!r}")
        out.append((a.strip(), b.strip()))
    return tuple(out)


def options_from_args(args) -> diffmod.DiffOptions:
    """DiffOptions from the command line, checked."""
    if not 0 <= args.min_change < 1:
        raise InputError("--min-change", f"must be a fraction in [0, 1), got {args.min_change!r}")
    if not 0 < args.stall_points <= 100:
        raise InputError("--stall-points", f"must be in (0, 100] percentage points, got {args.stall_points!r}")
    return diffmod.DiffOptions(min_change=args.min_change, stall_points=args.stall_points / 100.0,
                               renames=parse_renames(args.rename))


def run(args) -> int:
    """Load both sides (under the tool's garbage-collector policy), compare, print; see the module
    docstring for the exit status."""
    from generator.commands import collector_policy

    options = options_from_args(args)
    with collector_policy():
        old = load_snapshot(args.old, args.old_label or _label(args.old))
        new = load_snapshot(args.new, args.new_label or _label(args.new))
    result = diffmod.diff_snapshots(old, new, options)
    max_rows = max(1, args.max_rows)
    if args.json:
        json.dump(diffmod.diff_document(result), sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
        sys.stdout.write("\n")
    elif args.markdown:
        sys.stdout.write(diffmod.render_markdown(result, args.site_url, marker=True, max_rows=max_rows))
    elif args.github_summary:
        text = diffmod.render_markdown(result, args.site_url, marker=False, max_rows=max_rows)
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(text)
        else:
            sys.stdout.write(text)
    else:
        sys.stdout.write(diffmod.render_text(result, max_rows=max_rows))
    strict = bool(getattr(args, "fail_on_any_regression", False))
    if not (args.fail_on_regression or strict):
        return 0
    lines = diffmod.failing_lines(result, strict, max_rows)
    for line in lines:
        sys.stderr.write(line + "\n")
    return 1 if lines else 0


def _label(path: str) -> str:
    """A side's default label: its folder or file name (``site`` for ``site/api``)."""
    norm = os.path.normpath(path)
    if os.path.basename(norm) == "api":
        norm = os.path.dirname(norm) or norm
    name = os.path.basename(norm)
    return os.path.splitext(name)[0] if os.path.isfile(path) else name or norm
