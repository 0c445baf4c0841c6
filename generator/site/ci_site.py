"""The CI part of the site (``build --ci HISTORY.json [--ci-runs RUNS.json]``, DOMAIN.md §6).

Beside a sweep, ``ci/`` joins the site (``views.ci`` lists its pages), the overview's navigation
links to it, and each kernel whose op is a CI op gets a CI panel (``views.ci_panel``): the build
reads the stream first (``load``), so a bad file stops it before any kernel is built, and the
stream's bytes are part of the build's global hash. Without a sweep, ``build_ci_site`` makes a
site of the stream alone: ``ci/`` and an ``index.html`` that opens it.
"""

from __future__ import annotations

import os
import time

from generator import __version__
from generator.analyze.ci import report as ci_report
from generator.analyze.ci.moves import REGRESSION
from generator.model import record
from generator.read.ci_stream import read_history, read_runs
from generator.site import i18n, publish, render
from generator.site.views import ci as ci_views

TITLE = "FlyDSL CI"
#: The CI-only site's front page: it opens ci/index.html (a link for a browser without refresh); its empty icon,
#: as every page's, keeps a browser from asking the server for /favicon.ico.
REDIRECT = (b'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">'
            b'<meta http-equiv="refresh" content="0; url=ci/index.html"><title>CI</title></head>'
            b'<body><a href="ci/index.html">ci/index.html</a></body></html>\n')


@record
class CiInput:
    """The stream read and analyzed, and the hash of its files (for the build's global hash)."""

    report: ci_report.Report
    digest: str


def load(history: str | os.PathLike, runs: str | os.PathLike | None = None) -> CiInput:
    """Read and analyze the stream (an InputError on a bad file; skipped records as warnings)."""
    stream = read_history(history)
    rep = ci_report.analyze(stream, read_runs(runs) if runs else None)
    parts = ["ci:" + publish.sha256_file(os.fspath(history))]
    if runs:
        parts.append("ci-runs:" + publish.sha256_file(os.fspath(runs)))
    return CiInput(rep, publish.combine(parts))


#: The FlyDSL kernel each CI op runs where the op's name is not the kernel's (their
#: ``scripts/run_benchmark.sh`` of June 2026: ``gemm``, ``gemm_async`` and ``gemm_fp4_async`` run
#: ``test_preshuffle_gemm.py``, ``hgemm`` ``test_hgemm_splitk.py`` (its CDNA3 shapes are in the stream),
#: ``flash_attn`` the ``flash_attn_func`` shapes). ``gemm_fp4`` runs another kernel (fp4_gemm_4wave): no link.
CI_OP_KERNEL = {"gemm": "preshuffle_gemm", "gemm_async": "preshuffle_gemm", "gemm_fp4_async": "preshuffle_gemm",
                "hgemm": "hgemm_splitk", "flash_attn": "flash_attn_func"}


def kernel_ops(kernels) -> dict[str, str]:
    """CI op -> the sweep kernel's slug: the kernel the op runs (``CI_OP_KERNEL``), else the kernel whose
    slug is the op. Never by a timing campaign's name: the sweep's ``gemm`` campaign times hgemm_splitk,
    while the CI's ``gemm`` is the preshuffle GEMM."""
    slugs = {k.slug for k in kernels}
    out = {op: slug for op, slug in CI_OP_KERNEL.items() if slug in slugs}
    for slug in sorted(slugs):
        out.setdefault(slug, slug)
    return out


def kernel_series(rep: ci_report.Report, ops: dict[str, str]) -> dict[str, list]:
    """slug -> [(runner, op, series, regressed on main, its op page from the site root)] (the kernel panel)."""
    count: dict[tuple[str, str], int] = {}
    for key in rep.series:
        if key[1] in ops and key[4] != ci_report.SPEEDUP:
            count[(key[0], key[1])] = count.get((key[0], key[1]), 0) + 1
    out: dict[str, list] = {}
    for (runner, op), n in sorted(count.items()):
        h = rep.health.get(runner)
        regs = sum(1 for m in h.of(REGRESSION) if m.record.op == op) if h else 0
        out.setdefault(ops[op], []).append((runner, op, n, regs, "ci/" + ci_views.op_page(runner, op)))
    return out


def ci_files(rep: ci_report.Report, title: str, assets: render.Assets, ops: dict[str, str],
             ci_only: bool) -> dict[str, bytes]:
    """Every page of ``ci/`` (relative path -> bytes)."""
    def page(name: str, view) -> bytes:
        return render.render_template(name, page=view, assets=assets)

    files = {"ci/index.html": page("ci_index.html", ci_views.landing_page(rep, title, ops, ci_only)),
             "ci/speedups.html": page("ci_speedups.html", ci_views.speedups_page(rep, title, ci_only)),
             "ci/devices.html": page("ci_devices.html", ci_views.devices_page(rep, title, ci_only))}
    for pr in rep.prs:
        files[f"ci/pr-{pr}.html"] = page("ci_pr.html", ci_views.pr_page(rep, pr, title, ops, ci_only))
    for name, view in ci_views.op_pages(rep, title, ops, ci_only, i18n.zh).items():
        files[f"ci/{name}"] = page("ci_op.html", view)
    return files


def build_ci_site(ci: CiInput, out_dir: str | os.PathLike) -> tuple[int, float]:
    """A site of the stream alone in ``out_dir`` (replaced as a whole, as a sweep's site is);
    (files written, seconds)."""
    t0 = time.perf_counter()
    out = os.path.abspath(os.fspath(out_dir))
    assets = render.load_assets()
    files = ci_files(ci.report, TITLE, assets, {}, ci_only=True)
    files.update(assets.files)
    files["index.html"] = REDIRECT
    files[".nojekyll"] = b""
    man = publish.Manifest(__version__, "ci-only:" + ci.digest, ci.report.stream.updated, {},
                           sorted(set(files) | {publish.MANIFEST}))
    files[publish.MANIFEST] = man.to_bytes()
    with publish.output_lock(out):
        result = publish.publish(out, files)
    return len(result.written), time.perf_counter() - t0
