"""Fetching Maven artifacts: Maven when ``mvn`` is on the PATH, else HTTPS with the SHA-1 checked.

Maven does the work where it is installed (its local repository, mirrors and
proxy settings are the user's). Without it, the same file comes from the
Maven repository over HTTPS (``OSRAG_MAVEN_REPO``, default Maven Central) and
is accepted only when its SHA-1 equals the one the repository publishes beside
it. Some artifacts are served without any checksum file (the OpenSearch
plugin zips: no ``.sha1``, ``.md5``, ``.sha256`` or ``.asc``, and no pom):
for those osrag pins the SHA-1 it verified, checks it after Maven too, and
refuses an artifact that has neither. urllib is enough for two GETs per file;
a download library would add a dependency for nothing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from osrag.errors import NodeError, UnsafeFileError
from osrag.writes import writing

MAVEN_REPO = "https://repo.maven.apache.org/maven2"
MAVEN_DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Artifact:
    """A Maven coordinate ``group:artifact:version[:ext]``."""

    group: str
    artifact: str
    version: str
    ext: str = "jar"
    sha1: str | None = None
    """The SHA-1 osrag pins, for an artifact the repository publishes no checksum for."""

    @property
    def filename(self) -> str:
        return f"{self.artifact}-{self.version}.{self.ext}"

    @property
    def coordinates(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}:{self.ext}"

    def url(self, repo: str) -> str:
        group_path = self.group.replace(".", "/")
        return f"{repo.rstrip('/')}/{group_path}/{self.artifact}/{self.version}/{self.filename}"


def _sha1(path: Path) -> str:
    digest = hashlib.sha1()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _published_sha1(artifact: Artifact, url: str) -> str | None:
    """The repository's ``.sha1`` beside ``url``; None when it publishes none (404)."""
    try:
        with urllib.request.urlopen(url + ".sha1", timeout=60) as response:
            return response.read().decode().split()[0].strip().lower()
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise


def _expected_sha1(artifact: Artifact, url: str) -> tuple[str, str]:
    """The SHA-1 to check and where it comes from ("published" or "pinned")."""
    published = _published_sha1(artifact, url)
    if published and artifact.sha1 and published != artifact.sha1:
        raise NodeError(
            f"download refused: {artifact.coordinates}: the repository publishes SHA-1 "
            f"{published}, osrag pins {artifact.sha1}"
        )
    if published:
        return published, "published"
    if artifact.sha1:
        return artifact.sha1, "pinned"
    raise NodeError(
        f"download refused: {artifact.coordinates}: {url} has no published checksum and "
        "osrag pins none for it; fetch it with Maven or place the file in the downloads folder"
    )


def _fetch_https(artifact: Artifact, target: Path, repo: str) -> None:
    """Download ``artifact`` to ``target`` through :func:`osrag.writes.writing` (an
    unpredictable temporary name beside it, never a link), kept only when its SHA-1 is the
    published one."""
    url = artifact.url(repo)
    try:
        expected, source = _expected_sha1(artifact, url)
        with writing(target, binary=True) as out:
            digest = hashlib.sha1()
            with urllib.request.urlopen(url, timeout=300) as response:
                for block in iter(lambda: response.read(1 << 20), b""):
                    digest.update(block)
                    out.write(block)
            if digest.hexdigest() != expected:
                raise NodeError(
                    f"download failed: {artifact.coordinates} from {url}: "
                    f"SHA-1 {digest.hexdigest()} does not match the {source} {expected}"
                )
    except (urllib.error.URLError, OSError, IndexError, UnsafeFileError) as exc:
        raise NodeError(f"download failed: {artifact.coordinates} from {url}: {exc}") from exc


def _check_pinned(artifacts: list[Artifact], downloads: Path) -> None:
    """Maven accepts a file without a checksum (it only warns): check osrag's pins."""
    for artifact in artifacts:
        path = downloads / artifact.filename
        if artifact.sha1 and path.exists() and (actual := _sha1(path)) != artifact.sha1:
            path.unlink()
            raise NodeError(
                f"Maven fetched {artifact.coordinates} with SHA-1 {actual}, "
                f"but osrag pins {artifact.sha1}: the file was removed"
            )


def _fetch_maven(artifacts: list[Artifact], downloads: Path) -> None:
    deps = "\n".join(
        f"    <dependency><groupId>{a.group}</groupId><artifactId>{a.artifact}</artifactId>"
        f"<version>{a.version}</version><type>{a.ext}</type></dependency>"
        for a in artifacts
    )
    pom = f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.osrag</groupId><artifactId>osrag-node-fetch</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
{deps}
  </dependencies>
</project>
"""
    with tempfile.TemporaryDirectory(prefix="osrag-mvn-") as tmp:
        (Path(tmp) / "pom.xml").write_text(pom)
        cmd = [
            "mvn",
            "-B",
            "-q",
            "-f",
            str(Path(tmp) / "pom.xml"),
            f"{MAVEN_DEPENDENCY_PLUGIN}:copy-dependencies",
            f"-DoutputDirectory={downloads}",
            "-DexcludeTransitive=true",
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])
        names = ", ".join(a.coordinates for a in artifacts)
        raise NodeError(f"Maven could not fetch {names}:\n{tail}")


def fetch(artifacts: Iterable[Artifact], downloads: Path, progress: Progress) -> None:
    """Fetch what is missing into ``downloads``: Maven if present, else HTTPS."""
    downloads.mkdir(parents=True, exist_ok=True)
    missing = [a for a in artifacts if not (downloads / a.filename).exists()]
    if not missing:
        return
    repo = os.environ.get("OSRAG_MAVEN_REPO", MAVEN_REPO)
    maven_error: NodeError | None = None
    if shutil.which("mvn"):
        progress(f"fetching {len(missing)} artifact(s) with Maven")
        try:
            _fetch_maven(missing, downloads)
            _check_pinned(missing, downloads)
        except NodeError as exc:
            maven_error = exc
            progress(f"{exc}; trying HTTPS from {repo}")
    for artifact in missing:
        if not (downloads / artifact.filename).exists():
            progress(f"downloading {artifact.coordinates} from {repo}")
            try:
                _fetch_https(artifact, downloads / artifact.filename, repo)
            except NodeError as exc:
                if maven_error is not None:
                    raise NodeError(f"{maven_error}\nand over HTTPS: {exc}") from exc
                raise
