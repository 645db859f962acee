"""Agent bundles: a zip, a tar.gz or a directory read back into a manifest and one solution per problem,
and every kind of bad bundle refused with a message that names the problem. No database needed."""

from __future__ import annotations

import gzip
import io
import json
import random
import stat
import struct
import tarfile
import zipfile
from typing import Any

import pytest

from submissions.bundles import (
    AgentManifest,
    BundleError,
    BundleLimits,
    MiB,
    read_bundle,
)

MANIFEST: dict[str, Any] = {
    "name": "kernel-agent", "version": "1.2.0", "model": "some-llm-2026-01",
    "description": "Writes Triton kernels.", "budget_usd": 50, "cost_usd": 12.5, "tokens": 1_200_000,
    "wall_seconds": 3600, "logs": ["logs/agent.log"],
}
NATIVE = "import torch\n\n\ndef run(x):\n    return x * 2\n"
KERNEL = "def scale(x):\n    return x * 2\n"


def solution_json(sources: dict[str, str] | None = None, entry: str = "kernel.py::scale") -> str:
    sources = {"kernel.py": KERNEL} if sources is None else sources
    return json.dumps({"name": "agent-gemm", "definition": "gemm", "author": "kernel-agent",
                       "spec": {"language": "python", "entry_point": entry},
                       "sources": [{"path": path, "content": text} for path, text in sources.items()]})


def manifest(**changes: Any) -> str:
    fields = {key: value for key, value in {**MANIFEST, **changes}.items() if value is not None}
    return json.dumps(fields)


def good_files() -> dict[str, str | bytes]:
    return {
        "manifest.json": manifest(),
        "softmax.py": NATIVE,
        "rmsnorm/solution.py": NATIVE,
        "gemm/solution.json": solution_json(),
        "gemm/kernel.py": KERNEL,  # an identical copy of the inline source
        "logs/agent.log": "step 1: wrote a kernel\n",
    }


def bundle_with(changes: dict[str, str | bytes | None]) -> dict[str, str | bytes]:
    """The good bundle with files added or replaced (path: content) or removed (path: None)."""
    files = good_files()
    for path, content in changes.items():
        if content is None:
            files.pop(path)
        else:
            files[path] = content
    return files


def _bytes(content: str | bytes) -> bytes:
    return content.encode() if isinstance(content, str) else content


def make_zip(files: dict[str, str | bytes], *, wrap: str = "") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, content in files.items():
            archive.writestr(wrap + path, _bytes(content))
    return buffer.getvalue()


def make_tar_gz(
    files: dict[str, str | bytes], *, wrap: str = "", extra: tuple[tarfile.TarInfo, ...] = ()
) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        if wrap:
            directory = tarfile.TarInfo(wrap.rstrip("/"))
            directory.type = tarfile.DIRTYPE
            archive.addfile(directory)
        for path, content in files.items():
            data = _bytes(content)
            member = tarfile.TarInfo(wrap + path)
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
        for member in extra:
            archive.addfile(member)
    return buffer.getvalue()


def refused(data: bytes, filename: str = "bundle.zip", limits: BundleLimits | None = None) -> str:
    with pytest.raises(BundleError) as caught:
        read_bundle(data, filename, limits or BundleLimits())
    return str(caught.value)


def assert_good_bundle(bundle: Any) -> None:
    assert bundle.manifest == AgentManifest(
        name="kernel-agent", version="1.2.0", model="some-llm-2026-01", description="Writes Triton kernels.",
        budget_usd=50, cost_usd=12.5, tokens=1_200_000, wall_seconds=3600, logs=("logs/agent.log",))
    assert list(bundle.solutions) == ["gemm", "rmsnorm", "softmax"]
    assert bundle.solutions["softmax"].files == {"softmax.py": NATIVE}
    assert bundle.solutions["softmax"].entry == "softmax.py"
    assert bundle.solutions["rmsnorm"].files == {"solution.py": NATIVE}
    gemm = bundle.solutions["gemm"]
    assert gemm.entry == "solution.json"
    assert gemm.files == {"kernel.py": KERNEL, "solution.json": solution_json()}
    assert bundle.logs == {"logs/agent.log": "step 1: wrote a kernel\n"}


