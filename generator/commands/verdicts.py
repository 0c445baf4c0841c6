"""``kernel-atlas verdicts PATH...``: one verdict per kernel from multi-shape timings.

PATH is a sweep root (``benchmarks/examples/<op>/`` below it), a folder of campaigns,
or one campaign folder. A campaign folder inside a sweep uses that sweep's
``kernel-atlas.toml`` and ``docs/data/kernels.json``. Output: a text table (default),
``--markdown`` (a table to paste in a pull request) or ``--json``
(``{"format_version", "campaigns", "untimed", "errors"}``).

Exit status: 0; 2 with one line when a single campaign folder (or the configuration)
is bad; 1 when some campaigns of a sweep are broken (they are reported on stderr and
under ``errors``, the others are still scored and printed).
"""

from __future__ import annotations

import json
import os
import sys

from generator.read.discover import rel_path
from generator.read.campaign import is_campaign_folder, is_examples_folder
from generator.config import load_config, read_config
from generator.errors import InputError
from generator.words import plural, ratio_text
from generator.site import wording
from generator.analyze.verdicts import launchline
from generator.analyze.verdicts import (
    UNTIMED,
    KernelScore,
    load_kernels_json,
    score_folder,
    score_sweep,
    verdicts_document,
)

NAME = "verdicts"
HELP = "Judge each kernel from its multi-shape timings: WIN / PARITY / HEADROOM / BLOCKED."
ORDER = 40

_DASH = "\u2014"
#: The word of a campaign that could not be read, in the tables.
BROKEN = "broken"


def add_arguments(p) -> None:
    """PATH... and the output format."""
    p.add_argument("paths", nargs="+", metavar="PATH", help="sweep root, folder of campaigns, or campaign folder")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the full numbers as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print a Markdown table for a pull request")
    p.add_argument("--shapes", action="store_true", help="add each kernel's per-shape table")
    p.add_argument("--config", metavar="FILE",
                   help="configuration file (default: kernel-atlas.toml at the sweep root)")


def sweep_root_of(path: str) -> str | None:
    """The sweep root of ``<root>/benchmarks/examples[/<op>]``, or None."""
    path = os.path.abspath(path)
    for folder in (path, os.path.dirname(path)):
        if os.path.basename(folder) == "examples" and os.path.basename(os.path.dirname(folder)) == "benchmarks":
            return os.path.dirname(os.path.dirname(folder))
    return None


def _is_op_folder(path: str) -> bool:
    """True for ``<root>/benchmarks/examples/<op>``."""
    return is_examples_folder(os.path.dirname(os.path.abspath(path)))


def _read_alone(path: str) -> bool:
    """A folder under benchmarks/examples/ is one campaign, even when it is not a valid one."""
    return is_campaign_folder(path) or _is_op_folder(path)


def own_floor_notes(paths: list[str], scores: dict, config_file: str | None = None) -> list[tuple[str, str]]:
    """(op, line) per campaign folder read alone: the timing floor its shapes were judged against (rule 11: its
    own rows, unless the configuration sets one), which can differ from its sweep's (pa_decode: 17.80 us alone,
    12.80 us in the sweep)."""
    out = []
    for path in paths:
        s = scores.get(os.path.basename(os.path.abspath(path))) if _read_alone(path) else None
        if not isinstance(s, KernelScore) or s.floor_us is None:
            continue
        config = read_config(config_file) if config_file else load_config(sweep_root_of(path))
        whose = ("set by the configuration ([verdicts] floor_us)" if config.floor_us else
                 "this folder's own (its least usable median; a sweep's floor is the least over all its campaigns, "
                 "so its verdicts can differ)")
        out.append((s.op, f"timing floor {s.floor_us:.2f} us (rule 11), {whose}"))
    return out


