"""Gather what the pages show: analyze and score one kernel (``gather_kernel``), and the
sweep-level facts of the overview. A failing optional stage is recorded against its kernel,
never fatal.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from generator.analyze import analysis, commits, config_match, message, report_checks, state
from generator.analyze.message import english, sentence
from generator.analyze.verdicts.clocks import CALL
from generator.analyze.verdicts.rules import FLOOR_FACTOR
from generator.config import CONFIG_NAME, SweepConfig
from generator.errors import InputError, relative_text
from generator.model import Bundle, CaptureAnalysis, STALL_TYPES, record
from generator.read import att, campaign_suite, discover, jsonl, rocprof
from generator.site import render, wording
from generator.site.plan import KernelPlan, pick_wave
from generator.site.views import base as base_views
from generator.site.views import index_row as row_views

TIMELINE_BINS = 120
MAX_SOURCE_BYTES = 2_000_000


def load_timeline(capture_dir: str, a: CaptureAnalysis, bins: int = TIMELINE_BINS) -> tuple[base_views.WaveTimeline | None, str]:
    """Issue and stall cycles over time of the longest sampled wave (only that wave file is parsed)."""
    wave = pick_wave(att.present_waves(capture_dir, a.waves))
    if wave is None:
        return None, sentence("msg.cap.wavesmissing" if a.waves else "msg.cap.nowavefile")
    rows = att.read_wave(capture_dir, wave)
    if not rows:
        return None, sentence("msg.cap.emptywave", file=wave.file)
    types = {ins.pc_index: ins.type for ins in a.instructions}
    start = rows[0][0]
    end = max([r[0] + r[3] if r[3] > 0 else r[0] for r in rows])  # a row ends at time + duration (if > 0)
    span = max(1, end - start)
    width = max(1, -(-span // bins))
    n = -(-span // width)
    issue = [0] * n
    stall: dict[str, list[int]] = {t: [0] * n for t in STALL_TYPES}
    last = n - 1
    for t, _kind, st, dur, pc in rows:  # one pass over every instruction of the wave: kept lean
        b = (t - start) // width
        b = last if b > last else 0 if b < 0 else b
        if st > 0:
            if dur > st:
                issue[b] += dur - st
            name = types.get(pc, "other")
            column = stall.get(name)
            if column is None:
                column = stall[name] = [0] * n
            column[b] += st
        elif dur > 0:
            issue[b] += dur
    stall = {k: v for k, v in stall.items() if any(v)}
    end = _closing_end(rows, a, issue, start, width, last)
    return base_views.WaveTimeline(
        wave=wave, n_instructions=len(rows), bin_cycles=width, starts=[i * width for i in range(n)],
        issue=issue, stall=stall, total_stall=sum(sum(v) for v in stall.values()), total_issue=sum(issue),
        end=end, total_end=sum(end),
    ), ""


def _closing_end(rows: list, a: CaptureAnalysis, issue: list[int], start: int, width: int, last: int) -> list[int]:
    """The cycles of the wave's closing ``s_endpgm`` beyond its stall, moved out of ``issue`` (in place) into
    a series of their own: the wave issues it once and then waits to end (vec_add's longest wave: 3,816 of the
    3,892 cycles the rows give past their stalls sit on it; quant 2,652 of 3,888, softmax 2,192 of 4,832)."""
    end = [0] * len(issue)
    t, _kind, st, dur, pc = rows[-1]
    if not any(ins.pc_index == pc and ins.asm.lstrip().startswith("s_endpgm") for ins in a.instructions):
        return end
    past = max(dur - max(st, 0), 0)
    b = min(max((t - start) // width, 0), last)
    issue[b] -= past
    end[b] += past
    return end


def read_sources(a: CaptureAnalysis) -> dict[str, list[str]]:
    """Snapshot source files of a capture that exist (paths were checked to stay inside it)."""
    out = {}
    for vpath, local in sorted(a.sources.items()):
        try:
            if not os.path.isfile(local) or os.path.getsize(local) > MAX_SOURCE_BYTES:
                continue
            with open(local, encoding="utf-8", errors="replace") as fh:
                out[vpath] = fh.read().splitlines()
        except OSError:
            continue
    return out


@record
class Env:
    """What gathering needs besides the plan."""

    root: str
    config: SweepConfig
    kernels_json: dict[str, Any] | None
    mods: dict[str, Any]
    warn: Callable[[str], None]
    floor_us: float | None = None  # the sweep's timing floor (VERDICTS rule 11)


def _stage(k: base_views.KernelData, env: Env, what: str, fn: Callable, *args, **kwargs):
    """Run an optional stage; its failure is recorded against the kernel, never fatal."""
    try:
        return fn(*args, **kwargs)
    except InputError as err:
        k.broken.append(sentence("msg.broken", msg_what=what, error=relative_text(err.message, env.root)))
    except Exception as err:  # a bug in one stage must not take the whole site down
        msg = relative_text(f"{type(err).__name__}: {err}", env.root)
        k.broken.append(sentence("msg.broken.failed", msg_what=what, error=msg))
        env.warn(f"{k.slug}: {what} failed: {msg}")
    return None


def site_pmc_notes(counters, bundle_rel: str) -> list[str]:
    """The counter notes for the kernel page: the ``pmc`` command's advice on mixed kernels
    (``msg.pmc.mixed``: "pass --kernel-contains", an option ``build`` has not) becomes what to do
    for the site: the build sums every kernel when no capture names one; ``kernel-atlas pmc`` reads one."""
    kernels = list(counters.kernels)
    if counters.kernel_filter or len(kernels) < 2:
        return list(counters.notes)
    mixed = english("msg.pmc.mixed", n=len(kernels), flag="--kernel-contains")
    said = sentence("msg.pmc.mixed.site", n=len(kernels), cmd=f"kernel-atlas pmc {bundle_rel} --kernel-contains TEXT")
    return [said if str(n) == mixed else n for n in counters.notes]


def gather_kernel(plan: KernelPlan, env: Env) -> tuple[base_views.KernelData, dict[str, Any]]:
    """Analyze and score one kernel: its KernelData, and the extra the overview caches. The files
    its stages shared (kernel traces, results) are let go when it is done: memory stays flat in
    the number of kernels (issue 25)."""
    try:
        return _gather_kernel(plan, env)
    finally:
        rocprof.forget_traces()
        jsonl.forget_records()


def _gather_kernel(plan: KernelPlan, env: Env) -> tuple[base_views.KernelData, dict[str, Any]]:
    m = env.mods
    k = base_views.KernelData(slug=plan.slug, name=plan.name, op=plan.op, category=plan.category,
                         bundle_rel=relative_text(plan.bundle.path, env.root).replace(os.sep, "/") if plan.bundle else None,
                         prev=plan.prev, next=plan.next,
                         profiled_commit=commits.sweep_profiled_commit(
                             commits.declared_provenance(env.kernels_json, env.config.provenance), env.config.candidate))
    extra: dict[str, Any] = {}
    if plan.joined is not None and plan.bundle is not None:  # the page says when a join was inferred (issue 40)
        k.notes.append(sentence(f"msg.note.joined.{plan.joined.rule}", op=plan.joined.op, bundle=plan.bundle.name,
                                name=plan.joined.evidence))
    vmod = m.get("verdicts")
    if plan.op and plan.campaign_dir and vmod is not None:
        rel = discover.rel_path(plan.campaign_dir, env.root)
        res = _stage(k, env, sentence("msg.stage.scoring"), vmod.score_folder, plan.campaign_dir, env.config,
                     env.kernels_json, name=plan.op, rel=rel, floor_us=env.floor_us)
        if isinstance(res, InputError):
            k.score_error = relative_text(res.message, env.root)
            problem = state.campaign_problem(rel, k.score_error)
            k.broken.append(problem)
            k.standing_problems.append(problem)
        elif res is not None:
            k.score = res
            k.headline, k.headline_note = res.headline, res.headline_note
            extra["provenance"] = dict(res.provenance)
    elif plan.entry and vmod is not None:
        t = vmod.Thresholds.from_config(env.config)
        k.headline = vmod.headline_pair(plan.entry, env.config.candidate, t)
    if plan.bundle is not None:
        _gather_bundle(plan.bundle, k, env, plan.campaign_dir)
    for path in campaign_suite.campaign_reports(plan.campaign_dir) if plan.campaign_dir else ():
        text = _stage(k, env, os.path.basename(path), render.read_report, path)
        if text is not None:
            k.campaign_reports.append((os.path.basename(path), render.render_markdown(text, top=4)))  # under its h3
    if plan.campaign_dir and m.get("roofline") is not None and k.score is not None and k.score.is_verdict:
        r = _stage(k, env, sentence("msg.stage.roofline"), m["roofline"].campaign_roofline, plan.campaign_dir, env.config)
        if r is not None and r.points:
            if k.score.clock == CALL:  # rule 13: a campaign timed on the call clock only
                r.mark_call_clock()
            if k.score.graph_partial:  # rule 16: the candidate's graph rows are no kernel evidence
                r.mark_partial_replay(k.score.candidate)
            r.mark_floor(k.score.floor_us, FLOOR_FACTOR)  # rule 11: the harness's fixed cost sets those times
            k.roofline = r.to_json()
    _missing(plan, k)
    prim = k.primary
    if prim is not None and k.score is not None and plan.campaign_dir:
        k.capture_config = _stage(k, env, sentence("msg.stage.config"), capture_config, k)
    if prim is not None and prim.findings is not None:
        extra["findings"] = prim.findings
    elif prim is None and m.get("advice") is not None:  # no capture: the launcher is all the reading can count
        launch = m["advice"].launch_finding(k.score)
        if launch is not None:
            launch.evidence["without_capture"] = True  # the sweep reading still files the kernel under "no capture"
            extra["findings"] = [finding_json(launch)]
    return k, extra


def _gather_bundle(bundle: Bundle, k: base_views.KernelData, env: Env, campaign_dir: str | None = None) -> None:
    """Captures (analysis, timeline, sources, advice), counters, run statistics, comparisons, report."""
    m = env.mods
    k.primary_rule = bundle.primary_rule
    results = analysis.analyze_bundle(bundle)
    analyses: list[CaptureAnalysis] = []
    for r in results:
        base = dict(label=r.ref.label, rel=r.ref.rel, is_primary=r.is_primary)
        if r.status == "skipped":
            k.captures.append(base_views.CaptureData(name=r.ref.name, status="skipped", problem=analysis.skip_reason(r.ref.skipped), **base))
            continue
        if r.error is not None:
            msg = relative_text(r.error.message, env.root)
            k.captures.append(base_views.CaptureData(name=r.ref.name, status="broken", problem=msg, **base))
            k.broken.append(state.capture_problem(r.ref.rel, msg))
            if r.is_primary:
                k.standing_problems.append(k.broken[-1])
            continue
        for j, a in enumerate(r.analyses):
            name = r.ref.name if len(r.analyses) == 1 else f"{r.ref.name} #{j + 1} ({a.capture})"
            cd = base_views.CaptureData(name=name, status="ok", analysis=a, **base)
            cd.is_primary = r.is_primary and j == 0
            if a.vendor == "amd" and r.ref.format == "att":
                tl = _stage(k, env, sentence("msg.stage.timeline", rel=r.ref.rel), load_timeline, r.ref.path, a)
                if tl is not None:
                    cd.timeline, cd.timeline_note = tl
            cd.source_text = read_sources(a)
            k.captures.append(cd)
            analyses.append(a)
    score = k.score
    verdict = score if score is not None and score.is_verdict else None
    geomean = score.geomean_vs_best if verdict is not None else None
    prim = k.primary
    jit = prim.analysis.jit_kernel if prim and prim.analysis else None
    counters, no_counter_file = None, False
    if m.get("pmc") is not None:
        broken = len(k.broken)
        counters = _stage(k, env, sentence("msg.stage.counters"), m["pmc"].analyze_bundle_counters, bundle.path, jit or None)
        if counters is not None:
            counters.notes = site_pmc_notes(counters, relative_text(bundle.path, env.root).replace(os.sep, "/"))
            k.counters = counters.to_json()
            k.counter_reading = list(getattr(counters, "reading", []) or [])
        no_counter_file = counters is None and len(k.broken) == broken  # read fine, found none
    if m.get("runstats") is not None:
        rs = _stage(k, env, sentence("msg.stage.runstats"), m["runstats"].bundle_run_stats, bundle.path, jit)
        if rs is not None:
            if no_counter_file:  # the panel is "Run statistics and counters": say which half is missing
                rs.notes.append(sentence("msg.run.nopmc", files="*_counter_collection.csv, pmc_perf.csv", db="rocpd"))
            k.runstats = rs.to_json()
    adv = m.get("advice")
    if adv is not None:
        for cd in k.captures:
            if cd.analysis is None:
                continue
            ctx = _stage(k, env, sentence("msg.stage.context", rel=cd.rel), adv.context_for, cd.analysis, bundle,
                         counters if cd.is_primary else None, verdict, geomean, env.config)
            found = _stage(k, env, sentence("msg.stage.advice", rel=cd.rel), adv.advise, cd.analysis, ctx)
            if found is not None and cd.is_primary:  # the launcher ranked among the kernel's findings (rule 13)
                found = adv.with_launch(found, adv.launch_finding(score))
            if found is not None:
                plan = adv.plan_basis(cd.analysis)
                cd.findings = [finding_json(f, plan) for f in found]
                if cd.is_primary and score is not None and score.verdict == "HEADROOM":
                    text = _stage(k, env, sentence("msg.stage.why"), adv.why_not_winning, found, cd.analysis)
                    if text:
                        k.why_not = {"text": text, "findings": [finding_json(f) for f in found if f.ranked][:3]}
                        said = _stage(k, env, sentence("msg.stage.why"), adv.why_not_winning_message, found, cd.analysis)
                        if said is not None:
                            k.why_not["i18n"] = said.to_json()
            if cd.analysis.vendor != "amd":
                continue  # MFMA latencies are CDNA facts
            notes = _stage(k, env, sentence("msg.stage.mfma", rel=cd.rel), adv.mfma_annotations, cd.analysis)
            if notes:
                cd.mfma = {pc: n.to_json() for pc, n in notes.items()}
    if m.get("compare") is not None and len(analyses) > 1:
        pairs = _stage(k, env, sentence("msg.stage.comparison"), m["compare"].pairs_to_compare, bundle, analyses) or []
        for pair in pairs:
            cmp = _stage(k, env, sentence("msg.stage.comparison"), m["compare"].compare_captures, pair.a, pair.b)
            if cmp is not None:
                k.compare.append({"title": pair.title, "kind": pair.kind, "comparison": cmp.to_json()})
    nsum = m.get("ncu_summary")
    if nsum is not None and prim is not None and prim.analysis is not None and prim.analysis.vendor == "nvidia":
        launches = [c.analysis for c in k.captures if c.analysis is not None and c.rel == prim.rel]
        rows, ledger = [], []
        if campaign_dir:
            camp = _stage(k, env, sentence("msg.stage.campaign"), campaign_suite.read_campaign_folder, campaign_dir)
            if camp is not None:
                rows, ledger = camp.rows, camp.ledger
        summary = _stage(k, env, sentence("msg.stage.ncu"), nsum.ncu_summary, launches, rows, ledger,
                         env.config.candidate, env.config.win, env.config.headroom)
        if summary is not None:
            k.ncu_summary = summary
    if bundle.report:
        text = _stage(k, env, "REPORT.md", render.read_report, bundle.report)
        if text is not None:
            k.report_html = render.render_markdown(text, top=3)  # under the page's h2 section
            occ = prim.analysis.occupancy if prim is not None and prim.analysis is not None else None
            k.report_checks = [c.to_json() for c in report_checks.check_report(text, occ)]


def timed_lines(score: Any) -> set[int]:
    """Results-file lines of the candidate's timed rows: its usable row on each measured shape."""
    out = set()
    for sh in score.shapes:
        row = sh.providers.get(score.candidate) if sh.measured else None
        if row is not None and row.usable:
            out.add(row.line)
    return out


