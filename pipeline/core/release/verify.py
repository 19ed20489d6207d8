"""Checking a release directory against its manifest before anything reads or replaces it.

The manifest lists every file of the release with its size and sha256, so a truncated
database, an edited export or a stray file is found before a command trusts the release, and
the `--out` guard replaces only a directory that is exactly a release.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pipeline.core.model.errors import AtbenchError

MANIFEST_FILE = "manifest.json"


def file_digests(root: Path) -> dict[str, dict[str, Any]]:
    """sha256 and size of every file under `root`, keyed by POSIX relative path."""
    digests = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digests[path.relative_to(root).as_posix()] = {
            "sha256": digest.hexdigest(),
            "size": path.stat().st_size,
        }
    return digests


def read_release_manifest(release: Path) -> dict[str, Any]:
    """The parsed manifest with its file listing, or an `AtbenchError` naming the file and
    what is wrong with it."""
    path = release / MANIFEST_FILE
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise AtbenchError(f"{path}: cannot read the manifest ({err.strerror})") from None
    except ValueError as err:
        raise AtbenchError(f"{path}: unreadable manifest ({err})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise AtbenchError(f"{path}: not a release manifest (no 'files' listing)")
    if not isinstance(manifest.get("version"), int):
        raise AtbenchError(f"{path}: not a release manifest (no integer 'version')")
    return manifest


def release_problems(release: Path, manifest: dict[str, Any]) -> list[str]:
    """Every way the files under `release` differ from the manifest's list, by file."""
    listed: dict[str, Any] = manifest["files"]
    present = file_digests(release)
    present.pop(MANIFEST_FILE, None)
    problems = [
        f"{name}: listed in the manifest but missing" for name in listed if name not in present
    ]
    for name, found in present.items():
        expected = listed.get(name)
        if not isinstance(expected, dict):
            problems.append(f"{name}: not part of the release (not in its manifest)")
        elif found["size"] != expected.get("size"):
            problems.append(
                f"{name}: {found['size']:,} bytes, the manifest says {expected.get('size')}"
            )
        elif found["sha256"] != expected.get("sha256"):
            problems.append(f"{name}: content differs from the manifest's sha256")
    return sorted(problems)


def verify_release(release: Path) -> dict[str, Any]:
    """The manifest of an intact release; an `AtbenchError` naming each file that is not."""
    if not (release / MANIFEST_FILE).is_file():
        raise AtbenchError(f"{release} is not a release: it has no {MANIFEST_FILE}")
    manifest = read_release_manifest(release)
    problems = release_problems(release, manifest)
    if problems:
        raise AtbenchError(
            f"release {release} does not match its {MANIFEST_FILE}: {summarise(problems)}"
        )
    return manifest


def summarise(problems: list[str], shown: int = 5) -> str:
    more = len(problems) - shown
    return "; ".join(problems[:shown]) + (f"; and {more} more" if more > 0 else "")
