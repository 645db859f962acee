"""The solution's side seen as processes, from the reporter (trusted side; Linux /proc).

The reporter is a child subreaper: every process started below it stays below it, even one that
double-forks or calls setsid, so "the solution's side" is simply every descendant of the
reporter. The reporter pauses all of them whenever it works on anything the solution could use
or disturb: drawing a call's inputs, checking its outputs, timing the reference and the
baseline. Where the sandbox handed it a cgroup freezer (freezer.py) it freezes the side as a
unit; elsewhere it stops each process with SIGSTOP (which cannot be caught, ignored or delayed
by the process) and waits until each is stopped. It also lists their threads and processes, to
find those that appeared after its snapshot.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from collections import Counter
from dataclasses import dataclass

from .freezer import FreezeFailed, Freezer

PR_SET_CHILD_SUBREAPER = 36
STOPPED_STATES = (b"T", b"t", b"Z", b"X", None)  # stopped, traced, dead or gone
PAUSE_SECONDS = 5.0
SETTLE_SECONDS = 1.0  # the most one check waits for the solution's new threads to take their stop
SPIN_SECONDS = 0.002  # poll without sleeping this long: a sleep can last a millisecond (gVisor)
CPUCLOCK_SCHED = 2  # Linux's per-process clocks: sum_exec_runtime, in nanoseconds
START_TIME = 19  # of the fields after the command name in /proc/PID/stat (field 22 of the file)


class PauseFailed(RuntimeError):
    """A process of the solution's side could not be stopped in time."""


