"""The launcher as a finding (VERDICTS rule 13): what a call of the candidate costs beyond its kernel.

Not a detector over a capture: it reads the campaign's two clocks (``KernelScore.launch_overhead_us``,
each launch shape's call gap); its share is of the candidate's call time over the launch shapes
(``call_share``), never ranked against a capture finding's share of stall cycles. It stands first on the
plan when its gap is positive and the kernel verdict is no loss (fused_rope_cache, softmax), else after
the capture's findings: ``first.py`` names the one first step of a kernel. Only a gap read as launch
overhead (``clocks.launch_reading``) is one; a gap mostly on the kernel clock (fp8_gemm_rowscale: +9.4 us,
launch path +1.7 us), a small one or one against another scope is a flag that says what was measured.
"""

from __future__ import annotations

from typing import Any

from generator.analyze.advice.first import no_kernel_loss
from generator.analyze.advice.registry import Finding
from generator.analyze.message import english, msg
import generator.analyze.verdicts.clocks as clk
from generator.analyze.verdicts.launchline import fastest_bases, reading
from generator.analyze.verdicts.rules import median

DETECTOR = "launch_overhead"
#: Launch shapes named in the premise, the largest gaps first.
SHOWN = 3


def _launch_shapes(score: Any) -> list[Any]:
    return [s for s in score.shapes if s.launch_shape and s.clocks.call_gap_us is not None]


def call_share(score: Any) -> float | None:
    """What the launcher costs a call: the median, over the launch shapes (those its overhead is read on), of
    the gap's share of the candidate's call (0 where the candidate's call is the cheaper)."""
    shares = [max(s.clocks.call_gap_us, 0.0) / s.clocks.candidate_call_us for s in _launch_shapes(score)
              if s.measured and s.clocks.candidate_call_us]
    return median(shares)


def overhead_beats_kernel(score: Any) -> tuple[int, int]:
    """(k, n): of the n measured shapes with a call gap and a graph time, the k whose gap exceeds the graph time."""
    both = [s.clocks for s in score.shapes if s.measured and s.clocks.call_gap_us is not None
            and s.clocks.candidate_graph_us is not None]
    return sum(1 for c in both if c.call_gap_us > c.candidate_graph_us), len(both)


def is_first_step(score: Any) -> bool:
    """The launcher before any kernel work (DOMAIN §1.7): its gap is positive and the kernel verdict is no
    loss (``first.no_kernel_loss``); where the captures give nothing to act on it is first anyway."""
    return bool(score.launch_overhead_us and score.launch_overhead_us[0] > 0) and reading(score) == clk.READ_LAUNCH \
        and no_kernel_loss(score)


