"""``kernel-atlas analyze PATH``: the hotspot analysis of captures, as text or JSON."""

from __future__ import annotations

import json
import os
import sys

from generator.analyze import analysis
from generator.read import discover
from generator.site import text_report as report
from generator.errors import InputError

NAME = "analyze"
HELP = "Hotspot analysis of one capture, a bundle or a whole sweep (ATT or Nsight Compute)."
ORDER = 20


def add_arguments(p) -> None:
    """Options, including those users of the reference analyzer know."""
    p.add_argument("path", help="sweep root, bundle folder, one bundle, one capture directory or export file")
    p.add_argument("--topk", type=int, default=15, help="rows in the top lines / instructions tables (15)")
    p.add_argument("--json", action="store_true", help="print JSON: one object for a capture, a list otherwise")
    p.add_argument("--mode", choices=("asm", "src", "both"), default="both",
                   help="which hotspot tables to print (text only)")
    p.add_argument("--detail", action="store_true", help="show each hot line's source context and instructions")
    p.add_argument("--context", type=int, default=3, help="source lines around each hot line with --detail (3)")
    p.add_argument("--kernel", help="analyze only this kernel of a sweep (its bundle, campaign or page name)")
    p.add_argument("--primary", action="store_true", help="only each bundle's primary capture")
    p.add_argument("--advice", action="store_true", help="add the ranked optimization plan")


def _advice(a, r, as_json: bool, timings: dict):
    """The ranked plan of one analysis (JSON objects or text lines), with the context ``build``
    gives it: the campaign that times the bundle (its verdict) and, for the primary capture,
    the bundle's PMC counters."""
    from generator.analyze import advice, pmc, state

    bundle = r.bundle
    if bundle.path not in timings:
        timings[bundle.path] = state.bundle_timing(bundle, timings.setdefault("sweeps", {}))
    score, config = timings[bundle.path]
    counters = None
    if r.is_primary:
        try:
            counters = pmc.analyze_bundle_counters(bundle.path, a.jit_kernel or None)
        except InputError:
            counters = None
    ctx = advice.context_for(a, bundle, counters, score, score.geomean_vs_best if score is not None else None, config)
    findings = advice.advise(a, ctx)
    if not as_json:
        return advice.format_plan(findings, _english)
    out = []
    for f in findings:
        obj = f.to_json()
        obj["premise_text"] = _english(f.premise) if f.premise is not None else None
        out.append(obj)
    return out


def _english(m) -> str:
    """A message worded in English (a finding's premise)."""
    from generator.site import wording

    return wording.plain("en", m)


def bundle_named(sweep, name: str | None) -> str | None:
    """The bundle a ``--kernel`` name means: a bundle's name as it is, else any name another command
    prints for the kernel (its campaign, as ``verdicts`` says it, its slug or title: ``kernels.names_of``)."""
    if not name or any(b.name == name for b in sweep.bundles):
        return name
    from generator.analyze.kernels import find_kernel, pair_kernels
    from generator.analyze.verdicts import load_kernels_json
    from generator.config import load_config

    config = load_config(sweep.root)
    ref = find_kernel(pair_kernels(sweep, config, load_kernels_json(sweep.root)), name)
    return ref.bundle.name if ref is not None and ref.bundle is not None else name


def run(args) -> int:
    """Analyze and print; a single bad capture raises InputError (exit 2)."""
    if args.topk < 1:
        args.topk = 1
    sweep = discover.discover(args.path)
    results = analysis.analyze_sweep(sweep, bundle_named(sweep, args.kernel))
    if args.primary:
        results = [r for r in results if r.is_primary]
    single = len(results) == 1 and discover.capture_format(os.path.abspath(args.path)) is not None
    if single and results[0].error:
        raise results[0].error
    if single and results[0].ref.skipped:
        raise InputError(results[0].ref.path, results[0].ref.skipped)
    objects, texts = [], []
    timings: dict = {}
    for r in results:
        if r.status == "skipped":
            print(f"kernel-atlas: skipped {r.ref.rel}: {r.ref.skipped}", file=sys.stderr)
            continue
        if r.error:
            print(f"kernel-atlas: broken {r.ref.rel}: {r.error.message}", file=sys.stderr)
            continue
        for a in r.analyses:
            if args.json:
                obj = a.to_json(args.topk)
                obj["primary"] = r.is_primary
                if args.advice:
                    obj["advice"] = _advice(a, r, True, timings)
                objects.append(obj)
            else:
                plan = _advice(a, r, False, timings) if args.advice else None
                texts.append(report.render_text(a, args.topk, args.mode, args.detail, args.context, plan))
    if args.json:
        payload = objects[0] if single and len(objects) == 1 else objects
        json.dump(payload, sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(texts))
    if not objects and not texts:
        return _run_stats_only(sweep, args)
    return 0


def _run_stats_only(sweep, args) -> int:
    """No capture to analyze: print the bundles' run statistics (another tool's kernel table, a
    launch trace) when they have some, else say that nothing could be analyzed (exit 1)."""
    from generator.analyze import runstats

    from generator.read import counter_files
    from generator.analyze.message import sentence

    bundles = analysis.select_bundles(sweep, args.kernel)
    found = [(b.name, rs) for b in bundles if (rs := runstats.bundle_run_stats(b.path)) is not None]
    counted = [b for b in bundles if counter_files.find_counter_files(b.path)]
    for b in counted if not found else ():
        print(sentence("msg.cap.countersonly", bundle=b.path))
    if not found:
        if counted:
            return 0
        print("kernel-atlas: no capture could be analyzed", file=sys.stderr)
        return 1
    if args.json:
        json.dump([{"kernel": n, "run_stats": rs.to_json()} for n, rs in found], sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(report.run_stats_text(n, rs, args.topk) for n, rs in found))
    return 0
