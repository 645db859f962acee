"""Archive builders for the bundle fuzzer: zip and tar.gz from entries that may be links, devices,
odd names or duplicates, which zipfile's and tarfile's convenience calls would not write."""

from __future__ import annotations

import io
import json
import stat
import tarfile
import warnings
import zipfile
from dataclasses import dataclass

from tests.platform import factories

MANIFEST = {"name": "fuzz-agent", "version": "0.1", "model": "fuzz-model", "logs": ["logs/run.log"]}
GOOD: dict[str, str] = {"manifest.json": json.dumps(MANIFEST), "scale_shift.py": factories.CORRECT,
                        "logs/run.log": "step 1\n"}


@dataclass(frozen=True)
class Entry:
    """One archive member: a file (data), or a link (target) of kind 'symlink' or 'hardlink', or a
    'fifo', 'chardev', 'blockdev' or 'dir'. `name` is str, or bytes for names that are not UTF-8."""

    name: str | bytes
    data: bytes = b""
    kind: str = "file"
    target: str = ""


def files(extra: dict[str, str | bytes] | None = None, drop: tuple[str, ...] = ()) -> list[Entry]:
    """The good bundle's files, less `drop`, plus `extra`."""
    merged: dict[str, str | bytes] = {**{k: v for k, v in GOOD.items() if k not in drop}, **(extra or {})}
    return [Entry(name, data if isinstance(data, bytes) else data.encode()) for name, data in merged.items()]


def zip_of(entries: list[Entry], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    raw_names: dict[bytes, bytes] = {}
    with zipfile.ZipFile(buffer, "w", compression) as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Duplicate name": some cases mean it
        for i, entry in enumerate(entries):
            name = entry.name
            if isinstance(name, bytes):
                # zipfile writes only ASCII or UTF-8 names: a placeholder of the same length is
                # written and swapped for the raw bytes afterwards (the CRCs cover data, not names).
                placeholder = f"~{i:0{max(len(name) - 1, 1)}d}"[: len(name)].encode()
                raw_names[placeholder] = name
                name = placeholder.decode()
            info = zipfile.ZipInfo(name)
            info.compress_type = compression
            mode = {"file": stat.S_IFREG | 0o644, "symlink": stat.S_IFLNK | 0o777,
                    "dir": stat.S_IFDIR | 0o755, "fifo": stat.S_IFIFO | 0o644}[entry.kind]
            info.external_attr = mode << 16
            info.create_system = 3  # unix, so the mode above is read
            data = entry.target.encode() if entry.kind == "symlink" else entry.data
            archive.writestr(info, data)
    data = buffer.getvalue()
    for placeholder, raw in raw_names.items():
        data = data.replace(placeholder, raw)
    return data


def tar_gz_of(entries: list[Entry]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT, encoding="utf-8",
                      errors="surrogateescape") as archive:
        for entry in entries:
            name = entry.name
            if isinstance(name, bytes):
                name = name.decode("utf-8", "surrogateescape")
            info = tarfile.TarInfo(name)
            info.type = {"file": tarfile.REGTYPE, "symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE,
                         "fifo": tarfile.FIFOTYPE, "chardev": tarfile.CHRTYPE, "blockdev": tarfile.BLKTYPE,
                         "dir": tarfile.DIRTYPE}[entry.kind]
            info.linkname = entry.target
            info.size = len(entry.data) if entry.kind == "file" else 0
            archive.addfile(info, io.BytesIO(entry.data) if entry.kind == "file" else None)
    return buffer.getvalue()


ARCHIVERS = {"zip": zip_of, "tar.gz": tar_gz_of}