def collect(paths: list[str], config_file: str | None = None, shapes: bool = True) -> tuple[dict, str | None]:
    """Score every campaign under the paths: ({op: KernelScore | InputError}, common root); without
    ``shapes`` a sweep's per-shape tables are let go as it is scored (``score_sweep``)."""
    scores: dict = {}
    roots = []
    for path in paths:
        if not os.path.exists(path):
            raise InputError(path, "no such file or directory")
        if not os.path.isdir(path):
            raise InputError(path, "not a folder (expected a sweep root, a folder of campaigns or a campaign "
                                   "folder with shape_ledger.jsonl and benchmark_results.jsonl or .csv)")
        single = _read_alone(path)
        root = sweep_root_of(path) or (None if single else path)
        config = read_config(config_file) if config_file else load_config(root)
        kernels_json = load_kernels_json(root)
        base = root or os.path.dirname(os.path.abspath(path))
        if single:
            name = os.path.basename(os.path.abspath(path))
            rel = rel_path(path, base)
            item = score_folder(path, config, kernels_json, name=name, rel=rel)
            if len(paths) == 1 and isinstance(item, InputError):
                raise item
            scores[name] = item
        else:
            found = score_sweep(root, config, kernels_json, keep_shapes=shapes)
            if not found:
                raise InputError(path, "no campaign folders found (expected benchmarks/examples/<op>/ "
                                       "with shape_ledger.jsonl and benchmark_results.jsonl or .csv)")
            scores.update(found)
        roots.append(os.path.abspath(base))
    return scores, os.path.commonpath(roots) if roots else None


