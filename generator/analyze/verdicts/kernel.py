"""Per kernel: the numbers and the one verdict over its shapes (``KernelScore``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.analyze.message import Msg, counted, msg, sentence
import generator.analyze.verdicts.clocks as clk
import generator.analyze.verdicts.launchline as launchline
import generator.analyze.verdicts.replay as replay
from generator.analyze.verdicts.headline import HeadlinePair, on_clock
from generator.analyze.verdicts.intervals import crosses, verdict_intervals
from generator.analyze.verdicts.reasons import verdict_reason
from generator.analyze.verdicts.rules import (
    BLOCKED,
    PARITY,
    VERDICTS,
    WIN,
    FLOOR_FACTOR,
    Thresholds,
    decide_ladder,
    geomean,
    median,
    methods_differ,
    shape_splits,
    spread,
    weighted_geomean,
)
from generator.analyze.verdicts.shapes import ShapeResult, _fmt_x


def _fmt_ratio(value: float | None) -> str:
    """An interval bound: ``1.13``; an em dash for None."""
    return "\u2014" if value is None else f"{value:.2f}"
from generator.config import DEFAULT_REFERENCE
from generator.words import ratio_text


@dataclass
class KernelScore:
    """Every number of VERDICTS.md for one campaign, plus its per-shape table.

    Counts: ``n_shapes`` ledger shapes = candidate_ok + candidate_failed (failed + oom)
    + candidate_incorrect + candidate_unsupported + candidate_other (not_configured,
    skipped, unknown, or ok without a verified time) + candidate_missing (no row).
    """

    op: str
    candidate: str
    reference: str
    thresholds: Thresholds
    verdict: str  # WIN / PARITY / HEADROOM / BLOCKED, or UNTIMED
    verdict_reason: str
    verdict_basis: str  # the rung of the evidence ladder that decided (rules.BASES)
    n_shapes: int
    n_measured: int
    n_measurable: int
    n_not_run: int
    geomean_vs_best: float | None
    weighted_geomean_vs_best: float | None
    n_weighted: int
    per_baseline: dict[str, list]
    stage_split: dict[str, list]
    model_split: dict[str, list]
    wins: int
    parity: int
    losses: int
    candidate_ok: int
    candidate_failed: int
    candidate_incorrect: int
    candidate_unsupported: int
    candidate_other: int
    candidate_missing: int
    hard_failures: int
    harness_failures: int
    worst: ShapeResult | None
    best: ShapeResult | None
    noise: float | None
    noise_candidate: float | None
    noise_baseline: float | None
    uncertain: bool
    reference_only: bool
    providers: list[str]  # table columns: the candidate, then baselines that ran at least once
    shapes: list[ShapeResult]
    suspect_reference: int = 0  # rule 7
    scope_mismatch_shapes: int = 0  # rule 8
    like_for_like_geomean: list | None = None  # [geomean, n] over shapes with a like-for-like baseline
    like_for_like_reference_only: bool = False
    like_for_like_mixed: int = 0  # shapes of that geomean whose two rows were timed differently (mixed clocks)
    not_like_for_like: bool = False
    above_roof: list[list[str]] = field(default_factory=list)  # sorted [shape_id, provider] (rule 9)
    # rules 10-12: the like-for-like evidence the verdict rests on
    verdict_geomean: list | None = None  # [geomean of verdict baseline / candidate, n] over verdict shapes
    verdict_reference_only: bool = False  # every verdict baseline is the reference provider
    at_floor: int = 0  # measured shapes whose candidate and verdict baseline both sit at the floor
    not_comparable: int = 0  # measured shapes with no comparable baseline
    floor_us: float | None = None
    bound_geomean: list | None = None  # [geomean vs non-comparable baselines, n] (rung ``bound``)
    pair_speedup: float | None = None  # the headline pair's ratio when rung ``pair`` read it
    blocked_reason: str | None = None  # "no measured shape" / "hard failures" / "no like-for-like baseline"
    unverified: int = 0  # measured shapes timed without a correctness check (rule 1)
    variants: dict[str, list] = field(default_factory=dict)  # variant -> [geomean vs the verdict baseline, n]
    partial: bool = False  # read from a run still being written (``results_<suite>.partial.*``)
    # rule 13: two clocks
    clock: str = clk.KERNEL  # the clock the campaign's verdict times are on (``call``: events only)
    call_geomean: list | None = None  # [rung-2 geomean, n] of a campaign timed on the call clock only
    launch_overhead_us: list | None = None  # [median call gap over the launch shapes, n]
    launch_baseline: str | None = None  # the baseline whose call is fastest on most launch shapes
    launch_scope_differs: bool = False  # that baseline's call times other work (rule 8)
    launch_path_us: list | None = None  # [median call gap less kernel gap over the launch shapes, n] (clocks)
    launch_bound_shapes: list = field(default_factory=lambda: [0, 0])  # [k, n]: call > 2 x graph
    pair_device_us: float | None = None  # the headline pair's kernel on the bundle's kernel trace
    pair_clock: str | None = None  # kernel / call / unchecked (None: no headline pair)
    # rule 14: how sure (a sensitivity to the shapes picked)
    verdict_ci: list | None = None
    verdict_ci_models: list | None = None
    uncertain_ci: bool | None = None
    uncertain_models: bool | None = None
    n_model_shapes: int = 0  # verdict shapes of a model's stage
    # rule 10: shapes whose graph capture failed; rule 16: a replay that misses work
    graph_capture_failed: list | None = None  # [k, geomean of baseline call / candidate call or None]
    capture_failures: list = field(default_factory=list)  # replay.CaptureFailure, ledger order
    graph_partial: bool = False
    partial_replay: Any = None  # replay.PartialReplay when graph_partial
    # rule 15: where it loses (``loses.LossReading``), filled by score_campaign
    where: Any = None
    # "vs any" as shown beside a verdict: [geomean, n] and [wins, parity, losses] over kernel-clock shapes
    kernel_vs_any: list | None = None
    kernel_outcomes: list = field(default_factory=lambda: [0, 0, 0])
    kernel_worst: ShapeResult | None = None  # the worst of those shapes
    # the replay's fixed cost ("Numbers beside a verdict"): [sweep's cost us, verdict geomean without it]
    replay_cost: list | None = None
    # display and context, filled by score_campaign
    name: str = ""
    category: str | None = None
    bundles: list[str] = field(default_factory=list)  # bundles (examples/<name>) of this campaign
    path: str = ""  # campaign folder as shown (relative)
    results_file: str | None = None
    headline: HeadlinePair | None = None
    headline_note: str | None = None
    provenance: dict[str, str] = field(default_factory=dict)
    baseline_commits: dict[str, str] = field(default_factory=dict)  # provider -> commit
    provider_notes: dict[str, str] = field(default_factory=dict)  # provider -> baseline_matrix.yaml note
    notes: list[str] = field(default_factory=list)
    #: ``verdict_reason`` worded by key (``verdict.reason.*``) for the site's 中文; not in to_json
    verdict_reason_msg: Msg | None = field(default=None, compare=False, repr=False)

    @property
    def worst_speedup(self) -> float | None:
        return self.worst.speedup if self.worst else None

    @property
    def best_speedup(self) -> float | None:
        return self.best.speedup if self.best else None

    @property
    def verdict_value(self) -> float | None:
        """The ratio that decided the verdict: the verdict geomean, the pair, or the bound."""
        if self.verdict_basis == "shapes" and self.verdict_geomean:
            return self.verdict_geomean[0]
        if self.verdict_basis == "pair":
            return self.pair_speedup
        if self.verdict_basis == "bound" and self.bound_geomean:
            return self.bound_geomean[0]
        return None

    @property
    def verdict_value_text(self) -> str:
        """The ratio that decided, never rounded across a threshold (``words.ratio_text``: 0.9469 is 0.947x)."""
        return ratio_text(self.verdict_value, (self.thresholds.headroom, self.thresholds.win))

    @property
    def basis_text(self) -> str:
        """The basis in words beside a verdict not decided by its shapes ("" when it was)."""
        return "" if self.basis_msg is None else _BASIS_EN[self.verdict_basis].format(**self._basis_params())

    @property
    def basis_msg(self) -> Msg | None:
        """``basis_text`` worded by key (``verdict.basis.*``); None for the ``shapes`` basis."""
        if self.verdict_basis in ("shapes", "failures") or self.verdict not in VERDICTS:
            return None
        return msg(f"verdict.basis.{self.verdict_basis}", **self._basis_params())

    def _basis_params(self) -> dict[str, Any]:
        if self.verdict_basis == "pair":
            name = self.headline.baseline_name if self.headline and self.headline.baseline_name else "?"
            return {"baseline": name, "x": self.verdict_value_text}
        if self.verdict_basis == "floor":
            return {"n": self.at_floor, "factor": f"{FLOOR_FACTOR:g}", "floor": f"{self.floor_us:.2f}" if self.floor_us else "?"}
        if self.verdict_basis == "bound":
            return {"x": self.verdict_value_text}
        return {}

    @property
    def is_verdict(self) -> bool:
        """False for an UNTIMED (ledger-only) campaign."""
        return self.verdict in VERDICTS

    # rule 14: how sure; rule 13: the call clock beside the kernel verdict

    def _uncertain_params(self) -> dict[str, Any]:
        """The interval that reaches across its threshold (the model shapes' when only theirs does)."""
        models = bool(self.uncertain_models) and not self.uncertain_ci
        lo, hi = (self.verdict_ci_models if models else self.verdict_ci) or (None, None)
        t = self.thresholds
        edge = t.win if self.verdict == WIN or (self.verdict == PARITY and hi is not None and hi >= t.win) else t.headroom
        return {"which": msg("verdict.ci.which.models" if models else "verdict.ci.which.shapes"),
                "lo": _fmt_ratio(lo), "hi": _fmt_ratio(hi), "t": f"{edge:g}"}

    @property
    def interval_msg(self) -> Msg | None:
        """How much the verdict depends on the shapes picked: "shapes 1.13–1.26, model shapes
        1.04–1.21", "too few shapes (7)", "one shape" (a pair); None where no ratio decided."""
        if self.verdict_basis == "pair":
            return msg("verdict.ci.pair")
        if self.verdict_basis != "shapes" or not self.verdict_geomean:
            return None
        if self.verdict_ci is None:
            return msg("verdict.ci.few", n=self.verdict_geomean[1])
        whole = msg("verdict.ci.shapes", lo=_fmt_ratio(self.verdict_ci[0]), hi=_fmt_ratio(self.verdict_ci[1]))
        if self.verdict_ci_models is None:
            return whole
        return msg("verdict.ci.both", shapes=whole, lo=_fmt_ratio(self.verdict_ci_models[0]),
                   hi=_fmt_ratio(self.verdict_ci_models[1]), n=self.n_model_shapes)

    @property
    def launch_msg(self) -> Msg | None:
        """The launch overhead beside the verdict, as its reading allows (``verdicts.launchline``)."""
        return launchline.launch_msg(self, "verdict")

    @property
    def call_pair_msg(self) -> Msg | None:
        """A headline pair on the call clock, named so: "call time 0.17x, host events: 219.6 us
        around a 4.0 us kernel"; a campaign timed with events only: its call geomean."""
        if self.call_geomean:
            return msg("verdict.callonly", g=_fmt_x(self.call_geomean[0]), n=self.call_geomean[1])
        if self.pair_clock != clk.CALL or self.headline is None:
            return None
        return msg("verdict.callpair", x=_fmt_x(self.headline.speedup), us=f"{self.headline.candidate_us:.1f}",
                   dev=f"{self.pair_device_us:.1f}")

    # display-ready strings (the CLI and the site use the same words)

    @property
    def geomean_text(self) -> str:
        """"vs any" as shown beside a verdict: over the kernel-clock shapes no rule flags (``kernel_vs_any``)."""
        return _fmt_x(self.kernel_vs_any[0] if self.kernel_vs_any else None)

    @property
    def weighted_text(self) -> str:
        return _fmt_x(self.weighted_geomean_vs_best)

    @property
    def wins_text(self) -> str:
        """``wins 7 of 73`` over the shapes of ``geomean_text`` (always shown beside it)."""
        return f"wins {self.kernel_outcomes[0]} of {self.kernel_vs_any[1] if self.kernel_vs_any else 0}"


    @property
    def failures_text(self) -> str:
        """``6 hard, 2 harness``, or ``none``."""
        parts = []
        if self.hard_failures:
            parts.append(f"{self.hard_failures} hard")
        if self.harness_failures:
            parts.append(f"{self.harness_failures} harness")
        return ", ".join(parts) or "none"

    @property
    def worst_text(self) -> str:
        """``0.26x vs hipblaslt (M=16 N=2112 K=7168)`` of the kernel-clock shapes, or an em dash."""
        worst = self.kernel_worst
        if not worst:
            return "\u2014"
        return f"{worst.speedup_text} vs {worst.best_baseline} ({worst.args_text})"

    @property
    def flag_keys(self) -> list[str]:
        """Machine names of the flags shown beside the verdict (``api/index.json`` ``flags``)."""
        keys = {
            "hard_failures": bool(self.hard_failures),
            "uncertain": self.uncertain,
            "reference_only": self.reference_only,
            "not_like_for_like": self.not_like_for_like,
            "suspect_reference": bool(self.suspect_reference),
            "above_roof": bool(self.above_roof),
            "partial": self.partial,
            "graph_capture_failed": bool(self.graph_capture_failed),
            "graph_partial": self.graph_partial,
        }
        return [k for k, on in keys.items() if on]

    @property
    def flags(self) -> list[str]:
        """Words shown beside the verdict, in the order of ``flag_keys``."""
        out = []
        if self.hard_failures:
            out.append(sentence(counted("msg.flag.hard", self.hard_failures), n=self.hard_failures))
        if self.uncertain:
            p = self._uncertain_params()
            models = p.pop("which").key.endswith("models")
            out.append(sentence("msg.flag.uncertain.models" if models else "msg.flag.uncertain", **p))
        if self.reference_only:
            out.append(sentence("msg.flag.refonly", ref=self.reference))
        if self.not_like_for_like:
            out.append(self.scope_text)
        if self.suspect_reference:
            out.append(sentence(counted("msg.flag.suspect", self.suspect_reference), n=self.suspect_reference,
                                cand=self.candidate))
        if self.above_roof:
            out.append(sentence(counted("msg.flag.roof", len(self.above_roof)), n=len(self.above_roof)))
        if self.partial:
            out.append(sentence("msg.flag.partial"))
        if self.graph_capture_failed:
            k = self.graph_capture_failed[0]
            out.append(sentence(counted("msg.flag.capturefail", k), n=k))
        if self.graph_partial:
            out.append(sentence("msg.flag.partialreplay"))
        return out

    @property
    def flag_messages(self) -> list[Msg]:
        """``flags`` worded by key (``verdict.flag.*``), in the same order."""
        out = []
        if self.hard_failures:
            out.append(msg("verdict.flag.hard", n=self.hard_failures))
        if self.uncertain:
            out.append(msg("verdict.flag.uncertain", **self._uncertain_params()))
        if self.reference_only:
            out.append(msg("verdict.flag.reference_only", ref=self.reference))
        if self.not_like_for_like:
            like = ""
            if self.like_for_like_geomean:
                g, n = self.like_for_like_geomean
                ref = msg("verdict.flag.scope.ref", ref=self.reference) if self.like_for_like_reference_only else ""
                if self.like_for_like_mixed:  # rule 10: an eager pair is call time, never set beside it
                    like = msg("verdict.flag.scope.mixed", g=_fmt_x(g), n=n, ref=ref)
                else:
                    like = msg("verdict.flag.scope.like", g=_fmt_x(g), n=n, ref=ref)
            out.append(msg("verdict.flag.scope", n=self.scope_mismatch_shapes, total=self.n_measured, like=like))
        if self.suspect_reference:
            out.append(msg("verdict.flag.suspect", n=self.suspect_reference, candidate=self.candidate))
        if self.above_roof:
            out.append(msg("verdict.flag.above_roof", n=len(self.above_roof)))
        if self.partial:
            out.append(msg("verdict.flag.partial"))
        if self.graph_capture_failed:
            out.append(msg("verdict.flag.capturefail", n=self.graph_capture_failed[0]))
        if self.graph_partial:
            out.append(msg("verdict.flag.partialreplay"))
        return out

    @property
    def scope_text(self) -> str:
        """``not like-for-like: 9 of 9 shapes' best baseline times another scope; like-for-like 166.72x``."""
        scope = dict(m=self.scope_mismatch_shapes, n=self.n_measured)
        if not self.like_for_like_geomean:
            return sentence(counted("msg.flag.scope", self.n_measured), **scope)
        g, n = self.like_for_like_geomean
        if self.like_for_like_mixed:  # rule 8: a number setting a graph time against an eager one is no like-for-like
            key = "msg.flag.scope.mixedref" if self.like_for_like_reference_only else "msg.flag.scope.mixed"
            return sentence(counted(key, self.n_measured), **scope, g=_fmt_x(g), k=n, ref=self.reference)
        if self.like_for_like_reference_only:
            return sentence(counted("msg.flag.scope.lflref", self.n_measured), **scope, g=_fmt_x(g), k=n, ref=self.reference)
        return sentence(counted("msg.flag.scope.lfl", self.n_measured), **scope, g=_fmt_x(g), k=n)

    def to_json(self, shapes: bool = True) -> dict[str, Any]:
        """The ``verdicts --json`` record (every key of expected/verdicts.json, and more)."""
        out = {
            "op": self.op,
            "name": self.name,
            "category": self.category,
            "bundles": list(self.bundles),
            "path": self.path,
            "results_file": self.results_file,
            "candidate": self.candidate,
            "reference": self.reference,
            "thresholds": {"win": self.thresholds.win, "headroom": self.thresholds.headroom},
            "verdict": self.verdict,
            "verdict_reason": self.verdict_reason,
            "verdict_basis": self.verdict_basis,
            "verdict_geomean": self.verdict_geomean,
            "verdict_value": self.verdict_value,
            "verdict_reference_only": self.verdict_reference_only,
            "basis_text": self.basis_text,
            "blocked_reason": self.blocked_reason,
            "at_floor": self.at_floor,
            "not_comparable": self.not_comparable,
            "floor_us": self.floor_us,
            "bound_geomean": self.bound_geomean,
            "unverified": self.unverified,
            "variants": dict(self.variants),
            "partial": self.partial,
            "clock": self.clock,
            "call_geomean": self.call_geomean,
            "launch_overhead_us": self.launch_overhead_us,
            "launch_baseline": self.launch_baseline,
            "launch_scope_differs": self.launch_scope_differs, "launch_path_us": self.launch_path_us,
            "launch_bound_shapes": list(self.launch_bound_shapes),
            "pair_device_us": self.pair_device_us,
            "pair_clock": self.pair_clock,
            "verdict_ci": self.verdict_ci,
            "verdict_ci_models": self.verdict_ci_models,
            "uncertain_ci": self.uncertain_ci,
            "uncertain_models": self.uncertain_models,
            "n_model_shapes": self.n_model_shapes,
            "graph_capture_failed": self.graph_capture_failed,
            "capture_failures": [f.to_json() for f in self.capture_failures],
            "graph_partial": self.graph_partial,
            "kernel_vs_any": self.kernel_vs_any,
            "replay_cost": self.replay_cost,
            "kernel_outcomes": list(self.kernel_outcomes),
            "partial_replay": self.partial_replay.to_json() if self.partial_replay else None,
            **(self.where.to_json() if self.where is not None else {"stale_detail": 0, "by_config": None,
                                                                    "loss_split": None}),
            "n_shapes": self.n_shapes,
            "n_measured": self.n_measured,
            "n_measurable": self.n_measurable,
            "n_not_run": self.n_not_run,
            "geomean_vs_best": self.geomean_vs_best,
            "weighted_geomean_vs_best": self.weighted_geomean_vs_best,
            "n_weighted": self.n_weighted,
            "per_baseline": self.per_baseline,
            "stage_split": self.stage_split,
            "model_split": self.model_split,
            "wins": self.wins,
            "parity": self.parity,
            "losses": self.losses,
            "candidate_ok": self.candidate_ok,
            "candidate_failed": self.candidate_failed,
            "candidate_incorrect": self.candidate_incorrect,
            "candidate_unsupported": self.candidate_unsupported,
            "candidate_other": self.candidate_other,
            "candidate_missing": self.candidate_missing,
            "hard_failures": self.hard_failures,
            "harness_failures": self.harness_failures,
            "worst_speedup": self.worst_speedup,
            "best_speedup": self.best_speedup,
            "worst": self.worst.summary() if self.worst else None,
            "best": self.best.summary() if self.best else None,
            "noise": self.noise,
            "noise_candidate": self.noise_candidate,
            "noise_baseline": self.noise_baseline,
            "uncertain": self.uncertain,
            "reference_only": self.reference_only,
            "suspect_reference": self.suspect_reference,
            "scope_mismatch_shapes": self.scope_mismatch_shapes,
            "like_for_like_geomean": self.like_for_like_geomean,
            "like_for_like_reference_only": self.like_for_like_reference_only,
            "like_for_like_mixed": self.like_for_like_mixed,
            "not_like_for_like": self.not_like_for_like,
            "above_roof": [list(x) for x in self.above_roof],
            "flags": self.flag_keys,
            "headline": self.headline.to_json() if self.headline else None,
            "headline_note": self.headline_note,
            "providers": list(self.providers),
            "provenance": dict(self.provenance),
            "baseline_commits": dict(self.baseline_commits),
            "provider_notes": dict(self.provider_notes),
            "notes": list(self.notes),
        }
        if shapes:
            out["shapes"] = [s.to_json() for s in self.shapes]
        return out


def summarize(op: str, shapes: list[ShapeResult], thresholds: Thresholds = Thresholds(),
              reference: str = DEFAULT_REFERENCE, candidate: str = "flydsl",
              headline: HeadlinePair | None = None, floor_us: float | None = None,
              pair_device_us: float | None = None, clock: str = clk.KERNEL,
              file_order: dict[str, int] | None = None) -> KernelScore:
    """Aggregate scored shapes into a KernelScore (display fields left at their defaults).

    ``headline`` is the profiling sweep's pair (rung ``pair`` of the ladder) and ``floor_us``
    the timing floor the shapes were scored against (rule 11); ``pair_device_us`` the pair's
    kernel on the bundle's device timer and ``clock`` the campaign's (rule 13); ``file_order`` maps a
    shape to the index of its first row, the order rule 14 resamples in (default: ``shapes``' order).
    """
    measured = [s for s in shapes if s.measured]
    speedups = [s.speedup for s in measured]
    g = geomean(speedups)
    per_baseline, stages, models = shape_splits(measured)
    outcomes = [s.outcome for s in measured]
    statuses = [s.candidate_status for s in shapes]
    cand_ok = sum(1 for s in shapes if s.candidate_us is not None)
    n_failed = sum(1 for st in statuses if st in ("failed", "oom"))
    n_incorrect = statuses.count("incorrect")
    n_unsupported = statuses.count("unsupported")
    n_missing = statuses.count(None)
    hard = sum(1 for s in shapes if s.hard_failure)
    noise = median(s.noise for s in measured if s.noise is not None)
    failures = replay.capture_failures(shapes, reference)
    partial = replay.partial_replay(shapes, floor_us)
    if partial is not None:
        replay.drop_graph_evidence(shapes)
    evidence = _evidence(measured, reference)
    kernel_shapes = replay.kernel_evidence(measured, partial is not None)
    launch = clk.launch_shapes(measured, floor_us)
    for shape in launch:
        shape.launch_shape = True
    overhead = clk.launch_overhead(launch)
    pair_clock = clk.pair_clock(headline.candidate_us, pair_device_us, overhead) if headline else None
    kernel_pair = headline.speedup if headline and pair_clock != clk.CALL else None
    verdict, basis = decide_ladder(len(measured), hard, evidence["verdict_g"], evidence["reference_only"],
                                   kernel_pair, evidence["floor_only"], evidence["bound_g"], thresholds)
    weighted = [(s.speedup, s.weight) for s in measured if s.weight is not None and s.weight > 0]
    like = [s for s in measured if s.like_for_like_speedup is not None]
    mismatch = sum(1 for s in measured if s.scope_mismatch)
    score = KernelScore(
        op=op,
        name=op,
        path=op,
        candidate=candidate,
        reference=reference,
        thresholds=thresholds,
        verdict=verdict,
        verdict_reason="",
        verdict_basis=basis,
        n_shapes=len(shapes),
        n_measured=len(measured),
        n_measurable=sum(1 for s in shapes if s.measurable),
        n_not_run=sum(1 for s in shapes if not s.providers),
        geomean_vs_best=g,
        weighted_geomean_vs_best=weighted_geomean(weighted),
        n_weighted=len(weighted),
        per_baseline=per_baseline,
        stage_split=stages,
        model_split=models,
        wins=outcomes.count("win"),
        parity=outcomes.count("parity"),
        losses=outcomes.count("loss"),
        candidate_ok=cand_ok,
        candidate_failed=n_failed,
        candidate_incorrect=n_incorrect,
        candidate_unsupported=n_unsupported,
        candidate_other=len(shapes) - cand_ok - n_failed - n_incorrect - n_unsupported - n_missing,
        candidate_missing=n_missing,
        hard_failures=hard,
        harness_failures=sum(1 for s in shapes if s.harness_failure),
        worst=min(measured, key=lambda s: s.speedup) if measured else None,
        best=max(measured, key=lambda s: s.speedup) if measured else None,
        noise=noise,
        noise_candidate=median(x for x in (spread_of(s, candidate) for s in measured) if x is not None),
        noise_baseline=median(x for x in (spread_of(s, s.best_baseline) for s in measured) if x is not None),
        uncertain=False,
        reference_only=bool(measured) and all(s.best_baseline == reference for s in measured),
        providers=_columns(shapes, candidate),
        shapes=shapes,
        suspect_reference=sum(1 for s in shapes if s.suspect_reference),
        scope_mismatch_shapes=mismatch,
        like_for_like_geomean=[geomean(s.like_for_like_speedup for s in like), len(like)] if like else None,
        like_for_like_reference_only=bool(like) and all(s.like_for_like_baseline == reference for s in like),
        like_for_like_mixed=sum(1 for s in like if methods_differ(s.providers[candidate], s.providers[s.like_for_like_baseline])),
        not_like_for_like=2 * mismatch > len(measured),
        above_roof=sorted([s.shape_id, p] for s in shapes for p in s.above_roof),
        verdict_geomean=evidence["verdict_geomean"],
        verdict_reference_only=evidence["reference_only"],
        at_floor=evidence["at_floor"],
        not_comparable=evidence["not_comparable"],
        floor_us=floor_us,
        bound_geomean=evidence["bound_geomean"],
        pair_speedup=headline.speedup if headline and basis == "pair" else None,
        blocked_reason=_BLOCKED_REASONS.get(basis) if verdict == BLOCKED else None,
        unverified=sum(1 for s in measured if s.unverified),
        headline=on_clock(headline, pair_clock),
        variants=_variant_geomeans(shapes),
        launch_overhead_us=overhead,
        launch_baseline=_most_common(s.clocks.best_call_baseline for s in launch),
        launch_scope_differs=clk.launch_scope_differs(launch),
        launch_path_us=clk.launch_path(launch) if partial is None else None,  # rule 16: no graph evidence
        launch_bound_shapes=clk.launch_bound(measured),
        pair_device_us=pair_device_us if headline else None,
        pair_clock=pair_clock,
        graph_capture_failed=replay.capture_failed_count(failures),
        capture_failures=failures,
        graph_partial=partial is not None,
        partial_replay=partial,
        kernel_vs_any=[geomean(s.speedup for s in kernel_shapes), len(kernel_shapes)] if kernel_shapes else None,
        kernel_outcomes=[sum(s.outcome == o for s in kernel_shapes) for o in ("win", "parity", "loss")],
        kernel_worst=min(kernel_shapes, key=lambda s: s.speedup) if kernel_shapes else None,
    )
    if verdict == BLOCKED and basis == "failures" and hard <= len(measured):
        score.blocked_reason = "no measured shape"
    if clock == clk.CALL and basis != "failures":
        _call_clock_only(score)
    _how_sure(score, [s for s in measured if s.is_verdict_shape], file_order or {s.shape_id: i for i, s in enumerate(shapes)})
    score.verdict_reason, score.verdict_reason_msg = verdict_reason(score, shapes)
    return score


def _call_clock_only(score: KernelScore) -> None:
    """A campaign timed on the call clock alone has no kernel evidence: BLOCKED, its rung-2
    geomean kept beside as ``call_geomean`` (rule 13)."""
    score.clock = clk.CALL
    score.call_geomean = score.verdict_geomean
    score.verdict, score.verdict_basis = BLOCKED, "none"
    score.blocked_reason = "timed on the call clock only"
    score.pair_speedup = None


def _how_sure(score: KernelScore, verdict_shapes: list[ShapeResult], file_order: dict[str, int]) -> None:
    """Rule 14: the shape bootstrap of a ``shapes`` verdict and whether it reaches across a threshold;
    ``uncertain`` is the intervals' (the p90/p10 spread stays a per-shape figure)."""
    if score.verdict_basis != "shapes" or score.verdict == BLOCKED:
        score.uncertain = False
        return
    whole, models, n_models = verdict_intervals(verdict_shapes, file_order)
    score.verdict_ci, score.verdict_ci_models, score.n_model_shapes = whole, models, n_models
    score.uncertain_ci = crosses(score.verdict, whole, score.thresholds)
    score.uncertain_models = crosses(score.verdict, models, score.thresholds)
    score.uncertain = bool(score.uncertain_ci or score.uncertain_models)


def _most_common(names) -> str | None:
    """The name given most often (ties: the first given), None for none."""
    counts: dict[str, int] = {}
    for n in names:
        if n:
            counts[n] = counts.get(n, 0) + 1
    return max(counts, key=counts.get) if counts else None


#: ``blocked_reason`` by the rung that gave BLOCKED.
_BLOCKED_REASONS = {"failures": "hard failures", "none": "no like-for-like baseline"}
#: ``basis_text`` in English (the catalogue's ``verdict.basis.*`` say the same).
_BASIS_EN = {
    "pair": "from the profiled pair vs {baseline}: {x}",
    "floor": "every comparable shape at the timing floor ({n} below {factor} x {floor} us)",
    "bound": "bound: {x} against baselines that are not comparable",
    "none": "no like-for-like baseline",
}


def _evidence(measured: list[ShapeResult], reference: str) -> dict[str, Any]:
    """The like-for-like reading of the measured shapes (rules 10-12) for the ladder."""
    judged = [s for s in measured if s.verdict_baseline is not None]
    verdict_shapes = [s for s in judged if not s.at_floor]
    bound = [s.bound_speedup for s in measured if s.verdict_baseline is None and s.bound_speedup is not None]
    g = geomean(s.verdict_speedup for s in verdict_shapes)
    bound_g = geomean(bound)
    return {
        "verdict_g": g,
        "verdict_geomean": [g, len(verdict_shapes)] if verdict_shapes else None,
        "reference_only": bool(verdict_shapes) and all(s.verdict_baseline == reference for s in verdict_shapes),
        "at_floor": len(judged) - len(verdict_shapes),
        "floor_only": len(judged) if judged and not verdict_shapes else 0,
        "not_comparable": len(measured) - len(judged),
        "bound_g": bound_g,
        "bound_geomean": [bound_g, len(bound)] if bound else None,
    }


def _variant_geomeans(shapes: list[ShapeResult]) -> dict[str, list]:
    """Each variant's [geomean of verdict baseline / variant, n] over the shapes where it has one."""
    ratios: dict[str, list[float]] = {}
    for s in shapes:
        for p, r in s.variants.items():
            ratios.setdefault(p, [])
            if r.speedup is not None:
                ratios[p].append(r.speedup)
    return {p: [geomean(xs), len(xs)] if xs else [None, 0] for p, xs in ratios.items()}


def spread_of(shape: ShapeResult, provider: str | None) -> float | None:
    """p90/p10 of one provider on one shape."""
    return spread(shape.providers.get(provider) if provider else None)


def _columns(shapes: list[ShapeResult], candidate: str) -> list[str]:
    """Table columns: the candidate, then providers that took part, in file order.

    A provider takes part when, on some shape that is not a harness failure, its row
    says anything but ``not_configured`` (a shape where everything failed, configured
    or not, says nothing about who was meant to run).
    """
    seen: dict[str, None] = {candidate: None}
    for s in shapes:
        if s.harness_failure:
            continue
        for p, r in s.providers.items():
            if r.status != "not_configured":
                seen[p] = None
    return list(seen)
