"""The label a history gives a sweep without a date (issue 40): the commit its folder's git checkout is
at, else the folder's name, so that undated sweeps read "3f2a9c1d" or "sweep-w23", not "sweep, sweep.2"."""

from __future__ import annotations

import os
import re

_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def undated_label(root: str | os.PathLike) -> str:
    """The history label of a sweep without a date: the commit the git checkout holding its folder is at
    (8 digits; the folder itself or the nearest folder above it with a ``.git``), else the folder's name
    (issue 40: not "sweep", "sweep.2"...)."""
    root = os.path.abspath(os.fspath(root))
    here = root
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            commit = git_head(here)
            if commit:
                return commit[:8]
            break
        up = os.path.dirname(here)
        if up == here:
            break
        here = up
    return _SAFE.sub("-", os.path.basename(root)).strip("-") or "sweep"


def git_head(root: str) -> str | None:
    """The commit ``root/.git`` (a folder, or a worktree's ``gitdir:`` file) has checked out, else None."""
    git = os.path.join(root, ".git")
    try:
        if os.path.isfile(git):
            with open(git, encoding="utf-8") as fh:
                git = os.path.join(root, fh.read().split("gitdir:", 1)[1].strip())
        with open(os.path.join(git, "HEAD"), encoding="utf-8") as fh:
            head = fh.read().strip()
        if not head.startswith("ref:"):
            return head if re.fullmatch(r"[0-9a-f]{40}", head) else None
        ref = head[4:].strip()
        for base in (git, _common_dir(git)):
            if os.path.isfile(os.path.join(base, ref)):
                with open(os.path.join(base, ref), encoding="utf-8") as fh:
                    return fh.read().strip() or None
            packed = os.path.join(base, "packed-refs")
            if os.path.isfile(packed):
                with open(packed, encoding="utf-8") as fh:
                    found = [ln.split()[0] for ln in fh if ln.rstrip().endswith(" " + ref)]
                if found:
                    return found[0]
    except (OSError, IndexError, UnicodeDecodeError):
        return None
    return None


def _common_dir(git: str) -> str:
    """A worktree's shared git folder (``commondir``), else ``git`` itself."""
    try:
        with open(os.path.join(git, "commondir"), encoding="utf-8") as fh:
            return os.path.normpath(os.path.join(git, fh.read().strip()))
    except OSError:
        return git
