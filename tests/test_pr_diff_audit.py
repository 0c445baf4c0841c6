"""What users link from pull requests says what the kernel page says, and ``diff`` says what changed.

Two audits of the real sweep (``../shared/mi350x-sweep``; every test skips, saying so, without it):

* every scored kernel's PR snippet (``pr/<slug>.md``), badge, API row and page header agree on the verdict
  word, the ratio, the shapes it covers, where it loses, the first step and the launcher, and with
  ``expected/verdicts.json``; the launcher never calls "launch" a gap it says no launch overhead can be read from;
* ``diff`` against a copy of the sweep edited in a known way (flash_attn's candidate 20 % faster on every
  shape, gemm's on its 5 K=7168 N=256 shapes, softmax's 1 % faster on one shape, vec_add's campaign removed)
  reports exactly those moves, recomputed here from the raw rows, and nothing within noise.
"""

from __future__ import annotations

import csv
import html
import json
import math
import re
import shutil
import statistics
from pathlib import Path

import pytest

from generator import cli

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "mi350x-sweep"
CAND = "flydsl"
FLOOR_US = 12.799999676644802  # expected/verdicts.json's floor_us: the sweep's least usable median
GEMM_MOVED = ("sha1:55fdf3dcb9d71b2a", "sha1:df905e6d25fffdd7", "sha1:5c34bb2994714f4a",
              "sha1:e1fcce2b4e143067", "sha1:4050f1cf89fdd36e")  # gemm K=7168 N=256, M = 1 .. 16384
SOFTMAX_MOVED = "sha1:a5bf9702ded2560e"  # softmax M=32768 N=8192: 1 % faster, within its noise
TIMES = ("median_us", "graph_median_us", "p10_us", "p90_us", "mean_us", "min_us", "std_us", "eager_median_us")
RATES = ("effective_gbps", "effective_tflops")


@pytest.fixture(scope="module")
def shared() -> Path:
    if not (SHARED / "expected" / "verdicts.json").is_file():
        pytest.skip(f"the shared MI350X sweep is absent (expected at {SHARED}): these audits read its raw rows")
    return SHARED


@pytest.fixture(scope="module")
def expected(shared) -> dict:
    return json.loads((shared / "expected" / "verdicts.json").read_text())


# ---------------------------------------------------------------- raw rows, read here (VERDICTS.md)

def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "benchmark_results.jsonl").read_text().splitlines() if line.strip()]


def _usable(r: dict) -> bool:
    return r["benchmark_status"] == "ok" and (r.get("median_us") or 0) > 0 and r.get("correct") is not False


def _shapes(folder: Path) -> dict[str, dict[str, dict]]:
    """shape id -> provider -> its row (rule 1: the last usable row, else the last row), in file order."""
    out: dict[str, dict[str, dict]] = {}
    for r in _rows(folder):
        d = out.setdefault(r["shape_id"], {})
        if _usable(r) or r["provider"] not in d:
            d[r["provider"]] = r
    return out


def _speedups(folder: Path) -> dict[str, float]:
    """Rules 4-5: best baseline time / candidate time on each measured shape."""
    out = {}
    for sid, d in _shapes(folder).items():
        c, bases = d.get(CAND), [r for p, r in d.items() if p != CAND and _usable(r)]
        if c is not None and _usable(c) and bases:
            out[sid] = min(r["median_us"] for r in bases) / c["median_us"]
    return out


def _verdict_speedups(folder: Path) -> list[float]:
    """Rules 8, 10, 11: the verdict baseline's speedup on each verdict shape (a comparable baseline, same
    scope flags, both graph-replayed; not both under 1.25 x the floor)."""
    def agree(a, b):
        return all(a.get(k) is None or b.get(k) is None or a.get(k) == b.get(k)
                   for k in ("includes_layout_conversion", "includes_jit"))

    def clock(a, b):
        ta, tb = a.get("timing_method"), b.get("timing_method")
        return "eager_event" not in (ta, tb) and (ta == tb or not ta or not tb)

    out = []
    for d in _shapes(folder).values():
        c = d.get(CAND)
        if c is None or not _usable(c):
            continue
        comp = [r for p, r in d.items() if p != CAND and _usable(r) and agree(r, c) and clock(r, c)]
        if not comp:
            continue
        vb = min(comp, key=lambda r: r["median_us"] / c["median_us"])
        if not (c["median_us"] < 1.25 * FLOOR_US and vb["median_us"] < 1.25 * FLOOR_US):
            out.append(vb["median_us"] / c["median_us"])
    return out