def capture_config(k: base_views.KernelData) -> dict[str, Any] | None:
    """DOMAIN §1.7: the primary capture's configuration against the candidate's timed rows'
    (``config_match.check``, the rows' ``provider_detail`` the score kept); None when the capture's name
    carries none, or nothing was timed."""
    prim, s = k.primary, k.score
    name = prim.analysis.jit_kernel if prim is not None and prim.analysis is not None else None
    if not name or not s.results_file or config_match.capture_config(name) is None:
        return None
    lines = timed_lines(s)
    if not lines:
        return None
    return config_match.check(name, [s.candidate_details.get(line) for line in sorted(lines)])


def finding_json(f: Any, plan: dict[str, Any] | None = None) -> dict[str, Any]:
    """A finding as the site keeps it: ``Finding.to_json()`` plus its wording by key (``i18n``), and what it
    rests on (``rests_on``: the capture's ``plan`` basis with the finding's own stall cycles, issue 31)."""
    out = f.to_json()
    if getattr(f, "messages", None):
        out["i18n"] = f.messages_json()
    if plan is not None and f.stall_unit == "us":  # the launcher rests on the campaign's call times, not the capture
        from generator.analyze.message import msg

        # n of m: the launch shapes among the measured shapes with a call gap, the set they are chosen from
        n, m = f.evidence.get("launch_shapes", 0), f.evidence.get("measured_with_call_gap", 0)
        out["rests_on"] = {"basis": "call times", "launch_shapes": n, "shapes_with_call_gap": m}
        out.setdefault("i18n", {})["rests_on"] = msg("advice.rests.launch", n=n, m=m).to_json()
    elif plan is not None:  # only with the advice stage, which made the plan
        from generator.analyze.advice import basis

        out["rests_on"] = basis.rests_on(f.stall_cycles, plan)
        out.setdefault("i18n", {})["rests_on"] = basis.rests_msg(out["rests_on"]).to_json()
    return out


