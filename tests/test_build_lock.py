"""One build at a time per output folder (``publish.output_lock``), with real concurrent processes:
the second build waits for the first and finds its site, or stops with one line; never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator.site import publish

from test_build import make_small_sweep

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def small(tmp_path, sweep):
    return make_small_sweep(tmp_path, sweep)


def build_process(small: Path, out: Path, *extra: str) -> subprocess.Popen:
    """``python3 -m generator build`` of the small sweep into ``out``, started (not waited for)."""
    return subprocess.Popen([sys.executable, "-m", "generator", "build", str(small), "--out", str(out), "--jobs", "1",
                             *extra], cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def assert_complete(out: Path) -> None:
    """Every file the site's manifest lists is there, and nothing else; nothing left beside the folder."""
    man = json.loads((out / publish.MANIFEST).read_text(encoding="utf-8"))
    assert sorted(publish.site_files(str(out))) == man["files"]
    assert sorted(p.name for p in out.parent.iterdir() if p.name.startswith(".")) == []  # no temp folder, no lock


def test_two_builds_at_once_both_finish_with_a_complete_site(small, tmp_path):
    """Two real processes into one new folder: before the lock, one died in ``publish._swap``
    (``OSError: [Errno 39] Directory not empty``)."""
    out = tmp_path / "site"
    procs = [build_process(small, out), build_process(small, out)]
    done = [p.communicate(timeout=240) + (p.returncode,) for p in procs]
    assert [rc for _, _, rc in done] == [0, 0]
    errs = [err for _, err, _ in done]
    assert not any("Traceback" in e for e in errs)
    waited = [e for e in errs if "waiting for another build" in e]
    assert len(waited) == 1  # the other one held the folder
    lines = waited[0].splitlines()
    assert lines[0].startswith("kernel-atlas: waiting for another build (pid ") and lines[0].endswith(
        f"of {out} (at most 300 s)")
    assert "site up to date (nothing rewritten)" in lines[-1]  # it found the first build's site, complete
    assert_complete(out)


HOLD = ("import sys\nfrom generator.site import publish\n"
        "with publish.output_lock(sys.argv[1]):\n    print('held', flush=True)\n    sys.stdin.readline()\n")


def test_a_build_stops_with_one_line_or_waits_while_another_holds_the_folder(small, tmp_path):
    """A real process holds the folder until told to let go: a build with --wait 0 stops at once with
    one line; one with --wait 120 says it waits, and builds once the holder has let go."""
    out = tmp_path / "site"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], cwd=REPO_ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    now = build_process(small, out, "--wait", "0")
    _, err = now.communicate(timeout=120)
    assert now.returncode == 2
    assert err.splitlines() == [f"kernel-atlas: error: {out}: another build (pid {holder.pid}) is writing this "
                                "output folder; still busy after 0 s (build --wait SECONDS waits longer)"]
    assert not out.exists()
    later = build_process(small, out, "--wait", "120")
    first = later.stderr.readline().rstrip("\n")
    assert first == f"kernel-atlas: waiting for another build (pid {holder.pid}) of {out} (at most 120 s)"
    holder.communicate("go\n", timeout=60)  # let go
    _, err = later.communicate(timeout=240)
    assert later.returncode == 0 and "Traceback" not in err
    assert " built, 0 skipped (unchanged), 0 broken; " in err.splitlines()[-1]  # a whole first build
    assert_complete(out)
