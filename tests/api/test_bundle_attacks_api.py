"""Hostile agent bundles through POST /api/v1/agent-submissions/: zip and tar.gz bombs, path
traversal, absolute paths, links and special files inside the archive, and too many entries. Each is
a 400 naming the entry (or the archive) and what is wrong with it, and nothing is stored."""

from __future__ import annotations

import io
import json
import stat
import tarfile
import zipfile
from collections.abc import Callable

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import api_user, client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
MiB = 1 << 20
MANIFEST = json.dumps({"name": "kernel-agent", "version": "1", "model": "m"})


def zip_of(extra: Callable[[zipfile.ZipFile], None]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", MANIFEST)
        extra(archive)
    return buffer.getvalue()


def tar_gz_of(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, data in [(_file("manifest.json", MANIFEST.encode()), MANIFEST.encode()), *members]:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def _file(name: str, data: bytes) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info


def _link(name: str, kind: bytes, target: str) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, b""


def zip_bomb(archive: zipfile.ZipFile) -> None:
    with archive.open("scale_shift.py", "w") as entry:
        for _ in range(200):
            entry.write(bytes(MiB))


def zip_symlink(archive: zipfile.ZipFile) -> None:
    link = zipfile.ZipInfo("scale_shift.py")
    link.create_system = 3  # unix: external_attr carries the mode
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive.writestr(link, "/etc/passwd")


def many_entries(archive: zipfile.ZipFile) -> None:
    archive.writestr("scale_shift.py", factories.CORRECT)
    for i in range(500):
        archive.writestr(f"logs/{i}.log", "x")


def tar_bomb() -> bytes:
    data = bytes(2 * MiB)  # compresses over 100:1
    return tar_gz_of((_file("scale_shift.py", data), data))


def zip_entry(path: str) -> Callable[[], bytes]:
    return lambda: zip_of(lambda archive: archive.writestr(path, factories.CORRECT))


def tar_entry(path: str) -> Callable[[], bytes]:
    return lambda: tar_gz_of((_file(path, b"x = 1\n"), b"x = 1\n"))


def tar_link(kind: bytes, target: str) -> Callable[[], bytes]:
    return lambda: tar_gz_of(_link("scale_shift.py", kind, target))


# (case, archive, its name, words the message must hold)
ATTACKS: list[tuple[str, Callable[[], bytes], str, list[str]]] = [
    ("zip bomb", lambda: zip_of(zip_bomb), "agent.zip", ["agent.zip", "unpacks to more than 50 MiB"]),
    ("tar.gz bomb", tar_bomb, "agent.tar.gz", ["agent.tar.gz", "compression ratio above 100:1"]),
    ("zip traversal", zip_entry("../scale_shift.py"), "agent.zip", ["'../scale_shift.py'", "'..'"]),
    ("tar traversal", tar_entry("../../scale_shift.py"), "agent.tar.gz", ["'../../scale_shift.py'", "'..'"]),
    ("absolute path", zip_entry("/etc/scale_shift.py"), "agent.zip", ["'/etc/scale_shift.py'", "absolute"]),
    ("zip symlink", lambda: zip_of(zip_symlink), "agent.zip", ["scale_shift.py", "symbolic links"]),
    ("tar symlink", tar_link(tarfile.SYMTYPE, "/etc/passwd"), "agent.tar.gz",
     ["scale_shift.py", "symbolic links"]),
    ("tar hard link", tar_link(tarfile.LNKTYPE, "manifest.json"), "agent.tar.gz",
     ["scale_shift.py", "hard links"]),
    ("tar device", tar_link(tarfile.CHRTYPE, ""), "agent.tar.gz", ["scale_shift.py", "devices"]),
    ("too many entries", lambda: zip_of(many_entries), "agent.zip", ["more than 500 entries"]),
]


@pytest.mark.parametrize(("case", "archive", "name", "words"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_a_hostile_bundle_is_refused_naming_the_entry(problem: Problem, cpu: Hardware, case: str,
                                                      archive: Callable[[], bytes], name: str,
                                                      words: list[str]) -> None:
    data = archive()
    assert len(data) < 2 * MiB  # the bombs are small uploads
    response = client_for(api_user()).post(
        "/api/v1/agent-submissions/", {"file": SimpleUploadedFile(name, data), "hardware": ["cpu"]},
        format="multipart")
    assert response.status_code == 400, response.content
    message = response.json()["file"][0]
    assert all(word in message for word in words), message
    stored = AgentSubmission.objects.exists() or Submission.objects.exists() or Evaluation.objects.exists()
    assert not stored
