"""Issue 23: light pages. The vendored plotly.js basic bundle (pinned bytes, its license, the
version the Python ``plotly`` package ships), charts that use only its trace types, and the
weight of the real sweep's site."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from pathlib import Path

import pytest

from generator.site import render
from test_render import build_real_site  # noqa: E402  (same test folder)

VENDOR = render.PLOTLY_BASIC.parent
#: SHA-256 of plotly-basic.min.js in the npm package plotly.js-basic-dist-min@4.1.1
#: (``npm pack plotly.js-basic-dist-min@4.1.1``; its integrity sha512-1oNF8PeQx2hv/...TiE775C4kkjMQ==).
PLOTLY_BASIC_SHA256 = "99784e3abfb07b142a15e521a439e6d9addceadb3f79553fd24c72774f0649ba"
#: The trace types plotly.js-basic bundles (its README: "Contains trace modules bar, pie and scatter").
BASIC_TRACES = {"scatter", "bar", "pie"}


def _header_version(path: Path) -> str:
    """The ``vX.Y.Z`` in a plotly bundle's leading comment."""
    m = re.search(r"plotly\.js(?: \([^)]*\))? v(\d+\.\d+\.\d+)", path.read_bytes()[:300].decode("ascii", "replace"))
    assert m, path
    return m.group(1)


