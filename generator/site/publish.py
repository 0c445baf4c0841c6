"""Publish a built site: the manifest, content hashes, and an all-or-nothing swap.

The output folder is never edited in place. A build writes its files into a fresh
folder next to the output (``.<name>.tmp-XXXX``), hard-links every file that did not
change from the previous site (same bytes: not rewritten, same inode, same mtime),
then swaps the folders with two renames. A build that fails at any point removes its
temporary folder and leaves the previous site exactly as it was. When nothing at all
changed, nothing is touched.

The manifest (``kernel-atlas-manifest.json`` at the site root) lets the next build
skip unchanged kernels (coverage.py's ``status.json``). Format 1::

    {
      "format": 1,
      "tool_version": "0.1.0",
      "global_hash": "9c1e...",          # config, analysis code, templates, assets, options
      "build_date": "2026-06-01",
      "items": {
        "softmax": {
          "input_hash": "5b0a...",       # the bundle's and campaign's files, neighbours
          "files": ["api/kernels/softmax.json", "badges/softmax.svg",
                    "kernels/softmax/index.html", "pr/softmax.md"],
          "row": {...},                  # the kernel's overview row (views.IndexRow)
          "extra": {...}                 # what the overview needs beyond the row
        }
      },
      "files": ["api/index.json", "index.html", ...],  # every file of the site
      "floor": {"inputs": "4d2f...", "us": 2.1}  # the timing floor and the hash of its inputs
    }

A manifest of another format, or one that cannot be read, is ignored: the next build
is a full one.

One build at a time per output folder: ``output_lock`` holds ``.<name>.lock`` beside it (an
advisory ``flock``, released by the system if the build dies; the file is removed when the build
ends). A second build into the same folder waits for it a bounded time, then stops with one line.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from typing import Any

from generator.errors import InputError
from generator.model import record
from generator.read import jsonio
from generator.read.discover import rel_path

MANIFEST = "kernel-atlas-manifest.json"
MANIFEST_FORMAT = 1
#: Seconds a build waits for another build of the same output folder (``build --wait``).
LOCK_WAIT_S = 300.0

try:
    import fcntl
except ImportError:  # not a POSIX system: no lock (one build at a time is then the user's care)
    fcntl = None  # type: ignore[assignment]


# ---------------------------------------------------------------- hashing

def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of bytes."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str) -> str:
    """Hex SHA-256 of a file's bytes (through ``FileHashes.active`` while a build holds one)."""
    if FileHashes.active is not None:
        return FileHashes.active.sha256(path)
    return _sha256_read(path)


def _sha256_read(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: The input files' hashes of the last build, by their ``os.stat`` (``FileHashes``), in the site.
HASHES = "kernel-atlas-hashes.json"
#: A file changed less than this before the hashes were written may have changed again within
#: the file system's timestamp granularity: it is read again (git's "racily clean" entries).
RACY_NS = 2_000_000_000


class FileHashes:
    """SHA-256 of input files remembered by their stat (size, mtime, ctime, inode), so that an
    unchanged rebuild checks every input's hash without reading it. Measured with the timing floor
    kept in the manifest (``plan.floor_inputs``), same run, real-size sweep (bench_sweep.py's):
    the no-op rebuild 0.440 -> 0.053 s in process, 0.731 -> 0.377 s as ``kernel-atlas build``.

    An entry is trusted when all four stat fields are those recorded and the file's mtime and
    ctime are older than the record itself by ``RACY_NS`` (git's rule for "racily clean" entries:
    a write in the timestamp tick of the record is read again; ctime cannot be set back by a
    user). Keys are SHA-256 of the absolute path (the site does not publish the builder's paths);
    values ``[size, mtime_ns, ctime_ns, ino, sha256]``. ``seen`` holds what this build hashed:
    the next build's record, written to the site as ``HASHES``."""

    active: FileHashes | None = None  # the build's, consulted by sha256_file

    def __init__(self, known: dict[str, list] | None = None, written_ns: int = 0):
        self.known = known or {}
        self.trusted_ns = written_ns - RACY_NS
        self.seen: dict[str, list] = {}
        self.started_ns = time.time_ns()

    def for_worker(self) -> FileHashes:
        """A record for a worker process of this build: it trusts what this one hashed so far (the plan
        hashes every campaign's results file) by the rule of a previous build's record, and starts its
        own ``seen``. Issue 41: a cold build's workers hashed 30.7 MB of the shared sweep's inputs, 9.4 MB of
        them results files the plan had just hashed."""
        return FileHashes(dict(self.seen), self.started_ns)

    @classmethod
    def load(cls, out_dir: str) -> FileHashes:
        """The record left in a site folder (an empty one when absent or unreadable)."""
        path = os.path.join(out_dir, HASHES)
        try:
            with open(path, "rb") as fh:
                doc = jsonio.loads(fh.read())
            known = {str(k): list(v) for k, v in doc["files"].items() if isinstance(v, list) and len(v) == 5}
            return cls(known, os.stat(path).st_mtime_ns)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, InputError):
            return cls()

    def sha256(self, path: str) -> str:
        """The file's SHA-256: the recorded one when its stat says it is unchanged."""
        st = os.stat(path)
        key = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogatepass")).hexdigest()[:32]
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        old = self.known.get(key)
        if old is not None and old[:4] == stamp and max(st.st_mtime_ns, st.st_ctime_ns) < self.trusted_ns:
            digest = str(old[4])
        else:
            digest = _sha256_read(path)
        self.seen[key] = [*stamp, digest]
        return digest

    def to_bytes(self) -> bytes:
        return json_compact({"format": 1, "files": dict(sorted(self.seen.items()))})


