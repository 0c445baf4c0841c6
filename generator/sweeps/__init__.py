"""Sweep snapshots, their diff and the history of built sites (reads, renders nothing)."""
