"""GET /api/v1/submissions/{id}/profile/{hardware}/{workload}.ncu-rep: a profile run's Nsight
Compute report is its owner's and the admins' to download, as stored; anyone else, signed in or
not, gets the 404 of a report that is not there, as does a hardware, workload or submission with
none. Only visible workloads' reports are ever stored."""

from __future__ import annotations

import pytest

from evaluator import services
from evaluator.models import ProfileReport
from leaderboard.models import Hardware, Problem, Workload
from submissions.models import Submission
from tests.api.support import api_user, client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
REPORT = b"NVIDIA Nsight Compute report\x00\xff as ncu wrote it"


def stored(problem: Problem, cpu: Hardware) -> tuple[Submission, str, str]:
    """A scored profile run with one visible workload's report (a hidden one's offered too)."""
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    Submission.objects.filter(pk=evaluation.submission_id).update(mode="profile")
    visible = problem.workloads.filter(visibility=Workload.VISIBLE, smoke=True).first().uuid
    hidden = problem.workloads.filter(visibility=Workload.HIDDEN, smoke=True).first().uuid
    assert services.claim(evaluation.pk, "worker-a") is not None
    report = factories.fake_report(evaluation)
    assert services.ingest(evaluation.pk, "worker-a", report, {visible: REPORT, hidden: REPORT})
    return evaluation.submission, visible, hidden


def test_the_owner_and_admins_download_it_anyone_else_finds_nothing(problem: Problem, cpu: Hardware) -> None:
    submission, visible, hidden = stored(problem, cpu)
    url = f"/api/v1/submissions/{submission.pk}/profile/cpu/{visible}.ncu-rep"
    for user in (submission.owner, api_user(staff=True)):
        response = client_for(user).get(url, HTTP_ACCEPT="application/octet-stream")
        assert response.status_code == 200
        assert response["Content-Type"] == "application/octet-stream" and response.content == REPORT
        assert response["Content-Disposition"] == (
            f'attachment; filename="submission-{submission.pk}-cpu-{visible}.ncu-rep"')
    for user in (api_user(), None):
        response = client_for(user).get(url)
        assert response.status_code == 404
        assert response.json() == {"detail": "No profile report matches the given query."}
    owner = client_for(submission.owner)
    for wrong in (f"/api/v1/submissions/{submission.pk}/profile/h200/{visible}.ncu-rep",
                  f"/api/v1/submissions/{submission.pk}/profile/no-such-hardware/{visible}.ncu-rep",
                  f"/api/v1/submissions/{submission.pk}/profile/cpu/{hidden}.ncu-rep",
                  f"/api/v1/submissions/{submission.pk}/profile/cpu/no-such-workload.ncu-rep",
                  f"/api/v1/submissions/{submission.pk + 1}/profile/cpu/{visible}.ncu-rep"):
        assert owner.get(wrong).status_code == 404, wrong
    assert ProfileReport.objects.get().size == len(REPORT)  # the hidden workload's was never stored
