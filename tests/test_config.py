"""kernel-atlas.toml: defaults, every key, unknown keys kept, bad files named with a line."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from generator.config import CONFIG_NAME, SweepConfig, load_config, read_config
from generator.errors import InputError
from generator.analyze.verdicts import score_sweep

EXAMPLE = """\
title = "FlyDSL kernels on MI350X"
candidate = "flydsl"
reference = "aiter"
device = "MI350X"

[thresholds]
win = 1.10
headroom = 0.90

[weighting]
keys = ["traffic_weight"]

[kernels.pa]
campaign = "pa_decode"
name = "PA decode"
category = "attention"

[kernels.vec_add]
name = "Vector add"

[provenance]
gpu = "8x MI350X"
rocm = "7.2.0"
gpu_count = 8

[peaks]
hbm_tbs = 7.2

[history]
keep = 20

[site]
theme = "dark"
"""


def test_defaults_without_file(tmp_path):
    cfg = load_config(tmp_path)
    assert cfg == SweepConfig()
    assert (cfg.path, cfg.candidate, cfg.reference, cfg.win, cfg.headroom) == (None, "flydsl", None, 1.05, 0.95)
    assert cfg.weight_keys == ("baseline_time_weight", "traffic_weight")
    assert cfg.raw == {} and cfg.campaigns == {} and cfg.device is None and cfg.history_keep is None
    assert load_config(None) == SweepConfig()
    assert (cfg.severity_near, cfg.severity_tune) == (0.90, 0.75)


def test_severity_keys_and_defaults_that_follow_the_headroom_threshold(tmp_path):
    (tmp_path / CONFIG_NAME).write_text("[severity]\nnear = 0.92\ntune = 0.8\n")
    cfg = load_config(tmp_path)
    assert (cfg.severity_near, cfg.severity_tune) == (0.92, 0.8)
    (tmp_path / CONFIG_NAME).write_text("[thresholds]\nheadroom = 0.85\n")
    cfg = load_config(tmp_path)
    assert (cfg.severity_near, cfg.severity_tune) == (0.85, 0.75)


def test_real_sweep_has_no_config_file(sweep):
    """The shared sweep has none; its slice's (written by tests/data/make_slice.py) sets only the whole
    sweep's timing floor, the one expected/verdicts.json was scored with."""
    cfg = load_config(sweep)
    if sweep.name != "mi350x-slice":
        assert cfg.path is None
        return
    floors = {v["floor_us"] for v in json.loads((sweep / "expected" / "verdicts.json").read_text()).values()}
    assert cfg.raw == {"verdicts": {"floor_us": cfg.floor_us}} and floors == {cfg.floor_us}
    assert dataclasses.replace(cfg, path=None, raw={}, floor_us=None) == SweepConfig()


def test_every_key_and_raw_kept(tmp_path):
    (tmp_path / CONFIG_NAME).write_text(EXAMPLE)
    cfg = load_config(tmp_path)
    assert cfg.path == str(tmp_path / CONFIG_NAME)
    assert (cfg.title, cfg.candidate, cfg.reference, cfg.device) == \
           ("FlyDSL kernels on MI350X", "flydsl", "aiter", "MI350X")
    assert (cfg.win, cfg.headroom, cfg.weight_keys) == (1.10, 0.90, ("traffic_weight",))
    assert cfg.campaigns == {"pa": "pa_decode"}
    assert (cfg.kernel("pa").name, cfg.kernel("pa").category) == ("PA decode", "attention")
    assert cfg.kernel("vec_add").campaign is None and cfg.kernel("nothing").name is None
    assert cfg.provenance == {"gpu": "8x MI350X", "rocm": "7.2.0", "gpu_count": "8"}
    assert cfg.peaks == {"hbm_tbs": 7.2} and cfg.history_keep == 20
    assert cfg.raw["site"] == {"theme": "dark"}  # unknown sections stay for other stages
    assert cfg.raw["device"] == "MI350X" and cfg.raw["peaks"] == {"hbm_tbs": 7.2}


def test_config_changes_scores(sweep, tmp_path):
    root = tmp_path / "sweep"
    for op in ("pa_decode", "vec_add"):
        # plain copies: the shared files are read-only, tmp files must stay removable
        shutil.copytree(sweep / "benchmarks" / "examples" / op, root / "benchmarks" / "examples" / op,
                        copy_function=shutil.copyfile)
        (root / "benchmarks" / "examples" / op).chmod(0o755)
    (root / CONFIG_NAME).write_text(EXAMPLE)
    scores = score_sweep(root)
    pa = scores["pa_decode"]
    assert (pa.name, pa.category, pa.bundles) == ("PA decode", "attention", ["pa"])
    assert pa.thresholds.win == 1.10 and pa.reference == "aiter"
    assert pa.provenance["gpu"] == "8x MI350X" and pa.provenance["arch"] == "gfx950"
    va = scores["vec_add"]
    assert va.name == "Vector add" and va.verdict == "PARITY"  # 0.949 >= 0.90


@pytest.mark.parametrize("text, line, problem", [
    ("title = 'a'\n[thresholds]\nwin = \n", 3, "invalid TOML: Invalid value"),
    ("[kernels.pa]\ncampaign = \"pa_decode\"\n[kernels.pa]\n", 3, "invalid TOML: Cannot declare"),
])
def test_bad_toml_names_file_and_line(tmp_path, text, line, problem):
    (tmp_path / CONFIG_NAME).write_text(text)
    with pytest.raises(InputError) as info:
        load_config(tmp_path)
    assert info.value.line == line
    assert info.value.message.startswith(f"{tmp_path / CONFIG_NAME}:{line}: {problem}")


@pytest.mark.parametrize("text, problem", [
    ("candidate = 3\n", "candidate must be a string, got 3"),
    ("[thresholds]\nwin = 'high'\n", "thresholds.win must be a positive number, got 'high'"),
    ("[thresholds]\nwin = 0.9\nheadroom = 0.95\n", "thresholds need 0 < headroom <= win (got headroom 0.95, win 0.9)"),
    ("thresholds = 1.05\n", "[thresholds] must be a table, got float"),
    ("[weighting]\nkeys = 'traffic_weight'\n", "weighting.keys must be a list of strings, got 'traffic_weight'"),
    ("[kernels]\npa = 'pa_decode'\n", "kernels.pa must be a table, got 'pa_decode'"),
    ("[history]\nkeep = -1\n", "history.keep must be a non-negative integer, got -1"),
    ("[provenance]\ngpu = ['a']\n", "provenance.gpu must be a string, got a list"),
    ("[severity]\nnear = 'x'\n", "severity.near must be a positive number, got 'x'"),
    ("[severity]\nnear = 0.7\ntune = 0.8\n",
     "severity needs tune <= near <= thresholds.headroom (got tune 0.8, near 0.7, headroom 0.95)"),
    ("[severity]\nnear = 0.97\n", "severity needs tune <= near <= thresholds.headroom (got tune 0.75, near 0.97, headroom 0.95)"),
])
def test_bad_values_are_one_line_errors(tmp_path, text, problem):
    path = tmp_path / "custom.toml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_config(path)
    assert info.value.message == f"{path}: {problem}"

