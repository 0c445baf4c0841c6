"""A sweep N times larger made of links (issue 25): every bundle and every campaign of a real
sweep linked N times under new names, paired by a generated ``kernel-atlas.toml``.

Copy 0 keeps the real names (so kernels.json, linked once, still pairs them); copy ``i`` >= 1 is
``<name>_x<i>``, and its ``[kernels.<bundle>_x<i>]`` table names the campaign ``<campaign>_x<i>``,
the kernel's display name with `` (copy i)`` and its category. Nothing is copied: a 100x sweep
of the 120 MB MI350X sweep is a few thousand links. Used by ``bench_build.py --scale`` and by
``tests/test_scale.py``.

``make_sized_sweep`` makes a sweep of a given size the same way (issue 41): the whole sweep once,
then copy 1 of the kernels named in ``REAL_SIZE`` (a bundle with its campaign, or a campaign no
bundle claims), so that the shared 19-kernel, 17-capture MI350X sweep becomes one of the real
sweep's size (25 kernels, 22 captures). ``bench_sweep.py`` builds it.

    python3 benchmarks/scaled_sweep.py SWEEP DEST N
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from generator.analyze import kernels, verdicts  # noqa: E402  (after the sys.path line)
from generator.config import CONFIG_NAME, load_config  # noqa: E402
from generator.read import discover  # noqa: E402


def copy_name(name: str, i: int) -> str:
    """The name of copy ``i`` of a bundle or campaign (copy 0 is the real one)."""
    return name if i == 0 else f"{name}_x{i}"


def _table(key: str, values: dict[str, str]) -> str:
    lines = [f"[kernels.{json.dumps(key)}]"]
    lines += [f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in values.items() if v is not None]
    return "\n".join(lines)


#: The kernels copied once more to make the shared MI350X sweep (19 kernels, 17 ATT captures) one
#: of the real sweep's size, 25 kernels and 22 captures: four bundles (pa_mqa_logits_fp4 with two
#: captures, pa, moe_gemm and layernorm with one each, the last three with their campaigns) and
#: two campaigns no bundle claims.
REAL_SIZE = ("pa_mqa_logits_fp4", "pa", "moe_gemm", "layernorm", "fp8_gemm_rowscale", "paged_attention")


def make_scaled_sweep(sweep: str | os.PathLike, dest: str | os.PathLike, copies: int,
                      only: tuple[str, ...] | None = None) -> Path:
    """``dest`` made a sweep of ``copies`` linked copies of ``sweep`` (see the module docstring);
    with ``only``, copies 1.. hold only those kernels (bundle names, or campaign names for a
    kernel without a bundle)."""
    src, dst = Path(sweep).resolve(), Path(dest)
    found = discover.discover(src)
    refs = kernels.pair_kernels(found, load_config(found.root), verdicts.load_kernels_json(found.root))
    (dst / "examples").mkdir(parents=True)
    (dst / "benchmarks" / "examples").mkdir(parents=True)
    tables = []
    for i in range(copies):
        chosen = [r for r in refs if i == 0 or only is None or (r.bundle.name if r.bundle is not None else r.op) in only]
        bundles = {r.bundle.name for r in chosen if r.bundle is not None}
        ops = {r.op for r in chosen if r.op}
        for b in found.bundles:
            if i == 0 or only is None or b.name in bundles:
                os.symlink(b.path, dst / "examples" / copy_name(b.name, i))
        for op, folder in sorted(found.campaigns.items()):
            if i == 0 or only is None or op in ops:
                os.symlink(folder, dst / "benchmarks" / "examples" / copy_name(op, i))
        if i == 0:
            continue
        for r in chosen:
            key = copy_name(r.bundle.name if r.bundle is not None else r.op, i)
            tables.append(_table(key, {"campaign": copy_name(r.op, i) if r.op else "",
                                       "name": f"{r.name} (copy {i})", "category": r.category}))
    if (src / "docs").exists():
        os.symlink(src / "docs", dst / "docs")
    head = (f"# {copies} linked copies of {src.name} (benchmarks/scaled_sweep.py)\n" if only is None else
            f"# {src.name} with {', '.join(only)} linked once more (benchmarks/scaled_sweep.py)\n")
    (dst / CONFIG_NAME).write_text(head + "\n\n".join(tables) + "\n", encoding="utf-8")
    return dst


def make_sized_sweep(sweep: str | os.PathLike, dest: str | os.PathLike, extra: tuple[str, ...] = REAL_SIZE) -> Path:
    """``dest`` made the sweep once plus one more copy of each kernel of ``extra`` (``REAL_SIZE``:
    the real sweep's size from the shared one)."""
    return make_scaled_sweep(sweep, dest, 2, only=extra)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    print(make_scaled_sweep(sys.argv[1], sys.argv[2], int(sys.argv[3])))
