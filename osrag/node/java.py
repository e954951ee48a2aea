"""Finding a Java the engine accepts.

Each engine version runs on a range of Java versions: OpenSearch 2.x and
Elasticsearch 8.x rely on the Security Manager, which Java 24 removed;
Elasticsearch 9.x needs Java 21 or newer. The search order is the bundled JDK
of a full distribution, then ``OSRAG_JAVA_HOME`` or else ``JAVA_HOME`` (an
explicit choice: used as it is or refused with the reason; ``OSRAG_JAVA_HOME``
picks the engines' Java without changing other programs'), then ``java`` on
the PATH, then the JDKs under ``/usr/lib/jvm`` (so a machine whose default
Java is too old or too new still works when a suitable one is installed
beside it: OpenSearch 2.19 finds a Java 17 and 3.x a Java 21+ on one machine).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from osrag.errors import NodeError

JVM_ROOTS: tuple[Path, ...] = (Path("/usr/lib/jvm"),)
"""Folders whose sub-folders are JDKs, searched last."""


@dataclass(frozen=True)
class Java:
    home: Path
    major: int


@dataclass(frozen=True)
class JavaRange:
    """The Java versions one engine version runs on, and why the bounds are there."""

    engine: str
    low: int
    high: int | None
    reason: str

    def accepts(self, major: int) -> bool:
        return major >= self.low and (self.high is None or major <= self.high)

    @property
    def text(self) -> str:
        return f"{self.low}–{self.high}" if self.high is not None else f"{self.low} or newer"


def java_major(java_bin: Path) -> int:
    try:
        out = subprocess.run(
            [str(java_bin), "-version"], capture_output=True, text=True, timeout=30
        ).stderr
    except OSError as exc:
        raise NodeError(f"cannot run {java_bin}: {exc}") from exc
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not match:
        raise NodeError(f"cannot read the Java version from {java_bin}: {out.strip()[:200]}")
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def _installed_jdks() -> list[Path]:
    found: list[Path] = []
    for root in JVM_ROOTS:
        if root.is_dir():
            found.extend(
                sorted(
                    p
                    for p in root.iterdir()
                    if (p / "bin" / "java").exists() and not p.is_symlink()
                )
            )
    return found


def find_java(need: JavaRange, dist: Path | None = None) -> Java:
    """The first Java in the search order that ``need`` accepts; a clear error otherwise."""
    advice = f"set OSRAG_JAVA_HOME (or JAVA_HOME) to a Java {need.text} installation"
    if dist is not None and (dist / "jdk" / "bin" / "java").exists():
        return Java(home=dist / "jdk", major=java_major(dist / "jdk" / "bin" / "java"))
    for variable in ("OSRAG_JAVA_HOME", "JAVA_HOME"):
        if os.environ.get(variable):
            return _chosen_java(variable, Path(os.environ[variable]), need, advice)
    tried: list[str] = []
    on_path = shutil.which("java")
    candidates = [Path(on_path).resolve().parent.parent] if on_path else []
    candidates += [p for p in _installed_jdks() if p not in candidates]
    for home in candidates:
        major = java_major(home / "bin" / "java")
        if need.accepts(major):
            return Java(home=home, major=major)
        tried.append(f"{home} is Java {major}")
    if not tried:
        raise NodeError(f"no Java found: {advice} ({need.engine} runs on Java {need.text})")
    raise NodeError(
        f"no Java {need.text} found for {need.engine} ({need.reason}); {'; '.join(tried)}: {advice}"
    )


def _chosen_java(variable: str, home: Path, need: JavaRange, advice: str) -> Java:
    """The Java a variable names, or the reason it cannot run ``need``'s engine."""
    if not (home / "bin" / "java").exists():
        raise NodeError(f"{variable} points to {home}, which has no bin/java: {advice}")
    major = java_major(home / "bin" / "java")
    if not need.accepts(major):
        raise NodeError(
            f"{variable} ({home}) is Java {major}; {need.engine} needs Java {need.text} "
            f"({need.reason}): {advice}"
        )
    return Java(home=home, major=major)
