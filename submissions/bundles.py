"""Agent bundles: one upload holding an agent's manifest and its solutions, one per problem.

A bundle is a zip or tar.gz archive read from memory, or a directory read without following links.
Pure: nothing is written to disk and no database is touched; the caller checks that the problems
exist and stores the submissions. The layout, the manifest, the limits and the errors are described
in docs/agent-bundles.md.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, BinaryIO

from evaluator import bounded_json
from evaluator.harness.names import why_not_a_name
from evaluator.jobs import MAX_SOURCE_BYTES, SolutionError, SolutionFiles

KiB = 1 << 10
MiB = 1 << 20


class BundleError(ValueError):
    """A bundle that cannot be accepted; the message names the file, field or limit at fault."""


@dataclass(frozen=True)
class BundleLimits:
    max_archive_bytes: int = 20 * MiB
    max_unpacked_bytes: int = 50 * MiB
    max_entries: int = 500
    max_source_bytes: int = MAX_SOURCE_BYTES
    max_log_bytes: int = 10 * MiB
    max_ratio: int = 100
    # Below this many unpacked bytes a high ratio is whitespace, not a bomb.
    ratio_floor_bytes: int = 64 * KiB


DEFAULT_LIMITS = BundleLimits()


@dataclass(frozen=True)
class ProblemUsage:
    """What the agent spent on one problem, as the manifest's `problems` says (each figure optional)."""

    cost_usd: float | None = None
    tokens_input: int | None = None
    tokens_output: int | None = None
    wall_seconds: float | None = None

    def to_dict(self) -> dict[str, float | int]:
        """The figures given, as Submission.agent_usage stores them."""
        return {key: value for key in _USAGE_FIELDS if (value := getattr(self, key)) is not None}


@dataclass(frozen=True)
class AgentManifest:
    name: str
    version: str
    model: str
    description: str = ""
    budget_usd: float | None = None
    cost_usd: float | None = None
    tokens: int | None = None
    tokens_input: int | None = None
    tokens_output: int | None = None
    wall_seconds: float | None = None
    logs: tuple[str, ...] = ()
    problems: dict[str, ProblemUsage] = field(default_factory=dict)  # by the name the bundle gives it


@dataclass(frozen=True)
class Bundle:
    manifest: AgentManifest
    solutions: dict[str, SolutionFiles]
    logs: dict[str, str]


def read_bundle(data: bytes, filename: str, limits: BundleLimits = DEFAULT_LIMITS) -> Bundle:
    """Read an uploaded zip or tar.gz (told apart by its first bytes; `filename` only names it)."""
    if not data:
        raise BundleError(f"{filename}: the upload is empty")
    if len(data) > limits.max_archive_bytes:
        raise BundleError(f"{filename}: {_size(len(data))} is over the {_size(limits.max_archive_bytes)} "
                          "limit on a bundle archive")
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        files = _read_zip(data, filename, limits)
    elif data.startswith(b"\x1f\x8b"):
        files = _read_tar_gz(data, filename, limits)
    else:
        raise BundleError(f"{filename}: not a zip or tar.gz archive (its first bytes are neither)")
    return _assemble(files, limits)


# Reading: paths checked before any data is read, data read through a bounded read.

_ARCHIVE_SUFFIXES = (".zip", ".tar", ".gz", ".tgz", ".bz2", ".tbz2", ".xz", ".txz", ".zst", ".7z", ".rar",
                     ".whl", ".jar")
_ARCHIVE_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"7z\xbc\xaf\x27\x1c",
                  b"Rar!", b"\x28\xb5\x2f\xfd")
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:")
_CHUNK = 64 * KiB
# What a tar stream holds besides file data: a header, a pax record and padding per entry, and the end.
_TAR_BYTES_PER_ENTRY = 4 * KiB
_TAR_END_BYTES = 20 * KiB
# Whatever a broken archive makes zipfile, tarfile, gzip or zlib raise.
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, tarfile.TarError, EOFError, OSError,
                   NotImplementedError, RuntimeError, ValueError, zlib.error, struct.error)


