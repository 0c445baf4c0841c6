"""Measure what one speed trick buys: cold builds of a sweep with the trick on and off (a benchmark,
not a test; STYLE.md 14: a trick stays only while it buys >= 5 % of a cold build).

Each variant is the tool's source at a git revision, exported (``git archive``) into a temporary
folder: ``BASE`` (the trick on), and for each ``--trick NAME=COMMIT`` the same ``BASE`` with that one
commit's change to ``generator/`` and ``templates/`` applied (the trick off, every other trick as in
``BASE``). A cold build is ``python3 -m generator build SWEEP --out EMPTY --quiet`` in a fresh
interpreter, timed from outside; the variants take turns in each round (a shared machine's load hits
them alike), after one untimed build each that fills the bytecode caches. Prints the median of the
rounds per variant (wall time, and CPU time of the build and its workers, which a shared machine's
load disturbs less) and each trick's gain: (off - on) / off.

    python3 benchmarks/bench_tricks.py --base 994b44f --trick gc=abc1234 --trick escape=def5678
    python3 benchmarks/bench_tricks.py --base main --rev later=HEAD   # two revisions as they are
"""

from __future__ import annotations

import argparse
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
ROUNDS = 5
PATHS = ("generator", "templates")


def git(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True, **kw)


def export(rev: str, dst: Path) -> Path:
    """The tree of ``rev`` in ``dst`` (a plain folder, no git)."""
    dst.mkdir(parents=True)
    archive = git("archive", "--format=tar", rev).stdout
    subprocess.run(["tar", "-x", "-C", str(dst)], input=archive, check=True)
    return dst


def apply_commit(commit: str, dst: Path) -> None:
    """Apply ``commit``'s change to the tool (``generator/``, ``templates/``) in the exported ``dst``
    (without context lines: a later commit may have changed the lines beside it)."""
    patch = git("diff", "-U0", f"{commit}^", commit, "--", *PATHS).stdout
    subprocess.run(["git", "apply", "--unidiff-zero", "-"], input=patch, cwd=dst, check=True)


def cold_build(tree: Path, sweep: Path, out: Path, jobs: int | None) -> tuple[float, float]:
    """Wall and CPU seconds (the interpreter and its worker processes, user + system) of one build
    in a fresh interpreter into an empty ``out``."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "generator", "build", str(sweep), "--out", str(out), "--quiet"]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("KERNEL_ATLAS_TEMPLATE_CACHE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep", nargs="?", default=str(REPO.parent / "shared" / "mi350x-sweep"))
    ap.add_argument("--base", default="HEAD", help="the revision with every trick on")
    ap.add_argument("--trick", action="append", default=[], metavar="NAME=COMMIT",
                    help="BASE with COMMIT's change applied (the trick off)")
    ap.add_argument("--rev", action="append", default=[], metavar="NAME=REV", help="another revision as it is")
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--jobs", type=int, default=None, help="passed to build (default: its own, every core)")
    args = ap.parse_args()
    sweep = Path(args.sweep).resolve()
    if not (sweep / "examples").is_dir():
        print(f"no sweep at {sweep}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"on": export(args.base, Path(tmp) / "on")}
        for spec in args.trick:
            name, commit = spec.split("=", 1)
            trees[name] = export(args.base, Path(tmp) / name)
            apply_commit(commit, trees[name])
        for spec in args.rev:
            name, rev = spec.split("=", 1)
            trees[name] = export(rev, Path(tmp) / name)
        out = Path(tmp) / "site"
        for tree in trees.values():
            cold_build(tree, sweep, out, args.jobs)  # untimed: bytecode caches filled
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        names = list(trees)
        for r in range(args.rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                times[name].append(cold_build(trees[name], sweep, out, args.jobs))
        print(f"cold build of {sweep} ({args.rounds} rounds, medians; base {args.base}); wall seconds, and CPU "
              f"seconds of the build and its workers (steadier on a shared machine)")
        on_wall, on_cpu = (statistics.median(t[i] for t in times["on"]) for i in (0, 1))
        for name in names:
            wall, cpu = (statistics.median(t[i] for t in times[name]) for i in (0, 1))
            gain = "" if name == "on" else (f"   the trick buys {(wall - on_wall) / wall * 100:+5.1f} % wall, "
                                            f"{(cpu - on_cpu) / cpu * 100:+5.1f} % CPU (off vs on)")
            print(f"  {name:<12} wall {wall:6.3f} s  cpu {cpu:6.3f} s{gain}")
            print(f"  {'':<12} rounds wall {' '.join(f'{t[0]:.3f}' for t in times[name])}  "
                  f"cpu {' '.join(f'{t[1]:.3f}' for t in times[name])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
