"""Pausing the solution's side (evaluator/harness/processes.py): every process below the reporter,
a double-forked orphan in its own session included, stops getting CPU time while paused and gets
it again once resumed; threads and processes started after a snapshot are found as newcomers.

The scenario runs in a child interpreter that plays the reporter (it becomes a subreaper), so the
test process itself never adopts orphans."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.conftest import ROOT

SCENARIO = textwrap.dedent('''
    import json, os, threading, time
    from evaluator.harness.processes import SolutionSide, become_subreaper, newcomers

    def spin():
        while True:
            pass

    def cpu_ticks(pid):
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    become_subreaper()
    side = SolutionSide()
    before = side.tasks()
    spinners = []
    for orphan in (False, True):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            if orphan:  # leave the tree: its parent exits at once, it is re-parented
                os.setsid()
                if os.fork():
                    os._exit(0)
            os.write(write, str(os.getpid()).encode().ljust(16))
            spin()
        spinners.append(int(os.read(read, 16)))
    time.sleep(0.3)
    side.reap(side.pids(), keep=None)
    found = sorted(side.pids())
    extra = newcomers(before, side.tasks())
    side.pause()
    paused_at = [cpu_ticks(p) for p in spinners]
    time.sleep(0.5)
    paused_gain = [cpu_ticks(p) - t for p, t in zip(spinners, paused_at)]
    side.resume()
    resumed_at = [cpu_ticks(p) for p in spinners]
    time.sleep(0.5)
    resumed_gain = [cpu_ticks(p) - t for p, t in zip(spinners, resumed_at)]
    for p in spinners:
        os.kill(p, 9)
    print(json.dumps({"spinners": sorted(spinners), "found": found, "extra": len(extra),
                      "paused_gain": paused_gain, "resumed_gain": resumed_gain}))
''')


def test_a_paused_process_tree_gets_no_cpu_and_newcomers_are_found() -> None:
    out = subprocess.run([sys.executable, "-c", SCENARIO], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(result["spinners"]) <= set(result["found"]), result  # the orphan came back here
    assert result["extra"] >= 2, result
    assert result["paused_gain"] == [0, 0], result  # clock ticks of CPU time while paused
    assert all(gain > 5 for gain in result["resumed_gain"]), result


def test_a_runtime_thread_that_came_back_is_no_newcomer_but_one_more_is() -> None:
    from evaluator.harness.processes import Task, newcomers

    before = [Task(10, 10, "python"), Task(10, 11, "cuda-EvtHandlr")]
    came_back = [Task(10, 10, "python"), Task(10, 12, "cuda-EvtHandlr")]
    assert newcomers(before, came_back) == []
    one_more = [*came_back, Task(10, 13, "cuda-EvtHandlr"), Task(11, 11, "python")]
    assert {(t.pid, t.tid) for t in newcomers(before, one_more)} == {(10, 13), (11, 11)}


def test_a_new_process_is_a_newcomer_even_under_the_name_of_a_thread_that_ended() -> None:
    from evaluator.harness.processes import Task, newcomers

    before = [Task(10, 10, "python"), Task(10, 11, "python")]
    forked = [Task(10, 10, "python"), Task(12, 12, "python")]  # thread 11 ended; a fork took its name
    assert newcomers(before, forked) == [Task(12, 12, "python")]


LISTING = textwrap.dedent('''
    import json, os, time
    from evaluator.harness.processes import SolutionSide

    def child(then):
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_WRONLY)  # the test waits for its pipes' ends
            os.dup2(null, 1)
            os.dup2(null, 2)
            then()
            os._exit(0)
        return pid

    def wait_for(go):
        os.read(go, 1)

    go_root, go_root_w = os.pipe()
    def root_body():  # stands in for the reporter: forks its own child once told to
        wait_for(go_root)
        child(lambda: time.sleep(10))
        time.sleep(10)

    root = child(root_body)
    side = SolutionSide(root=root)
    first = side.pids()
    others = [child(lambda: (child(lambda: time.sleep(10)), time.sleep(10)))]  # not below root
    os.write(go_root_w, b"x")
    time.sleep(0.3)
    seen = [side.pids() for _ in range(2 * SolutionSide.FULL_PASS_EVERY + 3)]
    with open(f"/proc/{root}/task/{root}/children") as fh:
        truth = sorted(int(p) for p in fh.read().split())
    os.kill(root, 9)
    print(json.dumps({"first": first, "seen": seen, "truth": truth, "others": others}))
''')


def test_the_side_is_listed_from_new_pids_only_and_never_takes_another_process() -> None:
    out = subprocess.run([sys.executable, "-c", LISTING], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["first"] == [], result
    assert len(result["truth"]) == 1, result  # the root's child, started after the first pass
    for listing in result["seen"]:  # incremental passes and full ones alike
        assert listing == result["truth"], result
