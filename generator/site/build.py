"""Build the site in four named steps: plan -> gather -> render -> publish.

``build_site(sweep, out)`` computes every cross-page fact (page order, neighbours) in the
plan, then takes one kernel at a time through gather and render (STYLE.md 2, per kernel):

1. *plan* (``generator.site.plan``): one kernel per bundle and per campaign no bundle
   claims, and a hash of each kernel's inputs;
2. *gather* (``generator.site.gather``): analyze and score only the kernels whose inputs
   changed since the last build (the manifest in the output keeps the overview row of the
   others);
3. *render*: the kernel's view models (``generator.site.views``) to HTML
   (``generator.site.render``) and its JSON document (``generator.site.api``), placed at
   once in the build's fresh folder (``publish.Staging``, in the worker that gathered it).
   Only its overview row and ``extra`` (provenance, the primary capture's findings: what
   the sweep-level findings need) are kept, so memory stays flat in the number of kernels;
   then the overview, from the rows;
4. *publish* (``generator.site.publish``): the fresh folder is swapped in, so a failed build
   leaves the previous site untouched.

Steps 2 to 4 live in ``generator.site.assemble``, which a rebuild that changes nothing never imports.

Site layout (every link relative, so it works from ``file://`` and under a sub-path)::

    index.html                       the overview
    glossary.html                    the words the pages use, one entry each (#<term>)
    index-data.js                    its table beyond the first page and its sweep-wide parts,
                                     for a sweep of more than 100 kernels (generator.site.deferred)
    kernels/<slug>/index.html        one page per kernel (slug: the bundle folder name,
                                     lower-cased, other characters -> "-"; or the campaign
                                     name for a kernel with no bundle)
    api/index.json                   every kernel's numbers (generator.site.api)
    api/kernels/<slug>.json          everything a kernel page shows
    badges/<slug>.svg                verdict and geomean badge
    pr/<slug>.md                     Markdown for a pull request
    static/<stem>.<hash10><ext>      site.css, site.js, plotly.min.js (one copy)
    kernel-atlas-manifest.json       what the next build needs (generator.site.publish)
    kernel-atlas-hashes.json         the input files' hashes by their stat (publish.FileHashes)

The JSON documents (``api/index.json``, ``api/kernels/<slug>.json``) are described in
``generator.site.api``.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from contextlib import contextmanager
from typing import Any

from generator.analyze.message import sentence_from_json
from generator.read import campaign_suite
from generator.site import plan, publish, render
from generator.site.summary import BuildSummary, Progress, record_problems  # noqa: F401  (Progress: the build's API)


# ---------------------------------------------------------------- the build

def build_site(sweep_path: str | os.PathLike, out_dir: str | os.PathLike, *, base_url: str = "",
               force: bool = False, progress: bool | None = None, stream=None,
               history_dir: str | os.PathLike | None = None, history_label: str | None = None,
               history_commit: str | None = None, jobs: int | None = 1,
               lock_wait: float = publish.LOCK_WAIT_S, ci: Any = None,
               ahead: render.CompiledAhead | None = None) -> BuildSummary:
    """Build (or update) the site of a sweep in ``out_dir``; see the module docstring.

    One build at a time per output folder (``publish.output_lock``): another one running, this
    one says so on ``stream``, waits up to ``lock_wait`` seconds for it (then builds on the site
    it left), or stops with an InputError naming the folder.

    With ``history_dir`` the site gains ``history.html`` and ``api/history.json`` (every
    kernel's geomean over the recorded sweeps, this one included, and regression marks on
    the overview), and this sweep is recorded in the history once the site is published
    (``generator.sweeps.history``; retention ``[history] keep`` of the configuration).

    ``jobs`` worker processes gather and render the changed kernels (None: one per core);
    the output bytes are those of a serial build, which runs for ``jobs`` 1 or one kernel.

    ``ci`` (a ``ci_site.CiInput``, the FlyDSL CI stream read) adds ``ci/`` and each kernel's CI panel.

    ``ahead``: the templates already compiling (``render.CompiledAhead``, started by ``kernel-atlas build``
    before its own imports); taken by a cold build, let go by any other. Without it a cold build starts one.
    """
    t0 = time.perf_counter()
    stream = stream or sys.stderr
    out = os.path.abspath(os.fspath(out_dir))
    publish.check_output(out)

    def say(line: str) -> None:
        print(line, file=stream, flush=True)

    with publish.output_lock(out, lock_wait, say):
        return _build_locked(sweep_path, out, os.fspath(out_dir), t0, base_url=base_url, force=force,
                             progress=progress, stream=stream, history_dir=history_dir,
                             history_label=history_label, history_commit=history_commit, jobs=jobs, ci=ci,
                             ahead=ahead)


def _build_locked(sweep_path, out: str, shown_out: str, t0: float, *, base_url, force, progress, stream,
                  history_dir, history_label, history_commit, jobs, ci=None, ahead=None) -> BuildSummary:
    """``build_site`` once the output folder's lock is held."""
    publish.FileHashes.active = publish.FileHashes() if force else publish.FileHashes.load(out)
    try:
        return _build_planned(sweep_path, out, shown_out, t0, base_url=base_url, force=force, progress=progress,
                              stream=stream, history_dir=history_dir, history_label=history_label,
                              history_commit=history_commit, jobs=jobs, ci=ci, ahead=ahead)
    finally:
        publish.FileHashes.active = None
        campaign_suite.forget_campaigns()  # those the plan kept for scoring and no kernel took
        gc.unfreeze()  # what the plan left frozen (_uncollected)


