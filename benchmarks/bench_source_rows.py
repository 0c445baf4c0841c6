"""Measure what writing the source and ISA pages' rows in Python buys over a template loop (a
benchmark, not a test; STYLE.md 4 and 14: rows stay in templates unless a loop over thousands of
source / ISA lines is measured too slow, >= 5 % of a cold build).

Gathers every kernel of the sweep once, then renders every row of every capture's source pages and
ISA listing both ways, checking they give the same bytes: ``generator.site.source_pages`` (Python,
one f-string per line) and the Jinja loops below (what the templates would hold), CPU time, medians
of 5 rounds. The difference is set against a cold build of the same sweep (a fresh ``kernel-atlas build``
into an empty folder, median of 5; wall and CPU seconds of the build and its workers).

    python3 benchmarks/bench_source_rows.py [SWEEP]   # default ../shared/mi350x-sweep
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from generator.read import discover  # noqa: E402  (after the sys.path line)
from generator.site import gather, plan, render, source_pages  # noqa: E402
from generator.site.views import base as base_views  # noqa: E402
from generator.site.views.source import capture_pages  # noqa: E402

ROUNDS = 5

ISA_LOOP = """{% for i in rows %}<tr id="{{ i.anchor }}"{% if i.heat %} class="{{ i.heat }}"{% endif %}><td>{{ i.pc }}</td>\
<td>{{ i.stall }}</td><td>{{ i.total }}</td><td>{{ i.execs }}</td><td>{{ i.type }}</td><td>{{ i.asm }}{% if i.note %} \
<span class="note" title="{{ i.note_title }}" translate="yes" data-zh="{{ i.note_zh }}">{{ i.note }}</span>{% endif %}</td>\
<td>{% if i.loc_href %}<a href="{{ i.loc_href }}">{{ i.loc }}</a>{% else %}{{ i.loc }}{% endif %}</td></tr>
{{ "" }}{% endfor %}"""

SOURCE_LOOP = """{% for line in lines %}<tr id="{{ line.anchor }}"{% if line.heat %} class="{{ line.heat }}"{% endif %}>\
<td><a href="#{{ line.anchor }}">{{ line.number }}</a></td><td>{{ line.stall }}</td><td>{{ line.share }}</td>\
<td>{{ line.dominant }}</td><td>{% if has_text %}<pre>{{ line.text }}</pre>{% endif %}{% if line.isa %}<details>\
<summary translate="yes" data-zh="{{ line.isa_label_zh }}">{{ line.isa_label }}</summary><table class="isa-mini"><tbody>\
{% for i in line.isa %}<tr{% if i.heat %} class="{{ i.heat }}"{% endif %}><td><a href="{{ i.href }}">{{ i.pc }}</a></td>\
<td>{{ i.stall }}</td><td>{{ i.asm }}</td></tr>{% endfor %}</tbody></table></details>{% elif line.isa_href %}\
<a class="isa-count" href="{{ line.isa_href }}" translate="yes" data-zh="{{ line.isa_label_zh }}">{{ line.isa_label }}</a>\
{% endif %}</td></tr>
{{ "" }}{% endfor %}"""


def every_page(sweep: Path) -> list:
    """The source and ISA pages of every analyzed capture of the sweep."""
    bp = plan.plan_build(sweep, tempfile.mkdtemp(), "", True, None)
    env = gather.Env(root=bp.root, config=bp.config, kernels_json=bp.kernels_json, mods=bp.mods, warn=lambda w: None)
    ctx = base_views.SiteContext()
    pages = []
    for kp in bp.kernels:
        k, _ = gather.gather_kernel(kp, env)
        for ci, c in enumerate(k.captures):
            pages += capture_pages(ci, c, k, ctx, c.name)
    return pages


def python_rows(pages: list) -> list[str]:
    out = []
    for p in pages:
        if p.kind == "isa":
            out.append(str(source_pages.isa_rows_html(p.isa)))
        else:
            out += [str(source_pages.source_rows_html(b.lines, p.has_text)) for b in p.blocks]
    return out


def template_rows(pages: list, isa, src) -> list[str]:
    out = []
    for p in pages:
        if p.kind == "isa":
            out.append(isa.render(rows=p.isa))
        else:
            out += [src.render(lines=b.lines, has_text=p.has_text) for b in p.blocks]
    return out


def cold_build(sweep: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``kernel-atlas build`` in a fresh interpreter into an empty folder."""
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "generator", "build", str(sweep), "--out", str(out), "--quiet"], cwd=REPO,
                   check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timed(fn, *args) -> float:
    """CPU seconds of ``fn(*args)`` (this process: a shared machine's load moves them less than wall time)."""
    t = time.process_time()
    fn(*args)
    return time.process_time() - t


def main() -> int:
    sweep = Path(sys.argv[1] if len(sys.argv) > 1 else REPO.parent / "shared" / "mi350x-sweep").resolve()
    if not (sweep / "examples").is_dir():
        print(f"no sweep at {sweep}", file=sys.stderr)
        return 2
    pages = every_page(sweep)
    env = render.environment()
    isa, src = env.from_string(ISA_LOOP), env.from_string(SOURCE_LOOP)
    assert python_rows(pages) == template_rows(pages, isa, src), "the loops do not give the Python rows' bytes"
    n_isa = sum(len(p.isa) for p in pages if p.kind == "isa")
    n_src = sum(len(b.lines) for p in pages if p.kind != "isa" for b in p.blocks)
    py = statistics.median(timed(python_rows, pages) for _ in range(ROUNDS))
    tpl = statistics.median(timed(template_rows, pages, isa, src) for _ in range(ROUNDS))
    with tempfile.TemporaryDirectory() as tmp:
        cold_build(sweep, Path(tmp) / "site")  # untimed: bytecode caches filled
        builds = [cold_build(sweep, Path(tmp) / "site") for _ in range(ROUNDS)]
    wall, cpu = (statistics.median(b[i] for b in builds) for i in (0, 1))
    print(f"{len(pages)} source and ISA pages of {sweep}: {n_isa} ISA rows, {n_src} source lines (same bytes both ways)")
    print(f"  rows in Python:       {py * 1000:7.1f} ms CPU (median of {ROUNDS})")
    print(f"  rows in a Jinja loop: {tpl * 1000:7.1f} ms CPU (median of {ROUNDS})")
    print(f"  cold build: wall {wall:.3f} s, CPU {cpu:.3f} s (medians of {ROUNDS})")
    print(f"  the loop costs {(tpl - py) * 1000:+.1f} ms = {(tpl - py) / cpu * 100:+.1f} % of the cold build's CPU time, "
          f"{(tpl - py) / wall * 100:+.1f} % of its wall time (the rows are rendered by the workers in parallel)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