def _missing(plan: KernelPlan, k: base_views.KernelData) -> None:
    """The kernel's state (``analyze.state``), and plainly what it lacks."""
    prim = k.primary
    k.state = state.kernel_state(
        plan, k.score, broken=k.standing_problems,
        skipped=[analysis.skipped_note(c.rel, c.problem) for c in k.captures if c.status == "skipped"],
        primary=(prim.rel, prim.analysis) if prim is not None else None,
        analyzed=any(c.analysis is not None for c in k.captures), sweep_profiled=k.profiled_commit)
    k.missing.extend(k.state.missing)
    k.notes.extend(k.state.skipped)
    for c in k.captures:
        if c.analysis is not None and c.analysis.instructions and c.analysis.source_mapped[0] == 0:
            k.notes.append(sentence("msg.note.nodebug", rel=c.rel))


# ---------------------------------------------------------------- the sweep


PROVENANCE_LABELS = {
    "gpu": "GPU", "gpu_count": "GPUs", "arch": "arch", "rocm": "ROCm", "rocprofv3": "rocprofv3",
    "driver": "driver", "torch": "torch", "triton": "triton", "flydsl_version": "FlyDSL",
    "flydsl_commit": "FlyDSL commit", "flydsl_branch": "FlyDSL branch", "candidate_commit": "candidate commit",
    "capture_date": "captured", "cuda": "CUDA",
}