def code_fingerprint() -> list[str]:
    """Hashes of the generator package (code and data): any change to an analysis rebuilds all."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return tree_hash(root, skip=lambda n: not n.endswith((".py", ".toml", ".json", ".yaml")))


def combine(parts: Iterable[str]) -> str:
    """One hash of an ordered sequence of strings (each part delimited)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def tree_hash(folder: str, skip=None) -> list[str]:
    """``rel-path:sha256`` of every file under ``folder`` (sorted), minus those ``skip(name)`` rejects."""
    out = []
    if not os.path.isdir(folder):
        return out
    for root, dirs, files in os.walk(folder, followlinks=True):  # a bundle may link its captures
        dirs.sort()
        here = rel_path(root, folder)  # once a folder (per file it was 0.05 s of a 0.20 s no-op rebuild, cProfile)
        prefix = "" if here == "." else here + "/"
        for name in sorted(files):
            if skip is not None and skip(name):
                continue
            out.append(f"{prefix}{name}:{sha256_file(os.path.join(root, name))}")
    return out


# ---------------------------------------------------------------- manifest

@record
class ManifestItem:
    """One kernel of the previous build."""

    input_hash: str
    files: list[str]
    row: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)


@record
class Manifest:
    """What a build leaves behind for the next one (see the module docstring)."""

    tool_version: str
    global_hash: str
    build_date: str
    items: dict[str, ManifestItem]
    files: list[str]
    format: int = MANIFEST_FORMAT
    floor_inputs: str = ""  # hash of what the sweep's timing floor was computed from (plan.floor_inputs)
    floor_us: float | None = None  # that floor (VERDICTS rule 11)
    replay_us: float | None = None  # and the graph replay's fixed cost ("Numbers beside a verdict")

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "tool_version": self.tool_version,
            "global_hash": self.global_hash,
            "build_date": self.build_date,
            "items": {k: {"input_hash": v.input_hash, "files": sorted(v.files), "row": v.row, "extra": v.extra}
                      for k, v in sorted(self.items.items())},
            "files": sorted(self.files),
            "floor": {"inputs": self.floor_inputs, "us": self.floor_us, "replay_us": self.replay_us},
        }

    def to_bytes(self) -> bytes:
        return json_compact(self.to_json())


def json_bytes(doc: Any) -> bytes:
    """Deterministic JSON: sorted keys, two-space indent, trailing newline (``jsonio.dumps_sorted``)."""
    return jsonio.dumps_sorted(doc, indent=True)


def json_compact(doc: Any) -> bytes:
    """Deterministic compact JSON (sorted keys, no spaces): for the large api/kernels documents."""
    return jsonio.dumps_sorted(doc, indent=False)


def cold_build(out_dir: str, force: bool = False) -> bool:
    """Whether a build into ``out_dir`` builds every kernel: forced, or no previous build's manifest."""
    return force or not os.path.isfile(os.path.join(out_dir, MANIFEST))


