"""Class 19, supervisor / channel crash: events on the results channel of a wrong type, depth or
size, with fields of the wrong types, or about workloads already settled or never asked for.
None may crash or confuse the supervisor: the workload the reporter was on (all that were left
when it was on none) is REWARD_HACK, named as a malformed event, and every other workload still
gets its verdict from the next attempt.

Only a reporter that was taken over writes such events; here a stand-in harness (run_harness's
interpreter) writes them, as planned per attempt, and answers honestly after that."""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from evaluator.harness import status
from evaluator.jobs import spec_path
from evaluator.supervise import HarnessOutcome, SuperviseOptions, run_harness

UUIDS = ["w0", "w1", "w2"]
MALFORMED = "the results channel carried a malformed event"
HANG_SECONDS = 15  # a stand-in that is not stopped ends by the workload limit, as TIMEOUT

STAND_IN = f"""#!{sys.executable}
import base64, json, os, sys, time

args = sys.argv[1:]
job = args[args.index("evaluator.harness") + 1]
skip = set(args[args.index("--skip") + 1:])
spec = json.loads(sys.stdin.read())
plan = json.load(open(os.path.join(os.path.dirname(job), "plan.json")))
attempts = os.path.join(os.path.dirname(job), "attempts")
os.makedirs(attempts, exist_ok=True)
attempt = len(os.listdir(attempts))
open(os.path.join(attempts, str(attempt)), "w").close()
out = sys.stdout.buffer
if attempt < len(plan):
    for line in plan[attempt]["lines"]:
        out.write(base64.b64decode(line))
    out.flush()
    if plan[attempt]["then"] == "exit":
        sys.exit(1)
    time.sleep({HANG_SECONDS})
    sys.exit(0)
for workload in spec["workloads"]:
    if workload["uuid"] not in skip:
        for event in ({{"event": "start", "uuid": workload["uuid"]}},
                      {{"event": "workload", "uuid": workload["uuid"], "status": "PASSED", "message": "",
                        "latency_ms": 1.0, "reference_latency_ms": 2.0, "baseline_latency_ms": 2.0}}):
            out.write(json.dumps(event).encode() + b"\\n")
out.write(b'{{"event": "done"}}\\n')
"""


def line(event: Any) -> bytes:
    return json.dumps(event).encode() + b"\n"


def workload(**fields: Any) -> bytes:
    return line({"event": "workload", "uuid": "w0", "status": "PASSED", "message": "",
                 "latency_ms": 1.0, **fields})


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


PRELUDE = [line({"event": "environment", "device": "cpu"}), line({"event": "loading"}),
           line({"event": "loaded"})]
START_W0 = line({"event": "start", "uuid": "w0"})
# Written while the reporter is on w0.
BAD: dict[str, bytes] = {
    "a_list": b'["event", "workload"]\n',
    "a_number": b"42\n",
    "a_string": b'"PASSED"\n',
    "null": b"null\n",
    "deep_array": b"[" * 200_000 + b"]" * 200_000 + b"\n",
    "deep_object": line({"event": "environment", "gpu": nested(40)}),
    "huge_line": line({"event": "environment", "pad": "x" * (2 << 20)}),
    "endless_line": b'{"event": "environment", "pad": "' + b"x" * (3 << 20),
    "cut_short": b'{"event": "workload", "uuid": "w0", \n',
    "not_utf8": b'{"event": "loading", "note": "\xff\xfe"}\n',
    "nan": b'{"event": "workload", "uuid": "w0", "status": "PASSED", "latency_ms": NaN}\n',
    "infinity": b'{"event": "workload", "uuid": "w0", "status": "PASSED", "latency_ms": 1e999}\n',
    "huge_integer": b'{"event": "loading", "n": ' + b"9" * 5000 + b"}\n",
    "unknown_kind": line({"event": "forged"}),
    "no_kind": line({"uuid": "w0", "status": "PASSED", "latency_ms": 1.0}),
    "kind_not_a_string": line({"event": ["workload"], "uuid": "w0"}),
    "uuid_not_a_string": workload(uuid=["w0"]),
    "unknown_status": workload(status="SUPERB"),
    "no_status": line({"event": "workload", "uuid": "w0", "latency_ms": 1.0}),
    "latency_a_string": workload(latency_ms="fast"),
    "latency_negative": workload(latency_ms=-1.0),
    "latency_a_bool": workload(latency_ms=True),
    "message_an_object": workload(message={"a": 1}),
    "timing_a_list": workload(timing=[1.0, 2.0]),
    "solution_status_unknown": line({"event": "solution", "status": "FINE", "message": ""}),
    "never_asked_for": workload(uuid="w9"),
    "start_never_asked_for": line({"event": "start", "uuid": "w9"}),
}


