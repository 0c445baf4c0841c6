"""Fuzz every reader: 10,000+ cases, and the count of crashes (issue 14 point 7).

    python benchmarks/fuzz.py [CASES]      (default 10000, spread over the readers)

A crash is anything but success or a one-line ``InputError`` naming the fuzzed file
(see ``tests/fuzzing.py`` for the readers, seeds and mutations). Prints per reader the
cases run and the crashes (with the first few, deduplicated by place), then the total
crash count; exits 1 when it is not 0. Needs ``hypothesis`` (the ``test`` extra) and
the shared sweep beside the repository for the seeds that are real files.
"""

from __future__ import annotations

import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import fuzzing  # noqa: E402


def fuzz_target(target: fuzzing.Target, cases: int) -> tuple[int, list[str]]:
    """Run ``cases`` cases of one reader; (cases run, crash descriptions)."""
    crashes: list[str] = []
    ran = 0

    @settings(max_examples=cases, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def one(data):
        nonlocal ran
        ran += 1
        crash = fuzzing.run_case(target, data.draw(fuzzing.case_strategy(target)))
        if crash:
            crashes.append(crash)

    one()
    return ran, crashes


def main(argv: list[str]) -> int:
    total = int(argv[0]) if argv else 10_000
    targets = [t for t in fuzzing.TARGETS if fuzzing.available(t)]
    missing = [t.name for t in fuzzing.TARGETS if t not in targets]
    if missing:
        print(f"skipped (seed absent): {', '.join(missing)}")
    per = math.ceil(total / len(targets))
    all_cases = all_crashes = 0
    start = time.perf_counter()
    for target in targets:
        t0 = time.perf_counter()
        ran, crashes = fuzz_target(target, per)
        all_cases += ran
        all_crashes += len(crashes)
        print(f"{target.name:28s} cases {ran:6d}  crashes {len(crashes):4d}  ({time.perf_counter() - t0:.1f} s)",
              flush=True)
        seen: dict[str, int] = {}
        for c in crashes:
            key = c.split(":")[0] + c.split(" at ")[-1].split(":")[0:2].__str__()
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 1 and len(seen) <= 5:
                print(f"    {c}")
    print(f"total: {all_cases} cases, {all_crashes} crashes ({time.perf_counter() - start:.0f} s)")
    return 1 if all_crashes else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