def read_manifest(out_dir: str) -> Manifest | None:
    """The manifest of the site in ``out_dir``; None when absent, unreadable or of another format."""
    path = os.path.join(out_dir, MANIFEST)
    try:
        with open(path, "rb") as fh:  # orjson: json.load was 0.024 s of a 0.20 s no-op rebuild (cProfile)
            doc = jsonio.loads(fh.read())
        if not isinstance(doc, dict) or doc.get("format") != MANIFEST_FORMAT:
            return None
        items = {str(k): ManifestItem(input_hash=str(v["input_hash"]), files=[str(f) for f in v["files"]],
                                      row=dict(v["row"]), extra=dict(v.get("extra") or {}))
                 for k, v in doc["items"].items()}
        floor = doc.get("floor") if isinstance(doc.get("floor"), dict) else {}
        floor_us = floor.get("us") if isinstance(floor.get("us"), (int, float)) else None
        replay_us = floor.get("replay_us") if isinstance(floor.get("replay_us"), (int, float)) else None
        return Manifest(tool_version=str(doc["tool_version"]), global_hash=str(doc["global_hash"]),
                        build_date=str(doc.get("build_date", "")), items=items,
                        files=[str(f) for f in doc.get("files", [])],
                        floor_inputs=str(floor.get("inputs") or ""), floor_us=floor_us, replay_us=replay_us)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, InputError):
        return None


# ---------------------------------------------------------------- writing

def write_bytes(path: str, data: bytes) -> None:
    """Write one file (the only place a build writes site content; tests record its calls)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


def _same_bytes(path: str, data: bytes) -> bool:
    """True when the file at ``path`` holds exactly ``data``."""
    try:
        if os.path.getsize(path) != len(data):
            return False
        with open(path, "rb") as fh:
            return fh.read() == data
    except OSError:
        return False


def _link_or_copy(src: str, dst: str) -> None:
    """Hard-link ``src`` to ``dst`` (copy when the file system refuses links)."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def site_files(folder: str) -> list[str]:
    """Every file under a site folder, relative, sorted."""
    out = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in files:
            out.append(rel_path(os.path.join(root, name), folder))
    return sorted(out)


@record
class PublishResult:
    """What a publish did to the output folder."""

    written: list[str] = field(default_factory=list)  # new or changed bytes
    kept: list[str] = field(default_factory=list)  # linked from the previous site
    deleted: list[str] = field(default_factory=list)  # in the previous site, not in this one
    swapped: bool = False


def check_output(out_dir: str) -> None:
    """Refuse to replace a folder that is not a Kernel Atlas site (never delete a user's files)."""
    if not os.path.exists(out_dir):
        return
    if not os.path.isdir(out_dir):
        raise InputError(out_dir, "the output exists and is not a folder")
    if os.listdir(out_dir) and not os.path.isfile(os.path.join(out_dir, MANIFEST)):
        raise InputError(out_dir, f"the output folder is not empty and holds no {MANIFEST}: "
                                  "it is not a Kernel Atlas site, so it is not replaced (choose another --out)")