def gap_ratio(row: row_views.IndexRow) -> float | None:
    """The ratio a HEADROOM kernel's gap (ln 1/ratio) is read from: the one its verdict rests on (the row's
    ``ratio``, ``KernelScore.verdict_value``: the verdict geomean of VERDICTS rule 12, or the pair or bound)."""
    return row.ratio


def sweep_reading(extras: dict[str, dict[str, Any]], rows: dict[str, row_views.IndexRow], adv) -> list[dict[str, Any]]:
    """The sweep-level advice (``advice.sweep_findings``) as display items; every HEADROOM kernel takes part
    in the shares, one without a capture under "no capture", which is no finding and is not listed (no
    priority badge for a missing capture: the kernel's page says it, in its captures panel)."""
    if adv is None or not hasattr(adv, "sweep_findings"):
        return []
    per_kernel = {}
    for slug, e in extras.items():
        if "findings" not in e:
            continue
        found = [adv.Finding(**{key: f[key] for key in ("detector", "title", "stall_share", "evidence",
                                                          "suggestion", "priority", "kind", "stall_cycles", "stall_unit")
                                 if key in f},
                             messages={part: message.from_json(m) for part, m in (f.get("i18n") or {}).items()
                                       if part not in ("premise", "rests_on")})
                 for f in e["findings"]]
        row = rows.get(slug)
        if row is not None and row.superseded_by:  # a newer campaign of the same op is read instead
            continue
        per_kernel[slug] = (found, row.verdict if row else None, gap_ratio(row) if row else None,
                            row.first_step if row else None)  # one first step: the kernel page's (``advice.first``)
    if not per_kernel:
        return []
    for slug, row in rows.items():
        if slug not in per_kernel and row.verdict == "HEADROOM" and not row.superseded_by:
            per_kernel[slug] = (None, row.verdict, gap_ratio(row), row.first_step)
    items = []
    for sf in adv.sweep_findings(per_kernel):
        if sf.kind == "nocapture":  # no finding: each kernel's page says it has no capture (its captures panel)
            continue
        text = sf.text[len(sf.title) + 2:] if sf.text.startswith(sf.title + ": ") else sf.text
        said = sf.messages
        body = said["body"] if said else text
        # the launch group rests on the campaigns' call times (said in its own words), not on the captures
        # ... and the groups read from the campaigns alone (where they lose, another configuration) on no capture
        rest = group_rests(sf.kernels, extras, adv) if sf.key not in (adv.LAUNCH_KEY, *adv.CAMPAIGN_KEYS) else None
        if rest is not None:  # the group says what it rests on, after its own words (issue 31)
            body = message.msg("advice.rests.after", body=body, rests=adv.group_msg(rest))
            text = wording.plain("en", body)
        items.append({
            "title": sf.title,
            "text": text,
            "title_said": wording.said(said["title"], en=sf.title) if said else wording.Said(sf.title),
            "text_said": wording.said(body, en=text) if said or rest is not None else wording.Said(text),
            "priority": sf.priority,
            "kernels": [{"href": rows[s].href, "name": rows[s].name} for s in sf.kernels if s in rows],
            "json": {**sf.to_json(), "rests_on": rest},
        })
    capture = capture_failure_item(rows)
    return items + ([capture] if capture else [])


