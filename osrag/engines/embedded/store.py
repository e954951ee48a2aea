"""The embedded index's folders: the layout, the marker, the atomic alias pointer.

Layout (``root`` is ``.osrag`` in the working directory, or ``$OSRAG_HOME/embedded``)::

    <root>/<alias>/OSRAG_EMBEDDED              marker: this folder is osrag's (format 1)
    <root>/<alias>/ALIAS                       the current generation's name (the pointer)
    <root>/<alias>/records.sqlite              the record store: manifest and ingest lock
    <root>/<alias>/generations/<name>/         one tantivy index per generation

Every step is atomic: an alias folder and a generation are built in a temporary folder
and renamed into place; the alias is moved by :func:`osrag.writes.write_file` (an
unpredictable temporary name, fsync, ``os.replace``, fsync of the folder; compare and
swap under an OS lock), so readers see the old or the new generation, never neither. No
file of the layout is written or read back through a link: a link planted as the
pointer, the marker, the lock or a generation's metadata is refused
(:class:`~osrag.errors.UnsafeFileError`). A folder that is not osrag's or a corrupt
pointer raises :class:`~osrag.errors.IndexStateError` naming the path.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import tantivy

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the pointer is swapped without a lock
    fcntl = None  # type: ignore[assignment]

from osrag.engines.embedded.nested import create_nested
from osrag.engines.embedded.schema import NestedSchema
from osrag.errors import ConfigError, IndexStateError, UnsafeFileError
from osrag.schema.ingest import GENERATION_NAME, generation_pattern
from osrag.writes import fsync_folder, open_in_place, read_own, write_file

STORE_FORMAT = 1
MARKER = "OSRAG_EMBEDDED"
POINTER = "ALIAS"
POINTER_LOCK = ".ALIAS.lock"
GENERATIONS = "generations"
GENERATION_META = "osrag-generation.json"
ALIAS_NAME = re.compile(r"[^./\\\x00][^/\\\x00]{0,254}")


def alias_of(generation: str) -> str | None:
    parsed = GENERATION_NAME.fullmatch(generation)
    return parsed["alias"] if parsed else None


def fsync_dir(path: Path) -> None:
    fsync_folder(path)


def write_atomically(path: Path, data: bytes) -> None:
    """Write, fsync, rename over ``path``, fsync the folder: the old or the new, never half
    (:func:`osrag.writes.write_file`)."""
    write_file(path, data)


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an OS lock on ``path`` (created if missing, never through a link): one holder
    across processes."""
    fd = open_in_place(path)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def read_text(path: Path) -> str:
    """A file of the layout, never read through a link (:func:`osrag.writes.read_own`)."""
    return read_own(path).decode("utf-8")


def remove_tree(path: Path) -> None:
    """Rename aside (one atomic step), then delete: never a half-deleted folder in place."""
    if not path.exists():
        return
    trash = path.with_name(f".trash-{path.name}-{uuid.uuid4().hex[:8]}")
    os.replace(path, trash)
    shutil.rmtree(trash, ignore_errors=True)


