"""The reporter reads the CPU time of the solution's processes from the kernel's per-process
clocks (evaluator/harness/processes.py cpu_seconds): a process that spins shows it, one that
sleeps does not, threads count, and a process that is gone counts nothing."""

from __future__ import annotations

import subprocess
import sys
import time

from evaluator.harness.processes import cpu_seconds

SPIN = """
import threading, time
def spin(seconds):  # by the thread's own CPU clock: a loaded machine gives it less per second
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
threads = [threading.Thread(target=spin, args=(0.3,)) for _ in range(2)]
[t.start() for t in threads]
[t.join() for t in threads]
print("spun", flush=True)
time.sleep(30)
"""


def test_a_spinning_process_shows_its_cpu_time_and_a_sleeping_one_does_not() -> None:
    process = subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "spun"
        used = cpu_seconds([process.pid])
        assert used >= 0.55  # two threads spun 0.3 s of CPU each and ended: still counted
        time.sleep(0.3)
        assert cpu_seconds([process.pid]) - used < 0.05  # asleep
    finally:
        process.kill()
        process.wait()
    assert cpu_seconds([process.pid]) == 0.0