@record
class Staging:
    """The fresh folder a build fills beside the output, file by file, as each kernel is made.

    ``put`` writes a file, or hard-links it from the previous site when the bytes there are
    the same; ``finish`` links the files carried over, swaps the folder in and says what
    changed; ``discard`` removes it. Picklable (paths only): worker processes put their
    kernel's files themselves, so no process holds more than one kernel's bytes.
    """

    out_dir: str
    tmp: str
    old: str | None

    @classmethod
    def open(cls, out_dir: str) -> Staging:
        """A new temporary folder next to ``out_dir`` (which must be a site or absent)."""
        out_dir = os.path.abspath(out_dir)
        check_output(out_dir)
        parent = os.path.dirname(out_dir)
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(out_dir)}.tmp-", dir=parent)
        return cls(out_dir, tmp, out_dir if os.path.isdir(out_dir) else None)

    def put(self, files: dict[str, bytes]) -> list[str]:
        """Place ``files`` (relative path -> bytes); the paths written (the others were linked)."""
        written = []
        for rel in sorted(files):
            dst = os.path.join(self.tmp, *rel.split("/"))
            src = os.path.join(self.old, *rel.split("/")) if self.old else None
            if src is not None and _same_bytes(src, files[rel]):
                _link_or_copy(src, dst)
            else:
                write_bytes(dst, files[rel])
                written.append(rel)
        return written

    def finish(self, placed: Iterable[str], written: Iterable[str], keep: Iterable[str] = ()) -> PublishResult:
        """Link ``keep`` (paths of the previous site not placed), then swap the folder in, unless
        nothing was written and nothing is deleted: then the output is left alone."""
        placed = set(placed)
        keep = sorted(set(keep) - placed)
        result = PublishResult(written=sorted(written))
        old_files = set(site_files(self.old)) if self.old else set()
        for rel in keep:
            if rel not in old_files:
                raise RuntimeError(f"cannot keep {rel}: the previous site does not have it")
        new_set = placed | set(keep)
        result.deleted = sorted(old_files - new_set)
        result.kept = sorted(new_set - set(result.written))
        if self.old and not result.written and not result.deleted:
            self.discard()
            result.deleted = []
            return result
        for rel in keep:
            _link_or_copy(os.path.join(self.old, *rel.split("/")), os.path.join(self.tmp, *rel.split("/")))
        os.chmod(self.tmp, 0o755)
        _swap(self.tmp, self.out_dir, self.old is not None)
        result.swapped = True
        return result

    def discard(self) -> None:
        """Remove the temporary folder (a failed build leaves the previous site as it was)."""
        shutil.rmtree(self.tmp, ignore_errors=True)


def publish(out_dir: str, files: dict[str, bytes], keep: Iterable[str] = ()) -> PublishResult:
    """Make ``out_dir`` hold exactly ``files`` plus ``keep`` (paths carried over from the old site).

    Unchanged bytes are linked, not rewritten; when nothing changed and nothing is
    deleted, the output folder is left alone.
    """
    staging = Staging.open(out_dir)
    try:
        written = staging.put(files)
        return staging.finish(files, written, keep)
    except BaseException:
        staging.discard()
        raise


def _swap(tmp: str, out_dir: str, had_old: bool) -> None:
    """Replace ``out_dir`` by ``tmp`` with two renames; restore the old folder on failure."""
    if not had_old:
        os.rename(tmp, out_dir)
        return
    backup = tempfile.mkdtemp(prefix=f".{os.path.basename(out_dir)}.old-", dir=os.path.dirname(out_dir))
    os.rmdir(backup)
    os.rename(out_dir, backup)
    try:
        os.rename(tmp, out_dir)
    except BaseException:
        os.rename(backup, out_dir)
        raise
    shutil.rmtree(backup, ignore_errors=True)


# ---------------------------------------------------------------- one build at a time


def lock_path(out_dir: str) -> str:
    """The lock file of an output folder: ``.<name>.lock`` beside it (the folder itself is swapped)."""
    out_dir = os.path.abspath(out_dir)
    return os.path.join(os.path.dirname(out_dir), f".{os.path.basename(out_dir)}.lock")


@contextlib.contextmanager
def output_lock(out_dir: str, wait_s: float = LOCK_WAIT_S,
                on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the output folder's lock for the block. Another build holding it: say so once
    (``on_wait``), wait up to ``wait_s`` seconds, then raise an InputError naming the folder."""
    if fcntl is None:
        yield
        return
    path = lock_path(out_dir)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = _take_lock(path, out_dir, time.monotonic() + max(0.0, wait_s), wait_s, on_wait)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # still held: a build waiting on this file retries on the new one
        os.close(fd)


def _take_lock(path: str, out_dir: str, deadline: float, wait_s: float,
               on_wait: Callable[[str], None] | None) -> int:
    """The open, locked lock file (retried while another process holds it, until ``deadline``)."""
    said, tries = False, 0
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            if time.monotonic() >= deadline:
                raise InputError(out_dir, f"another build{holder} is writing this output folder; still busy after "
                                          f"{wait_s:g} s (build --wait SECONDS waits longer)") from None
            tries += 1  # the holder writes its pid just after it locks: two more tries (0.1 s apart) to name it
            if not said and on_wait is not None and (holder or tries > 2):
                on_wait(f"kernel-atlas: waiting for another build{holder} of {out_dir} (at most {wait_s:g} s)")
                said = True
            time.sleep(0.1)
            continue
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # the holder removed this file as it ended: lock the new one


def _holder(fd: int) -> str:
    """`` (pid N)`` of the build holding a lock file, from its contents ('' when unknown)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""
