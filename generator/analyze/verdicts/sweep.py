"""Score a campaign, a folder and a whole sweep; the ``verdicts --json`` document."""

from __future__ import annotations

import os
from typing import Any, Mapping

from generator.analyze import device_peaks
from generator.analyze.message import msg, sentence
import generator.analyze.verdicts.clocks as clocks
import generator.analyze.verdicts.loses as loses
import generator.analyze.verdicts.replay as replay
from generator.analyze.verdicts.headline import (
    HeadlinePair,
    bundles_for_campaign,
    headline_for_campaign,
    headline_note,
    kernel_entries,
    load_kernels_json,
)
from generator.analyze.verdicts.aggregate import summarize
from generator.analyze.verdicts.kernel import KernelScore
from generator.analyze.verdicts.rules import BLOCKED, UNTIMED, Roofs, Thresholds, median, pick_row, roof_kind, timing_floor
from generator.analyze.verdicts.shapes import score_shape
from generator.analyze.naming import category_of, known_categories, title_of
from generator.analyze.verdicts.variants import DISPATCHER, choose_candidate, variants_of
from generator.config import DEFAULT_REFERENCE, SweepConfig, load_config
from generator.errors import InputError
from generator.words import plural
from generator.model import FORMAT_VERSION
from generator.read.campaign import RESULTS_JSONL, Campaign, find_campaign_folders, results_file
from generator.read.campaign_rows import ResultRow, read_results
from generator.read.campaign_suite import keep_campaign, read_campaign_folder
from generator.read.jsonl import keep_fields
from generator.read.timing_notes import device_timer_us, timing_texts
from generator.read.discover import rel_path


def score_campaign(campaign: Campaign, config: SweepConfig | None = None,
                   kernels_json: Mapping[str, Any] | None = None, floor_us: float | None = None) -> KernelScore:
    """Score one campaign (see the package docstring for every rule).

    ``floor_us`` is the sweep's timing floor (rule 11); None: the configured floor, else the
    campaign's own lowest usable time (a campaign read alone).
    """
    config = config or SweepConfig()
    thresholds = Thresholds.from_config(config)
    configured = config.op_candidates.get(campaign.name)
    if campaign.suite is None:  # the classic layout: the configured candidate, every other provider a baseline
        chosen, variants = configured or config.candidate, []
    else:  # the second layout: FlyDSL variants beside the libraries (``variants.py``)
        chosen = choose_candidate(campaign.providers, configured, config.candidate)
        variants = variants_of(campaign.providers, chosen or "")
    candidate = chosen or ""  # none: nothing is judged
    reference = config.reference or campaign.reference_provider or DEFAULT_REFERENCE
    by_shape = campaign.rows_by_shape()
    roofs = device_roofs(config, campaign.provenance_for(candidate))
    if floor_us is None:
        floor_us = config.floor_us or timing_floor(campaign.rows)
    shapes = [score_shape(sh, by_shape.get(sh.shape_id, {}), candidate, thresholds, config.weight_keys,
                          reference, roofs, floor_us, variants)
              for sh in campaign.ledger]
    headline = headline_for_campaign(campaign.name, config, kernels_json)
    first_rows: dict[str, int] = {}
    for row in campaign.rows:
        first_rows.setdefault(row.shape_id, row.index)
    score = summarize(campaign.name, shapes, thresholds, reference, candidate, headline, floor_us,
                      pair_device_us(campaign.path, headline), campaign_clock(campaign, config), first_rows)
    score.candidate_details = _candidate_details(campaign, score)
    score.where = _where_it_loses(campaign, score, first_rows)
    if config.replay_cost_us is not None and score.verdict_basis == "shapes" and campaign.suite is None:
        pairs = [(s.verdict_candidate_us, s.verdict_baseline_us) for s in score.shapes if s.is_verdict_shape]
        score.replay_cost = [config.replay_cost_us, replay.without_replay_cost(pairs, config.replay_cost_us)]
    if score.where is not None:
        score.where.cus = roofs.cus if roofs is not None else None
    score.bundles = bundles_for_campaign(campaign.name, config, kernels_json)
    score.name, score.category = _display(campaign.name, score.bundles, config, kernels_json,
                                          from_words=campaign.suite is not None)
    score.path = campaign.rel
    score.results_file = campaign.results_file
    score.provenance = {**campaign.provenance_for(candidate), **config.provenance}
    score.baseline_commits = campaign.baseline_commits(candidate)
    score.provider_notes = campaign.provider_notes()
    score.notes = list(campaign.notes) + _row_notes(campaign, by_shape)
    score.partial = campaign.partial
    # the second layout's failures its run's logs and reports record (``read/campaign_logs.py``): shown
    # per provider beside the rows' failures (a crashed variant writes no row)
    score.logged_failures = list(campaign.logged_failures)
    if not campaign.timed:
        score.verdict = UNTIMED
        score.verdict_basis = "none"
        score.blocked_reason = None
        score.verdict_reason = f"no benchmark results: {plural(score.n_shapes, 'shape')} in the ledger, none timed"
        score.verdict_reason_msg = msg("verdict.reason.untimed", n=score.n_shapes)
        score.uncertain = False
    elif chosen is None:
        _no_candidate(score, campaign, config)
    score.headline_note = headline_note(score.headline, score)
    return score


