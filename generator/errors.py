"""The one error type that reaches the user as a single line."""

from __future__ import annotations

import os


class InputError(Exception):
    """Bad input: names the file (and line when known) and the problem.

    Raised by every reader; the CLI prints ``str(err)`` on one line and exits 2.
    Inside a sweep the caller records it against the item and goes on.
    """

    def __init__(self, path: str | os.PathLike | None, problem: str, line: int | None = None):
        self.path = str(path) if path is not None else None
        self.problem = problem
        self.line = line
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.problem}"

    def relative_to(self, root: str | os.PathLike | None) -> str:
        """The one-line message with the path relative to ``root`` when inside it."""
        if self.path and root:
            rel = os.path.relpath(os.path.abspath(self.path), os.path.abspath(root))
            if not rel.startswith(".."):
                return InputError(rel.replace(os.sep, "/"), self.problem, self.line).message
        return self.message


def relative_text(text: str, root: str | os.PathLike) -> str:
    """A message with the sweep root's absolute path removed (outputs carry no local paths)."""
    root = os.path.abspath(root)
    return text.replace(root + os.sep, "").replace(root, ".")
