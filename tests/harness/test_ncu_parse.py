"""Profile mode's Nsight Compute path on the CPU: the `ncu` command line the harness runs under, and
the parser of `ncu --import X.ncu-rep --csv --page details` (a fixture written in ncu's format:
one row per metric, thousands separators, ==PROF== lines before the header). The GPU run itself
is checked on the device (docs/measuring.md, "Profile mode")."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.harness import ncu
from evaluator.harness.profiling import RANGE
from evaluator.supervise import SuperviseOptions, harness_argv
from tests.conftest import FIXTURES

DETAILS = (FIXTURES / "ncu" / "details.csv").read_text()


def test_each_launch_becomes_one_kernel_with_its_metrics() -> None:
    first, second, gemm = ncu.parse_details(DETAILS)
    assert [k["id"] for k in (first, second, gemm)] == [0, 1, 2]
    assert first == {
        "id": 0, "name": "_kernel", "grid": [1024, 1, 1], "block": [256, 1, 1],
        "duration_ms": pytest.approx(3.42e-3), "sm_throughput_pct": 12.05, "memory_throughput_pct": 61.87,
        "dram_throughput_pct": 61.87, "achieved_occupancy_pct": 78.40, "registers_per_thread": 16,
        "shared_memory_bytes": 0,
    }
    assert second["dram_throughput_pct"] is None  # a metric not reported stays None
    assert second["shared_memory_bytes"] is None


def test_a_metric_name_in_another_unit_is_not_taken_for_ours() -> None:
    """The memory section repeats "Memory Throughput" in byte/second after the speed-of-light
    section's percentage (seen on the H200: 1.76e12 "percent"); the percentage stays."""
    assert '"Memory Throughput","byte/second"' in DETAILS
    assert ncu.parse_details(DETAILS)[0]["memory_throughput_pct"] == 61.87
    only_bytes = "\n".join(line for line in DETAILS.splitlines()
                           if not ('"Memory Throughput","%"' in line and line.startswith('"0"')))
    assert ncu.parse_details(only_bytes)[0]["memory_throughput_pct"] is None


def test_units_and_thousands_separators() -> None:
    gemm = ncu.parse_details(DETAILS)[2]
    assert gemm["name"] == "void gemm_kernel<float, 128, 128>(float const*, float*, int)"
    assert gemm["duration_ms"] == pytest.approx(1.25)  # msecond
    assert gemm["grid"] == [32, 16, 1] and gemm["block"] == [128, 1, 1]
    assert gemm["registers_per_thread"] == 168
    assert gemm["shared_memory_bytes"] == 49_152 + 512  # "49,152" dynamic plus static
    assert gemm["dram_throughput_pct"] is None  # "n/a"


def test_launches_of_one_kernel_are_summed() -> None:
    rows = ncu.summarize(ncu.parse_details(DETAILS))
    assert [r["name"] for r in rows] == ["void gemm_kernel<float, 128, 128>(float const*, float*, int)",
                                         "_kernel"]  # longest total first
    kernel = rows[1]
    assert kernel["calls"] == 2
    assert kernel["total_ms"] == pytest.approx(7.0e-3)
    assert kernel["mean_ms"] == pytest.approx(3.5e-3)
    assert kernel["achieved_occupancy_pct"] == pytest.approx(79.5)
    assert kernel["dram_throughput_pct"] == pytest.approx(61.87)  # the launch that reported it


def test_what_no_honest_report_holds_is_dropped() -> None:
    """The solution can rewrite the report ncu exports beside it: a number that is not finite, or
    a launch size of more than three dimensions, reads as none."""
    forged = (DETAILS.replace('"usecond","3.42"', '"usecond","1e999"')
              .replace('"(1024, 1, 1)"', '"(1, 2, 3, 4)"'))
    first = ncu.parse_details(forged)[0]
    assert first["duration_ms"] is None and first["grid"] is None
    assert first["block"] == [256, 1, 1]


def test_output_without_a_table_says_so() -> None:
    with pytest.raises(ncu.NcuError, match="no CSV header"):
        ncu.parse_details("==PROF== Disconnected from process 1\n")


def test_the_command_line_profiles_only_the_solutions_profiled_calls(tmp_path: Path) -> None:
    export = tmp_path / "w.ncu-rep"
    options = SuperviseOptions(wrapper=tuple(ncu.prefix("/opt/ncu", export)))
    argv = harness_argv(options, tmp_path / "job", [])
    assert argv[0] == "/opt/ncu"
    assert argv[argv.index("--nvtx-include") + 1] == f"{RANGE}/"  # the push/pop range of profiling.py
    assert "--nvtx" in argv and "--force-overwrite" in argv
    assert argv[argv.index("--log-file") + 1] == "stderr"  # ncu's ==PROF== lines: off the results channel
    assert argv[argv.index("--export") + 1] == str(export)
    assert argv[argv.index("--target-processes") + 1] == "all"  # the solution's process is a child
    sections = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--section"]
    assert sections == ["SpeedOfLight", "MemoryWorkloadAnalysis", "LaunchStats", "Occupancy"]
    harness = argv[len(ncu.prefix("/opt/ncu", export)):]
    assert harness[1:5] == ["-P", "-s", "-m", "evaluator.harness"]  # the harness's own command follows
    assert ncu.command("/opt/ncu", export, ["python"]) == [*ncu.prefix("/opt/ncu", export), "python"]
    assert ncu.import_command("/opt/ncu", export)[1:] == ["--import", str(export), "--csv", "--page",
                                                          "details", "--print-units", "base"]