def _where_it_loses(campaign: Campaign, score: KernelScore, first_rows: Mapping[str, int]) -> loses.LossReading | None:
    """Rule 15 over the verdict shapes of a ``shapes`` verdict (results-file order), reading the
    candidate rows' ``provider_detail``; None on any other basis."""
    if score.verdict_basis != "shapes" or not campaign.timed or not campaign.results_file:
        return None
    shapes = sorted((s for s in score.shapes if s.is_verdict_shape),
                    key=lambda s: first_rows.get(s.shape_id, len(first_rows)))
    details = score.candidate_details
    return loses.where_it_loses(shapes, {s.shape_id: details.get(s.providers[score.candidate].line) for s in shapes})


def _candidate_details(campaign: Campaign, score: KernelScore) -> dict[int, str]:
    """The ``provider_detail`` of the candidate's chosen row on each shape, by results-file line, from
    the rows read (issue 41: a kernel's worker parsed its results file again for them, and the
    roofline for its own fields, ``jsonl.keep_fields``)."""
    lines = {p.line for s in score.shapes if (p := s.providers.get(score.candidate)) is not None}
    return {r.line: r.provider_detail for r in campaign.rows if r.provider_detail and r.line in lines}


def campaign_clock(campaign: Campaign, config: SweepConfig) -> str:
    """The clock a campaign's times are on (rule 13): ``[campaigns.<op>] clock``, else ``call`` for a
    second-layout campaign whose rows, reports or metadata say events and no graph, else ``kernel``."""
    configured = config.op_clocks.get(campaign.name)
    if configured:
        return configured
    if campaign.suite is None:
        return clocks.KERNEL
    said = clocks.rows_clock(campaign.rows) or clocks.texts_clock(timing_texts(campaign))
    return said or clocks.KERNEL


def pair_device_us(campaign_path: str, headline: HeadlinePair | None) -> float | None:
    """The median End - Start (us) of the headline pair's profiled kernel (``jit_kernel``) in its
    bundle's ``compute_viewer/*kernel_trace.csv``; None when the pair, the bundle or the kernel is absent.

    The bundle is ``<sweep>/examples/<bundle>`` of the campaign's ``<sweep>/benchmarks/examples/<op>``.
    """
    if headline is None or not headline.jit_kernel:
        return None
    parts = os.path.normpath(os.path.abspath(campaign_path)).split(os.sep)
    if len(parts) < 4 or parts[-3:-1] != ["benchmarks", "examples"]:
        return None
    viewer = os.path.join(os.sep.join(parts[:-3]), "examples", headline.kernel, "compute_viewer")
    return device_timer_us(viewer, headline.jit_kernel)


