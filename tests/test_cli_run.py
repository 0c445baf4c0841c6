"""The console script's entry point (``cli.run``): ``main``, then the heap frozen for the process's end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: A real capture of the trimmed slice (tests/data/make_slice.py).
CAPTURE = REPO / "tests/data/mi350x-slice/examples/vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25"


def test_the_console_script_and_python_m_call_run():
    assert 'kernel-atlas = "generator.cli:run"' in (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert "from generator.cli import run" in (REPO / "generator" / "__main__.py").read_text(encoding="utf-8")


def test_run_gives_mains_status_and_leaves_the_heap_out_of_the_last_collection():
    """In a process of its own (a frozen heap is never collected: no test process may call it)."""
    code = ("import gc, sys; from generator import cli; "
            "rc = cli.run(['analyze', sys.argv[1], '--topk', '1']); "
            "print('RESULT', rc, gc.get_freeze_count() > 0)")
    out = subprocess.run([sys.executable, "-c", code, str(CAPTURE)], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout
    assert out.splitlines()[-1] == "RESULT 0 True"
    assert "Instructions:" in out  # main ran the command: the hotspot report's header