class _Unpacked:
    """The files read so far, keyed by normalized path, with the limits counted on the bytes actually
    read: declared sizes only allow an early refusal, they are never trusted to stay small."""

    def __init__(self, limits: BundleLimits) -> None:
        self.limits = limits
        self.files: dict[str, bytes] = {}
        self.entries = 0
        self.total = 0

    def count_entry(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise BundleError(f"{name}: the bundle has more than {self.limits.max_entries} entries")

    def caps(self, path: str, compressed_bytes: int | None = None) -> list[tuple[int, str]]:
        """The most bytes `path` may unpack to, each with the message that says which limit it broke."""
        limits = self.limits
        largest = max(limits.max_source_bytes, limits.max_log_bytes)
        caps = [(largest, f"{path}: larger than {_size(largest)}, the most a file in a bundle may hold"),
                (limits.max_unpacked_bytes - self.total,
                 f"{path}: the bundle unpacks to more than {_size(limits.max_unpacked_bytes)}")]
        if compressed_bytes is not None:
            caps.append((max(limits.ratio_floor_bytes, limits.max_ratio * compressed_bytes),
                         f"{path}: compression ratio above {limits.max_ratio}:1 (a zip bomb?)"))
        return caps

    def add(self, path: str, stream: BinaryIO, caps: list[tuple[int, str]]) -> None:
        self.files[path] = data = _read_bounded(stream, caps)
        self.total += len(data)

    def claim(self, raw_name: str) -> str:
        """A file's normalized path, refused when unsafe, repeated, or an archive by its name."""
        path = _entry_path(raw_name)
        if not path:
            raise BundleError(f"{raw_name!r}: a file needs a name")
        if path in self.files:
            raise BundleError(f"{path}: appears twice in the bundle")
        if path.lower().endswith(_ARCHIVE_SUFFIXES):
            raise _nested_archive(path)
        return path


def _read_bounded(stream: BinaryIO, caps: list[tuple[int, str]]) -> bytes:
    limit, message = min(caps)
    chunks: list[bytes] = []
    size = 0
    while chunk := stream.read(min(_CHUNK, limit + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise BundleError(message)
    return b"".join(chunks)


def _refuse_declared(declared_bytes: int, caps: list[tuple[int, str]]) -> None:
    """An early refusal from the size an archive declares, before anything is unpacked."""
    limit, message = min(caps)
    if declared_bytes > limit:
        raise BundleError(message)


def _entry_path(raw: str) -> str:
    """The path normalized ('./a//b' -> 'a/b'); absolute, parent or backslashed paths are refused."""
    if "\\" in raw:
        raise BundleError(f"{raw!r}: backslashes are not allowed in bundle paths (use '/')")
    if raw.startswith("/") or _WINDOWS_DRIVE.match(raw):
        raise BundleError(f"{raw!r}: absolute paths are not allowed in a bundle")
    if any(ord(char) < 32 or char == "\x7f" for char in raw):
        raise BundleError(f"{raw!r}: control characters are not allowed in bundle paths")
    parts = PurePosixPath(raw).parts
    if ".." in parts:
        raise BundleError(f"{raw!r}: '..' is not allowed in bundle paths (path traversal)")
    return "/".join(parts)


def _nested_archive(path: str) -> BundleError:
    return BundleError(f"{path}: an archive inside the bundle is not accepted; put its files in the "
                       "bundle itself")


def _read_zip(data: bytes, filename: str, limits: BundleLimits) -> dict[str, bytes]:
    unpacked = _Unpacked(limits)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if len(infos) > limits.max_entries:
                raise BundleError(f"{filename}: the bundle has more than {limits.max_entries} entries "
                                  f"({len(infos)})")
            declared_total = sum(info.file_size for info in infos)
            if declared_total > limits.max_unpacked_bytes:
                raise BundleError(f"{filename}: the bundle unpacks to more than "
                                  f"{_size(limits.max_unpacked_bytes)}")
            for info in infos:
                _read_zip_entry(archive, info, unpacked)
    except BundleError:
        raise
    except _ARCHIVE_ERRORS as exc:
        raise BundleError(f"{filename}: not a readable zip archive ({exc})") from None
    return unpacked.files


def _read_zip_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, unpacked: _Unpacked) -> None:
    unpacked.count_entry(info.filename)
    mode = info.external_attr >> 16
    if info.is_dir():
        _entry_path(info.filename)
        return
    if stat.S_ISLNK(mode):
        raise BundleError(f"{info.filename}: symbolic links are not allowed in a bundle")
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
        raise BundleError(f"{info.filename}: only regular files are allowed in a bundle")
    if info.flag_bits & 0x1:
        raise BundleError(f"{info.filename}: encrypted files are not accepted")
    path = unpacked.claim(info.filename)
    caps = unpacked.caps(path, info.compress_size)
    _refuse_declared(info.file_size, caps)
    with archive.open(info) as stream:
        unpacked.add(path, stream, caps)


class _CappedStream:
    """A read-only stream that refuses to give more than `cap` bytes. It sits under tarfile because
    tarfile reads some headers (GNU long names, pax records) whole, before handing over a member."""

    def __init__(self, raw: BinaryIO, cap: int, message: str) -> None:
        self.raw, self.cap, self.message = raw, cap, message
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        allowed = self.cap + 1 - self.count
        data = self.raw.read(allowed if size is None or size < 0 else min(size, allowed))
        self.count += len(data)
        if self.count > self.cap:
            raise BundleError(self.message)
        return data


def _read_tar_gz(data: bytes, filename: str, limits: BundleLimits) -> dict[str, bytes]:
    unpacked = _Unpacked(limits)
    stream_cap = limits.max_unpacked_bytes + _TAR_BYTES_PER_ENTRY * limits.max_entries + _TAR_END_BYTES
    ratio_cap = max(limits.ratio_floor_bytes, limits.max_ratio * len(data))
    cap, message = min((stream_cap, f"{filename}: the bundle unpacks to more than "
                                    f"{_size(limits.max_unpacked_bytes)}"),
                       (ratio_cap, f"{filename}: compression ratio above {limits.max_ratio}:1 (a zip bomb?)"))
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as decompressed:
            capped = _CappedStream(decompressed, cap, message)
            # Stream mode ("r|"): members in order, no seeking, every byte through the capped stream.
            # Names must be UTF-8: decoded leniently they would carry lone surrogates into messages.
            with tarfile.open(fileobj=capped, mode="r|", encoding="utf-8", errors="strict") as archive:
                for member in archive:
                    _read_tar_member(archive, member, unpacked)
            # tarfile stops at the end-of-archive blocks; reading on to the end of the gzip stream is
            # what checks its CRC and length, so a truncated or corrupted upload is refused.
            while capped.read(_CHUNK):
                pass
    except BundleError:
        raise
    except UnicodeDecodeError as exc:
        raise BundleError(f"{filename}: a name in the archive is not UTF-8 ({exc})") from None
    except _ARCHIVE_ERRORS as exc:
        raise BundleError(f"{filename}: not a readable tar.gz archive ({exc})") from None
    return unpacked.files


def _read_tar_member(archive: tarfile.TarFile, member: tarfile.TarInfo, unpacked: _Unpacked) -> None:
    unpacked.count_entry(member.name)
    if member.isdir():
        _entry_path(member.name)
        return
    if member.type not in (tarfile.REGTYPE, tarfile.AREGTYPE) or member.sparse is not None:
        raise BundleError(f"{member.name}: {_tar_kind(member)} not allowed in a bundle (regular files only)")
    path = unpacked.claim(member.name)
    caps = unpacked.caps(path)
    _refuse_declared(member.size, caps)
    stream = archive.extractfile(member)
    assert stream is not None  # a regular file always has one
    unpacked.add(path, stream, caps)


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "symbolic links are"
    if member.islnk():
        return "hard links are"
    if member.ischr() or member.isblk():
        return "devices are"
    if member.isfifo():
        return "FIFOs are"
    return f"entries of type {member.type!r} are"


# Assembling: manifest, logs and solutions out of the files read.

_MANIFEST = "manifest.json"
_TEXT_FIELDS = {"name": 100, "version": 100, "model": 200, "description": 5000}
_REQUIRED_FIELDS = ("name", "version", "model")
_NUMBER_FIELDS = ("budget_usd", "cost_usd", "tokens", "tokens_input", "tokens_output", "wall_seconds")
_WHOLE_NUMBERS = ("tokens", "tokens_input", "tokens_output")
_MANIFEST_KEYS = (*_TEXT_FIELDS, *_NUMBER_FIELDS, "logs", "problems")
_USAGE_FIELDS = ("cost_usd", "tokens_input", "tokens_output", "wall_seconds")
# The figures that add up over the problems (wall time does not: problems may run side by side), each
# with the run-level figure its per-problem sum may not exceed, once rounding is allowed for.
_SUMS = (("cost_usd", "cost_usd"), ("tokens_input", "tokens_input"), ("tokens_output", "tokens_output"))
_ROUNDING = 1e-9


def _assemble(files: dict[str, bytes], limits: BundleLimits) -> Bundle:
    files = _strip_wrapping_directory(files)
    if _MANIFEST not in files:
        raise BundleError(f"no {_MANIFEST} at the top of the bundle (or in its one top-level directory)")
    manifest = parse_manifest(files.pop(_MANIFEST), limits)
    logs = _take_logs(files, manifest.logs, limits)
    solutions = _solutions(files, limits)
    if not solutions:
        raise BundleError("the bundle holds no solutions (<problem>.py, <problem>/solution.py or "
                          "<problem>/solution.json)")
    _check_usage_names(manifest, solutions)
    return Bundle(manifest, solutions, logs)


def _check_usage_names(manifest: AgentManifest, solutions: dict[str, SolutionFiles]) -> None:
    """Each problem of the manifest's `problems` is one the bundle holds a solution of, named alike."""
    strangers = [name for name in manifest.problems if name not in solutions]
    if strangers:
        raise BundleError(f"{_MANIFEST}: 'problems' names {strangers[0]!r}, which the bundle has no solution "
                          f"for (its solutions: {_quoted(solutions)})")


def _take_logs(files: dict[str, bytes], paths: tuple[str, ...], limits: BundleLimits) -> dict[str, str]:
    missing = [path for path in paths if path not in files]
    if missing:
        raise BundleError(f"{_MANIFEST}: 'logs' lists {missing[0]!r}, which is not a file in the bundle")
    return {path: _text(path, files.pop(path), limits.max_log_bytes) for path in paths}


def _strip_wrapping_directory(files: dict[str, bytes]) -> dict[str, bytes]:
    """Drop one directory that wraps everything, as `zip -r agent.zip agent/` makes."""
    tops = {path.partition("/")[0] for path in files}
    if _MANIFEST in files or len(tops) != 1 or not all("/" in path for path in files):
        return files
    prefix = tops.pop() + "/"
    return {path.removeprefix(prefix): data for path, data in files.items()}


def _text(path: str, data: bytes, max_bytes: int) -> str:
    """A file's text: non-empty, within max_bytes, UTF-8, not an archive and not binary."""
    if len(data) > max_bytes:
        raise BundleError(f"{path}: larger than {_size(max_bytes)}")
    if not data:
        raise BundleError(f"{path}: the file is empty")
    if data.startswith(_ARCHIVE_MAGIC) or data[257:262] == b"ustar":
        raise _nested_archive(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleError(f"{path}: not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start})"
                          ) from None
    if "\x00" in text:
        raise BundleError(f"{path}: contains NUL bytes; binary files are not accepted")
    return text


def parse_manifest(data: bytes, limits: BundleLimits = DEFAULT_LIMITS) -> AgentManifest:
    """The agent's manifest.json, field by field; unknown keys are refused to catch typos."""
    text = _text(_MANIFEST, data, limits.max_source_bytes)
    try:
        raw = bounded_json.loads(text, _MANIFEST, object_pairs_hook=_object_without_repeated_keys)
    except bounded_json.TooDeep as exc:
        raise BundleError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise BundleError(f"{_MANIFEST}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(raw, dict):
        raise BundleError(f"{_MANIFEST}: must be a JSON object, not {type(raw).__name__}")
    unknown = sorted(set(raw) - set(_MANIFEST_KEYS))
    if unknown:
        raise BundleError(f"{_MANIFEST}: unknown key(s) {_quoted(unknown)}; the keys are "
                          f"{_quoted(_MANIFEST_KEYS)}")
    missing = [key for key in _REQUIRED_FIELDS if key not in raw]
    if missing:
        raise BundleError(f"{_MANIFEST}: missing required key(s) {_quoted(missing)}")
    texts = {key: _manifest_text(key, raw[key]) for key in _TEXT_FIELDS if key in raw}
    numbers = {key: _manifest_number(key, raw[key]) for key in _NUMBER_FIELDS if key in raw}
    _check_tokens(numbers)
    problems = _manifest_problems(raw.get("problems", {}))
    _check_sums(numbers, problems)
    return AgentManifest(**texts, **numbers, logs=_manifest_logs(raw.get("logs", [])), problems=problems)


def _object_without_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise BundleError(f"{_MANIFEST}: key {key!r} appears twice")
        result[key] = value
    return result


def _manifest_text(key: str, value: Any) -> str:
    longest = _TEXT_FIELDS[key]
    if not isinstance(value, str):
        raise BundleError(f"{_MANIFEST}: '{key}' must be a string")
    if key in _REQUIRED_FIELDS and not value.strip():
        raise BundleError(f"{_MANIFEST}: '{key}' must not be empty")
    if len(value) > longest:
        raise BundleError(f"{_MANIFEST}: '{key}' is longer than {longest} characters")
    if "\x00" in value:  # a \u0000 escape: no text column can store it
        raise BundleError(f"{_MANIFEST}: '{key}' must not contain NUL characters")
    return value


def _manifest_number(key: str, value: Any, where: str = f"{_MANIFEST}: ") -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BundleError(f"{where}'{key}' must be a number")
    if value < 0:
        raise BundleError(f"{where}'{key}' must be >= 0, not {value}")
    if key in _WHOLE_NUMBERS:
        if isinstance(value, float) and not value.is_integer():
            raise BundleError(f"{where}'{key}' must be a whole number")
        return int(value)
    return value


def _check_tokens(numbers: dict[str, float | int]) -> None:
    """`tokens`, the total, holds at least the tokens read and written that are given."""
    if "tokens" not in numbers or not {"tokens_input", "tokens_output"} & numbers.keys():
        return
    parts = numbers.get("tokens_input", 0) + numbers.get("tokens_output", 0)
    if numbers["tokens"] < parts:
        raise BundleError(f"{_MANIFEST}: 'tokens' ({numbers['tokens']}) is less than 'tokens_input' + "
                          f"'tokens_output' ({parts}); 'tokens' is the total")


def _manifest_problems(value: Any) -> dict[str, ProblemUsage]:
    """`problems`: per problem, named as the bundle names its solution, what the agent spent on it."""
    if not isinstance(value, dict):
        raise BundleError(f"{_MANIFEST}: 'problems' must be an object: problem -> its "
                          f"{_quoted(_USAGE_FIELDS)}")
    problems = {}
    for name, usage in value.items():
        where = f"{_MANIFEST}: problems[{name!r}]: "
        if not isinstance(usage, dict):
            raise BundleError(f"{where}must be an object with any of {_quoted(_USAGE_FIELDS)}")
        unknown = sorted(set(usage) - set(_USAGE_FIELDS))
        if unknown:
            raise BundleError(f"{where}unknown key(s) {_quoted(unknown)}; the keys are "
                              f"{_quoted(_USAGE_FIELDS)}")
        problems[name] = ProblemUsage(**{key: _manifest_number(key, usage[key], where) for key in usage})
    return problems


def _check_sums(numbers: dict[str, float | int], problems: dict[str, ProblemUsage]) -> None:
    """The problems' costs and tokens add up to no more than the run's, where both are given."""
    for part, whole in _SUMS:
        given = [getattr(p, part) for p in problems.values() if getattr(p, part) is not None]
        _check_sum(f"'{part}'", given, whole, numbers)
    tokens = [(p.tokens_input or 0) + (p.tokens_output or 0) for p in problems.values()
              if p.tokens_input is not None or p.tokens_output is not None]
    _check_sum("'tokens_input' + 'tokens_output'", tokens, "tokens", numbers)


def _check_sum(what: str, values: list[float | int], whole: str, numbers: dict[str, float | int]) -> None:
    total = math.fsum(values)
    if values and whole in numbers and total > numbers[whole] * (1 + _ROUNDING) + _ROUNDING:
        raise BundleError(f"{_MANIFEST}: the problems' {what} add up to {total:.10g}, more than the run's "
                          f"'{whole}' ({numbers[whole]:.10g}); 'problems' splits the run's figures")


def _manifest_logs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise BundleError(f"{_MANIFEST}: 'logs' must be a list of paths in the bundle")
    paths: list[str] = []
    for i, item in enumerate(value):
        try:
            path = _entry_path(item)
        except BundleError as exc:
            raise BundleError(f"{_MANIFEST}: logs[{i}]: {exc}") from None
        if path in paths:
            raise BundleError(f"{_MANIFEST}: logs[{i}] {item!r} is listed twice")
        paths.append(path)
    return tuple(paths)


def _solutions(files: dict[str, bytes], limits: BundleLimits) -> dict[str, SolutionFiles]:
    """`<problem>.py` at the top, or a `<problem>/` directory: one solution per problem."""
    single_files: dict[str, tuple[str, bytes]] = {}
    directories: dict[str, dict[str, bytes]] = {}
    for path, data in files.items():
        top, slash, inside = path.partition("/")
        if slash:
            directories.setdefault(_problem_name(top, top + "/"), {})[inside] = data
        elif path.endswith(".py"):
            single_files[_problem_name(path.removesuffix(".py"), path)] = (path, data)
        else:
            raise BundleError(f"{path}: unexpected file; at the top of a bundle are {_MANIFEST}, "
                              "<problem>.py files, <problem>/ directories and the logs the manifest lists")
    twice = sorted(single_files.keys() & directories.keys())
    if twice:
        name = twice[0]
        raise BundleError(f"duplicate problem {name!r}: both {name}.py and {name}/ hold a solution "
                          "(one solution per problem)")
    solutions = {name: _single_file_solution(path, data, limits)
                 for name, (path, data) in single_files.items()}
    solutions |= {name: _directory_solution(name, inside, limits) for name, inside in directories.items()}
    return dict(sorted(solutions.items()))


def _problem_name(name: str, where: str) -> str:
    """A problem's slug or its name as written; which problem it is, the caller looks up."""
    refusal = why_not_a_name(name)
    if refusal:
        raise BundleError(f"{where}: {name!r} is not a problem's slug or name: {refusal}")
    return name


def _single_file_solution(path: str, data: bytes, limits: BundleLimits) -> SolutionFiles:
    name = PurePosixPath(path).name
    return SolutionFiles({name: _text(path, data, limits.max_source_bytes)}, name)


def _directory_solution(name: str, inside: dict[str, bytes], limits: BundleLimits) -> SolutionFiles:
    entries = [entry for entry in ("solution.py", "solution.json") if entry in inside]
    if len(entries) == 2:
        raise BundleError(f"duplicate problem {name!r}: both {name}/solution.py and {name}/solution.json "
                          "(one solution per problem)")
    if not entries:
        raise BundleError(f"{name}/: holds no solution.py or solution.json")
    entry = entries[0]
    text = _text(f"{name}/{entry}", inside.pop(entry), limits.max_source_bytes)
    if entry == "solution.py":
        _refuse_extra_files(name, inside, "a native solution is the one file solution.py")
        return SolutionFiles({entry: text}, entry)
    return _solution_json(name, text, inside)


def _solution_json(name: str, text: str, beside: dict[str, bytes]) -> SolutionFiles:
    """A SOL-ExecBench solution.json carries its sources inline; copies beside it must be identical."""
    where = f"{name}/solution.json"
    try:
        solution = SolutionFiles.from_solution_json(text, where)
    except SolutionError as exc:
        raise BundleError(str(exc)) from None
    for path, content in solution.files.items():
        if path != "solution.json" and not content:
            raise BundleError(f"{where}: source {path!r} is empty")
        if "\x00" in content:
            raise BundleError(f"{where}: source {path!r} contains NUL bytes; binary files are not accepted")
    differing = {path: data for path, data in beside.items() if solution.files.get(path, "").encode() != data}
    _refuse_extra_files(name, differing,
                        "beside a solution.json may lie only identical copies of its sources (the JSON runs)")
    return solution


def _refuse_extra_files(name: str, extra: dict[str, bytes], rule: str) -> None:
    if extra:
        raise BundleError(f"{name}/{min(extra)}: unexpected file; {rule}")


def _quoted(keys: Iterable[str]) -> str:
    return ", ".join(repr(key) for key in keys)


def _size(count: int) -> str:
    for unit, name in ((MiB, "MiB"), (KiB, "KiB")):
        if count >= unit:
            return f"{count // unit} {name}" if count % unit == 0 else f"{count / unit:.1f} {name}"
    return f"{count} bytes"