def become_subreaper() -> None:
    """Orphans of the solution's side are re-parented to this process, not to init."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


@dataclass(frozen=True)
class Task:
    pid: int
    tid: int
    name: str


class SolutionSide:
    """Every process below `root` (the reporter), paused by `freezer` where there is one.

    Listing it must be cheap: it happens twice per pause, and on a host where /proc shows
    every process (no PID namespace of its own, or a gVisor sandbox, where each read is slow) a
    pass over all of them cost 3-4 ms. A process can only join the side when it starts (its
    parent is of the side), never later, so one pass reads the stat of the new pids only (and of
    the side's own, to see that each is still the same process); a pid once found to be
    another's is skipped until it leaves the listing. The stat of every pid is read afresh every
    `FULL_PASS_EVERY` passes, so a pid that another process left and one of the side's took
    between two listings (the kernel would have to run through its whole pid range in between)
    is missed for a few passes at most."""

    FULL_PASS_EVERY = 32

    def __init__(self, root: int | None = None, freezer: Freezer | None = None) -> None:
        self.root = root if root is not None else os.getpid()
        self.freezer = freezer
        self.paused = False
        self.pauses = 0  # completed so far
        self._stopped: list[int] = []
        self._tree: dict[int, bytes] = {}  # pid of the side -> its start time
        self._others: set[int] = set()
        self._passes = 0

    def pids(self) -> list[int]:
        if self._passes % self.FULL_PASS_EVERY == 0:
            self._tree, self._others = {}, set()
        self._passes += 1
        listed = _listed()
        self._others &= listed
        for pid, started in list(self._tree.items()):
            stat = _stat(f"/proc/{pid}/stat")
            if stat is None or stat[START_TIME] != started:
                del self._tree[pid]  # ended, or its pid already taken by another process
        parents: dict[int, int] = {}
        starts: dict[int, bytes] = {}
        for pid in listed - self._others - self._tree.keys():
            stat = _stat(f"/proc/{pid}/stat")
            if stat is not None:
                parents[pid], starts[pid] = int(stat[1]), stat[START_TIME]
        joined = True
        while joined:  # a new process may be the child of another new one
            joined = False
            for pid, parent in list(parents.items()):
                if parent == self.root or parent in self._tree:
                    self._tree[pid] = starts[pid]
                    del parents[pid]
                    joined = True
        self._others |= parents.keys()
        return sorted(self._tree)

    def pause(self) -> list[int]:
        """Freeze the solution's side, or stop every process of it and wait until each is stopped
        (its leader: once the group stop has begun no thread of it returns to user code; a
        process forked meanwhile is found on the next pass and stopped too). Returns the
        processes."""
        if self.freezer is not None:
            try:
                self.freezer.freeze()
            except FreezeFailed as exc:
                raise PauseFailed(str(exc)) from None
            self.paused = True
            self.pauses += 1
            return self.pids()
        started = time.monotonic()
        deadline = started + PAUSE_SECONDS
        pids = self.pids()
        while True:
            for pid in pids:
                _signal(pid, signal.SIGSTOP)  # every pass: one may have been continued by another
            if all(_state(pid) in STOPPED_STATES for pid in pids):
                found = self.pids()
                if set(found) <= set(pids):
                    break
                pids = found
            now = time.monotonic()
            if now > deadline:
                raise PauseFailed("a process of the solution's side did not stop within "
                                  f"{PAUSE_SECONDS:.0f} s")
            if now - started < SPIN_SECONDS:
                os.sched_yield()  # a stop takes effect within microseconds on another core
            else:
                time.sleep(0.0001)
        self._stopped = pids
        self.paused = True
        self.pauses += 1
        return pids

    def reap(self, pids: list[int], keep: int | None) -> None:
        """Collect the dead among `pids` that were re-parented here (not `keep`, whose end its
        owner collects); a dead process that is not a child of this one is its parent's affair."""
        for pid in pids:
            if pid != keep and _state(pid) == b"Z":
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass

    def resume(self) -> None:
        """Continue exactly what pause() stopped: nothing can have forked since."""
        if self.freezer is not None:
            self.freezer.thaw()
        for pid in self._stopped:
            _signal(pid, signal.SIGCONT)
        self._stopped = []
        self.paused = False

    def tasks(self, pids: list[int] | None = None, known: list[Task] = ()) -> list[Task]:
        """Every thread of every process of the solution's side (of `pids` where given); names
        are read only for threads not among `known`."""
        names = {(t.pid, t.tid): t.name for t in known}
        found = []
        for pid in self.pids() if pids is None else pids:
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                name = names.get((pid, int(tid)))
                found.append(Task(pid, int(tid), name if name is not None else _name(pid, tid)))
        return found


def cpu_seconds(pids: list[int]) -> float:
    """CPU time the processes `pids` have used so far, every thread of each counted (those that
    ended too), read from the kernel's per-process CPU clocks: nothing a process does lowers it."""
    total = 0.0
    for pid in pids:
        try:
            total += time.clock_gettime(_process_cpu_clock(pid))
        except OSError:  # ended meanwhile
            continue
    return total


def _process_cpu_clock(pid: int) -> int:
    """Linux's clock id for a process's CPU time (what clock_getcpuclockid(3) returns)."""
    return ((~pid) << 3) | CPUCLOCK_SCHED


class DormantTasks:
    """Threads of the solution's process that appeared after the harness's snapshot and were let
    stay: a library's helpers started in an untimed call (the CuTe DSL's compiler keeps an LLVM
    worker pool, busy again whenever a new shape is compiled). Each may work in untimed calls
    (warm-ups and correctness rounds, whose outputs are checked all the same) but must stay
    dormant through timed ones. Stopping and continuing an idle thread wakes it once and lets it
    sleep twice (two voluntary context switches) and costs it 11-35 us of CPU (more where the
    machine is loaded: a virtual CPU taken away mid-way is charged too); a thread that woke to do
    anything slept once more, and one that spun used more CPU."""

    NS_PER_PAUSE = 500_000
    SWITCHES_PER_PAUSE = 2

    def __init__(self) -> None:
        self._seen: dict[tuple[int, int, bytes], tuple[int, int, int]] = {}  # -> CPU ns, sleeps, pauses

    def working(self, tasks: list[Task], pauses: int, timed: bool, frozen: bool = False) -> list[Task]:
        """Those of `tasks` (newcomers, read while the side is paused, after `pauses` pauses)
        that are new or worked since the previous check, where that check was followed by a
        timed call. frozen: the side was paused by a cgroup freezer, which is done only once
        every thread is frozen."""
        found = []
        deadline = time.monotonic() + SETTLE_SECONDS
        for task in tasks:
            if not frozen:
                _settle(task, deadline)
            usage = _usage(task)
            if usage is None:
                found.append(task)
                continue
            key = (task.pid, task.tid, usage[0])
            then = self._seen.get(key)
            if timed and (then is None or _worked(usage[1:], then, pauses - then[2])):
                found.append(task)
            self._seen[key] = usage[1], usage[2], pauses
        return found


def _worked(now: tuple[int, int], then: tuple[int, int, int], pauses: int) -> bool:
    cpu_ns, sleeps = now
    return (cpu_ns - then[0] > pauses * DormantTasks.NS_PER_PAUSE
            or sleeps - then[1] > pauses * DormantTasks.SWITCHES_PER_PAUSE)


def _settle(task: Task, deadline: float) -> None:
    """Wait until the thread itself is stopped: the leader's stop does not mean every thread has
    taken its own yet (on a loaded machine one may wait for a CPU), and a stop counted at the next
    check rather than this one would read as a thread that slept once more than its pauses."""
    folder = f"/proc/{task.pid}/task/{task.tid}/stat"
    while (stat := _stat(folder)) is not None and stat[0] not in STOPPED_STATES:
        if time.monotonic() > deadline:
            return
        time.sleep(0.0001)


def _usage(task: Task) -> tuple[bytes, int, int] | None:
    """A thread's start time (which tells it from a later one given the same id), the CPU time it
    has used, in nanoseconds from the scheduler's statistics (clock ticks where a kernel keeps
    none), and how often it went to sleep (voluntary context switches)."""
    folder = f"/proc/{task.pid}/task/{task.tid}"
    stat = _stat(f"{folder}/stat")
    if stat is None or len(stat) < 20:
        return None
    try:
        with open(f"{folder}/status", "rb") as fh:
            sleeps = int(fh.read().split(b"voluntary_ctxt_switches:")[1].split()[0])
    except (OSError, ValueError, IndexError):
        return None
    try:
        with open(f"{folder}/schedstat", "rb") as fh:
            return stat[19], int(fh.read().split()[0]), sleeps
    except (OSError, ValueError, IndexError):
        return stat[19], (int(stat[11]) + int(stat[12])) * 10**9 // os.sysconf("SC_CLK_TCK"), sleeps


def newcomers(before: list[Task], now: list[Task]) -> list[Task]:
    """Tasks of `now` beyond those of `before`: every task of a process that was not there, and
    threads by name: a runtime's helper thread that ended and came back under the same name is no
    newcomer, one more thread of that name is."""
    allowed = Counter(t.name for t in before)
    known = {(t.pid, t.tid) for t in before}
    processes = {t.pid for t in before}
    extra = []
    for task in sorted(now, key=lambda t: (t.pid, t.tid) not in known):
        if task.pid in processes and allowed[task.name] > 0:
            allowed[task.name] -= 1
        else:
            extra.append(task)
    return extra


def describe(tasks: list[Task]) -> str:
    names = Counter(t.name for t in tasks)
    return ", ".join(f"{name} x{count}" if count > 1 else name for name, count in sorted(names.items()))


def _listed() -> set[int]:
    """The pids /proc shows (inside a sandbox's own PID namespace, a handful)."""
    return {int(name) for name in os.listdir("/proc") if name.isdigit()}


def _state(pid: int) -> bytes | None:
    stat = _stat(f"/proc/{pid}/stat")
    return stat[0] if stat else None


def _stat(path: str) -> list[bytes] | None:
    """The fields after the command name of a /proc stat file: state, ppid, ..."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    return raw[raw.rfind(b")") + 2:].split()


def _name(pid: int, tid: str) -> str:
    try:
        with open(f"/proc/{pid}/task/{tid}/comm", "rb") as fh:
            return fh.read().decode(errors="replace").strip()
    except OSError:
        return "?"


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
