"""A systematic sweep of bad agent bundles through POST /api/v1/agent-submissions/, in zip and tar.gz:
malformed and truncated archives, nested archives, huge compression ratios, links and special
files, path traversal and absolute paths, duplicate and non-UTF-8 names, and seeded random byte
flips of a good archive. Each bad one gets a 4xx with a message and leaves no row behind; none
gets a server error. (tests/api/test_agent_submissions_api.py has the hand-picked cases.)"""

from __future__ import annotations

import gzip
import json
import os
import random
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.response import Response
from rest_framework.test import APIClient

from evaluator.models import Evaluation
from submissions.models import AgentSubmission, Submission
from tests.api.support import client_for
from tests.fuzz.archives import ARCHIVERS, GOOD, MANIFEST, Entry, files, tar_gz_of, zip_of
from tests.platform import factories

pytestmark = pytest.mark.django_db
AGENTS = "/api/v1/agent-submissions/"
MiB = 1 << 20
FLIPS_PER_FORMAT = int(os.environ.get("SOLARENA_FUZZ_FLIPS", "40"))  # benchmarks/fuzz_api.py: many


@pytest.fixture(autouse=True)
def platform(db: Any) -> Iterator[None]:
    cache.clear()  # throttle counters
    factories.make_hardware("cpu")
    factories.make_problem()
    yield
    cache.clear()


@pytest.fixture
def api() -> APIClient:
    return client_for(factories.make_participant())


def rows() -> tuple[int, int, int]:
    return AgentSubmission.objects.count(), Submission.objects.count(), Evaluation.objects.count()


def upload(api: APIClient, data: bytes, name: str) -> Response:
    return api.post(AGENTS, {"file": SimpleUploadedFile(name, data), "hardware": ["cpu"]}, format="multipart")


def assert_refused(api: APIClient, data: bytes, name: str, words: str = "") -> str:
    """Uploaded, it gets a 4xx with a message (containing `words`) and stores nothing; the message."""
    before = rows()
    response = upload(api, data, name)
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:500])
    body = response.json()
    messages = body.get("file") or [body.get("detail", "")]
    assert isinstance(messages, list) and messages and all(isinstance(m, str) and m for m in messages), body
    assert words in messages[0], body
    assert rows() == before
    return messages[0]


def test_the_good_bundle_is_accepted_in_both_formats(api: APIClient) -> None:
    """The base every case below spoils: accepted as it is."""
    for kind, archive in ARCHIVERS.items():  # a version of its own each: a repeated one is refused
        manifest = {**MANIFEST, "version": kind}
        response = upload(api, archive(files({"manifest.json": json.dumps(manifest)})), f"agent.{kind}")
        assert response.status_code == 201, response.content
    assert rows() == (2, 2, 2)


SOLUTION = factories.CORRECT.encode()


def without_solution(*extra: Entry) -> list[Entry]:
    return [*files(drop=("scale_shift.py",)), *extra]


def plus(*extra: Entry) -> list[Entry]:
    return [*files(), *extra]