class EmbeddedStore:
    """The folders of the embedded index under ``root`` (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def alias_dir(self, alias: str, *, create: bool = False) -> Path | None:
        """The alias's folder (checked to be osrag's), or None when it does not exist yet."""
        if not isinstance(alias, str) or not ALIAS_NAME.fullmatch(alias):
            raise ConfigError(
                f"alias {alias!r} cannot name a folder of the embedded index "
                "(no '/', '\\', leading '.', at most 255 characters)"
            )
        if self.root.exists() and not self.root.is_dir():
            raise IndexStateError(f"{self.root} is a file, not the embedded index's folder")
        folder = self.root / alias
        marker = folder / MARKER
        if folder.is_dir() and marker.is_file():
            self.check_marker(marker, alias)
            return folder
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            if marker.is_file():  # another creator's folder was renamed into place meanwhile
                self.check_marker(marker, alias)
                return folder
            raise IndexStateError(
                f"{folder} exists but is not an osrag embedded index (no {MARKER} file): "
                "choose another --alias, or set OSRAG_HOME to another folder"
            )
        if not create:
            return None
        # Built aside and renamed into place: a concurrent creator never sees it half-made.
        building = self.root / f".creating-{alias}-{uuid.uuid4().hex[:8]}"
        try:
            (building / GENERATIONS).mkdir(parents=True)
            payload = {"osrag": "embedded-index", "format": STORE_FORMAT, "alias": alias}
            write_atomically(building / MARKER, json.dumps(payload).encode() + b"\n")
            try:
                os.rename(building, folder)  # replaces an empty folder; fails on a full one
            except OSError:
                if not marker.is_file():
                    raise
            fsync_dir(self.root)
        except OSError as exc:
            raise IndexStateError(f"cannot create the embedded index {folder}: {exc}") from None
        finally:
            shutil.rmtree(building, ignore_errors=True)
        self.check_marker(marker, alias)
        return folder

    @staticmethod
    def check_marker(marker: Path, alias: str) -> None:
        try:
            content = json.loads(read_text(marker))
            fmt = int(content["format"])
        except (OSError, ValueError, KeyError, TypeError, UnsafeFileError):
            raise IndexStateError(
                f"{marker} is corrupt (expected osrag's JSON marker): the folder may not be "
                "osrag's; choose another --alias or OSRAG_HOME"
            ) from None
        if fmt > STORE_FORMAT:
            raise IndexStateError(
                f"{marker.parent} was written by a newer osrag (format {fmt}; this one reads "
                f"{STORE_FORMAT}): upgrade osrag"
            )

    def generation_dir(self, name: str) -> Path | None:
        parsed = GENERATION_NAME.fullmatch(name)
        if parsed is None:
            return None
        return self.root / parsed["alias"] / GENERATIONS / name

    def require_generation_dir(self, name: str) -> Path:
        path = self.generation_dir(name)
        if path is None:
            raise IndexStateError(f"{name!r} is not a generation name (<alias>-<8 hex digest>-<n>)")
        return path

    def generation_exists(self, name: str) -> bool:
        path = self.generation_dir(name)
        return path is not None and (path / "meta.json").is_file()

    def generations(self, alias: str) -> set[str]:
        folder = self.alias_dir(alias)
        if folder is None or not (folder / GENERATIONS).is_dir():
            return set()
        pattern = generation_pattern(alias)
        return {
            entry.name
            for entry in (folder / GENERATIONS).iterdir()
            if pattern.fullmatch(entry.name) and (entry / "meta.json").is_file()
        }

    def alias_target(self, alias: str) -> str | None:
        folder = self.alias_dir(alias)
        if folder is None:
            return None
        pointer = folder / POINTER
        try:
            name = read_text(pointer).strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError, UnsafeFileError) as exc:
            raise IndexStateError(f"cannot read the alias pointer {pointer}: {exc}") from None
        parsed = GENERATION_NAME.fullmatch(name)
        if parsed is None or parsed["alias"] != alias:
            raise IndexStateError(
                f"the alias pointer {pointer} is corrupt (holds {name[:80]!r}, not a generation "
                f"of {alias!r}): `osrag index rollback --to <generation>` rewrites it"
            )
        return name

    def move_alias(self, alias: str, to: str, previous: str | None) -> None:
        folder = self.alias_dir(alias, create=True)
        assert folder is not None
        if not self.generation_exists(to) or GENERATION_NAME.fullmatch(to)["alias"] != alias:  # type: ignore[index]
            raise IndexStateError(f"cannot point {alias!r} at {to!r}: no such generation of it")
        with exclusive(folder / POINTER_LOCK):  # compare and swap, across processes
            now = self.alias_target(alias)
            if now != previous:
                raise IndexStateError(
                    f"alias {alias!r} no longer points to {previous!r} but to {now!r} (another "
                    "ingest or rollback moved it): it was left as it is"
                )
            try:
                write_atomically(folder / POINTER, f"{to}\n".encode())
            except (OSError, UnsafeFileError) as exc:
                raise IndexStateError(
                    f"cannot move the alias pointer {folder / POINTER}: {exc}"
                ) from None

    def build_generation(
        self,
        name: str,
        meta: dict[str, Any],
        schema: tantivy.Schema,
        nested: Sequence[NestedSchema] = (),
    ) -> None:
        """Create the empty tantivy index of generation ``name`` with its metadata file and
        the sub-index of each ``nested`` field, built aside and renamed into place."""
        path = self.require_generation_dir(name)
        alias = GENERATION_NAME.fullmatch(name)["alias"]  # type: ignore[index]
        self.alias_dir(alias, create=True)
        if path.exists():
            raise IndexStateError(f"generation {name!r} already exists ({path})")
        building = path.with_name(f".building-{name}-{uuid.uuid4().hex[:8]}")
        try:
            building.mkdir(parents=True)
            write_file(building / GENERATION_META, json.dumps(meta, indent=1))
            tantivy.Index(schema, path=str(building))
            for field in nested:
                create_nested(building, field)
            os.replace(building, path)
            fsync_dir(path.parent)
        except (OSError, ValueError, UnsafeFileError) as exc:
            shutil.rmtree(building, ignore_errors=True)
            raise IndexStateError(f"cannot create the generation {path}: {exc}") from None

    def remove_generation(self, name: str) -> None:
        """Delete the generation's folder, and the pointer if it names it (as OpenSearch:
        deleting an index removes it from its alias)."""
        path = self.generation_dir(name)
        if path is None:
            return
        pointer = path.parent.parent / POINTER
        with contextlib.suppress(OSError, UnsafeFileError):
            if read_text(pointer).strip() == name:
                pointer.unlink()
        try:
            remove_tree(path)
        except OSError as exc:
            raise IndexStateError(f"cannot remove the generation {path}: {exc}") from None
