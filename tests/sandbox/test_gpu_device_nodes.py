"""A sandboxed evaluation sees the device nodes of its own GPUs only: on a host of several GPUs a
solution pinned to one cannot open another's node and disturb what is timed there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sandbox.gpu_devices import UnknownGpu, device_nodes, host_gpus

# Three GPUs whose device minors do not follow their PCI bus order, as happens on real hosts.
GPUS = [("0000:c1:00.0", "GPU-cccc1111-0000", 0), ("0000:1b:00.0", "GPU-aaaa2222-0000", 2),
        ("0000:4f:00.0", "GPU-bbbb3333-0000", 1)]


@pytest.fixture
def host(tmp_path: Path) -> tuple[Path, Path]:
    proc, dev = tmp_path / "proc", tmp_path / "dev"
    for bus, uuid, minor in GPUS:
        (proc / bus).mkdir(parents=True)
        (proc / bus / "information").write_text(
            f"Model: \t\t NVIDIA H200\nIRQ:   \t\t 17\nGPU UUID: \t {uuid}\nDevice Minor: \t {minor}\n"
            f"Bus Location: \t {bus}\n")
    dev.mkdir()
    for name in ("nvidia0", "nvidia1", "nvidia2", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools",
                 "nvidia-modeset"):
        (dev / name).touch()
    return proc, dev


def nodes(visible: str | None, host: tuple[Path, Path]) -> list[str]:
    proc, dev = host
    return [Path(n).name for n in device_nodes(visible, proc, dev)]


SHARED = ["nvidia-modeset", "nvidia-uvm", "nvidia-uvm-tools", "nvidiactl"]


def test_gpus_are_numbered_in_pci_bus_order(host: tuple[Path, Path]) -> None:
    assert [(g.bus_id, g.minor) for g in host_gpus(host[0])] == [
        ("0000:1b:00.0", 2), ("0000:4f:00.0", 1), ("0000:c1:00.0", 0)]


def test_an_index_gets_that_gpus_node_and_the_shared_ones(host: tuple[Path, Path]) -> None:
    assert nodes("0", host) == sorted([*SHARED, "nvidia2"])
    assert nodes("2", host) == sorted([*SHARED, "nvidia0"])
    assert nodes("0,1", host) == sorted([*SHARED, "nvidia1", "nvidia2"])


def test_a_uuid_or_its_unique_prefix_gets_that_gpus_node(host: tuple[Path, Path]) -> None:
    assert nodes("GPU-bbbb3333-0000", host) == sorted([*SHARED, "nvidia1"])
    assert nodes("GPU-cccc", host) == sorted([*SHARED, "nvidia0"])


def test_no_gpu_gets_no_per_gpu_node_and_unset_gets_every_one(host: tuple[Path, Path]) -> None:
    assert nodes("", host) == SHARED
    assert nodes(None, host) == sorted([*SHARED, "nvidia0", "nvidia1", "nvidia2"])


@pytest.mark.parametrize("visible", ["3", "GPU-dddd", "GPU-", "MIG-1234", "gpu0"])
def test_a_gpu_the_host_does_not_have_is_refused(host: tuple[Path, Path], visible: str) -> None:
    with pytest.raises(UnknownGpu, match="CUDA_VISIBLE_DEVICES names"):
        device_nodes(visible, *host)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_the_bubblewrap_sandbox_refuses_to_start_on_a_gpu_it_cannot_find(tmp_path: Path) -> None:
    from sandbox.bubblewrap_backend import BubblewrapBackend

    with pytest.raises(UnknownGpu):
        BubblewrapBackend().command(["python3", "-c", "pass"], tmp_path,
                                    {"CUDA_VISIBLE_DEVICES": "GPU-not-on-this-host"})
    command = BubblewrapBackend().command(["python3", "-c", "pass"], tmp_path, {"CUDA_VISIBLE_DEVICES": ""})
    bound = [command[i + 1] for i, arg in enumerate(command) if arg == "--dev-bind"]
    assert not [b for b in bound if Path(b).name.removeprefix("nvidia").isdigit()]