def _no_candidate(score: KernelScore, campaign: Campaign, config: SweepConfig) -> None:
    """BLOCKED: the campaign has neither the sweep's candidate nor a dispatcher (``auto``); the
    configuration must name the provider to judge."""
    score.verdict, score.verdict_basis, score.blocked_reason = BLOCKED, "none", "no candidate"
    score.uncertain = False
    providers = ", ".join(campaign.providers)
    score.verdict_reason = (f"no candidate: neither {config.candidate} nor {DISPATCHER} among {providers}; "
                            f"name one in kernel-atlas.toml: [campaigns.{campaign.name}] candidate = \"...\"")
    score.verdict_reason_msg = msg("verdict.reason.nocandidate", candidate=config.candidate, auto=DISPATCHER,
                                   providers=providers, file="kernel-atlas.toml",
                                   setting=f'[campaigns.{campaign.name}] candidate = "..."')


def device_roofs(config: SweepConfig, provenance: Mapping[str, str]) -> Roofs | None:
    """The peaks rule 9 checks rows against: the configured device, else the one the ``gpu``
    column names, else the one of its ``arch``; None when none is known."""
    try:
        peaks = device_peaks.load_peaks(config)
    except InputError:
        return None
    names = [config.device] if config.device else []
    names += [g.strip() for g in provenance.get("gpu", "").split(",") if g.strip()]
    dev = next((d for d in (device_peaks.find_device(peaks, n) for n in names) if d), None)
    arch = provenance.get("arch", "").split(",")[0].strip()
    if dev is None and arch:
        try:
            dev = device_peaks.select_device(peaks, arch=arch)
        except InputError:
            return None
    return Roofs(dev.hbm_tbs * 1000.0, dict(dev.tflops), dev.cus or None) if dev else None


def sweep_floor(root: str | os.PathLike, config: SweepConfig | None = None) -> float | None:
    """Rule 11: the configured ``[verdicts] floor_us``, else the lowest usable ``median_us`` of any
    row of the sweep's campaigns (one harness, one floor); unreadable campaigns are passed over."""
    if config is not None and config.floor_us:
        return config.floor_us
    return min((f for _op, _folder, rows, _camp in _sweep_campaigns(root, campaigns=False)
                if (f := timing_floor(rows)) is not None), default=None)


def _sweep_campaigns(root: str | os.PathLike, campaigns: bool = True, keep: bool = False,
                     fields: tuple[str, ...] = ()):
    """(op, folder, the rows of its results file, its Campaign or None) for each campaign folder of
    the sweep, each file parsed once; the rows are ``results_file``'s (the JSONL first), which rule
    11 reads whatever file scoring reads. ``keep``: each campaign kept for its scoring
    (``campaign_suite.keep_campaign``, under the name and rel the build scores it with)."""
    for op, folder in find_campaign_folders(root).items():
        camp = None
        if campaigns:
            rel = rel_path(folder, os.fspath(root))
            try:
                camp = read_campaign_folder(folder, name=op, rel=rel)
            except InputError:
                pass
            else:
                if keep:
                    keep_campaign(camp, folder, op, rel)
                    _keep_fields(folder, camp, fields)
        try:
            path = results_file(folder)
            if camp is not None and path is not None and camp.results_file == os.path.basename(path):
                rows = camp.rows  # the file scoring read is rule 11's: not parsed again
            else:
                rows = read_results(path)[0] if path else []
        except InputError:
            rows = []
        yield op, folder, rows, camp


def _keep_fields(folder: str, camp: Campaign, fields: tuple[str, ...]) -> None:
    """Keep ``fields`` of a classic campaign's JSONL rows, parsed moments ago (``jsonl.keep_fields``): the
    roofline's, given by the plan, so that the kernel's roofline parses the file no more."""
    path = os.path.join(folder, RESULTS_JSONL)
    if fields and camp.suite is None and os.path.isfile(path):
        keep_fields(path, fields)