def random_text(seed: int, size: int = 600) -> bytes:
    return random.Random(seed).randbytes(size // 2).hex().encode()


# Layouts that are bad whichever the format: (id, entries, words the message holds).
LAYOUTS: list[tuple[str, Callable[[], list[Entry]], str]] = [
    # nested archives, by name and by content
    ("nested-zip-by-name", lambda: without_solution(Entry("scale_shift/inner.zip", b"x = 1\n")),
     "archive inside"),
    ("nested-tgz-by-name", lambda: without_solution(Entry("scale_shift/inner.tgz", b"x = 1\n")),
     "archive inside"),
    ("nested-zip-by-content", lambda: files({"scale_shift.py": zip_of(files())}), ""),
    ("nested-tar-gz-by-content", lambda: files({"scale_shift.py": tar_gz_of(files())}), ""),
    ("nested-gzip-by-content", lambda: files({"scale_shift.py": gzip.compress(SOLUTION)}), ""),
    # symbolic links (a zip's hard links do not exist; tar's are in TAR_ONLY)
    *((f"symlink-to-{target}",
       lambda target=target: without_solution(Entry("scale_shift.py", kind="symlink", target=target)), "link")
      for target in ("/etc/passwd", "manifest.json", "../../outside.py")),
    ("symlinked-directory", lambda: without_solution(Entry("scale_shift", kind="symlink", target="/etc"),
                                                     Entry("scale_shift/solution.py", SOLUTION)), ""),
    ("fifo", lambda: plus(Entry("dev.py", kind="fifo")), ""),
    # path traversal and absolute paths
    *((f"path-{path}", lambda path=path: plus(Entry(path, SOLUTION)), words)
      for path, words in (("../scale_shift.py", "path traversal"), ("logs/../../scale_shift.py", "traversal"),
                          ("./../../etc/cron.d/x.py", "traversal"), ("/scale_shift.py", "absolute"),
                          ("/etc/passwd", "absolute"), ("C:/scale_shift.py", "absolute"),
                          ("..\\scale_shift.py", "backslash"), ("scale_shift/..", ""))),
    # duplicates
    ("same-path-twice", lambda: plus(Entry("scale_shift.py", b"def run(x, bias):\n    return x\n")), "twice"),
    ("dot-slash-duplicate", lambda: plus(Entry("./scale_shift.py", SOLUTION)), "twice"),
    ("manifest-twice", lambda: plus(Entry("manifest.json", GOOD["manifest.json"].encode())), "twice"),
    ("solution-py-and-dir", lambda: plus(Entry("scale_shift/solution.py", SOLUTION)), "duplicate problem"),
    # names that are not UTF-8, and contents that are not text
    ("latin1-name", lambda: plus(Entry("caf\xe9_x.py".encode("latin-1"), SOLUTION)), ""),
    ("invalid-utf8-name", lambda: plus(Entry(b"\xff\xfe\xfdxx.py", SOLUTION)), ""),
    ("binary-solution", lambda: files({"scale_shift.py": b"\x00\x01\x02\xff" * 100}), ""),
    # random text, so that a tar.gz of them is not refused for its compression ratio first
    ("many-entries", lambda: plus(*(Entry(f"logs/{i}.log", random_text(i)) for i in range(600))), "entries"),
]
TAR_ONLY: list[tuple[str, Callable[[], list[Entry]], str]] = [
    *((f"hardlink-to-{target}",
       lambda target=target: without_solution(Entry("scale_shift.py", kind="hardlink", target=target)),
       "link")
      for target in ("/etc/passwd", "manifest.json", "../../outside.py")),
    ("chardev", lambda: plus(Entry("dev.py", kind="chardev")), ""),
    ("blockdev", lambda: plus(Entry("dev.py", kind="blockdev")), ""),
]


def _cases() -> Iterator[tuple[str, Callable[[], bytes], str]]:
    """(id, the archive's bytes, words its message holds) for every format."""
    for kind, archive in ARCHIVERS.items():
        good = archive(files())
        for cut in (0.02, 0.25, 0.5, 0.75, 0.98):
            size = max(4, int(len(good) * cut))
            yield f"{kind}-truncated-{int(cut * 100)}%", lambda good=good, size=size: good[:size], ""
        yield f"{kind}-magic-then-garbage", lambda good=good: good[:4] + random.Random(1).randbytes(2000), ""
        yield f"{kind}-magic-only", lambda good=good: good[:4], ""
        for name, entries, words in LAYOUTS + (TAR_ONLY if kind == "tar.gz" else []):
            yield f"{kind}-{name}", lambda archive=archive, entries=entries: archive(entries()), words


CASES = list(_cases())


@pytest.mark.parametrize(("name", "archive", "words"), CASES, ids=[case[0] for case in CASES])
def test_a_bad_archive_is_refused_and_leaves_nothing(api: APIClient, name: str, archive: Callable[[], bytes],
                                                     words: str) -> None:
    assert_refused(api, archive(), f"agent.{name.split('-')[0]}", words)


def test_a_zip_bomb_is_refused(api: APIClient) -> None:
    """10 MiB of zeros, about 1000:1 deflated."""
    bomb = zip_of(files({"scale_shift.py": b"#" + b"0" * (10 * MiB)}))
    assert len(bomb) < 100_000
    assert_refused(api, bomb, "agent.zip", "compression ratio")


def test_a_stored_zip_entry_declaring_a_huge_size_is_refused(api: APIClient) -> None:
    # an entry within the ratio but over the size a solution may have
    big = zip_of(files({"scale_shift.py": b"#" + bytes(random.Random(2).choices(b"abcdef", k=3 * MiB))}),
                 compression=zipfile.ZIP_STORED)
    assert_refused(api, big, "agent.zip", "larger than")


def test_a_tar_gz_bomb_is_refused(api: APIClient) -> None:
    """40 MiB of zeros in a tar.gz of about 40 KiB."""
    bomb = tar_gz_of([*files(), Entry("logs/zeros.log", b"0" * (40 * MiB))])
    assert len(bomb) < 200_000
    assert_refused(api, bomb, "agent.tar.gz", "")


def test_a_zip_of_zips_of_zips_is_refused(api: APIClient) -> None:
    nested = zip_of(files())
    for _ in range(3):
        nested = zip_of([Entry("inner.zip", nested)])
    assert_refused(api, nested, "agent.zip", "archive inside")


def flipped(data: bytes, seed: int) -> bytes:
    """`data` with 1 to 8 bytes at seeded random offsets replaced by other values."""
    rng = random.Random(seed)
    mutated = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(mutated))
        mutated[at] ^= rng.randint(1, 255)
    return bytes(mutated)


@pytest.mark.parametrize("kind", list(ARCHIVERS))
def test_random_byte_flips_never_break_the_server(api: APIClient, kind: str) -> None:
    """Seeded flips of a good archive: each is refused with a message and stores nothing, or, where
    the flip hit a byte no check covers (a timestamp, a header's spare field), is accepted whole as
    the same bundle. Most must be refused, and none may be a server error."""
    good = ARCHIVERS[kind](files())
    refused = accepted = 0
    for seed in range(FLIPS_PER_FORMAT):
        cache.clear()
        data = flipped(good, seed)
        before = rows()
        response = upload(api, data, f"agent.{kind}")
        assert response.status_code < 500, (seed, response.status_code, response.content[:300])
        if response.status_code == 201:
            accepted += 1
            assert rows() == (before[0] + 1, before[1] + 1, before[2] + 1), seed
            assert Submission.objects.latest("pk").sources == {"scale_shift.py": factories.CORRECT}, seed
        else:
            refused += 1
            assert 400 <= response.status_code < 500 and response.json().get("file"), (seed, response.content)
            assert rows() == before, seed
    assert refused >= FLIPS_PER_FORMAT // 2, (refused, accepted)
