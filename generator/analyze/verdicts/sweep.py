"""Score a campaign, a folder and a whole sweep; the ``verdicts --json`` document."""

from __future__ import annotations

import os
from typing import Any, Mapping

from generator.analyze import roofline
from generator.analyze.message import counted, msg, sentence
from generator.analyze.verdicts.headline import (
    bundles_for_campaign,
    headline_for_campaign,
    headline_note,
    kernel_entries,
    load_kernels_json,
)
from generator.analyze.verdicts.kernel import KernelScore, summarize
from generator.analyze.verdicts.rules import UNTIMED, Thresholds
from generator.analyze.verdicts.shapes import score_shape
from generator.config import DEFAULT_REFERENCE, SweepConfig, load_config
from generator.errors import InputError
from generator.words import plural
from generator.model import FORMAT_VERSION
from generator.read.campaign import Campaign, ResultRow, find_campaign_folders, read_campaign
from generator.read.discover import rel_path


def score_campaign(campaign: Campaign, config: SweepConfig | None = None,
                   kernels_json: Mapping[str, Any] | None = None) -> KernelScore:
    """Score one campaign (see the module docstring for every rule)."""
    config = config or SweepConfig()
    thresholds = Thresholds.from_config(config)
    candidate = config.candidate
    reference = config.reference or campaign.reference_provider or DEFAULT_REFERENCE
    by_shape = campaign.rows_by_shape()
    roof = hbm_roof_gbps(config, campaign.provenance_for(candidate))
    shapes = [score_shape(sh, by_shape.get(sh.shape_id, {}), candidate, thresholds, config.weight_keys,
                          reference, roof)
              for sh in campaign.ledger]
    score = summarize(campaign.name, shapes, thresholds, reference, candidate)
    score.bundles = bundles_for_campaign(campaign.name, config, kernels_json)
    score.name, score.category = _display(campaign.name, score.bundles, config, kernels_json)
    score.path = campaign.rel
    score.results_file = campaign.results_file
    score.provenance = {**campaign.provenance_for(candidate), **config.provenance}
    score.baseline_commits = campaign.baseline_commits(candidate)
    score.provider_notes = campaign.provider_notes()
    score.notes = list(campaign.notes) + _row_notes(campaign, by_shape)
    score.headline = headline_for_campaign(campaign.name, config, kernels_json)
    if not campaign.timed:
        score.verdict = UNTIMED
        score.verdict_reason = f"no benchmark results: {plural(score.n_shapes, 'shape')} in the ledger, none timed"
        score.verdict_reason_msg = msg("verdict.reason.untimed", n=score.n_shapes)
        score.uncertain = False
    score.headline_note = headline_note(score.headline, score)
    return score


def hbm_roof_gbps(config: SweepConfig, provenance: Mapping[str, str]) -> float | None:
    """HBM peak in GB/s of the campaign's device (rule 9): the configured device, else the
    one the ``gpu`` column names, else the one of its ``arch``; None when none is known."""
    try:
        peaks = roofline.load_peaks(config)
    except InputError:
        return None
    names = [config.device] if config.device else []
    names += [g.strip() for g in provenance.get("gpu", "").split(",") if g.strip()]
    for name in names:
        dev = roofline.find_device(peaks, name)
        if dev:
            return dev.hbm_tbs * 1000.0
    arch = provenance.get("arch", "").split(",")[0].strip()
    try:
        return roofline.select_device(peaks, arch=arch).hbm_tbs * 1000.0 if arch else None
    except InputError:
        return None


def _display(op: str, bundles: list[str], config: SweepConfig,
             kernels_json: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """(display name, category) of a campaign: configuration, then kernels.json, then the op."""
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
    return name or op, category


def _row_notes(campaign: Campaign, by_shape: Mapping[str, Mapping[str, list[ResultRow]]]) -> list[str]:
    """Notes about rows the rules set aside: unknown shapes, repeated (shape, provider) rows."""
    notes = []
    known = {s.shape_id for s in campaign.ledger}
    stray = sum(len(rs) for sid, provs in by_shape.items() if sid not in known for rs in provs.values())
    if stray:
        notes.append(sentence(counted("msg.sweep.stray", stray), n=stray))
    repeated = sum(1 for sid, provs in by_shape.items() if sid in known for rs in provs.values() if len(rs) > 1)
    if repeated:
        notes.append(sentence(counted("msg.sweep.repeated", repeated), n=repeated))
    return notes


def score_sweep(sweep_root: str | os.PathLike, config: SweepConfig | None = None,
                kernels_json: Mapping[str, Any] | None = None) -> dict[str, KernelScore | InputError]:
    """Score every campaign under a sweep root; a broken campaign maps to its InputError.

    ``config`` defaults to the sweep's ``kernel-atlas.toml`` and ``kernels_json`` to its
    ``docs/data/kernels.json`` (a broken one of those raises: they concern every kernel).
    """
    root = os.fspath(sweep_root)
    config = config if config is not None else load_config(root)
    if kernels_json is None:
        kernels_json = load_kernels_json(root)
    out: dict[str, KernelScore | InputError] = {}
    for op, folder in find_campaign_folders(root).items():
        out[op] = score_folder(folder, config, kernels_json, name=op,
                               rel=rel_path(folder, root))
    return out


def score_folder(folder: str, config: SweepConfig, kernels_json: Mapping[str, Any] | None = None,
                 name: str | None = None, rel: str | None = None) -> KernelScore | InputError:
    """Read and score one campaign folder; its InputError is returned, not raised."""
    try:
        return score_campaign(read_campaign(folder, name=name, rel=rel), config, kernels_json)
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