def sweep_numbers(root: str | os.PathLike, config: SweepConfig, keep: bool = False,
                  fields: tuple[str, ...] = ()) -> tuple[float | None, float | None]:
    """(``sweep_floor``, ``sweep_replay_cost``) in one reading of the sweep's campaigns; ``keep``:
    each campaign kept for its scoring, and ``fields`` of its JSONL rows (the roofline's). Issue 41: the plan parsed every campaign twice for them (0.33 s
    of the 0.5 s plan on the benchmark sweep), and each worker once more."""
    floors: list[float] = []
    deltas: list[float] = []
    for op, _folder, rows, camp in _sweep_campaigns(root, keep=keep, fields=fields):
        floor = timing_floor(rows)
        if floor is not None:
            floors.append(floor)
        if camp is not None:
            deltas += _replay_deltas(op, camp, config)
    floor = config.floor_us or min(floors, default=None)
    return floor, config.replay_cost_us if config.replay_cost_us is not None else median(deltas)


def _display(op: str, bundles: list[str], config: SweepConfig,
             kernels_json: Mapping[str, Any] | None, from_words: bool = False) -> tuple[str, str | None]:
    """(display name, category) of a campaign: configuration, then kernels.json, then the op (the
    second layout, ``from_words``: a title and a category from the op's words, ``analyze/naming.py``)."""
    entries = {e["example"]: e for e in kernel_entries(kernels_json)}
    name = category = None
    for key in [op, *bundles]:
        settings = config.kernel(key)
        name = name or settings.name
        category = category or settings.category
    for b in bundles:
        entry = entries.get(b, {})
        name = name or (entry.get("name") if isinstance(entry.get("name"), str) else None)
        category = category or (entry.get("op_category") if isinstance(entry.get("op_category"), str) else None)
    if from_words:
        return name or title_of(op), category or category_of(op, known_categories(config, entries.values()))
    return name or op, category


def _row_notes(campaign: Campaign, by_shape: Mapping[str, Mapping[str, list[ResultRow]]]) -> list[str]:
    """Notes about rows the rules set aside: unknown shapes, repeated (shape, provider) rows."""
    notes = []
    known = {s.shape_id for s in campaign.ledger}
    stray = sum(len(rs) for sid, provs in by_shape.items() if sid not in known for rs in provs.values())
    if stray:
        notes.append(sentence("msg.sweep.stray", n=stray))
    repeated = sum(1 for sid, provs in by_shape.items() if sid in known for rs in provs.values() if len(rs) > 1)
    if repeated:
        notes.append(sentence("msg.sweep.repeated", n=repeated))
    return notes


def score_sweep(sweep_root: str | os.PathLike, config: SweepConfig | None = None,
                kernels_json: Mapping[str, Any] | None = None, keep_shapes: bool = True) -> dict[str, KernelScore | InputError]:
    """Score every campaign under a sweep root; a broken campaign maps to its InputError.

    ``config`` defaults to the sweep's ``kernel-atlas.toml`` and ``kernels_json`` to its
    ``docs/data/kernels.json`` (a broken one of those raises: they concern every kernel).
    Every campaign is read first: the timing floor (rule 11) is the whole sweep's. Each campaign's
    rows are let go once it is scored, and without ``keep_shapes`` its per-shape table too (its
    worst and best shapes stay, and its launch shapes: the launch cell counts the fastest baseline at
    each, softmax triton at 33 of 50): on the sweep linked 100 times, ``verdicts --json`` peaked at 1.12 GB
    holding every campaign's rows and scores together.
    """
    root = os.fspath(sweep_root)
    config = config if config is not None else load_config(root)
    if kernels_json is None:
        kernels_json = load_kernels_json(root)
    read: dict[str, Campaign | InputError] = {}
    for op, folder in find_campaign_folders(root).items():
        try:
            read[op] = read_campaign_folder(folder, name=op, rel=rel_path(folder, root))
        except InputError as err:
            read[op] = err
    classic = [c for c in read.values() if isinstance(c, Campaign) and c.suite is None]  # the second layout: its own
    floor = config.floor_us or min((f for f in (timing_floor(c.rows) for c in classic) if f is not None), default=None)
    del classic
    out: dict[str, KernelScore | InputError] = {}
    deltas: list[float] = []
    pairs: dict[str, list[tuple[float, float]]] = {}
    for op in list(read):
        c = read.pop(op)
        if isinstance(c, InputError):
            out[op] = c
            continue
        out[op] = score = score_campaign(c, config, kernels_json, floor if c.suite is None else None)
        if c.suite is None:
            deltas += replay.replay_deltas(score.shapes, score.reference)
            if score.verdict_basis == "shapes":
                pairs[op] = [(s.verdict_candidate_us, s.verdict_baseline_us) for s in score.shapes if s.is_verdict_shape]
        if not keep_shapes:  # the launch shapes stay: the launch cell names the fastest baseline at each
            score.shapes = [s for s in score.shapes if s.launch_shape]
    cost = config.replay_cost_us if config.replay_cost_us is not None else median(deltas)
    for op, p in pairs.items():
        if cost is not None:
            out[op].replay_cost = [cost, replay.without_replay_cost(p, cost)]
    return out


