"""Why a kernel got its verdict: one sentence naming the rung of the evidence ladder, in English and by key."""

from __future__ import annotations

from generator.analyze.message import Msg, msg
from generator.analyze.verdicts.rules import HEADROOM, PARITY, WIN, plural
from generator.analyze.verdicts.shapes import ShapeResult, _fmt_x


def verdict_reason(score: "KernelScore", shapes: list[ShapeResult]) -> tuple[str, Msg]:
    """One sentence saying which rung of the ladder gave the verdict, and the same worded by key."""
    t, verdict, candidate = score.thresholds, score.verdict, score.candidate
    n_measured, hard = score.n_measured, score.hard_failures
    if score.verdict_basis == "failures":
        if n_measured == 0:
            if not any(s.candidate_status for s in shapes):
                return f"no measured shape: {candidate} has no rows", msg("verdict.reason.norows", candidate=candidate)
            return (f"no measured shape ({candidate} usable with a baseline on 0 of {len(shapes)})",
                    msg("verdict.reason.unusable", candidate=candidate, n=len(shapes)))
        return (f"{plural(hard, 'hard failure')} > {plural(n_measured, 'measured shape')}",
                msg("verdict.reason.blocked", hard=hard, n=n_measured))
    if score.blocked_reason == "timed on the call clock only":
        g, n = score.call_geomean or (None, 0)
        gx = _fmt_x(g)
        return (f"timed on the call clock only: every time of this campaign includes a call from the host (event "
                f"timing, no graph replay), so none says what the kernel costs; call time {gx} over {plural(n, 'shape')}; "
                f"time it with graph replay (or set [campaigns.{score.op}] clock = \"kernel\" if it was)",
                msg("verdict.reason.callonly", g=gx, n=n, setting=f'[campaigns.{score.op}] clock = "kernel"'))
    if score.verdict_basis == "none":
        if score.verdict_geomean and score.pair_clock == "call":  # the pair times the launcher, not the kernel
            g, n = score.verdict_geomean
            h = score.headline
            pair, us, dev = _fmt_x(h.speedup), f"{h.candidate_us:.1f}", f"{score.pair_device_us:.1f}"
            return (f"no like-for-like baseline on the kernel clock: the shapes win only against the reference "
                    f"{score.reference} ({g:.2f}x over {plural(n, 'shape')}), a correctness anchor, and the profiled pair "
                    f"{pair} is call time ({us} us of host events around a {dev} us kernel), so it says nothing about the "
                    "kernel; the campaign must add a library baseline timed like the candidate",
                    msg("verdict.reason.none.callpair", ref=score.reference, g=f"{g:.2f}x", n=n, pair=pair, us=us, dev=dev))
        if score.verdict_geomean:  # a WIN against the reference alone, and no pair to rest on
            g, n = score.verdict_geomean
            return (f"no like-for-like baseline: the shapes win only against the reference {score.reference} "
                    f"({g:.2f}x over {plural(n, 'shape')}), a correctness anchor, and no profiled pair decides; "
                    "the campaign must add a library baseline",
                    msg("verdict.reason.none.reference", ref=score.reference, g=f"{g:.2f}x", n=n))
        return (f"no like-for-like baseline: none of {plural(n_measured, 'measured shape')} has a baseline timed "
                "the same way over the same work that the verdict may rest on; the campaign must add one",
                msg("verdict.reason.none", n=n_measured))
    rule = {WIN: f">= {t.win:g}", PARITY: f"in [{t.headroom:g}, {t.win:g})", HEADROOM: f"< {t.headroom:g}"}[verdict]
    said = {WIN: msg("verdict.rule.win", win=f"{t.win:g}"),
            PARITY: msg("verdict.rule.parity", headroom=f"{t.headroom:g}", win=f"{t.win:g}"),
            HEADROOM: msg("verdict.rule.headroom", headroom=f"{t.headroom:g}")}[verdict]
    if score.verdict_basis == "shapes":
        g, n = score.verdict_geomean
        return (f"verdict geomean {g:.3f}x {rule} over {plural(n, 'shape')} against a comparable baseline",
                msg("verdict.reason.shapes", g=f"{g:.3f}x", rule=said, n=n))
    if score.verdict_basis == "pair":
        if score.verdict_geomean:  # a WIN against the reference alone (a correctness anchor)
            g, n = score.verdict_geomean
            why = f"the shapes win only against the reference {score.reference} ({g:.2f}x over {plural(n, 'shape')})"
            why_msg = msg("verdict.why.reference", ref=score.reference, g=f"{g:.2f}x", n=n)
        elif score.partial_replay is not None:
            r = score.partial_replay
            c0, c1, g0, g1 = (f"{x:,.0f}" for x in (*r.call_us, *r.graph_us))
            why = (f"the candidate's graph replay misses work (its call grows {c0} -> {c1} us while its graph time "
                   f"goes {g0} -> {g1} us): no shape is kernel evidence")
            why_msg = msg("verdict.why.partialreplay", c0=c0, c1=c1, g0=g0, g1=g1)
        elif score.at_floor:
            why = f"no measured shape has a comparable baseline ({score.at_floor} at the timing floor)"
            why_msg = msg("verdict.why.nocomparable", n=score.at_floor)
        else:
            why = (f"no measured shape has a baseline timed on the kernel clock like the candidate "
                   f"({score.not_comparable} compare only with call times)")
            why_msg = msg("verdict.why.nokernel", n=score.not_comparable)
        return (f"profiled pair {score.headline.text} {rule}; {why}",
                msg("verdict.reason.pair", pair=score.headline.text, rule=said, why=why_msg))
    if score.verdict_basis == "floor":
        return (f"every comparable shape ({score.at_floor}) runs at the timing floor "
                f"({score.floor_us:.2f} us): the harness cannot tell them apart",
                msg("verdict.reason.floor", n=score.at_floor, floor=f"{score.floor_us:.2f}"))
    g, n = score.bound_geomean
    return (f"only baselines that are not comparable remain, and the candidate loses to them: "
            f"geomean {g:.3f}x {rule} over {plural(n, 'shape')}",
            msg("verdict.reason.bound", g=f"{g:.3f}x", rule=said, n=n))
