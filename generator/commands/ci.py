"""``kernel-atlas ci HISTORY.json [--runs RUNS.json]``: read the FlyDSL CI benchmark stream (DOMAIN.md §6).

Text by default; ``--json`` prints the whole reading (series count, noise, PR checks, health
against the release tag, inverted speedup rows, FlyDSL-vs-AIter speedups); ``--markdown --pr N``
prints the comment pull request N would get. A record without its keys is skipped with a warning
on stderr; another schema or a truncated file stops with one line (exit 2).
"""

from __future__ import annotations

import os
import sys

from generator.analyze.ci import report as ci_report
from generator.analyze.ci.moves import IMPROVEMENT, NOISE, REGRESSION, Move, noise_summary, threshold_text
from generator.errors import InputError
from generator.read import jsonio
from generator.read.ci_stream import read_history, read_runs
from generator.words import plural

NAME = "ci"
HELP = "Read the FlyDSL CI benchmark stream: PR checks against each series' noise, health against the release tag, speedups."
ORDER = 45


def add_arguments(p) -> None:
    """HISTORY.json, the runs file, the output format."""
    p.add_argument("history", metavar="HISTORY.json", help="the stream (history.json of the ci-dashboard-data branch)")
    p.add_argument("--runs", metavar="RUNS.json", help="runs.json beside it: skips pull-request runs among the pushes")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the whole reading as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print a pull request's comment (with --pr)")
    p.add_argument("--pr", type=int, metavar="N", help="the pull request of --markdown")
    p.add_argument("--base-url", "--site-url", dest="site_url", metavar="URL",
                   default=os.environ.get("KERNEL_ATLAS_BASE_URL", "") or None,
                   help="absolute URL the site (build --ci) is served at, for the links of --markdown "
                        "(default: $KERNEL_ATLAS_BASE_URL; none: no links)")


def pct(x: float | None) -> str:
    """A log-ratio noise as a percentage (``0.37 %``), ``unknown`` when None."""
    return "unknown" if x is None else f"{x * 100:.2f} %"


def series_name(m: Move) -> str:
    r = m.record
    return f"{r.op} {r.shape} {r.dtype} {r.metric}"


def format_text(rep: ci_report.Report) -> str:
    """The terminal report."""
    s = rep.stream
    n = noise_summary(rep.series)
    lines = [f"FlyDSL CI stream: {s.path} ({s.repo or 'unknown repository'}, updated {s.updated or 'unknown'})",
             f"{len(s.records):,} records, {plural(len(rep.series), 'series', 'series')}, "
             f"{plural(len(rep.prs), 'pull request')}" + (f"; {plural(len(s.warnings), 'record')} skipped" if s.warnings else "")]
    if n["known"]:
        lines.append(f"noise (1.4826 x MAD of ln vs_main ratio over PR pairs): {n['known']} series known, {n['unknown']} unknown; "
                     f"median {pct(n['median'])}, p90 {pct(n['p90'])}, worst {pct(n['worst'])} ({' '.join(n['worst_series'])})")
    lines.append(f"their -3 % flags on PR records: {rep.flags_total}, of which {rep.flags_noise} within noise or resolution")
    lines.append("health (latest push to main against the release tag):")
    for runner, h in rep.health.items():
        regs = h.of(REGRESSION)
        lines.append(f"  {runner}: run {h.run_id} ({h.ts}, tag {h.tag or 'none'}): "
                     f"{plural(len(regs), 'regression')} of {plural(len(h.moves), 'pair')} compared")
        lines += [f"    {series_name(m)}: {m.ratio:.3f}x (threshold {threshold_text(m)})" for m in regs]
    lines.append("pull request checks (latest run per runner):")
    for c in rep.checks:
        lines.append(f"  #{c.pr} {c.runner} run {c.run_id}: {plural(len(c.of(REGRESSION)), 'regression')}, "
                     f"{plural(len(c.of(IMPROVEMENT)), 'improvement')}, {len(c.of(NOISE))} within noise; "
                     f"their flags {len(c.flags)} ({c.flags_noise} within noise)")
    for pr in rep.prs:
        missing = ci_report.missing_runners(rep, pr)
        if missing:
            lines.append(f"  #{pr} run {rep.pr_runs[pr][0]}: no results from "
                         + ", ".join(f"{r} (job {state})" for r, state in missing))
    lines.append("FlyDSL vs AIter (aiter_us / flydsl_us, > 1: FlyDSL faster; range of the last runs):")
    for sp in rep.speedups:
        lines.append(f"  {sp.runner} {sp.op} {sp.shape} {sp.dtype}: {sp.ratio:.2f}x {sp.verdict} "
                     f"(last {len(sp.last)}: {min(sp.last):.2f}x-{max(sp.last):.2f}x)")
    lines.append(f"speedup rows stored the other way round (flydsl/aiter): {len(rep.inverted)}")
    return "\n".join(lines) + "\n"