def _build_planned(sweep_path, out: str, shown_out: str, t0: float, *, base_url, force, progress, stream,
                   history_dir, history_label, history_commit, jobs, ci=None, ahead=None) -> BuildSummary:
    """``_build_locked`` with the input files' hashes of the last build at hand (``publish.FileHashes``)."""
    summary = BuildSummary(out=shown_out)
    publish.check_output(out)
    if not publish.cold_build(out, force):
        if ahead is not None:
            ahead.close()
        ahead = None
    elif ahead is None:
        ahead = render.CompiledAhead.start(jobs, history=history_dir is not None)
    try:
        return _build_with(ahead, sweep_path, out, summary, t0, base_url=base_url, force=force, progress=progress,
                           stream=stream, history_dir=history_dir, history_label=history_label,
                           history_commit=history_commit, jobs=jobs, ci=ci)
    finally:
        if ahead is not None:
            ahead.close()


@contextmanager
def _uncollected():
    """The plan run with the cyclic garbage collector paused, and what it leaves frozen (``gc.freeze``) until
    the build ends: the plan reads every campaign and keeps them for the kernels' scoring, so a collection in
    it walks tens of thousands of young objects to free a few dozen. Issue 41: one 16 ms pause on the build's
    one core during a cold build of the shared sweep; frozen, those objects are walked by no later collection."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _build_with(ahead, sweep_path, out: str, summary: BuildSummary, t0: float, *, base_url, force, progress,
                stream, history_dir, history_label, history_commit, jobs, ci=None) -> BuildSummary:
    """``_build_planned`` with the templates compiling ahead in another process (``ahead``, or None)."""
    with _uncollected():
        bp = plan.plan_build(sweep_path, out, base_url, force, history_dir, ci.digest if ci is not None else "",
                             tool=ahead.facts() if ahead is not None else None)
    summary.kernels = len(bp.kernels)
    if bp.up_to_date():
        summary.up_to_date = True
        summary.skipped = sorted(bp.hashes)
        if bp.hmod is not None:  # the previous build of these very inputs recorded them
            summary.history = "history: unchanged, the site is up to date"
        record_problems(summary, {s: ([sentence_from_json(b) for b in it.row.get("broken") or []],
                                      [sentence_from_json(n) for n in it.extra.get("skipped") or []])
                                  for s, it in bp.manifest.items.items()})
        summary.seconds = time.perf_counter() - t0
        return summary
    from generator.site import assemble  # the rest of the build: not imported by a rebuild that changes nothing

    if ahead is not None:
        ahead.install()

    return assemble.build_planned(bp, out, summary, t0, base_url=base_url, stream=stream, progress=progress,
                                  history_dir=history_dir, history_label=history_label,
                                  history_commit=history_commit, jobs=jobs, ci=ci)