def capture_failure_item(rows: dict[str, row_views.IndexRow]) -> dict[str, Any] | None:
    """The kernels whose candidate cannot be graph-captured on some shapes (VERDICTS rule 10): those shapes
    have no kernel-clock evidence and left their verdicts; None when there is none."""
    failed = {s: r for s, r in rows.items() if r.graph_capture_failed and not r.superseded_by}
    if not failed:
        return None
    members = [message.msg("advice.sweep.capturefail.member", kernel=r.name, n=r.graph_capture_failed[0],
                           total=r.n_measured) for r in failed.values()]
    body = message.msg("advice.sweep.capturefail.body", members=message.Items(tuple(members), "advice.sweep.sep"))
    title = message.msg("advice.sweep.capturefail")
    return {"title": wording.plain("en", title), "text": wording.plain("en", body),
            "title_said": wording.said(title), "text_said": wording.said(body), "priority": "medium",
            "kernels": [{"href": r.href, "name": r.name} for r in failed.values()],
            "json": {"key": "verdict:graph_capture_failed", "kind": "capturefail", "title": wording.plain("en", title),
                     "kernels": sorted(failed), "per_kernel": {s: r.graph_capture_failed for s, r in failed.items()},
                     "headroom_share": None, "headroom_kernels": [], "text": wording.plain("en", body),
                     "priority": "medium", "rests_on": None}}


