"""``build --ci``: the CI stream's pages, alone and beside a sweep (DOMAIN.md §6); the figures on the pages
equal ``tests/ci_oracle.py``'s reading of the raw records."""

from __future__ import annotations

import html
import json
import re

import pytest

import ci_oracle as oracle
from conftest import ON_SLICE
from generator import cli
from test_ci_stream import stream  # noqa: F401  (fixture)


def build_ci(out, history, runs=None, *more) -> int:
    args = ["build", *more, "--ci", str(history), "--out", str(out), "--quiet"]
    return cli.main(args + (["--ci-runs", str(runs)] if runs else []))


@pytest.fixture(scope="module")
def ci_site(stream, tmp_path_factory):
    out = tmp_path_factory.mktemp("ci") / "site"
    assert build_ci(out, *stream) == 0
    return out


def cells(page: str, table_after: str) -> list[list[str]]:
    """The text of each body row's cells of the first table after ``table_after``."""
    part = page.split(table_after, 1)[1].split("</table>", 1)[0]
    body = part.split("<tbody>", 1)[1]
    return [[html.unescape(re.sub(r"<[^>]+>", " ", c)).split() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_the_stream_alone_has_its_pages(ci_site, stream):
    recs = oracle.records(stream[0])
    prs = sorted({r["pr"] for r in recs if r.get("pr") is not None})
    pages = {p.name for p in (ci_site / "ci").glob("*.html")}
    assert {"index.html", "speedups.html", "devices.html"} <= pages
    assert {p for p in pages if p.startswith("pr-")} == {f"pr-{n}.html" for n in prs}
    ops = {(k[0], k[1]) for k in oracle.series(recs) if k[4] != "speedup"}
    assert len([p for p in pages if p.startswith("op-")]) == len(ops)
    assert b'url=ci/index.html' in (ci_site / "index.html").read_bytes()
    landing = (ci_site / "ci/index.html").read_text(encoding="utf-8")
    assert "api/index.json" not in landing and "glossary.html" not in landing  # a site of the stream alone has neither


def test_the_health_cards_list_what_regressed_against_the_tag(ci_site, stream):
    want = oracle.health(oracle.records(stream[0]), json.loads(stream[1].read_text())["runs"])
    page = (ci_site / "ci/index.html").read_text(encoding="utf-8")
    for runner, regs in want.items():
        card = page.split(f'<h3 translate="no">{runner}</h3>', 1)[1].split('class="ci-card"', 1)[0]
        if not regs:
            assert "Nothing regressed against the tag beyond noise." in card
            continue
        rows = cells(card, '<table class="ci-moves">')
        got = {(r[0][0], r[1][0], r[2][0]): r[3][0] for r in rows}
        assert got == {(op, shape, dtype): f"{ratio:.3f}x" for (op, shape, dtype, _), ratio in regs.items()}


def test_a_pr_page_lists_its_regressions_per_runner(ci_site, stream):
    checks = oracle.pr_checks(oracle.records(stream[0]))
    for (pr, runner), kinds in sorted(checks.items()):
        page = (ci_site / f"ci/pr-{pr}.html").read_text(encoding="utf-8")
        section = page.split(f'<h2 translate="no">{runner}</h2>', 1)[1].split("</section>", 1)[0]
        regs = kinds.get("regression", {})
        if regs:
            rows = cells(section, '<table class="ci-moves">')
            assert {(r[0][0], r[1][0]) for r in rows} == {(op, shape) for op, shape, _, _ in regs}
        else:
            assert "No regression beyond noise." in section


def test_speedups_page_reads_the_latencies(ci_site, stream):
    want = oracle.speedups(oracle.records(stream[0]))
    page = (ci_site / "ci/speedups.html").read_text(encoding="utf-8")
    rows = cells(page, "<table>")
    got = {(r[0][0], r[1][0], r[2][0], r[3][0]): (r[4][0], r[5][0]) for r in rows}
    assert got == {k: (f"{v[0]:.2f}x", v[1]) for k, v in want.items()}
    assert len(cells(page, '<section class="panel" id="inverted">')) == len(oracle.inverted(oracle.records(stream[0])))


def test_the_same_bytes_twice(stream, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert build_ci(a, *stream) == 0 and build_ci(b, *stream) == 0
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)


def test_handmade_bad_stream_stops_the_build_and_leaves_the_site(ci_site, tmp_path, capsys):
    bad = tmp_path / "handmade-schema2-history.json"
    bad.write_text('{"schema": 2, "records": []}', encoding="utf-8")
    before = (ci_site / "ci/index.html").read_bytes()
    assert build_ci(ci_site, bad) == 2
    assert capsys.readouterr().err == f"kernel-atlas: error: {bad}: schema 2; only schema 1 is read\n"
    assert (ci_site / "ci/index.html").read_bytes() == before


def test_ci_runs_needs_ci(tmp_path, capsys, stream):
    assert cli.main(["build", "--ci-runs", str(stream[1]), "--out", str(tmp_path / "x")]) == 2
    assert "--ci-runs needs --ci" in capsys.readouterr().err


@pytest.fixture(scope="module")
def sweep_ci_site(stream, sweep, tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep-ci") / "site"
    assert build_ci(out, *stream, str(sweep), "--jobs", "1") == 0
    return out


@pytest.mark.full_sweep
def test_a_ci_op_that_is_a_kernel_links_both_ways(sweep_ci_site, stream):
    """rmsnorm is a kernel of the sweep and an op of the stream: its kernel page's CI panel links to each
    runner's rmsnorm page, and those link back to the kernel page."""
    site = sweep_ci_site
    kpage = (site / "kernels/rmsnorm/index.html").read_text(encoding="utf-8")
    panel = kpage.split('<section class="panel" id="ci">', 1)[1].split("</section>", 1)[0]
    links = re.findall(r'href="\.\./\.\./(ci/op-[^"]+)"', panel)
    runners = sorted({k[0] for k in oracle.series(oracle.records(stream[0])) if k[1] == "rmsnorm"})
    assert len(runners) == 3
    assert links == [f"ci/op-{r}--rmsnorm.html" for r in runners]
    for link in links:
        assert 'href="../kernels/rmsnorm/index.html"' in (site / link).read_text(encoding="utf-8")
    assert 'href="ci/index.html"' in (site / "index.html").read_text(encoding="utf-8")
    # a kernel without a CI op has no CI panel
    assert 'id="ci"' not in (site / "kernels/pa/index.html").read_text(encoding="utf-8")


def test_the_sweep_site_keeps_its_pages_beside_ci(sweep_ci_site):
    assert (sweep_ci_site / "api/index.json").is_file() and (sweep_ci_site / "ci/index.html").is_file()
    assert 'href="../api/index.json"' in (sweep_ci_site / "ci/index.html").read_text(encoding="utf-8")
    assert ON_SLICE or (sweep_ci_site / "kernels/rmsnorm/index.html").is_file()


def test_the_markdown_comment_links_to_pages_and_sections_of_the_site(ci_site, stream, capsys):
    """Every link of a pull request's comment (``ci --markdown --site-url``) is a page of the built site,
    and its #section is there."""
    checks = oracle.pr_checks(oracle.records(stream[0]))
    pr = next(p for (p, _), c in sorted(checks.items()) if c.get("regression") or c.get("improvement"))
    assert cli.main(["ci", str(stream[0]), "--runs", str(stream[1]), "--markdown", "--pr", str(pr),
                     "--site-url", "https://example.org/atlas"]) == 0
    links = re.findall(r"\(https://example\.org/atlas/([^)#]+)(?:#([^)]+))?\)", capsys.readouterr().out)
    assert len(links) > 1 and (f"ci/pr-{pr}.html", "") in links
    for page, anchor in links:
        text = (ci_site / page).read_text(encoding="utf-8")
        assert not anchor or f'id="{anchor}"' in text, (page, anchor)
