"""``kernel-atlas capture [nvidia] SPEC`` / ``capture amd -- CMD``: profile a kernel into a sweep.

NVIDIA (the default): SPEC is a small Python file naming the candidate, the baselines
and the shapes (format in ``generator.capture.nvidia_spec``); the capture needs a CUDA GPU,
PyTorch and Nsight Compute (``ncu``). ``--dry-run`` only loads the SPEC and prints the
plan, on any machine. ``capture amd`` (or ``--vendor amd``) hands the arguments to
``generator.capture.amd`` (the command to profile follows ``--``). The command prints its
own help, per vendor (``generator.capture.options``).
"""

from __future__ import annotations

from generator.capture.options import add_arguments, run

NAME = "capture"
HELP = "Check, time and profile a kernel (NVIDIA: ncu; AMD: rocprofv3) into a sweep folder."
ORDER = 70
PARSER = {"add_help": False}

__all__ = ["NAME", "HELP", "ORDER", "PARSER", "add_arguments", "run"]