def _geomean(xs) -> float:
    xs = list(xs)
    return math.exp(sum(map(math.log, xs)) / len(xs))


def _launch_overhead(folder: Path) -> tuple[float, int]:
    """Rule 13: the median call gap over the launch shapes (graph time under 1.25 x the floor, or a call within
    10 % of the candidate's least call)."""
    measured = []
    for d in _shapes(folder).values():
        c, bases = d.get(CAND), [r for p, r in d.items() if p != CAND and _usable(r)]
        calls = [r["eager_median_us"] for r in bases if r.get("eager_median_us") is not None]
        if c is not None and _usable(c) and calls and c.get("eager_median_us") is not None:
            measured.append((c["median_us"], c["eager_median_us"], min(calls)))
    least = min(m[1] for m in measured)
    gaps = [call - base for graph, call, base in measured if graph < 1.25 * FLOOR_US or call <= 1.10 * least]
    return statistics.median(gaps), len(gaps)


# ---------------------------------------------------------------- the edited copy

def _scale_candidate(folder: Path, shape_ids, factor: float) -> int:
    """The candidate's rows of ``shape_ids``: every time x factor, rates / factor, in the JSONL and the CSV alike."""
    rows = _rows(folder)
    with open(folder / "benchmark_results.csv", newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        fields, crows = reader.fieldnames, list(reader)
    assert len(rows) == len(crows)
    n = 0
    for r, c in zip(rows, crows):
        assert (r["shape_id"], r["provider"]) == (c["shape_id"], c["provider"])
        if r["provider"] != CAND or r["shape_id"] not in shape_ids or r["benchmark_status"] != "ok":
            continue
        n += 1
        for keys, f in ((TIMES, factor), (RATES, 1 / factor)):
            for k in keys:
                if r.get(k) is not None:
                    r[k] *= f
                    c[k] = repr(r[k])
        if r.get("host_overhead_us") is not None:
            r["host_overhead_us"] = r["eager_median_us"] - r["graph_median_us"]
            c["host_overhead_us"] = repr(r["host_overhead_us"])
    (folder / "benchmark_results.jsonl").write_text(
        "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    with open(folder / "benchmark_results.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(crows)
    return n


@pytest.fixture(scope="module")
def edited(shared, tmp_path_factory) -> Path:
    """The sweep with its campaigns copied (the bundles linked, unchanged) and edited as the module says."""
    root = tmp_path_factory.mktemp("edited") / "new-sweep"
    for sub in ("benchmarks", "docs", "expected"):
        shutil.copytree(shared / sub, root / sub)
    (root / "examples").symlink_to(shared / "examples", target_is_directory=True)
    for p in root.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    camps = root / "benchmarks" / "examples"
    assert _scale_candidate(camps / "gemm", set(GEMM_MOVED), 0.8) == 5
    flash = {r["shape_id"] for r in _rows(camps / "flash_attn")}
    assert _scale_candidate(camps / "flash_attn", flash, 0.8) == 16
    assert _scale_candidate(camps / "softmax", {SOFTMAX_MOVED}, 0.99) == 1
    shutil.rmtree(camps / "vec_add")
    return root


def _run(capsys, *argv) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().out


@pytest.fixture(scope="module")
def diff_json(shared, edited) -> dict:
    from generator.sweeps import diff as diffmod
    from generator.sweeps.snapshot_sources import load_snapshot

    d = diffmod.diff_snapshots(load_snapshot(str(shared), "mi350x-sweep"), load_snapshot(str(edited), "new-sweep"))
    return diffmod.diff_document(d)


def _kernel(doc: dict, slug: str) -> dict:
    return next(k for k in doc["kernels"] if k["slug"] == slug)


# ---------------------------------------------------------------- diff: each line against what was changed

def test_diff_lists_the_moves_made_and_no_other(diff_json, expected):
    doc = diff_json
    assert doc["regressions"] == [] and doc["candidate_regressions"] == [] and doc["shape_regressions"] == []
    assert doc["improvements"] == ["flash_attn_func"]
    assert doc["comparison_changes"] == ["vec_add"]  # a campaign removed: no time moved
    # every kernel left alone is reported unchanged; softmax's 1 % is a change within noise only
    assert doc["unchanged"] == ["attention_prefill", "batched_gemm", "fp8_gemm_rowscale", "fused_rope_cache",
                                "layernorm", "moe_blockscale", "moe_gemm", "pa", "pa_mqa_logits_fp4",
                                "paged_attention", "preshuffle_gemm", "quant", "rmsnorm", "rope", "serving_scenarios"]
    soft = _kernel(doc, "softmax")
    assert not any(c["significant"] for c in soft["changes"])
    (shape,) = [c for c in soft["changes"] if c["kind"] == "shape"]
    assert shape["shape_id"] == SOFTMAX_MOVED and shape["ratio"] == pytest.approx(1 / 0.99, rel=1e-9)
    assert doc["old"]["verdict_counts"] == {"WIN": 2, "HEADROOM": 10, "BLOCKED": 1, "UNTIMED": 5}
    assert doc["new"]["verdict_counts"] == {"WIN": 3, "HEADROOM": 8, "BLOCKED": 1, "UNTIMED": 5}


def test_diff_flash_attn_verdict_ratio_shapes_and_launcher(diff_json, expected, shared, edited):
    k = _kernel(diff_json, "flash_attn_func")
    old_dir, new_dir = shared / "benchmarks/examples/flash_attn", edited / "benchmarks/examples/flash_attn"
    g_old, g_new = _geomean(_verdict_speedups(old_dir)), _geomean(_verdict_speedups(new_dir))
    assert g_old == pytest.approx(expected["flash_attn"]["verdict_geomean"][0], abs=5e-4)
    assert g_new == pytest.approx(g_old / 0.8, rel=1e-9)  # 0.870 -> 1.088: HEADROOM -> WIN
    verdict = next(c for c in k["changes"] if c["kind"] == "verdict")
    assert (verdict["old"], verdict["new"], verdict["direction"]) == ("HEADROOM", "WIN", "improvement")
    ratio = next(c for c in k["changes"] if c["kind"] == "verdict_ratio")
    assert (ratio["old"], ratio["new"]) == (pytest.approx(g_old, rel=1e-9), pytest.approx(g_new, rel=1e-9))
    before, after = _speedups(old_dir), _speedups(new_dir)
    shapes = [c for c in k["changes"] if c["kind"] == "shape"]
    assert len(shapes) == 16 and all(c["significant"] for c in shapes)
    for c in shapes:
        assert (c["old"], c["new"]) == (pytest.approx(before[c["shape_id"]]), pytest.approx(after[c["shape_id"]]))
        assert c["ratio"] == pytest.approx(1.25) and c["movers"] == ["candidate"]
    launch = next(c for c in k["changes"] if c["kind"] == "launch")
    assert (launch["old"], launch["new"]) == (pytest.approx(_launch_overhead(old_dir)[0]),
                                              pytest.approx(_launch_overhead(new_dir)[0]))
    assert (round(launch["old"], 1), round(launch["new"], 1)) == (32.7, 19.2)


def test_diff_gemm_shapes_beyond_noise_kernel_within(diff_json, shared, edited):
    k = _kernel(diff_json, "hgemm_splitk")
    old_dir, new_dir = shared / "benchmarks/examples/gemm", edited / "benchmarks/examples/gemm"
    shapes = [c for c in k["changes"] if c["kind"] == "shape"]
    assert sorted(c["shape_id"] for c in shapes) == sorted(GEMM_MOVED)  # no other shape claims a move
    assert all(c["significant"] and c["ratio"] == pytest.approx(1.25) for c in shapes)
    ratio = next(c for c in k["changes"] if c["kind"] == "verdict_ratio")
    g_old, g_new = _geomean(_verdict_speedups(old_dir)), _geomean(_verdict_speedups(new_dir))
    assert ratio["ratio"] == pytest.approx(g_new / g_old) == pytest.approx(1.25 ** (5 / 28))  # +4.1 %
    assert not ratio["significant"] and not any(c["kind"] == "verdict" for c in k["changes"])


def test_diff_text_says_each_move_once_and_rightly(shared, edited, capsys):
    code, out = _run(capsys, "diff", str(shared), str(edited), "--fail-on-regression")
    assert code == 0  # a removed campaign is no regression of the candidate
    lines = out.splitlines()
    assert lines[0] == ("mi350x-sweep → new-sweep: 0 regressions, 1 improvement · 1 comparison change (not the "
                        "candidate's): Vector Add with campaign removed: its 12 shapes no longer timed · verdicts "
                        "WIN 2 → 3, HEADROOM 10 → 8, BLOCKED 1, UNTIMED 5 · biggest moves: Flash Attention 0.87x → "
                        "1.09x (+25.0%)")
    assert ("Vector Add (vec_add): verdict HEADROOM → —; geomean vs any baseline 0.949x → —; campaign removed: "
            "its 12 shapes no longer timed") in lines
    assert "  cause of the verdict change: comparison: campaign removed: its 12 shapes no longer timed" in lines
    gemm = lines.index(next(ln for ln in lines if ln.startswith("HGEMM Split-K (hgemm_splitk): ")))
    assert lines[gemm] == ("HGEMM Split-K (hgemm_splitk): 5 shapes beyond their noise; within noise: verdict ratio "
                           "(shapes) 0.48x → 0.50x (+4.1%, noise ±8.9%, interval 0.43x–0.53x → 0.45x–0.55x)")
    assert lines[gemm + 1] == ("  K=7168 M=1 N=256 bf16: 0.26x → 0.33x (+25.0%)  [unexplained: candidate time ×0.80; "
                               "no commit or environment change recorded]")
    assert lines[gemm + 6] == ("  cause of the shape moves: unexplained: candidate time ×0.80; no commit or "
                               "environment change recorded")
    assert not any("cause of the geomean change" in ln for ln in lines)
    assert lines[-1] == "within noise or provenance only: softmax"


def test_diff_markdown_verdict_ratio_column_is_the_verdict_ratio(shared, edited, expected, capsys):
    _, out = _run(capsys, "diff", str(shared), str(edited), "--markdown")
    rows = {ln.split("]")[0][3:]: ln for ln in out.splitlines() if ln.startswith("| [")}
    # vec_add rested on 0.915 over 7 verdict shapes (not its 0.949 vs any baseline)
    assert f"{expected['vec_add']['verdict_geomean'][0]:.2f}x" == "0.92x"
    assert rows["Vector Add"] == ("| [Vector Add](kernels/vec_add/) | HEADROOM → **—** | 0.92x → — | — | — | "
                                  "comparison: campaign removed: its 12 shapes no longer timed |")
    assert rows["Flash Attention"].startswith("| [Flash Attention](kernels/flash_attn_func/) | HEADROOM → **WIN** | "
                                              "0.87x → 1.09x (+25.0%) | 0 ↓ 16 ↑ of 16 | — | unexplained: candidate")
    assert rows["HGEMM Split-K"].endswith("| HEADROOM | 0.48x → 0.50x (+4.1%, noise) | 0 ↓ 5 ↑ of 265 | — | "
                                          "unexplained: candidate time ×0.80; no commit or environment change recorded |")


# ---------------------------------------------------------------- the PR snippet, badge, API and page header agree

@pytest.fixture(scope="module")
def site(shared, tmp_path_factory) -> Path:
    from generator.site import build

    out = tmp_path_factory.mktemp("pr-site")
    build.build_site(str(shared), str(out), progress=False, jobs=2)
    return out


def _para(page: str, cls: str) -> str | None:
    """A header paragraph's English text (the 中文 spans and the bold label dropped)."""
    m = re.search(r'<p class="%s">(.*?)</p>' % cls, page, re.S)
    if not m:
        return None
    s = re.sub(r'<span class="l-zh"[^>]*>(?:[^<]|<span[^>]*>[^<]*</span>)*</span>', "", m.group(1))
    s = re.sub(r"<strong[^>]*>[^<]*</strong>", "", s)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", s))).strip()


def _unmd(s: str) -> str:
    return html.unescape(re.sub(r"\\(.)", r"\1", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)))


def test_every_output_says_what_the_page_header_says(site, expected):
    rows = json.loads((site / "api" / "index.json").read_text())["kernels"]
    scored = [r for r in rows if r.get("op") in expected]
    assert len(scored) == len(expected) == 13
    for row in scored:
        slug, e = row["slug"], expected[row["op"]]
        page = (site / "kernels" / slug / "index.html").read_text(encoding="utf-8")
        pr = (site / "pr" / f"{slug}.md").read_text(encoding="utf-8")
        badge = (site / "badges" / f"{slug}.svg").read_text(encoding="utf-8")
        doc = json.loads((site / "api" / "kernels" / f"{slug}.json").read_text())
        word = re.search(r'<span class="badge big[^"]*"[^>]*>([^<]*)<', page).group(1)
        assert word == row["verdict"] == doc["verdict"] == doc["state"]["verdict"] == e["verdict"], slug
        assert f"**{word}**" in pr.splitlines()[0] and f'aria-label="{word}: ' in badge, slug
        if e["verdict_basis"] == "shapes":
            g, n = e["verdict_geomean"]
            ratio = re.search(r'<span class="big-number"[^>]*>([^<]*)<', page).group(1)
            assert row["verdict_geomean"] == [pytest.approx(g, abs=5e-4), n], slug
            assert f"over {n} of {e['n_measured']} measured shapes" in _para(page, "verdict-line"), slug
            assert f"**{word}** {ratio} on the kernel clock vs a comparable baseline over {n} of {e['n_measured']} " \
                   "measured shapes" in pr, slug
            assert f'aria-label="{word}: {ratio} · {n} shapes"' in badge, slug
        bullets = {m.group(1): _unmd(m.group(2)) for m in re.finditer(r"^- ([a-z ]+): (.*)$", pr, re.M)}
        for key, cls in (("where it loses", "where-line"), ("first step", "first-step")):
            assert bullets.get(key) == _para(page, cls), (slug, key)


def test_the_launcher_never_calls_launch_what_it_cannot_read(site):
    for slug, us in (("moe_gemm", "-99.2"), ("moe_blockscale", "+43.5")):
        pr = (site / "pr" / f"{slug}.md").read_text(encoding="utf-8")
        line = next(ln for ln in pr.splitlines() if ln.startswith("- launcher: "))
        assert line == (f"- launcher: call {us} us against aiter's, whose call times other work too: no launch "
                        "overhead can be read from it")
        # the table row says it under the same name (it was "launch overhead", which the row itself denied)
        assert f"| launcher | {line[len('- launcher: '):]} |" in pr and "| launch overhead |" not in pr
        page = (site / "kernels" / slug / "index.html").read_text(encoding="utf-8")
        assert _para(page, "launcher-line") == (f"{us} us a call vs aiter, whose call times other work too "
                                                "(another scope): no launch overhead can be read from it")
        assert f"launch {us}" not in (site / "badges" / f"{slug}.svg").read_text(encoding="utf-8")


def test_a_blocked_pr_snippet_says_no_like_for_like_once(site):
    first = (site / "pr" / "fused_rope_cache.md").read_text(encoding="utf-8").splitlines()[0]
    assert first.endswith("**BLOCKED**, no like-for-like baseline") and "not like-for-like" not in first


def test_diff_reversed_fails_on_the_candidate_and_names_each_cause(shared, edited, capsys):
    """The same edit read backwards: flash_attn WIN -> HEADROOM and gemm's 5 shapes 20 % slower are the candidate's
    regressions; vec_add's campaign coming back is the comparison's, no improvement."""
    code = cli.main(["diff", str(edited), str(shared), "--fail-on-regression"])
    out, err = capsys.readouterr()
    assert code == 1
    assert out.splitlines()[0].startswith("new-sweep → mi350x-sweep: 1 regression, 0 improvements · 1 comparison "
                                          "change (not the candidate's): Vector Add with campaign added: 12 shapes "
                                          "timed · 5 shapes slower beyond their noise in 1 kernel that held its geomean")
    lines = err.splitlines()
    assert lines[0] == ("regressed: Flash Attention (flash_attn_func): 1.09x → 0.87x (-20.0%); 16 shapes slower "
                        "[unexplained: candidate time ×1.25; no commit or environment change recorded]")
    gemm = next(ln for ln in lines if ln.startswith("regressed: HGEMM"))
    assert gemm == ("regressed: HGEMM Split-K (hgemm_splitk); 5 shapes slower [unexplained: candidate time ×1.25; "
                    "no commit or environment change recorded]")  # was "[noise: within the noise (±8.9%)]"
    assert not any("Vector Add" in ln for ln in lines)
