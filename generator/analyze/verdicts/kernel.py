"""Per kernel: the ``KernelScore`` record, every number of VERDICTS.md for one campaign.

Besides the numbers it holds the words set beside its verdict (basis, how sure, launch and call
clock, flags, scope) as text and as keyed messages, and its ``verdicts --json`` record.
``verdicts.aggregate.summarize`` fills it from the scored shapes.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from generator.analyze.message import Msg, msg, sentence
import generator.analyze.verdicts.clocks as clk
import generator.analyze.verdicts.launchline as launchline
import generator.analyze.verdicts.replay as replay
from generator.analyze.verdicts.headline import HeadlinePair
from generator.analyze.verdicts.rules import (
    PARITY,
    VERDICTS,
    WIN,
    FLOOR_FACTOR,
    Thresholds,
)
from generator.analyze.verdicts.shapes import ShapeResult, _fmt_x
from generator.model import record
from generator.words import ratio_text


def _fmt_ratio(value: float | None) -> str:
    """An interval bound: ``1.13``; an em dash for None."""
    return "\u2014" if value is None else f"{value:.2f}"


@record
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
    #: the candidate's chosen rows' ``provider_detail`` by results-file line (rule 15, DOMAIN §1.7); not in to_json
    candidate_details: dict[int, str] = field(default_factory=dict)
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

    def kernel_shapes(self) -> list[ShapeResult]:
        """The measured shapes whose speedup is kernel evidence (``replay.kernel_evidence``: rules 9, 10, 16):
        what "vs any", its wins, the speed panel's splits and the coverage matrix rest on (pa: 10 of 12)."""
        return replay.kernel_evidence(self.shapes, self.graph_partial)

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
            out.append(sentence("msg.flag.hard", n=self.hard_failures))
        if self.uncertain:
            p = self._uncertain_params()
            models = p.pop("which").key.endswith("models")
            out.append(sentence("msg.flag.uncertain.models" if models else "msg.flag.uncertain", **p))
        if self.reference_only:
            out.append(sentence("msg.flag.refonly", ref=self.reference))
        if self.not_like_for_like:
            out.append(self.scope_text)
        if self.suspect_reference:
            out.append(sentence("msg.flag.suspect", n=self.suspect_reference,
                                cand=self.candidate))
        if self.above_roof:
            out.append(sentence("msg.flag.roof", n=len(self.above_roof)))
        if self.partial:
            out.append(sentence("msg.flag.partial"))
        if self.graph_capture_failed:
            k = self.graph_capture_failed[0]
            out.append(sentence("msg.flag.capturefail", n=k))
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
            return sentence("msg.flag.scope", **scope)
        g, n = self.like_for_like_geomean
        if self.like_for_like_mixed:  # rule 8: a number setting a graph time against an eager one is no like-for-like
            key = "msg.flag.scope.mixedref" if self.like_for_like_reference_only else "msg.flag.scope.mixed"
            return sentence(key, **scope, g=_fmt_x(g), k=n, ref=self.reference)
        if self.like_for_like_reference_only:
            return sentence("msg.flag.scope.lflref", **scope, g=_fmt_x(g), k=n, ref=self.reference)
        return sentence("msg.flag.scope.lfl", **scope, g=_fmt_x(g), k=n)

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


#: ``basis_text`` in English (the catalogue's ``verdict.basis.*`` say the same).
_BASIS_EN = {
    "pair": "from the profiled pair vs {baseline}: {x}",
    "floor": "every comparable shape at the timing floor ({n} below {factor} x {floor} us)",
    "bound": "bound: {x} against baselines that are not comparable",
    "none": "no like-for-like baseline",
}