# Good bundles


def test_a_zip_bundle_reads_back() -> None:
    assert_good_bundle(read_bundle(make_zip(good_files()), "agent.zip"))


def test_a_tar_gz_in_a_wrapping_directory_reads_back() -> None:
    assert_good_bundle(read_bundle(make_tar_gz(good_files(), wrap="./kernel-agent-1.2.0/"), "agent.tar.gz"))


def test_a_zip_in_a_wrapping_directory_reads_back() -> None:
    assert_good_bundle(read_bundle(make_zip(good_files(), wrap="kernel-agent/"), "agent.zip"))


def test_the_archive_kind_comes_from_its_bytes_not_its_name() -> None:
    assert_good_bundle(read_bundle(make_tar_gz(good_files()), "agent.zip"))


def test_optional_manifest_fields_may_be_left_out() -> None:
    files = bundle_with({"manifest.json": json.dumps({"name": "a", "version": "0", "model": "m"}),
                         "logs/agent.log": None})
    bundle = read_bundle(make_zip(files), "agent.zip")
    assert bundle.manifest == AgentManifest(name="a", version="0", model="m")
    assert bundle.logs == {}


# The upload itself


def test_not_an_archive_is_refused_whatever_its_name() -> None:
    message = refused(b"def run(x):\n    return x\n", "agent.zip")
    assert "agent.zip" in message and "not a zip or tar.gz" in message


def test_a_broken_zip_is_refused() -> None:
    assert "not a readable zip" in refused(make_zip(good_files())[:200], "agent.zip")


def test_a_gzip_without_a_tar_inside_is_refused() -> None:
    assert "not a readable tar.gz" in refused(gzip.compress(b"just text, no tar"), "agent.tar.gz")


def test_an_empty_upload_is_refused() -> None:
    assert "empty" in refused(b"", "agent.zip")


def test_an_archive_over_the_size_limit_is_refused() -> None:
    message = refused(make_zip(good_files()), "agent.zip", BundleLimits(max_archive_bytes=1024))
    assert "agent.zip" in message and "1 KiB" in message and "limit" in message


@pytest.mark.parametrize("make", [make_zip, make_tar_gz])
def test_too_many_entries_are_refused(make: Any) -> None:
    files = {**good_files(), **{f"logs/extra{i}.log": "x\n" for i in range(10)}}
    assert "more than 8 entries" in refused(make(files), limits=BundleLimits(max_entries=8))


@pytest.mark.parametrize("make", [make_zip, make_tar_gz])
def test_a_bundle_unpacking_past_the_total_limit_is_refused(make: Any) -> None:
    noise = random.Random(0)
    files = {**good_files(), **{f"logs/part{i}.log": noise.randbytes(40 * 1024).hex() for i in range(4)}}
    limits = BundleLimits(max_unpacked_bytes=200 * 1024)
    assert "unpacks to more than 200 KiB" in refused(make(files), limits=limits)


# Zip and tar bombs: refused, and without unpacking much


