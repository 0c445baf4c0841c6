"""``kernel-atlas capture SPEC``: check, time and profile a kernel into a sweep folder.

NVIDIA (the default): SPEC is a small Python file naming the candidate, the baselines
and the shapes (format in ``generator.capture.nvidia_spec``); the capture needs a CUDA GPU,
PyTorch and Nsight Compute (``ncu``). ``--dry-run`` only loads the SPEC and prints the
plan, on any machine. ``--vendor amd`` hands the same arguments to
``generator.capture.amd`` (a command to profile may follow ``--``).
"""

from __future__ import annotations

from generator.capture.options import add_arguments, run

NAME = "capture"
HELP = "Check, time and profile a kernel (NVIDIA: ncu; AMD: rocprofv3) into a sweep folder."
ORDER = 70

__all__ = ["NAME", "HELP", "ORDER", "add_arguments", "run"]
