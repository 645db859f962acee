"""`solarena submit-agent --private` uploads a bundle kept to its owner (the upload says so), and
`solarena publish-agent ID` publishes it: the agent board shows it then, not before. Another
participant's upload, or one that does not exist, stops with exit 2 and the server's word."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator import services
from evaluator.models import Evaluation
from submissions.models import AgentSubmission
from tests.cli.support import Server
from tests.platform import factories


def bundle(tmp_path: Path) -> Path:
    folder = tmp_path / "bundle"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"name": "forge", "version": "1.0", "model": "m"}))
    (folder / "scale_shift.py").write_text(factories.CORRECT)
    return folder


def test_a_private_upload_then_published(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    uploaded = cli("submit-agent", str(bundle(tmp_path)), "--hardware", "cpu", "--private")
    assert uploaded.code == 0, uploaded.err
    assert "(private until `solarena publish-agent`)" in uploaded.out
    agent = AgentSubmission.objects.get()
    assert agent.private
    evaluation = Evaluation.objects.get(submission__agent_submission=agent)
    assert services.claim(evaluation.pk, "w") is not None
    assert services.ingest(evaluation.pk, "w", factories.fake_report(evaluation, 0.7))
    assert cli("agents", "--hardware", "cpu", "--json").json()["entries"] == []

    published = cli("publish-agent", str(agent.pk))
    assert published.code == 0, published.err
    assert f"agent submission {agent.pk} is public" in published.out
    assert not AgentSubmission.objects.get().private
    board = cli("agents", "--hardware", "cpu", "--json").json()["entries"]
    assert [entry["agent_submission"] for entry in board] == [agent.pk]
    assert cli("publish-agent", str(agent.pk), "--json").json()["private"] is False


def test_publishing_what_is_not_yours(logged_in: Server, cli: Any) -> None:
    theirs = AgentSubmission.objects.create(owner=factories.make_user(), name="x", version="1", model="m",
                                            private=True)
    for agent_id in (theirs.pk, 999999):
        refused = cli("publish-agent", str(agent_id))
        assert refused.code == 2 and f"no agent submission {agent_id} of yours" in refused.err
    assert AgentSubmission.objects.get().private


def test_a_public_upload_by_default(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    uploaded = cli("submit-agent", str(bundle(tmp_path)), "--hardware", "cpu", "--json")
    assert uploaded.code == 0 and uploaded.json()["private"] is False