@pytest.fixture
def unpacked_bytes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the bytes zipfile and gzip hand out while a bundle is read."""
    counted = [0]
    for cls in (zipfile.ZipExtFile, gzip.GzipFile):
        original = cls.read

        def read(self: Any, size: int = -1, _original: Any = original) -> bytes:
            data = _original(self, size)
            counted[0] += len(data)
            return data

        monkeypatch.setattr(cls, "read", read)
    return counted


def zeros_zip(name: str, size: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", manifest(logs=None))
        with archive.open(name, "w") as entry:
            write_zeros(entry, size)
    return buffer.getvalue()


def write_zeros(stream: Any, size: int) -> None:
    chunk = bytes(MiB)
    for _ in range(size // MiB):
        stream.write(chunk)
    stream.write(bytes(size % MiB))


def test_a_zip_bomb_is_refused_before_it_is_unpacked(unpacked_bytes: list[int]) -> None:
    bomb = zeros_zip("softmax.py", 200 * MiB)
    assert len(bomb) < MiB
    assert "unpacks to more than 50 MiB" in refused(bomb)
    assert unpacked_bytes[0] < MiB


def test_a_zip_bomb_lying_about_its_size_stops_at_the_declared_size(unpacked_bytes: list[int]) -> None:
    bomb = bytearray(zeros_zip("softmax.py", 200 * MiB))
    entry = bomb.rfind(b"PK\x01\x02")  # the central directory record of the last entry, the bomb
    struct.pack_into("<I", bomb, entry + 24, 500)  # its uncompressed size
    assert "not a readable zip" in refused(bytes(bomb))
    read_before_the_bomb = len(manifest(logs=None))  # the manifest comes first and is read whole
    assert read_before_the_bomb <= unpacked_bytes[0] <= read_before_the_bomb + 500


def test_a_compression_ratio_above_the_bound_is_refused() -> None:
    message = refused(zeros_zip("softmax.py", 2 * MiB))
    assert "softmax.py" in message and "compression ratio above 100:1" in message


def test_a_tar_gz_bomb_is_refused_from_its_header(unpacked_bytes: list[int]) -> None:
    assert "larger than 10 MiB" in refused(zeros_tar_gz(tarfile.REGTYPE, "softmax.py", 200 * MiB))
    assert unpacked_bytes[0] < MiB


def test_a_tar_gz_bomb_in_a_header_tarfile_reads_whole_is_stopped_early(unpacked_bytes: list[int]) -> None:
    # A GNU long-name header is read into memory by tarfile itself, before any member is handed over.
    bomb = zeros_tar_gz(tarfile.GNUTYPE_LONGNAME, "././@LongLink", 200 * MiB)
    limits = BundleLimits(max_unpacked_bytes=MiB, max_entries=10)
    assert "unpacks to more than 1 MiB" in refused(bomb, limits=limits)
    assert MiB < unpacked_bytes[0] < 2 * MiB  # past the limit plus the allowance for tar headers, no further


def test_a_tar_gz_compressed_above_the_ratio_is_refused() -> None:
    message = refused(zeros_tar_gz(tarfile.REGTYPE, "softmax.py", 2 * MiB))
    assert "compression ratio above 100:1" in message


def zeros_tar_gz(kind: bytes, name: str, size: int) -> bytes:
    header = tarfile.TarInfo(name)
    header.type, header.size = kind, size
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as stream:
        stream.write(header.tobuf(tarfile.GNU_FORMAT))
        write_zeros(stream, size)
    return buffer.getvalue()


# Paths and entry kinds


@pytest.mark.parametrize(("path", "keyword"), [
    ("/etc/softmax.py", "absolute"),
    ("C:/softmax.py", "absolute"),
    ("../softmax.py", "'..'"),
    ("gemm/../../softmax.py", "'..'"),
    ("softmax\\solution.py", "backslash"),
])
@pytest.mark.parametrize("make", [make_zip, make_tar_gz])
def test_unsafe_paths_are_refused(make: Any, path: str, keyword: str) -> None:
    message = refused(make(bundle_with({path: NATIVE})))
    assert keyword in message and repr(path) in message


def tar_link(kind: bytes, name: str = "softmax.py", target: str = "/etc/passwd") -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.type, member.linkname = kind, target
    return member


@pytest.mark.parametrize(("member", "keyword"), [
    (tar_link(tarfile.SYMTYPE), "symbolic links"),
    (tar_link(tarfile.LNKTYPE, target="manifest.json"), "hard links"),
    (tar_link(tarfile.CHRTYPE, target=""), "devices"),
    (tar_link(tarfile.FIFOTYPE, target=""), "FIFOs"),
])
def test_tar_links_and_special_files_are_refused(member: tarfile.TarInfo, keyword: str) -> None:
    message = refused(make_tar_gz(bundle_with({"softmax.py": None}), extra=(member,)), "agent.tar.gz")
    assert "softmax.py" in message and keyword in message


def test_a_zip_symlink_entry_is_refused() -> None:
    buffer = io.BytesIO(make_zip(bundle_with({"softmax.py": None})))
    with zipfile.ZipFile(buffer, "a") as archive:
        link = zipfile.ZipInfo("softmax.py")
        link.create_system = 3  # unix, where external_attr carries the file mode
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    message = refused(buffer.getvalue())
    assert "softmax.py" in message and "symbolic links" in message


def test_a_path_appearing_twice_is_refused() -> None:
    buffer = io.BytesIO(make_zip(good_files()))
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr("softmax.py", NATIVE)
    message = refused(buffer.getvalue())
    assert "softmax.py" in message and "twice" in message


@pytest.mark.parametrize(("path", "content"), [
    ("softmax/kernels.zip", make_zip({"a.py": NATIVE})),
    ("logs/more.tar.gz", b"whatever"),
    ("softmax.py", gzip.compress(NATIVE.encode())),
], ids=["zip", "tar-gz-by-name", "gzip-by-content"])  # archive bytes hold timestamps: no ids from them
def test_an_archive_inside_the_bundle_is_refused(path: str, content: bytes) -> None:
    message = refused(make_zip(bundle_with({path: content})))
    assert path in message and "archive inside the bundle" in message


# Manifest


@pytest.mark.parametrize(("text", "keyword"), [
    ("{name: 'agent'}", "not valid JSON"),
    (json.dumps([MANIFEST]), "must be a JSON object"),
    (manifest(name=None), "missing required key(s) 'name'"),
    (manifest(model=None, version=None), "missing required key(s) 'version', 'model'"),
    (manifest(nmae="typo"), "unknown key(s) 'nmae'"),
    (manifest(cost_usd=-1), "'cost_usd' must be >= 0"),
    (manifest(tokens="many"), "'tokens' must be a number"),
    (manifest(tokens=1.5), "'tokens' must be a whole number"),
    (manifest(wall_seconds=True), "'wall_seconds' must be a number"),
    (manifest(name=""), "'name' must not be empty"),
    (manifest(name="x" * 101), "'name' is longer than 100"),
    (manifest(version=2), "'version' must be a string"),
    (manifest(logs="logs/agent.log"), "'logs' must be a list"),
    (manifest(logs=["logs/agent.log", "logs/missing.log"]), "'logs/missing.log', which is not a file"),
    (manifest(logs=["../agent.log"]), "logs[0]"),
    ('{"name": "a", "name": "b", "version": "1", "model": "m"}', "'name' appears twice"),
    ('{"name": "a", "version": "1", "model": "m", "cost_usd": NaN}', "'cost_usd' must be a number"),
])
def test_a_malformed_manifest_is_refused(text: str, keyword: str) -> None:
    message = refused(make_zip(bundle_with({"manifest.json": text})))
    assert message.startswith("manifest.json") and keyword in message


def test_a_missing_manifest_is_refused() -> None:
    assert "no manifest.json" in refused(make_zip(bundle_with({"manifest.json": None})))


# Solutions


def test_two_solutions_for_one_problem_are_refused() -> None:
    message = refused(make_zip(bundle_with({"softmax/solution.py": NATIVE})))
    assert "duplicate problem 'softmax'" in message and "softmax.py" in message


def test_a_native_and_a_json_solution_for_one_problem_are_refused() -> None:
    message = refused(make_zip(bundle_with({"rmsnorm/solution.json": solution_json()})))
    assert "duplicate problem 'rmsnorm'" in message and "rmsnorm/solution.json" in message


@pytest.mark.parametrize(("content", "keyword"), [
    (b"def run(x):\n    return '\xff'\n", "not UTF-8"),
    (b"", "empty"),
    (b"def run(x):\x00\n", "NUL bytes"),
])
def test_a_source_that_is_not_text_is_refused(content: bytes, keyword: str) -> None:
    message = refused(make_zip(bundle_with({"rmsnorm/solution.py": content})))
    assert "rmsnorm/solution.py" in message and keyword in message


def test_a_source_over_the_size_limit_is_refused() -> None:
    big = random.Random(1).randbytes(MiB // 2 + 1).hex()
    message = refused(make_zip(bundle_with({"softmax.py": big})))
    assert "softmax.py" in message and "larger than 1 MiB" in message


def test_a_log_that_is_not_text_is_refused() -> None:
    message = refused(make_zip(bundle_with({"logs/agent.log": b"\xff\xfe"})))
    assert "logs/agent.log" in message and "not UTF-8" in message


def test_a_malformed_solution_json_is_refused() -> None:
    message = refused(make_zip(bundle_with({"gemm/solution.json": solution_json(entry="kernel.py")})))
    assert "gemm/solution.json" in message and "entry_point" in message


def test_an_empty_source_inside_a_solution_json_is_refused() -> None:
    files = bundle_with({"gemm/solution.json": solution_json({"kernel.py": ""}), "gemm/kernel.py": None})
    message = refused(make_zip(files))
    assert "gemm/solution.json" in message and "'kernel.py' is empty" in message


@pytest.mark.parametrize(("path", "content"), [
    ("README.md", "# my agent\n"),
    ("rmsnorm/helper.py", NATIVE),
    ("gemm/kernel.py", KERNEL + "# edited\n"),  # differs from the source inlined in gemm/solution.json
    ("gemm/notes.md", "notes\n"),
])
def test_a_file_that_is_no_part_of_the_layout_is_refused(path: str, content: str) -> None:
    message = refused(make_zip(bundle_with({path: content})))
    assert message.startswith(path) and "unexpected file" in message


def test_a_problem_directory_without_a_solution_is_refused() -> None:
    files = bundle_with({"rmsnorm/solution.py": None, "rmsnorm/notes.txt": "notes\n"})
    assert "rmsnorm/: holds no solution.py or solution.json" in refused(make_zip(files))


@pytest.mark.parametrize(("path", "why"), [
    (" softmax.py", "begins or ends with white space"),
    ("soft\u200bmax/solution.py", "control or format character"),
    ("--.py", "at least one letter or digit"),
    (".py", "non-empty"),
    ("n" * 201 + ".py", "longer than 200 characters"),
])
def test_a_problem_that_no_name_could_be_is_refused(path: str, why: str) -> None:
    message = refused(make_zip(bundle_with({path: NATIVE})))
    assert message.startswith(path.split("/")[0]) and "is not a problem's slug or name" in message
    assert why in message


@pytest.mark.parametrize("path", ["black-forest-labs_FLUX.1-schnell_rope.py",
                                  "Fused RMSNorm (bf16)/solution.py",
                                  "nvidia_llama-3-3-nemotron-70b-select_rms_norm.py"])
def test_problems_may_be_named_by_slug_or_as_written(path: str) -> None:
    """Which problem a name or slug is, the submission service looks up (test_bundle_problem_names)."""
    bundle = read_bundle(make_zip(bundle_with({path: NATIVE})), "bundle.zip")
    problem = path.split("/")[0].removesuffix(".py")
    assert list(bundle.solutions[problem].files.values()) == [NATIVE]


def test_a_bundle_without_solutions_is_refused() -> None:
    files = {"manifest.json": manifest(logs=None)}
    assert "no solutions" in refused(make_zip(files))