def group_rests(kernels: list[str], extras: dict[str, dict[str, Any]], adv) -> dict[str, Any] | None:
    """What a sweep group rests on: the primary captures' plan bases of its kernels (``advice.group_basis``)."""
    plans = []
    for slug in kernels:
        found = (extras.get(slug) or {}).get("findings") or []
        rest = adv.capture_rest(found) if hasattr(adv, "capture_rest") else None
        if rest is not None:
            plans.append({key: v for key, v in rest.items() if key != "finding_stall_cycles"})
    return adv.group_basis(plans) if hasattr(adv, "group_basis") else None


def default_title(kernels_json: dict[str, Any] | None) -> str:
    """Title without configuration: the sweep's GPU when kernels.json names it."""
    prov = (kernels_json or {}).get("provenance") if isinstance((kernels_json or {}).get("provenance"), dict) else {}
    gpu = prov.get("gpu") if isinstance(prov, dict) else None
    return f"Kernel Atlas: {gpu}" if isinstance(gpu, str) and gpu else "Kernel Atlas"


def overview_notes(root: str) -> list[str]:
    """Sweep-level notes: which configuration is in use."""
    if os.path.isfile(os.path.join(root, CONFIG_NAME)):
        return [sentence("msg.note.config", name=CONFIG_NAME)]
    return [sentence("msg.note.noconfig", name=CONFIG_NAME, cand="flydsl", win="1.05", headroom="0.95")]