def run(args) -> int:
    """Score (under the tool's garbage-collector policy) and print; see the module docstring for the
    exit status."""
    from generator.commands import collector_policy

    with collector_policy():
        # the Markdown's footer reads each verdict's shapes (which clock each ratio is on)
        scores, root = collect(args.paths, args.config, shapes=args.shapes or args.markdown)
    broken = {op: e for op, e in scores.items() if isinstance(e, InputError)}
    doc = verdicts_document(scores, root, shapes=args.shapes)
    for op in sorted(broken):
        print(f"kernel-atlas: broken {op}: {doc['errors'][op]}", file=sys.stderr)
    scored = [scores[op] for op in sorted(scores) if isinstance(scores[op], KernelScore)]
    if args.json:
        json.dump(doc, sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
        sys.stdout.write("\n")
    elif args.markdown:
        sys.stdout.write(render_markdown(scored, args.shapes, doc["errors"], own_floor_notes(args.paths, scores, args.config)))
    else:
        sys.stdout.write(render_text(scored, args.shapes, doc["errors"], own_floor_notes(args.paths, scores, args.config)))
    return 1 if broken else 0


# ---------------------------------------------------------------- text


def _clip(text: str, width: int) -> str:
    """Cut text to ``width`` characters with an ellipsis."""
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Left-aligned columns separated by two spaces."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]


def _wins(s: KernelScore) -> str:
    """``3 of 12`` kernel-clock shapes won (those of "vs any"); a dash without one (never ``0 of 0``)."""
    return f"{s.kernel_outcomes[0]} of {s.kernel_vs_any[1]}" if s.kernel_vs_any else _DASH


def _ratio(s: KernelScore) -> str:
    """The ratio the verdict rests on, never rounded across a threshold (``words.ratio_text``: 0.9469 is 0.947x)."""
    return ratio_text(s.verdict_value, (s.thresholds.headroom, s.thresholds.win), none=_DASH)


def _verdict_cell(s: KernelScore) -> str:
    """``HEADROOM``, ``WIN?`` when uncertain, ``WIN*`` when not like-for-like."""
    return s.verdict + ("?" if s.uncertain else "") + ("*" if s.not_like_for_like else "")


def _said(m) -> str:
    """A message's English, a dash for None."""
    return wording.plain("en", m) if m is not None else _DASH


def _floor_cell(s: KernelScore) -> str:
    """Measured shapes at the timing floor (rule 11), a dash for none."""
    return str(s.at_floor) if s.at_floor else _DASH


def render_text(scores: list[KernelScore], shapes: bool = False, broken: dict[str, str] | None = None,
                floors: list[tuple[str, str]] | None = None) -> str:
    """The readable table of every timed kernel (a broken campaign a row of its own), then untimed
    ones and notes (``floors``' lines first, then each broken campaign's one line)."""
    broken = broken or {}
    if not scores and not broken:
        return ""
    timed = [s for s in scores if s.verdict != UNTIMED]
    lines = []
    if timed:
        t = timed[0].thresholds
        lines.append(f"candidate {timed[0].candidate}; WIN >= {t.win:g}, HEADROOM < {t.headroom:g} "
                     f"(the ratio the verdict rests on, by its basis: shapes = geomean vs a comparable baseline "
                     f"over shapes above the timing floor, pair = the profiled pair; vs any = geomean vs the "
                     f"best baseline of any kind, and its wins, parity and losses, over the shapes where both rows are "
                     f"graph-replayed and below every roof; interval = how far the "
                     f"verdict geomean moves with the shapes picked (90 % shape bootstrap); ? = an interval reaches across a "
                     f"threshold; * = not like-for-like; launch = at least what a call costs more than the fastest baseline's "
                     f"call where the work is too small to hide it (a lower bound): the launcher, not the kernel)")
    if timed or broken:
        rows = [[s.op, _verdict_cell(s), _ratio(s), s.verdict_basis, s.geomean_text, _wins(s),
                 "/".join(map(str, s.kernel_outcomes[1:])) if s.kernel_vs_any else _DASH, _floor_cell(s), s.weighted_text,
                 f"{s.candidate_ok}/{s.n_shapes}", s.failures_text, _clip(s.worst_text, 60), _said(s.interval_msg),
                 _launch_cell(s)] for s in timed]
        rows += [[op, BROKEN, *[_DASH] * 12] for op in broken]
        rows.sort(key=lambda r: r[0])
        lines += _table(["kernel", "verdict", "ratio", "basis", "vs any", "wins", "par/loss", "at floor",
                         "weighted", "cand ok", "failures", "worst shape", "interval", "launch"], rows)
    untimed = [s for s in scores if s.verdict == UNTIMED]
    if untimed:
        lines.append("")
        lines.append("untimed (ledger only): " + ", ".join(f"{s.op} ({plural(s.n_shapes, 'shape')})" for s in untimed))
    notes = [*(floors or [])] + [(s.op, n) for s in timed for n in _kernel_notes(s)]
    notes += [(op, f"{BROKEN}: {e}") for op, e in broken.items()]
    if notes:
        lines.append("")
        lines += [f"{op}: {n}" for op, n in notes]
    if shapes:
        for s in timed:
            lines.append("")
            lines.append(f"{s.op} ({s.name}): {s.verdict}, {s.verdict_reason}")
            lines += _table(*_shape_rows(s, 50))
    return "\n".join(lines) + "\n"


def _launch_cell(s: KernelScore) -> str:
    """Rule 13's launch overhead as its reading allows (``verdicts.launchline.cell``)."""
    return launchline.cell(s)


def _kernel_notes(s: KernelScore) -> list[str]:
    """Flags and notes worth a line under the table."""
    out = []
    if s.call_pair_msg is not None:
        out.append(_said(s.call_pair_msg))
    if s.verdict == "BLOCKED" or set(s.flag_keys) - {"hard_failures"}:
        flags = [f for f in s.flags if "hard failure" not in f]  # hard failures have their column
        out.append(f"{s.verdict}: {s.verdict_reason}" + (f" [{'; '.join(flags)}]" if flags else ""))
    if s.headline_note and not (s.pair_clock == "call" and not s.call_geomean):  # the call pair has its line above
        out.append(s.headline_note)
    out += s.notes
    return out


def _shape_rows(s: KernelScore, args_width: int) -> tuple[list[str], list[list[str]]]:
    """Header and rows of one kernel's per-shape table."""
    header = ["args", "stage", "model", "weight", *s.providers, "best", "speedup", "verdict vs", "ratio", "failure"]
    rows = []
    for sh in s.shapes:
        cells = [_clip(sh.args_text, args_width), sh.stage, _clip(sh.model, 24),
                 _DASH if sh.weight is None else f"{sh.weight:g}"]
        for p in s.providers:
            r = sh.providers.get(p)
            cells.append(r.time_text if r else _DASH)
        ratio = _DASH if sh.verdict_speedup is None else f"{sh.verdict_speedup:.2f}x" + (" floor" if sh.at_floor else "")
        speedup = "— replay misses work" if sh.measured and sh.replay_partial else sh.speedup_text  # rule 16
        cells += [sh.best_baseline or _DASH, speedup, sh.verdict_baseline or _DASH, ratio,
                  _clip(sh.failure_short or "", 60)]
        rows.append(cells)
    return header, rows


# ---------------------------------------------------------------- markdown


def clock_exceptions(scores: list[KernelScore]) -> list[str]:
    """The verdict ratios that are not on the kernel clock, said per kernel: a profiled pair whose clock is
    not the kernel's (rule 13); verdict shapes always are (rule 10 compares two graph-replayed rows only)."""
    out = []
    for s in scores:
        if s.verdict_value is None:
            continue
        if s.verdict_basis == "pair" and s.pair_clock != "kernel":
            out.append(f"`{s.op}`: its profiled pair's clock is {s.pair_clock or 'unknown'} (not read from a device timer)")
    return out


def clock_sentence(scores: list[KernelScore]) -> str:
    """The footer's sentence on the clock the ratios are on, following the data: every one on the kernel
    clock, or which are not."""
    kernel = "the kernel clock (graph replay after an L2 flush, `median_us`)"
    exceptions = clock_exceptions(scores)
    if not exceptions:
        return f"Every ratio is on {kernel}"
    return f"Every ratio is on {kernel} but these: " + "; ".join(exceptions)


def _md(text: str) -> str:
    """Escape a table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(scores: list[KernelScore], shapes: bool = False, broken: dict[str, str] | None = None,
                    floors: list[tuple[str, str]] | None = None) -> str:
    """A Markdown table: verdict, geomean, wins k of n, weighted, failures, worst shape; a broken
    campaign is a row saying so, with its one line under the table (``floors``' lines first)."""
    broken = broken or {}
    if not scores and not broken:
        return ""
    timed = [s for s in scores if s.verdict != UNTIMED]
    lines = ["| Kernel | Verdict | Ratio | Interval | Basis | Launch overhead | Vs any baseline | Wins | At floor "
             "| Weighted | Failures | Worst shape |",
             "|---|---|---:|---|---|---:|---:|---|---:|---:|---|---|"]
    for s in timed:
        verdict = f"**{s.verdict}**" + (f", {_md(s.basis_text)}" if s.basis_text else "")
        verdict += " (uncertain)" if s.uncertain else ""
        if s.reference_only:
            verdict += " (reference only)"
        if s.not_like_for_like:
            verdict += " (not like-for-like)"
        if s.call_pair_msg is not None:
            verdict += f"; {_md(_said(s.call_pair_msg))}"
        worst = _DASH
        w = s.kernel_worst
        if w:
            worst = f"{w.speedup_text} vs {_md(w.best_baseline or '')} `{_md(_clip(w.args_text, 120))}`"
        lines.append(f"| {_md(s.name)} (`{s.op}`) | {verdict} | {_ratio(s)} | {_md(_said(s.interval_msg))} "
                     f"| {s.verdict_basis} | {_launch_cell(s)} | {s.geomean_text} | {_wins(s)} | {_floor_cell(s)} | {s.weighted_text} | {s.failures_text} "
                     f"| {worst} |")
    lines += [f"| `{op}` | **{BROKEN}** |" + f" {_DASH} |" * 10 for op in broken]
    if timed:
        t = timed[0].thresholds
        lines.append("")
        lines.append(f"Speedup = baseline time / {timed[0].candidate} time; WIN >= {t.win:g}, HEADROOM < "
                     f"{t.headroom:g}. Ratio: what the verdict rests on (basis `shapes`: the geomean against a "
                     f"baseline timed the same way over the same work, shapes at the timing floor left out; "
                     f"`pair`: the profiling sweep's hand-matched pair). Vs any baseline: the geomean against "
                     f"the fastest baseline of any kind, for reference, over the shapes where both rows are graph-replayed "
                     f"and below every roof. {clock_sentence(timed)}. A pair timed on the call clock is named as call time "
                     f"in the verdict cell. Launch overhead: at least what a call of {timed[0].candidate} costs more than the "
                     f"fastest baseline's call (eager call times) where the work is too small to hide it, a lower bound (the "
                     f"harness's L2 flush hides part of the host path), the launcher's cost, not the kernel's. Interval: how "
                     f"far the verdict geomean moves with the shapes "
                     f"picked (90 % shape bootstrap), not run-to-run noise.")
    notes = [*(floors or [])] + [(s.op, n) for s in timed for n in _kernel_notes(s)]
    notes += [(op, f"{BROKEN}: {e}") for op, e in broken.items()]
    untimed = [s for s in scores if s.verdict == UNTIMED]
    if untimed:
        notes.append(("untimed", ", ".join(f"`{s.op}` ({plural(s.n_shapes, 'shape')})" for s in untimed)))
    if notes:
        lines.append("")
        lines += [f"- `{op}`: {_md(n)}" for op, n in notes]
    if shapes:
        for s in timed:
            header, rows = _shape_rows(s, 80)
            lines += ["", f"### {_md(s.name)} (`{s.op}`): {s.verdict}", "",
                      "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"

