"""One kernel's row of the overview (``IndexRow``) and how it is made from the kernel's data
(``index_row``): the verdict, its ratios and notes, the diagnosis clauses and the first step. The
manifest keeps each row (``to_json`` / ``from_json``) for the kernels a rebuild does not touch."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, field, fields
from typing import Any

from generator.analyze.message import msg, sentence_from_json, sentence_json
from generator.model import record
from generator.words import ratio_text
from generator.site import i18n, wording
from generator.site.wording import Said, Seg, runs
from generator.site.views import cells
from generator.site.views import coverage as coverage_views
from generator.site.views import diagnosis as diagnosis_views
from generator.site.views import next_step
from generator.site.views import measurement
from generator.site.views.base import (
    DASH, KernelData, SiteContext, UNCATEGORIZED, VERDICTS, VERDICT_RANK, fmt_x, verdict_css, verdict_label,
)


# ---------------------------------------------------------------- overview rows

@record
class IndexRow:
    """One kernel on the overview: display values, sort values and the api record.

    Round-trips through JSON (``to_json`` / ``from_json``): the build manifest keeps
    the row of every kernel so that an unchanged kernel is not analyzed again.
    """

    slug: str
    name: str
    op: str | None
    category: str
    href: str  # the page file (works from file://, where a folder URL lists the folder)
    permalink: str  # the stable folder URL (kernels/<slug>/) for links from pull requests
    badge: str
    json: str
    verdict: str | None
    verdict_label: str
    verdict_css: str
    verdict_rank: int
    geomean: float | None
    geomean_text: str
    weighted: float | None
    weighted_text: str
    wins: int | None
    parity: int | None
    losses: int | None
    n_measured: int | None
    n_shapes: int | None
    wins_text: str  # over the kernel-clock shapes of ``geomean`` (``kernel_wins`` of ``kernel_n``)
    kernel_wins: int | None
    kernel_n: int | None
    hard_failures: int | None
    harness_failures: int | None
    failures_text: str
    failures_sort: int
    best_baseline: str | None
    best_baseline_text: str
    top_stall: str | None
    stall_ratio: float | None
    stall_ratio_text: str
    occupancy: int | None
    occupancy_text: str
    limiter: str | None
    n_captures: int
    flags: list[str]
    missing: list[str]
    broken: list[str]
    flag_keys: list[str]
    headline_text: str | None
    headline_note: str | None
    shape_speedups: list[float]
    search: str
    noise: float | None = None
    limiter_text: str = DASH  # the limiter as read: "hardware max" for NONE, "VGPR and LDS" on a tie
    limiters: list[str] = field(default_factory=list)  # every resource that binds (DOMAIN §1.3)
    stall_basis: str | None = None  # "working waves" or "all waves": what top_stall and stall_ratio read
    capture_representative: bool | None = None  # None without a capture (DOMAIN §1.5)
    stall_title: str = ""  # why the stall cells read as they do (working waves; not evidence)
    stall_title_zh: str = ""
    limiter_text_zh: str = ""
    cap_binds: bool = True  # False: the capture's occupancy cap is one its dispatch grid never reaches
    timed_commits: list[str] = field(default_factory=list)  # candidate commits the campaign timed
    profiled_commit: str | None = None  # candidate commit of the profile
    commit_note: str = ""  # said when the two disagree
    regression: str = ""  # set per build from the history (not an input of the kernel)
    regression_zh: str = ""
    diagnosis: dict[str, Any] | None = None  # diagnosis_views.diagnose()
    first_step: dict[str, Any] | None = None  # next_step.first_step()
    severity: dict[str, Any] | None = None  # next_step.severity() (HEADROOM only)
    coverage: dict[str, dict[str, Any]] = field(default_factory=dict)  # coverage_views.model_coverage()
    headline_speedup: float | None = None
    headline_verdict: str | None = None
    # the evidence ladder (VERDICTS rule 12): the ratio the verdict rests on is the headline number
    ratio: float | None = None  # KernelScore.verdict_value
    ratio_text: str = DASH
    verdict_basis: str | None = None
    basis_text: str = ""  # the basis in words beside a verdict not decided by its shapes
    basis_zh: str = ""  # HTML: the 中文 with its data marked translate="no" (``i18n.marked``)
    blocked_reason: str | None = None
    verdict_geomean: list | None = None
    at_floor: int | None = None
    not_comparable: int | None = None
    unverified: int | None = None
    floor_speedups: list[float] = field(default_factory=list)  # verdict-baseline speedups of shapes at the floor
    shape_baselines: list[str] = field(default_factory=list)  # each shape_speedups dot's verdict baseline
    timing: dict[str, Any] | None = None  # measurement.kernel_timing(): what the campaign timed, how
    category_text: str = ""  # the category as its owners write it (GEMM, MoE, RoPE)
    campaign_broken: bool = False  # its campaign could not be read: the tile and filter say "broken"
    superseded_by: str | None = None  # the op of a newer campaign that supersedes this one (``[campaigns.<op>] supersedes``)
    supersedes: str | None = None  # the op this campaign supersedes
    interval_text: str = ""  # the verdict ratio's interval over the shapes ("" shows an em dash)
    launch_text: str = ""  # the launcher's overhead beside the kernel's clock ("" shows an em dash)
    launch_sort: float | None = None  # the number launch_text rounds (``verdicts.launchline.overview_us``)
    launch_reading: str | None = None  # what the call gap may be called, and its launch path (``verdicts.clocks``)
    launch_path_us: list | None = None
    interval_title: str = ""  # what the interval cell says in words (its tooltip), and in 中文
    interval_title_zh: str = ""
    launch_title: str = ""
    launch_title_zh: str = ""
    verdict_ci: list | None = None  # rule 14 (KernelScore.verdict_ci, verdict_ci_models)
    verdict_ci_models: list | None = None
    launch_overhead_us: list | None = None  # rule 13 (KernelScore.launch_overhead_us, launch_baseline, pair_clock)
    launch_baseline: str | None = None
    pair_clock: str | None = None
    call_text: str = ""  # a headline pair on the call clock, named as call time (or a campaign's call geomean)
    call_zh: str = ""
    where_text: str = ""  # where it loses, in one line (VERDICTS rule 15; ``views.where``), and its 中文
    where_zh: str = ""
    where_anchor: str = "#speed"  # its evidence on the kernel page: the where-it-loses panel, else the shapes table
    graph_capture_failed: list | None = None  # rule 10: [shapes, call-clock geomean or None]
    graph_partial: bool = False  # rule 16: the candidate's graph replay misses work
    replay_text: str = ""  # the verdict ratio without the replay's fixed cost, where it crosses a threshold
    replay_zh: str = ""

    #: The fields that hold sentences (``message.Sentence``): kept with their messages in the manifest.
    SAID = ("flags", "missing", "broken", "headline_text", "headline_note")

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for name in self.SAID:
            v = getattr(self, name)
            out[name] = [sentence_json(x) for x in v] if isinstance(v, list) else sentence_json(v)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> IndexRow:
        names = {f.name for f in fields(cls)}
        row = {k: v for k, v in data.items() if k in names}
        for name in cls.SAID:
            v = row.get(name)
            row[name] = [sentence_from_json(x) for x in v] if isinstance(v, list) else sentence_from_json(v)
        return cls(**row)

    @property
    def where_said(self) -> Said | None:
        """Where it loses in both languages (its 中文 as runs: numbers and terms as data); None without it."""
        return Said(self.where_text, runs(self.where_zh)) if self.where_text else None

    @property
    def wins_sort(self) -> float | str:
        """Sort value of the wins column: the fraction of measured shapes won."""
        return self.kernel_wins / self.kernel_n if self.kernel_wins is not None and self.kernel_n else ""

    @property
    def diagnosis_links(self) -> list[ClauseLink]:
        """The diagnosis clauses linked to their evidence on the kernel page (from the overview)."""
        return clause_links(self.diagnosis, self.href)

    @property
    def diagnosis_head(self) -> list[ClauseLink]:
        """The first clause of the diagnosis: what the table shows on its one line."""
        return self.diagnosis_links[:1]

    @property
    def diagnosis_rest(self) -> list[ClauseLink]:
        """The other clauses: folded under the first (the table's ``<details>``)."""
        return self.diagnosis_links[1:]

    @property
    def first_step_said(self) -> Said | None:
        """The first step in both languages (its 中文 runs keep terms and numbers as data)."""
        fs = self.first_step
        if not fs:
            return None
        return Said(fs["text"], runs(fs["text_zh"]) if fs.get("text_zh") else None)

    @property
    def first_step_note(self) -> Said | None:
        """The first step's configuration note (DOMAIN §1.7) in both languages, its data marked; None without one."""
        return note_said(self.first_step)

    @property
    def severity_note(self) -> Said | None:
        """The severity's configuration note (DOMAIN §1.7) in both languages; None without one."""
        return note_said(self.severity)

    @property
    def severity_level(self) -> str:
        return self.severity["level"] if self.severity else ""

    @property
    def severity_sort(self) -> str:
        """Sort value of the severity column: rank, then the geomean's distance from parity."""
        if not self.severity:
            return ""
        return f"{next_step.SEVERITY_RANK[self.severity['level']]}.{round((1 - self.severity['geomean']) * 1e6):07d}"

    # ---- issue 13 (5): the 中文 of the computed cells, from the catalogues
    @property
    def wins_zh(self) -> str:
        if self.kernel_wins is not None and self.kernel_n is not None and "untimed" not in self.wins_text:
            return i18n.zh("wins.of", wins=self.kernel_wins, n=self.kernel_n)
        if "untimed" in self.wins_text:
            return i18n.zh("wins.untimed", n=self.n_shapes)
        return ""

    @property
    def failures_zh(self) -> str:
        if self.failures_text == "none":
            return i18n.zh("fail.none")
        parts = [i18n.zh("fail.hard", n=self.hard_failures)] if self.hard_failures else []
        parts += [i18n.zh("fail.harness", n=self.harness_failures)] if self.harness_failures else []
        return "，".join(parts)

    @property
    def best_baseline_split(self) -> tuple[str, str, str]:
        """(name, "(k of n)", its 中文), or (the text, "", "")."""
        m = re.fullmatch(r"(.+) \((\d+) of (\d+)\)", self.best_baseline_text)
        if not m:
            return self.best_baseline_text, "", ""
        return m[1], i18n.en("baseline.of", wins=m[2], n=m[3]), i18n.zh("baseline.of", wins=m[2], n=m[3])

    @property
    def limiter_zh(self) -> str:
        return i18n.zh("limiter.hardware") if self.limiter_text == "hardware max" else self.limiter_text_zh
    # ---- end issue 13 (5)

    @property
    def stall_css(self) -> str:
        """The mark of the two stall cells: "unrep" (no evidence), "basis-working", or none."""
        if not self.stall_title:
            return ""
        return "unrep" if self.capture_representative is False else "basis-working"

    @property
    def headline_text_x(self) -> str:
        return fmt_x(self.headline_speedup)

    @property
    def headline_disagrees(self) -> bool:
        """The headline pair's verdict differs from the multi-shape verdict."""
        return (self.headline_verdict is not None and self.verdict in VERDICTS
                and self.headline_verdict != self.verdict)

    @property
    def headline_clock_unchecked(self) -> bool:
        """The headline pair's clock is unchecked (rule 13: no device timer of its shape): its ratio is named so
        beside the verdict ("Numbers beside a verdict"; flash_attn_func's 9.9 us pair against a 92.0 us trace)."""
        return self.pair_clock == "unchecked" and self.headline_speedup is not None

    def headline_note_in(self, lang: str) -> str:
        """The headline pair's note as plain text in ``lang`` (a cell's title), "" without one."""
        if not self.headline_note:
            return ""
        return i18n.zh_said_text(self.headline_note) if lang == "zh" else str(self.headline_note)

    @property
    def headline_is_call_reading(self) -> bool:
        """The headline pair is a reading on the call clock (rule 13): its speed-up is shown, named so."""
        return self.pair_clock == "call" and self.headline_speedup is not None

    def api(self) -> dict[str, Any]:
        """The record of this kernel in ``api/index.json``."""
        return {
            "slug": self.slug,
            "name": self.name,
            "op": self.op,
            "category": self.category,
            "verdict": self.verdict,
            "verdict_basis": self.verdict_basis,
            "verdict_value": self.ratio,
            "verdict_geomean": self.verdict_geomean,
            "verdict_ci": self.verdict_ci,  # rule 14
            "verdict_ci_models": self.verdict_ci_models,
            "launch_overhead_us": self.launch_overhead_us,  # rule 13
            "launch_baseline": self.launch_baseline,
            "launch_reading": self.launch_reading,  # what the call gap may be called (verdicts.clocks.launch_reading)
            "launch_path_us": self.launch_path_us,  # the call gap less the kernel-clock gap
            "pair_clock": self.pair_clock,
            "basis_text": self.basis_text or None,
            "blocked_reason": self.blocked_reason,
            "at_floor": self.at_floor,
            "not_comparable": self.not_comparable,
            "unverified": self.unverified,
            "kernel_vs_any": self.geomean,  # over the kernel_shapes (kernel clock, no rule flags), as shown
            "kernel_wins": self.kernel_wins,
            "kernel_shapes": self.kernel_n,
            "weighted_geomean_vs_best": self.weighted,
            "wins": self.wins,
            "parity": self.parity,
            "losses": self.losses,
            "n_measured": self.n_measured,
            "n_shapes": self.n_shapes,
            "hard_failures": self.hard_failures,
            "harness_failures": self.harness_failures,
            "best_baseline": self.best_baseline,
            "top_stall_type": self.top_stall,
            "stall_ratio": self.stall_ratio,
            "stall_basis": self.stall_basis,
            "capture_representative": self.capture_representative,
            "occupancy": self.occupancy,
            "limiter": self.limiter,
            "limiters": list(self.limiters),
            "noise": self.noise,
            "flags": list(self.flag_keys),
            "timed_commits": list(self.timed_commits),
            "profiled_commit": self.profiled_commit,
            "commit_note": self.commit_note or None,
            "flag_texts": list(self.flags),
            "regression": self.regression or None,
            "diagnosis": self.diagnosis,
            "first_step": self.first_step,
            "where": self.where_text or None,  # where it loses (VERDICTS rule 15)
            "graph_capture_failed": self.graph_capture_failed,  # rule 10
            "graph_partial": self.graph_partial,  # rule 16
            "severity": self.severity,
            "coverage": self.coverage,
            "headline_speedup": self.headline_speedup,
            "headline_verdict": self.headline_verdict,
            "missing": list(self.missing),
            "broken": list(self.broken),
            "page": self.href,
            "permalink": self.permalink,
            "json": self.json,
            "badge": self.badge,
        }


def best_baseline_of(score: Any) -> tuple[str | None, str]:
    """The baseline that is best on most kernel-clock shapes (those "vs any" and its wins count: rules 9,
    10, 16), and ``name (k of n)`` over them: pa's gluon 10 of 10, not 12 of 12 with its two call-only shapes."""
    if score is None:
        return None, DASH
    kernel = score.kernel_shapes()
    counts = Counter(s.best_baseline for s in kernel if s.best_baseline)
    if not counts:
        return None, DASH
    order = {p: i for i, p in enumerate(score.providers)}
    name, k = min(counts.items(), key=lambda kv: (-kv[1], order.get(kv[0], 99), kv[0]))
    return name, f"{name} ({k} of {len(kernel)})"


@record
class ClauseLink:
    """A diagnosis clause as a link: English text, 中文 text and the evidence URL."""

    text: str
    zh: str
    href: str
    key: str = ""  # the clause's key: "config" marks the note of DOMAIN §1.7

    @property
    def zh_runs(self) -> list[Seg]:
        """The 中文 as runs: stall-type names, numbers and terms as data (``wording.runs``)."""
        return runs(self.zh) if self.zh else []


def note_said(reading: dict[str, Any] | None) -> Said | None:
    """A reading's ``config_note`` as a Said (its 中文 as runs: numbers and terms as data)."""
    if not reading or not reading.get("config_note"):
        return None
    return Said(reading["config_note"], runs(reading.get("config_note_zh") or ""))


def clause_links(diagnosis: dict[str, Any] | None, page: str) -> list[ClauseLink]:
    """The clauses of a diagnosis, each linked to ``page`` + its evidence anchor."""
    return [ClauseLink(c["text"], c["zh"], f"{page}{c['anchor']}", c.get("key", "")) for c in (diagnosis or {}).get("clauses", [])]


def index_row(k: KernelData, ctx: SiteContext | None = None) -> IndexRow:
    """The overview row of one kernel (``ctx`` gives the severity thresholds)."""
    ctx = ctx or SiteContext()
    s = k.score
    verdict = s.verdict if s is not None else None
    scored = s is not None and verdict in VERDICTS
    best, best_text = best_baseline_of(s) if scored else (None, DASH)
    prim = k.primary
    a = prim.analysis if prim else None
    hard = s.hard_failures if scored else None
    harness = s.harness_failures if scored else None
    flags = list(s.flags) if scored else []
    broken = s is None and bool(k.score_error)
    if s is not None and not scored:
        wins_text = f"{s.n_shapes} shapes, untimed"
    elif scored:  # over the kernel-clock shapes "vs any" rests on (rules 9, 10, 16)
        wins_text = f"{s.kernel_outcomes[0]} of {s.kernel_vs_any[1]}" if s.kernel_vs_any else DASH
    else:
        wins_text = DASH
    search = " ".join(x for x in (k.name, k.slug, k.op or "", k.category or "") if x).lower()
    return IndexRow(
        slug=k.slug,
        name=k.name,
        op=k.op,
        category=k.category or UNCATEGORIZED,
        href=f"kernels/{k.slug}/index.html",
        permalink=f"kernels/{k.slug}/",
        badge=f"badges/{k.slug}.svg",
        json=f"api/kernels/{k.slug}.json",
        verdict=verdict,
        verdict_label="BROKEN" if broken else verdict_label(verdict),
        verdict_css=verdict_css(verdict),
        verdict_rank=VERDICT_RANK.get(verdict, 5),
        geomean=s.kernel_vs_any[0] if scored and s.kernel_vs_any else None,
        geomean_text=s.geomean_text if scored else DASH,
        weighted=s.weighted_geomean_vs_best if scored else None,
        weighted_text=fmt_x(s.weighted_geomean_vs_best) if scored else DASH,
        wins=s.wins if scored else None,
        parity=s.parity if scored else None,
        losses=s.losses if scored else None,
        n_measured=s.n_measured if scored else None,
        kernel_wins=s.kernel_outcomes[0] if scored and s.kernel_vs_any else None,
        kernel_n=s.kernel_vs_any[1] if scored and s.kernel_vs_any else None,
        n_shapes=s.n_shapes if s is not None else None,
        wins_text=wins_text,
        hard_failures=hard,
        harness_failures=harness,
        failures_text=s.failures_text if scored else DASH,
        failures_sort=(hard or 0) * 1000 + (harness or 0) if scored else -1,
        best_baseline=best,
        best_baseline_text=best_text,
        **cells.stall_cells(a),
        **cells.occupancy_cells(a),
        n_captures=sum(1 for c in k.captures if c.analysis is not None),
        flags=flags,
        flag_keys=list(s.flag_keys) if scored else [],
        missing=list(k.missing),
        broken=list(k.broken),
        headline_text=k.headline.text if k.headline else None,
        headline_note=k.headline_note,
        **(cells.shape_cells(s) if scored else {"shape_speedups": []}),
        floor_speedups=[sh.verdict_speedup for sh in s.shapes if sh.measured and sh.at_floor] if scored else [],
        search=search,
        noise=s.noise if scored else None,
        **commit_cells(k),
        diagnosis=diagnosis_views.diagnose(k),
        first_step=first_step_of(k),
        severity=next_step.kernel_severity(k, ctx.severity_near, ctx.severity_tune) if scored else None,
        coverage=coverage_views.model_coverage(s),
        headline_speedup=k.headline.speedup if k.headline else None,
        headline_verdict=k.headline.verdict if k.headline else None,
        **ladder_cells(s if scored else None),
        **cells.where_cells(s if scored else None, ctx),
        timing=measurement.kernel_timing(s) if scored else None,
        category_text=ctx.category_labels.get(k.category or UNCATEGORIZED, k.category or UNCATEGORIZED),
        campaign_broken=broken,
        superseded_by=ctx.superseded.get(k.op or ""),
        supersedes=ctx.supersedes.get(k.op or ""),
    )


def first_step_of(k: KernelData) -> dict[str, Any] | None:
    """``next_step.first_step``, its share said on its basis when the plan is ranked on the
    working waves (DOMAIN §1.5; pa: "17% of working-wave stalls": 7,440 of the 8 waves' 44,892 = 16.6 %)."""
    fs = next_step.first_step(k)
    a = k.primary.analysis if k.primary else None
    if not fs or not fs["share_text"] or a is None or a.working is None or fs.get("detector") == "launch_overhead":
        return fs
    m = msg("diag.first.share.working", pct=diagnosis_views.pct(fs["stall_share"]))
    return {**fs, "share_text": wording.plain("en", m), "share_zh": wording.plain("zh", m)}


def ladder_cells(s: Any) -> dict[str, Any]:
    """The verdict's evidence (VERDICTS rule 12) on a row: its ratio, basis and counts."""
    if s is None:
        return {}
    basis = s.basis_msg
    cuts = (s.thresholds.headroom, s.thresholds.win)  # never rounded across a threshold it stands beside (issue 40)
    return {"ratio": s.verdict_value, "ratio_text": ratio_text(s.verdict_value, cuts), "verdict_basis": s.verdict_basis,
            "basis_text": s.basis_text, "basis_zh": str(i18n.marked("zh", basis.key, **basis.kw)) if basis else "",
            "blocked_reason": s.blocked_reason, "verdict_geomean": s.verdict_geomean, "at_floor": s.at_floor,
            "not_comparable": s.not_comparable, "unverified": s.unverified, **cells.clock_cells(s)}


def commit_cells(k: KernelData) -> dict[str, Any]:
    """The timed and profiled candidate commits of a kernel (its state), and a note when they disagree."""
    st = k.state
    if st is None:
        return {"timed_commits": [], "profiled_commit": None, "commit_note": ""}
    return {"timed_commits": list(st.timed_commits), "profiled_commit": st.profiled_commit,
            "commit_note": st.commit_note}
