"""Kernel Atlas: a profiling sweep in, a static browsable site out."""

__version__ = "0.1.0"
