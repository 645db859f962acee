"""Every unfinished state is taken care of by one run of the sweeper (`manage.py sweep_evaluations`)
against a real broker: queued and never sent, queued and sent but lost, running on an expired lease
are each sent exactly once more; running on an expired lease after the last attempt fails with a
reason; a fresh message, a live lease and finished evaluations are left alone."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

from django.utils import timezone

from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from tests.platform import factories
from tests.reliability.stack import Stack

RESEND_SECONDS = 60
MAX_ATTEMPTS = 3


def queued_messages(stack: Stack) -> list[int]:
    """The evaluation ids of the messages waiting on the cpu queue (kombu's JSON envelopes)."""
    envelopes = stack.redis.waiting("hw.cpu")
    return [json.loads(base64.b64decode(json.loads(e)["body"]))[0][0] for e in envelopes]


def test_every_unfinished_state_is_reaped(stack: Stack, problem: Problem, cpu: Hardware) -> None:
    now = timezone.now()
    long_ago, expired = now - timedelta(seconds=RESEND_SECONDS + 1), now - timedelta(seconds=1)

    def make(**fields: object) -> Evaluation:
        return factories.make_evaluation(problem=problem, hardware=cpu, **fields)

    never_sent = make()
    lost = make(enqueued_at=long_ago)
    orphaned = make(state=Evaluation.RUNNING, attempts=1, worker="gone@host/1/a", started_at=long_ago,
                    lease_until=expired, enqueued_at=long_ago)
    exhausted = make(state=Evaluation.RUNNING, attempts=MAX_ATTEMPTS, worker="gone@host/1/b",
                     started_at=long_ago, lease_until=expired, enqueued_at=long_ago)
    left_alone = [make(enqueued_at=now),
                  make(state=Evaluation.RUNNING, attempts=1, worker="busy@host/2/c", started_at=now,
                       lease_until=now + timedelta(hours=1), enqueued_at=long_ago),
                  make(state=Evaluation.SCORED, attempts=1, finished_at=now),
                  make(state=Evaluation.CANCELLED, finished_at=now)]
    before = {e.pk: (e.state, e.attempts, e.enqueued_at, e.lease_until) for e in left_alone}

    out = stack.sweep_once(DISPATCH_RESEND_SECONDS=RESEND_SECONDS, EVALUATION_MAX_ATTEMPTS=MAX_ATTEMPTS)

    assert "requeued 1, failed 1, resent 2" in out, out
    assert sorted(queued_messages(stack)) == sorted([never_sent.pk, lost.pk, orphaned.pk])
    for evaluation in (never_sent, lost, orphaned, exhausted, *left_alone):
        evaluation.refresh_from_db()
    for evaluation in (never_sent, lost, orphaned):  # sent now: the next sweep leaves them be
        assert evaluation.state == Evaluation.QUEUED and evaluation.enqueued_at >= now
    assert (orphaned.attempts, orphaned.worker, orphaned.lease_until) == (1, "", None)
    assert (exhausted.state, exhausted.attempts) == (Evaluation.FAILED, MAX_ATTEMPTS)
    assert exhausted.error == "the evaluator stopped answering 3 times; the evaluation was given up"
    assert exhausted.finished_at is not None and exhausted.lease_until is None
    assert {e.pk: (e.state, e.attempts, e.enqueued_at, e.lease_until) for e in left_alone} == before

