"""Unpacking a distribution once into ``OSRAG_HOME``, under a lock.

A distribution folder is complete when it holds ``.osrag-ready``; until then
it is built in a temporary folder beside it and renamed into place, so a
crash half-way leaves nothing that looks usable. Several ``osrag node start``
processes (a cluster's members, two test sessions) may prepare the same
distribution at once: ``dist_lock`` serialises them on one lock file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from osrag.errors import NodeError
from osrag.writes import open_in_place, write_file

from .fetch import Artifact, Progress, fetch

READY = ".osrag-ready"


@contextlib.contextmanager
def dist_lock(home: Path) -> Iterator[None]:
    home.mkdir(parents=True, exist_ok=True)
    with os.fdopen(open_in_place(home / ".dist.lock", os.O_WRONLY, 0o644), "ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def unpack(archive: Path, into: Path, launcher: str) -> Path:
    """Unpack ``archive`` into ``into`` and return its single top-level folder."""
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                target = into / info.filename
                if not target.resolve().is_relative_to(into.resolve()):
                    raise NodeError(f"{archive} has an entry outside its folder: {info.filename}")
                zf.extract(info, into)
                mode = (info.external_attr >> 16) & 0o777
                if mode and not info.is_dir():
                    target.chmod(mode)
    elif archive.name.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(archive) as tf:
            tf.extractall(into, filter="data")
    else:
        raise NodeError(f"{archive}: not a .zip or .tar.gz distribution")
    tops = [p for p in into.iterdir() if p.is_dir()]
    if len(tops) != 1 or not (tops[0] / "bin" / launcher).exists():
        raise NodeError(f"{archive} does not look like a distribution (no bin/{launcher})")
    return tops[0]


def custom_archive(variable: str, value: str) -> Path:
    archive = Path(value).expanduser().resolve()
    if not archive.is_file():
        raise NodeError(f"{variable}={value}: no such file")
    return archive


def custom_tag(archive: Path) -> str:
    return hashlib.sha256(str(archive).encode()).hexdigest()[:8]


def ensure_unpacked(
    home: Path,
    dist: Path,
    archive: Path,
    launcher: str,
    progress: Progress,
    artifact: Artifact | None = None,
    finish: Callable[[Path], None] = lambda _top: None,
) -> Path:
    """``dist``, built once from ``archive`` (fetched first when it is ``artifact``).

    ``finish`` completes the unpacked tree (extra modules) before it is renamed
    into place. The caller holds ``dist_lock``.
    """
    if (dist / READY).exists():
        return dist
    if artifact is not None:
        fetch([artifact], home / "downloads", progress)
    progress(f"unpacking {archive.name}")
    with tempfile.TemporaryDirectory(dir=home, prefix=".unpack-") as tmp:
        top = unpack(archive, Path(tmp), launcher)
        finish(top)
        if dist.exists():
            shutil.rmtree(dist)
        top.rename(dist)
    write_file(dist / READY, dist.name + "\n")
    return dist


def jar_version(dist: Path, engine: str) -> str:
    """The version of an unpacked distribution of ``engine`` (``opensearch``,
    ``elasticsearch``), read from the name of its ``lib/<engine>-<version>.jar``."""
    import re

    for jar in (dist / "lib").glob(f"{engine}-[0-9]*.jar"):
        match = re.fullmatch(rf"{engine}-(\d+\.\d+\.\d+)\.jar", jar.name)
        if match:
            return match.group(1)
    raise NodeError(f"{dist}: cannot find lib/{engine}-<version>.jar")