def launch_finding(score: Any) -> Finding | None:
    """The launch-overhead finding of a scored campaign, None where none is measured or it is small."""
    if score is None or not score.launch_overhead_us:
        return None
    launch = _launch_shapes(score)
    if not launch:
        return None
    us, n = score.launch_overhead_us
    read, path = reading(score), score.launch_path_us
    if read != clk.READ_LAUNCH:  # said, as a flag: what was measured, not called launch overhead
        key = {clk.READ_KERNEL: "kernel", clk.READ_SCOPE: "scope"}.get(read, "small")
        bases = fastest_bases(launch)  # gemm: +0.4 us against pytorch at one launch shape, hipblaslt at the other
        mixed = ".mixed" if len(bases) > 1 else ""
        p = {"us": f"{us:+.1f}", "baseline": bases[0][0] if mixed else score.launch_baseline or "?", "n": n,
             "cand": score.candidate, "path": f"{path[0]:+.1f}" if path else "?", "k": bases[0][1] if bases else n,
             "bases": [f"{b} {c}" for b, c in bases]}
        title, summary = f"finding.launch_overhead.{key}.title{mixed}", f"finding.launch_overhead.{key}.summary{mixed}"
        return Finding(detector=DETECTOR, title=english(title, **p), stall_share=0.0,
                       evidence={"summary": english(summary, **{**p, "bases": ", ".join(p["bases"])}),
                                 "launch_overhead_us": us, "launch_shapes": n, "baseline": p["baseline"],
                                 "fastest_call_baselines": dict(bases),
                                 "launch_path_us": path, "reading": read, "first_step": False,
                                 "measured_with_call_gap": clk.measured_with_gap(score.shapes)},
                       suggestion="", priority="info", kind="flag", stall_unit="us",
                       messages={"title": msg(title, **p), "summary": msg(summary, **p)})
    base = score.launch_baseline or "?"
    share = call_share(score)
    graph = median(s.clocks.candidate_graph_us for s in launch if s.clocks.candidate_graph_us is not None)
    k, m = overhead_beats_kernel(score)
    first = is_first_step(score)
    shown = sorted(launch, key=lambda s: -s.clocks.call_gap_us)[:SHOWN]
    examples = [msg("finding.launch_overhead.example", shape=s.args_text, call=f"{s.clocks.candidate_call_us:.1f}",
                    base=s.clocks.best_call_baseline or "?", base_call=f"{s.clocks.best_call_us:.1f}",
                    graph="\u2014" if s.clocks.candidate_graph_us is None else f"{s.clocks.candidate_graph_us:.1f}")
                for s in shown]
    p = {"us": f"{us:+.1f}", "baseline": base, "n": n, "cand": score.candidate, "k": k, "m": m,
         "share": f"{share:.0%}" if share is not None else "?", "graph": "?" if graph is None else f"{graph:.1f}"}
    bases = fastest_bases(launch)
    key = "finding.launch_overhead.summary" + (".mixed" if len(bases) > 1 else "")
    if len(bases) > 1:
        p["bases"] = [f"{b} {k}" for b, k in bases]
    title = "finding.launch_overhead.title" + (".mixed" if len(bases) > 1 else "")
    said = {"title": msg(title, us=p["us"], baseline=base),
            "summary": msg(key, **p),
            "suggestion": msg("finding.launch_overhead.try", graph=p["graph"]),
            "detail": msg(title.replace(".title", ".detail"), us=p["us"], baseline=base)}
    premise = msg("finding.launch_overhead.premise", n=n, examples=examples)
    return Finding(
        detector=DETECTOR, title=english(title, us=p["us"], baseline=base),
        stall_share=share or 0.0,
        evidence={"summary": english(key, **{**p, "bases": ", ".join(p.get("bases", []))}),
                  "detail": english(title.replace(".title", ".detail"), us=p["us"], baseline=base),
                  "launch_overhead_us": us, "launch_shapes": n, "baseline": base, "call_share": share,
                  "fastest_call_baselines": dict(bases),
                  "overhead_beats_kernel": [k, m], "first_step": first, "launch_path_us": path, "reading": read,
                  "measured_with_call_gap": clk.measured_with_gap(score.shapes),
                  "shapes": [{"shape_id": s.shape_id, "args": s.args_text, "call_us": s.clocks.candidate_call_us,
                              "graph_us": s.clocks.candidate_graph_us, "best_call_us": s.clocks.best_call_us,
                              "best_call_baseline": s.clocks.best_call_baseline, "gap_us": s.clocks.call_gap_us}
                             for s in shown]},
        suggestion=english("finding.launch_overhead.try", graph=p["graph"]),
        priority="high" if first else "medium", kind="limit", stall_cycles=0, stall_unit="us",
        messages=said, premise=premise)


def with_launch(findings: list[Finding], launch: Finding | None) -> list[Finding]:
    """The capture's findings with the launch finding beside them (DOMAIN §1.7: a share of a call is never ranked
    against a share of stall cycles): first when it is the first step (after the blockers, which say how to read
    the capture itself), else after the capture's findings."""
    if launch is None:
        return list(findings)
    if launch.evidence.get("first_step") and not launch.flagged:
        at = next((i for i, f in enumerate(findings) if f.kind != "blocker"), len(findings))
        return [*findings[:at], launch, *findings[at:]]
    return [*findings, launch]