def test_the_vendored_bundle_is_the_pinned_npm_file_with_its_license():
    data = render.plotly_js_path().read_bytes()
    assert hashlib.sha256(data).hexdigest() == PLOTLY_BASIC_SHA256
    assert data.startswith(b"/**\n* plotly.js (basic - minified) v4.1.1\n")
    assert (VENDOR / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    meta = json.loads((VENDOR / "package.json").read_text(encoding="utf-8"))
    assert (meta["name"], meta["version"], meta["license"]) == ("plotly.js-basic-dist-min", "4.1.1", "MIT")
    assert len(data) == 1_191_749


def test_the_vendored_version_is_the_one_the_python_package_ships():
    spec = importlib.util.find_spec("plotly")
    if spec is None or not spec.origin:
        pytest.skip("the Python plotly package is not installed: nothing to compare the version with")
    full = Path(spec.origin).parent / "package_data" / "plotly.min.js"
    assert _header_version(full) == _header_version(render.PLOTLY_BASIC) == "4.1.1"


def test_the_site_ships_the_basic_bundle_once(built_site):
    static = sorted((built_site / "static").glob("plotly.*.min.js"))
    assert [p.name for p in static] == [f"plotly.{PLOTLY_BASIC_SHA256[:10]}.min.js"]
    assert static[0].read_bytes() == render.plotly_js_path().read_bytes()


def _figures(site: Path):
    """Every figure JSON embedded in the site's pages: (page, id, figure)."""
    pattern = re.compile(r'<script type="application/json" id="(fig-[^"]+)">(.*?)</script>', re.S)
    for page in sorted(site.rglob("*.html")):
        for fid, body in pattern.findall(page.read_text(encoding="utf-8")):
            yield page.relative_to(site).as_posix(), fid, json.loads(body)


def test_every_chart_uses_only_trace_types_of_the_basic_bundle(built_site, tmp_path, sweep):
    from generator.site import build

    history = tmp_path / "history"
    out = tmp_path / "site"
    build.build_site(sweep, out, progress=False, history_dir=history, history_label="one")
    found = {}
    for site in (built_site, out):
        for page, fid, fig in _figures(site):
            for trace in fig["data"]:
                found.setdefault(trace.get("type", "scatter"), set()).add(f"{page}#{fid}")
    assert set(found) <= BASIC_TRACES, {t: sorted(p)[:3] for t, p in found.items() if t not in BASIC_TRACES}
    assert set(found) == {"scatter", "bar"}  # pie is in the bundle, unused
    assert any(p.startswith("history.html") for p in found["scatter"])


# ---------------------------------------------------------------- 2: weight

def test_no_html_file_is_over_one_megabyte_and_plotly_ships_once(built_site):
    """Issue 23 (2), the part that holds on any sweep: no HTML file over 1 MB, the basic plotly bundle once
    (the whole site's budget: test_the_real_sweep_site_stays_light)."""
    sizes = {p.relative_to(built_site).as_posix(): p.stat().st_size for p in built_site.rglob("*") if p.is_file()}
    html = {k: v for k, v in sizes.items() if k.endswith(".html")}
    assert html and max(html.values()) <= 1_000_000, max(html.items(), key=lambda kv: kv[1])
    assert sum(v for k, v in sizes.items() if k.startswith("static/plotly.")) == 1_191_749  # the basic bundle, once


@pytest.mark.full_sweep
def test_the_real_sweep_site_stays_light(built_site):
    """Issue 23 (2): the whole site <= 25 MB (measured: 19.8 MB, of which 8.1 MB API JSON and
    1.2 MB plotly.js) and no HTML file over 1 MB (the largest: a kernel page of 0.72 MB)."""
    sizes = {p.relative_to(built_site).as_posix(): p.stat().st_size for p in built_site.rglob("*") if p.is_file()}
    html = {k: v for k, v in sizes.items() if k.endswith(".html")}
    assert len(html) > 60 and max(html.values()) <= 1_000_000, max(html.items(), key=lambda kv: kv[1])
    assert sum(sizes.values()) <= 25_000_000, sum(sizes.values())
    plotly = sum(v for k, v in sizes.items() if k.startswith("static/plotly."))
    assert plotly == 1_191_749  # the basic bundle, once


@pytest.fixture(scope="module")
def split_site(tmp_path_factory, sweep):
    """The real sweep built with ISA pages of 500 pcs (flash_attn_func's captures hold about
    2,070 instructions: five pages each; the default, 1,200, makes two of them)."""
    from generator.site import build
    from generator.site.views import source

    out = tmp_path_factory.mktemp("split") / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(source, "ISA_PART_PCS", 500)
        build.build_site(sweep, out, progress=False, jobs=1)
    return out


def _ids(page: Path) -> list[str]:
    return re.findall(r'<tr id="(pc\d+)"', page.read_text(encoding="utf-8"))


def test_a_long_isa_listing_is_split_into_pages_of_its_pcs(split_site, built_site):
    # flash_attn_func's capture c0 (the big run on the whole sweep, the small one on the slice: the same code):
    # its code.json lists 2069 instructions after the label line, pcs 1-2069
    folder = split_site / "kernels" / "flash_attn_func" / "src" / "c0"
    parts = ["isa.html"] + sorted((p.name for p in folder.glob("isa-*.html")), key=lambda n: int(n[4:-5]))
    assert parts == ["isa.html", "isa-2.html", "isa-3.html", "isa-4.html", "isa-5.html"]
    default = built_site / "kernels" / "flash_attn_func" / "src" / "c0"
    assert sorted(p.name for p in default.glob("isa*.html")) == ["isa-2.html", "isa.html"]  # 1,200 pcs a page
    whole = _ids(default / "isa.html") + _ids(default / "isa-2.html")
    pieces = [_ids(folder / name) for name in parts]
    assert sum(pieces, []) == whole and len(whole) == 2069  # every row once, in order
    for k, ids in enumerate(pieces):
        pcs = [int(i[2:]) for i in ids]
        assert all(p // 500 == k for p in pcs), (parts[k], pcs[0], pcs[-1])
    nav = (folder / "isa-3.html").read_text(encoding="utf-8")
    assert '<a href="isa.html" data-first="1" data-last="499" translate="no">1–499</a>' in nav
    assert '<strong translate="no">1000–1499</strong>' in nav
    # a short listing stays one page, without the list of parts: fused_rope_cache's 207 instructions
    # (its source/hotspot_output.txt), in both
    short = split_site / "kernels" / "fused_rope_cache" / "src" / "c0"
    assert len(_ids(short / "isa.html")) == 207 and not list(short.glob("isa-*.html"))
    assert "isa-parts" not in (short / "isa.html").read_text(encoding="utf-8")


def test_every_link_into_a_split_listing_lands_on_its_part(split_site):
    from test_render import check_links

    assert check_links(split_site) == []  # every relative link and #anchor of the site resolves
    links = []
    for page in sorted((split_site / "kernels" / "flash_attn_func").rglob("*.html")):
        links += re.findall(r'href="((?:src/c\d+/)?isa(?:-\d+)?\.html)#pc(\d+)"', page.read_text(encoding="utf-8"))
    later = [(href, pc) for href, pc in links if int(pc) >= 500]
    assert later and all(href.endswith(f"isa-{int(pc) // 500 + 1}.html") for href, pc in later), later[:5]


@pytest.fixture(scope="module")
def built_site(tmp_path_factory, sweep) -> Path:
    return build_real_site(tmp_path_factory, sweep)