def sweep_replay_cost(root: str | os.PathLike, config: SweepConfig) -> float | None:
    """The graph replay's fixed cost of the sweep ("Numbers beside a verdict"): the configured
    ``[verdicts] replay_cost_us``, else the median over its classic campaigns' library rows (``_replay_deltas``,
    7.76 us over the reference sweep); unreadable campaigns are passed over."""
    return sweep_numbers(root, config)[1]


def _replay_deltas(op: str, campaign: Campaign, config: SweepConfig) -> list[float]:
    """Graph-replayed call minus graph time of a classic campaign's library rows below every roof."""
    if campaign.suite is not None or not campaign.timed:
        return []
    skip = (config.op_candidates.get(op) or config.candidate, config.reference or campaign.reference_provider
            or DEFAULT_REFERENCE)
    roofs = device_roofs(config, campaign.provenance_for(skip[0]))
    dtypes = {sh.shape_id: sh.dtype for sh in campaign.ledger}
    deltas: list[float] = []
    for sid, rows in campaign.rows_by_shape().items():
        if sid not in dtypes:
            continue
        chosen = [pick_row(rs) for p, rs in rows.items() if p not in skip and rs]
        deltas += [r.median_us - r.eager_median_us for r in chosen if r.usable and r.timing_method in clocks.GRAPH_METHODS
                   and r.eager_median_us and 0 < r.eager_median_us < r.median_us and not roof_kind(r, roofs, dtypes[sid])]
    return deltas


def score_folder(folder: str, config: SweepConfig, kernels_json: Mapping[str, Any] | None = None,
                 name: str | None = None, rel: str | None = None,
                 floor_us: float | None = None) -> KernelScore | InputError:
    """Read and score one campaign folder; its InputError is returned, not raised.

    ``floor_us``: the sweep's timing floor (``sweep_floor``); None for a campaign read alone.
    """
    try:
        campaign = read_campaign_folder(folder, name=name, rel=rel)
        return score_campaign(campaign, config, kernels_json, floor_us if campaign.suite is None else None)
    except InputError as err:
        return err


def verdicts_document(scores: Mapping[str, KernelScore | InputError], root: str | None = None,
                      shapes: bool = True) -> dict[str, Any]:
    """The ``verdicts --json`` document: scored campaigns, untimed ones, errors.

    Error paths are made relative to ``root`` so that the document holds no local path.
    """
    campaigns, untimed, errors = {}, {}, {}
    for op in sorted(scores):
        item = scores[op]
        if isinstance(item, InputError):
            errors[op] = item.relative_to(root)
        elif item.verdict == UNTIMED:
            untimed[op] = {"n_shapes": item.n_shapes, "path": item.path, "name": item.name}
        else:
            campaigns[op] = item.to_json(shapes=shapes)
    return {"format_version": FORMAT_VERSION, "campaigns": campaigns, "untimed": untimed, "errors": errors}