def _table(moves: list[Move], site_url: str | None, series: dict) -> list[str]:
    """The Markdown table of some moves; each op links to its series' trend when the site's URL is known. A
    move whose branch is at the release tag's level while main moved since (``ci_report.at_tag_level``) says
    so in its basis: the gap is main's, not the pull request's."""
    rows = ["| op | shape | dtype | metric | ratio | threshold | noise | basis |", "|---|---|---|---|---|---|---|---|"]
    for m in moves:
        r = m.record
        op = f"[`{r.op}`]({page_link(site_url, ci_report.series_page(r.series))})" if site_url else f"`{r.op}`"
        tag = ci_report.at_tag_level(m, series)
        basis = m.basis + (f"; the branch at the tag's level ({tag.ratio:.3f}x of the tag): main moved since the tag"
                           if tag is not None else "")
        rows.append(f"| {op} | `{r.shape}` | {r.dtype} | {r.metric} | {m.ratio:.3f}x | "
                    f"{threshold_text(m)}x | {pct(m.noise)} | {basis} |")
    return rows


def _heading(moves: list[Move], word: str, series: dict) -> str:
    """"**3 regressions** (3 at the tag's level: main moved since the tag)", the count bold."""
    at_tag = sum(ci_report.at_tag_level(m, series) is not None for m in moves)
    return f"**{plural(len(moves), word)}**" + (f" ({at_tag} at the tag's level: main moved since the tag)" if at_tag else "")


def page_link(site_url: str | None, page: str) -> str:
    return f"{site_url.rstrip('/')}/{page}" if site_url else ""


def format_markdown(rep: ci_report.Report, pr: int, site_url: str | None) -> str:
    """The comment of one pull request: per runner, regressions, improvements, their flags that are noise."""
    checks = [c for c in rep.checks if c.pr == pr]
    if not checks:
        raise InputError(rep.stream.path, f"no record of pull request #{pr} (pull requests: "
                                          f"{', '.join(str(p) for p in rep.prs) or 'none'})")
    out = [f"### FlyDSL CI: pull request #{pr}", "",
           "Each paired ratio (this PR against main, rebuilt in the same job on the same machine) is read against "
           "its series' own run-to-run noise (3 x noise, at least the 3 % gate); a change under two steps of the "
           "printed digit is no move.", ""]
    link = page_link(site_url, ci_report.pr_page(pr))
    if link:
        out += [f"[The check's page]({link})", ""]
    missing = ci_report.missing_runners(rep, pr)
    if missing:
        out += ["No results from " + ", ".join(f"`{r}` (job {state})" for r, state in missing)
                + " in the latest run.", ""]
    for c in checks:
        regs, imps, noise = c.of(REGRESSION), c.of(IMPROVEMENT), c.of(NOISE)
        out += [f"#### `{c.runner}` (run {c.run_id}, commit `{c.commit[:10]}`)", ""]
        if regs:
            out += [_heading(regs, "regression", rep.series), ""] + _table(regs, site_url, rep.series) + [""]
        else:
            out += ["No regression beyond noise.", ""]
        if imps:
            out += [_heading(imps, "improvement", rep.series), ""] + _table(imps, site_url, rep.series) + [""]
        noisy = [f for f in c.flags if ci_report.flag_is_noise(f, rep.series)]
        if c.flags:
            out.append(f"Their -3 % gate flagged {len(c.flags)}; {len(noisy)} of them within noise or resolution"
                       + (":" if noisy else "."))
            out += [f"- `{f.op}` `{f.shape}` {f.dtype}: {f.vs_main.ratio:.3f}x" if f.vs_main and f.vs_main.ratio is not None
                    else f"- `{f.op}` `{f.shape}` {f.dtype}: no usable pair" for f in noisy]
            out.append("")
        out += [f"{plural(len(noise), 'pair')} within noise.", ""]
    return "\n".join(out).rstrip() + "\n"


def write_bytes(data: bytes) -> None:
    """UTF-8 bytes to stdout in one write (a stream without a buffer, e.g. a test's, gets the text)."""
    out = getattr(sys.stdout, "buffer", None)
    if out is None:
        sys.stdout.write(data.decode("utf-8"))
        return
    sys.stdout.flush()
    out.write(data)
    out.flush()


def load(history: str, runs: str | None) -> ci_report.Report:
    """Read and analyze; skipped records are warned about on stderr."""
    stream = read_history(history)
    for w in stream.warnings:
        print(f"kernel-atlas: warning: {w}", file=sys.stderr)
    return ci_report.analyze(stream, read_runs(runs) if runs else None)


def run(args) -> int:
    """Read the stream and print the chosen output."""
    if args.markdown and args.pr is None:
        raise InputError(None, "--markdown needs --pr N (the pull request to comment on)")
    rep = load(args.history, args.runs)
    if args.json:
        write_bytes(jsonio.dumps_sorted(ci_report.to_json(rep), indent=True))
    elif args.markdown:
        sys.stdout.write(format_markdown(rep, args.pr, args.site_url))
    else:
        sys.stdout.write(format_text(rep))
    return 0