@pytest.fixture
def sandbox_backend() -> str:
    """A stand-in reporter, outside any sandbox: each test once, not once per backend."""
    return "none"


def supervise(tmp_path: Path, plan: list[dict[str, Any]]) -> HarnessOutcome:
    job = tmp_path / "job"
    job.mkdir()
    spec_path(job).write_text(json.dumps({"workloads": [{"uuid": u} for u in UUIDS]}))
    (tmp_path / "plan.json").write_text(json.dumps(
        [{"lines": [base64.b64encode(b).decode() for b in attempt["lines"]], "then": attempt["then"]}
         for attempt in plan]))
    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text(STAND_IN)
    stand_in.chmod(0o755)
    options = SuperviseOptions(workload_seconds=5, startup_seconds=5, total_seconds=120,
                               python=str(stand_in), backend="none")
    return run_harness(job, UUIDS, options)


def verdicts(outcome: HarnessOutcome) -> dict[str, str]:
    return {uuid: outcome.results[uuid]["status"] for uuid in UUIDS}


def assert_reward_hacks(outcome: HarnessOutcome, hit: list[str]) -> None:
    expected = {u: status.REWARD_HACK if u in hit else status.PASSED for u in UUIDS}
    assert verdicts(outcome) == expected, outcome.results
    for uuid in hit:
        assert outcome.results[uuid]["message"].startswith(MALFORMED), outcome.results[uuid]


@pytest.mark.parametrize("name", list(BAD))
def test_a_malformed_event_is_a_reward_hack_of_the_running_workload(tmp_path: Path, name: str) -> None:
    outcome = supervise(tmp_path, [{"lines": [*PRELUDE, START_W0, BAD[name]], "then": "hang"}])
    assert_reward_hacks(outcome, ["w0"])


WITH_NONE_RUNNING = ["a_list", "deep_array", "huge_line", "unknown_kind", "start_never_asked_for"]


@pytest.mark.parametrize("name", WITH_NONE_RUNNING)
def test_with_no_workload_running_every_remaining_one_is_a_reward_hack(tmp_path: Path, name: str) -> None:
    outcome = supervise(tmp_path, [{"lines": [*PRELUDE, BAD[name]], "then": "hang"}])
    assert_reward_hacks(outcome, UUIDS)


def test_a_second_verdict_for_a_settled_workload(tmp_path: Path) -> None:
    passed = workload()
    outcome = supervise(tmp_path, [{"lines": [*PRELUDE, START_W0, passed, passed], "then": "hang"}])
    assert outcome.results["w0"]["status"] == status.PASSED  # believed once, before the repeat
    assert_reward_hacks_besides(outcome, "w0")


def test_an_event_about_a_workload_settled_by_an_earlier_attempt(tmp_path: Path) -> None:
    first = [*PRELUDE, START_W0, workload(), line({"event": "start", "uuid": "w1"})]  # then dies on w1
    again = [*PRELUDE, START_W0]  # w0 was not asked for this time
    outcome = supervise(tmp_path, [{"lines": first, "then": "exit"}, {"lines": again, "then": "hang"}])
    assert verdicts(outcome) == {"w0": status.PASSED, "w1": status.RUNTIME_ERROR, "w2": status.REWARD_HACK}
    assert outcome.results["w2"]["message"].startswith(MALFORMED)


def assert_reward_hacks_besides(outcome: HarnessOutcome, settled: str) -> None:
    for uuid in UUIDS:
        if uuid != settled:
            assert outcome.results[uuid]["status"] == status.REWARD_HACK, outcome.results
            assert outcome.results[uuid]["message"].startswith(MALFORMED)


def test_half_an_event_left_by_a_killed_reporter_is_not_held_against_the_next_attempt(
        tmp_path: Path) -> None:
    cut = [*PRELUDE, START_W0, b'{"event": "workload", "uuid": "w0", "sta']  # killed mid-line
    outcome = supervise(tmp_path, [{"lines": cut, "then": "exit"}])
    assert verdicts(outcome) == {"w0": status.RUNTIME_ERROR, "w1": status.PASSED, "w2": status.PASSED}
    assert os.path.exists(tmp_path / "attempts" / "1")
