"""The `solarena` server commands against a live test server (tests/cli/conftest.py): real HTTP
through httpx to a server thread, the commands called in-process through solarena.cli.main."""

from __future__ import annotations

import io
import json
import stat
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.db import connection

from evaluator import services as evaluator_services
from evaluator.models import Evaluation
from solarena import client
from solarena.cli import main
from submissions.models import AgentSubmission, Submission
from tests.cli.support import Server, write_solution
from tests.platform import factories

pytestmark = pytest.mark.timeout(60)


# ---------------------------------------------------------------- login


def test_login_stores_the_token_readable_by_the_owner_only(server: Server, config_dir: Path,
                                                           cli: Any) -> None:
    result = cli("login", "--server", server.url, "--token", server.token)
    assert result.code == 0, result.err
    path = config_dir / "config.json"
    assert str(path) in result.out
    assert json.loads(path.read_text()) == {"server": server.url, "token": server.token}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(config_dir.stat().st_mode) == 0o700
    # the stored login is used from then on, without any environment
    listed = cli("status", str(999999))
    assert listed.code == 2 and "no submission 999999" in listed.err


def test_login_prompts_for_the_token_without_echo(server: Server, config_dir: Path, cli: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    prompts: list[str] = []
    monkeypatch.setattr("getpass.getpass", lambda prompt: prompts.append(prompt) or server.token)
    result = cli("login", "--server", server.url)
    assert result.code == 0, result.err
    assert prompts and server.url in prompts[0]
    assert json.loads((config_dir / "config.json").read_text())["token"] == server.token


def test_login_replaces_an_unreadable_config(server: Server, config_dir: Path, cli: Any) -> None:
    config_dir.mkdir()
    (config_dir / "config.json").write_text("{not json")
    broken = cli("problems", "--server", server.url)
    assert broken.code == 2 and "config.json" in broken.err and "solarena login" in broken.err
    result = cli("login", "--server", server.url, "--token", server.token)
    assert result.code == 0, result.err
    assert json.loads((config_dir / "config.json").read_text())["token"] == server.token


def test_login_with_a_bad_token_exits_3_and_stores_nothing(server: Server, config_dir: Path,
                                                           cli: Any) -> None:
    result = cli("login", "--server", server.url, "--token", "sol_not-a-real-token")
    assert result.code == 3
    assert "invalid API token" in result.err and "solarena login" in result.err
    assert not (config_dir / "config.json").exists()


def test_the_token_is_stored_for_its_server_only(server: Server, config_dir: Path, cli: Any) -> None:
    client.save_config({"server": "http://elsewhere.invalid:8000", "token": server.token})
    result = cli("submit", "x.py", "--problem", "scale_shift", "--hardware", "cpu", "--server", server.url)
    assert result.code == 3 and f"not logged in to {server.url}" in result.err


# ---------------------------------------------------------------- reading


def test_problems_lists_and_filters(server: Server, cli: Any) -> None:
    result = cli("problems", "--server", server.url)
    assert result.code == 0, result.err
    assert "scale_shift" in result.out
    listed = cli("problems", "--server", server.url, "--json")
    assert [p["name"] for p in listed.json()] == ["scale_shift"]
    other = cli("problems", "--server", server.url, "--category", "no-such-category", "--json")
    assert other.code == 0 and other.json() == []


def test_show_lists_visible_workloads_with_sol_bounds(server: Server, cli: Any) -> None:
    result = cli("show", "scale_shift", "--server", server.url)
    assert result.code == 0, result.err
    assert "scale_shift" in result.out and "cpu" in result.out
    document = cli("show", "scale_shift", "--server", server.url, "--json").json()
    visible = server.problem.workloads.filter(visibility="visible")
    assert {w["uuid"] for w in document["workloads"]} == {w.uuid for w in visible}
    assert all(w["sol_ms"]["cpu"] > 0 for w in document["workloads"])
    assert all(w.uuid in result.out for w in visible)  # whole: never cut without a mark
    assert not any(w.uuid[:22] in result.out for w in server.problem.workloads.filter(visibility="hidden"))


def test_unknown_problem_exits_2_naming_it(server: Server, cli: Any) -> None:
    result = cli("show", "sofmax", "--server", server.url)
    assert result.code == 2
    assert "unknown problem 'sofmax'" in result.err


def test_leaderboard(server: Server, cli: Any) -> None:
    evaluation = factories.make_evaluation(owner=server.user, problem=server.problem, hardware=server.cpu)
    evaluator_services.claim(evaluation.pk, "w")
    report = factories.fake_report(evaluation, 0.7)
    report["aggregates"]["score_ci95"] = 0.05
    assert evaluator_services.ingest(evaluation.pk, "w", report)
    bob = factories.make_participant("bob")
    factories.make_scored(bob, server.problem, server.cpu, 0.68, score_ci95=0.01)
    cheat = factories.make_scored(factories.make_participant("carol"), server.problem, server.cpu, 0.9,
                                  verdict="REWARD_HACK")
    result = cli("leaderboard", "scale_shift", "--hardware", "cpu", "--server", server.url)
    # the one without a valid score, and why, as the board page says it
    assert f"not ranked: carol (reward hack: flagged by the harness, #{cheat.submission_id})" in result.out
    assert result.code == 0, result.err
    assert "ada" in result.out and "0.700 ± 0.05" in result.out
    assert result.out.count("1–2") == 2  # the intervals overlap: tied
    assert f"all {report['aggregates']['total']}" in result.out and "GPU" in result.out  # correct; cpu note
    for column in ("visible", "hidden", "gap", "speedup", "best", "last improved"):
        assert column in result.out, column  # the board page's columns
    assert str(evaluation.submission_id) in result.out
    document = cli("leaderboard", "scale_shift", "--hardware", "cpu", "--server", server.url, "--json").json()
    assert [(e["rank"], e["user"], e["score"]) for e in document["entries"]] == [
        (1, "ada", 0.7), (2, "bob", 0.68)]
    assert document["entries"][0]["submission"] == evaluation.submission_id
    bad_hw = cli("leaderboard", "scale_shift", "--hardware", "tpu9", "--server", server.url)
    assert bad_hw.code == 2 and "unknown hardware 'tpu9'" in bad_hw.err
    bad_problem = cli("leaderboard", "gemv", "--hardware", "cpu", "--server", server.url)
    assert bad_problem.code == 2 and "unknown problem 'gemv'" in bad_problem.err


# ---------------------------------------------------------------- submitting


def test_submit_creates_a_submission_and_status_shows_it(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    result = cli("submit", str(write_solution(tmp_path)), "--problem", "scale_shift", "--hardware", "cpu",
                 "--json")
    assert result.code == 0, result.err
    document = result.json()
    submission = Submission.objects.get(pk=document["id"])
    assert submission.owner == logged_in.user and submission.problem == logged_in.problem
    assert submission.language == "python"
    assert [e["hardware"] for e in document["evaluations"]] == ["cpu"]
    api = httpx.get(f"{logged_in.url}/api/v1/submissions/{submission.pk}/",
                    headers={"Authorization": f"Bearer {logged_in.token}"})
    assert api.status_code == 200 and api.json()["sources"] == {"solution.py": factories.CORRECT}

    status = cli("status", str(submission.pk))
    assert status.code == 0, status.err
    assert f"submission {submission.pk}" in status.out and "cpu: queued" in status.out
    assert cli("status", str(submission.pk), "--json").json()["id"] == submission.pk


def test_submit_refusals_exit_2_with_the_servers_message(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    solution = str(write_solution(tmp_path))
    unknown = cli("submit", solution, "--problem", "sofmax", "--hardware", "cpu")
    assert unknown.code == 2 and "unknown problem 'sofmax'" in unknown.err
    bad_hw = cli("submit", solution, "--problem", "scale_shift", "--hardware", "tpu9")
    assert bad_hw.code == 2 and "unknown or inactive hardware 'tpu9'" in bad_hw.err
    missing = cli("submit", str(tmp_path / "nope.py"), "--problem", "scale_shift", "--hardware", "cpu")
    assert missing.code == 2 and "no such file" in missing.err
    assert not Submission.objects.exists()


def test_not_logged_in_exits_3_saying_how_to_log_in(server: Server, tmp_path: Path, cli: Any) -> None:
    result = cli("submit", str(write_solution(tmp_path)), "--problem", "scale_shift", "--hardware", "cpu",
                 "--server", server.url)
    assert result.code == 3
    assert "not logged in" in result.err and f"solarena login --server {server.url}" in result.err
    status = cli("status", "1", "--server", server.url)
    assert status.code == 3


def test_a_revoked_or_wrong_token_exits_3(server: Server, cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLARENA_TOKEN", "sol_wrong")
    result = cli("status", "1", "--server", server.url)
    assert result.code == 3 and "invalid API token" in result.err and "solarena login" in result.err


def test_server_down_exits_4_naming_it(config_dir: Path, tmp_path: Path, cli: Any,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLARENA_TOKEN", "sol_x")
    down = "http://127.0.0.1:9"  # discard port: nothing listens
    for args in (("problems",), ("login", "--token", "sol_x"),
                 ("submit", str(write_solution(tmp_path)), "--problem", "p", "--hardware", "cpu")):
        result = cli(*args, "--server", down)
        assert result.code == 4, args
        assert f"cannot reach the server {down}" in result.err


def _answer(status: int, body: bytes = b"", content_type: str = "text/html") -> Any:
    return httpx.MockTransport(lambda request: httpx.Response(status, content=body,
                                                              headers={"Content-Type": content_type}))


def test_server_errors_map_to_exit_codes() -> None:
    with client.Client("http://example.test", "sol_x", transport=_answer(502, b"bad gateway")) as c:
        with pytest.raises(client.ServerError, match=r"http://example.test failed .* 502") as info:
            c.get("problems/")
    assert info.value.exit_code == 4
    throttled = httpx.MockTransport(lambda request: httpx.Response(
        429, json={"detail": "Request was throttled."}, headers={"Retry-After": "12"}))
    with client.Client("http://example.test", "sol_x", transport=throttled) as c:
        with pytest.raises(client.BadRequest, match=r"throttled\. \(retry after 12 s\)"):
            c.post("submissions/", json={})
    forbidden = httpx.MockTransport(lambda request: httpx.Response(403, json={"detail": "not yours"}))
    with client.Client("http://example.test", "sol_x", transport=forbidden) as c:
        with pytest.raises(client.AuthError, match="not yours") as auth:
            c.post("submissions/1/cancel/")
    assert auth.value.exit_code == 3
    with client.Client("http://example.test", transport=_answer(200, b"<html>")) as c:
        with pytest.raises(client.ServerError, match="other than JSON"):
            c.get("problems/")


def test_error_messages_flatten_field_errors() -> None:
    assert client.error_message({"problem": ["unknown problem 'x'"]}) == "problem: unknown problem 'x'"
    assert client.error_message({"detail": "nope"}) == "nope"
    assert client.error_message({"non_field_errors": ["a", "b"]}) == "a; b"


def test_config_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SOLARENA_CONFIG_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert client.config_dir() == tmp_path / "xdg" / "solarena"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert client.config_dir() == tmp_path / "home" / ".config" / "solarena"
    monkeypatch.setenv("SOLARENA_CONFIG_DIR", str(tmp_path / "explicit"))
    assert client.config_dir() == tmp_path / "explicit"


# ---------------------------------------------------------------- waiting


def _finish_in_background(user: Any, delay: float = 0.6, running: float = 1.2) -> threading.Thread:
    """A fake worker: once the submission exists, claim its evaluation, then ingest a report in which
    the visible workloads pass and the hidden ones are wrong."""
    failures: list[BaseException] = []

    def work() -> None:
        try:
            deadline = time.monotonic() + 20
            evaluation = None
            while evaluation is None and time.monotonic() < deadline:
                evaluation = Evaluation.objects.filter(submission__owner=user).first()
                time.sleep(0.1)
            assert evaluation is not None, "the client never created the submission"
            time.sleep(delay)
            assert evaluator_services.claim(evaluation.pk, "fake-worker")
            time.sleep(running)
            report = factories.fake_report(evaluation, 0.5)
            for row in report["workloads"]:
                if row["visibility"] == "hidden":
                    row.update(status="INCORRECT_NUMERICAL", score=0.0, message="wrong at (0, 1)")
            assert evaluator_services.ingest(evaluation.pk, "fake-worker", report)
        except BaseException as exc:
            failures.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=work, daemon=True)
    thread.failures = failures  # type: ignore[attr-defined]
    thread.start()
    return thread


def test_submit_wait_follows_progress_and_prints_the_results(logged_in: Server, tmp_path: Path,
                                                             cli: Any) -> None:
    worker = _finish_in_background(logged_in.user)
    result = cli("submit", str(write_solution(tmp_path)), "--problem", "scale_shift", "--hardware", "cpu",
                 "--wait", "--interval", "0.2", "--timeout", "30")
    worker.join(10)
    assert not worker.failures, worker.failures  # type: ignore[attr-defined]
    assert result.code == 0, result.err
    # progress on stderr, state by state
    err = result.err
    assert "cpu: queued" in err and "cpu: running" in err and "cpu: scored, score 0.500" in err
    assert err.index("cpu: queued") < err.index("cpu: running") < err.index("cpu: scored")
    # the final table: visible rows in full, hidden ones as one aggregate row
    assert "cpu: scored, score 0.500" in result.out
    visible = logged_in.problem.workloads.filter(visibility="visible", smoke=True)
    hidden = logged_in.problem.workloads.filter(visibility="hidden", smoke=True)
    assert all(w.uuid[:22] in result.out for w in visible)
    assert not any(w.uuid[:22] in result.out for w in hidden)
    assert result.out.count("PASSED") == visible.count()
    assert "INCORRECT_NUMERICAL" not in result.out
    assert result.out.count(f"({hidden.count()} hidden)") == 1
    assert f"0 of {hidden.count()} passed" in result.out
    assert "wrong at" not in result.out
    assert "0.100" in result.out  # SOL fraction: sol 0.1 ms over latency 1 ms


def test_submit_wait_ends_with_5_when_the_platform_fails(logged_in: Server, tmp_path: Path, cli: Any,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def fail_soon() -> None:
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                evaluation = Evaluation.objects.filter(submission__owner=logged_in.user).first()
                if evaluation is not None:
                    evaluator_services.fail(evaluation.pk, "the evaluator stopped answering")
                    return
                time.sleep(0.1)
        finally:
            connection.close()

    thread = threading.Thread(target=fail_soon, daemon=True)
    thread.start()
    result = cli("submit", str(write_solution(tmp_path)), "--problem", "scale_shift", "--hardware", "cpu",
                 "--wait", "--interval", "0.2", "--timeout", "30")
    thread.join(10)
    assert result.code == 5
    assert "failed on the platform: cpu (the evaluator stopped answering)" in result.err


def test_submit_wait_gives_up_after_the_timeout(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    result = cli("submit", str(write_solution(tmp_path)), "--problem", "scale_shift", "--hardware", "cpu",
                 "--wait", "--interval", "0.1", "--timeout", "0.3")
    assert result.code == 5
    assert "still unfinished after 0.3 s" in result.err and "solarena status" in result.err


# ---------------------------------------------------------------- agent bundles


MANIFEST = {"name": "kernel-agent", "version": "1.2.0", "model": "some-llm", "logs": ["logs/agent.log"]}


def bundle_zip(tmp_path: Path, problem: str = "scale_shift") -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.json", json.dumps(MANIFEST))
        archive.writestr(f"{problem}.py", factories.CORRECT)
        archive.writestr("logs/agent.log", "tried things\n")
    path = tmp_path / "agent.zip"
    path.write_bytes(buffer.getvalue())
    return path


def test_submit_agent_uploads_a_bundle(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    result = cli("submit-agent", str(bundle_zip(tmp_path)), "--hardware", "cpu")
    assert result.code == 0, result.err
    agent = AgentSubmission.objects.get()
    assert (agent.name, agent.version, agent.owner) == ("kernel-agent", "1.2.0", logged_in.user)
    assert agent.submissions.get().problem == logged_in.problem
    assert f"agent submission {agent.pk}" in result.err and "kernel-agent" in result.out
    status = cli("status", str(agent.pk), "--agent", "--json")
    assert status.code == 0, status.err
    assert status.json()["id"] == agent.pk and "logs" in status.json()
    table = cli("status", str(agent.pk), "--agent")
    assert "kernel-agent" in table.out and "scale_shift" in table.out and "queued" in table.out


def test_submit_agent_zips_a_directory(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    directory = tmp_path / "bundle"
    (directory / "logs").mkdir(parents=True)
    (directory / "manifest.json").write_text(json.dumps(MANIFEST))
    (directory / "scale_shift.py").write_text(factories.CORRECT)
    (directory / "logs" / "agent.log").write_text("tried things\n")
    result = cli("submit-agent", str(directory), "--hardware", "cpu", "--json")
    assert result.code == 0, result.err
    assert result.json()["name"] == "kernel-agent"
    assert AgentSubmission.objects.count() == 1


def test_submit_agent_refusals_exit_2(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    unknown = cli("submit-agent", str(bundle_zip(tmp_path, "gemv")), "--hardware", "cpu")
    assert unknown.code == 2 and "unknown problem(s) 'gemv'" in unknown.err
    (tmp_path / "not.zip").write_bytes(b"hello")
    broken = cli("submit-agent", str(tmp_path / "not.zip"), "--hardware", "cpu")
    assert broken.code == 2 and "not a zip or tar.gz archive" in broken.err
    assert not AgentSubmission.objects.exists()


def test_help_documents_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["submit", "--help"])
    out = capsys.readouterr().out
    assert "exit codes" in out and "3  not logged in" in out and "4  the server cannot be reached" in out


def test_compare_prints_both_sides_and_the_ratio(server: Server, cli: Any) -> None:
    submissions = []
    for latency in (2.0, 1.0):
        evaluation = factories.make_evaluation(owner=server.user, problem=server.problem, hardware=server.cpu)
        evaluator_services.claim(evaluation.pk, "w")
        report = factories.fake_report(evaluation, 0.5)
        for row in report["workloads"]:
            row["latency_ms"] = latency
        assert evaluator_services.ingest(evaluation.pk, "w", report)
        submissions.append(str(evaluation.submission_id))
    result = cli("compare", *submissions, "--server", server.url)
    assert result.code == 0, result.err
    assert "0.500x" in result.out and "2.00 ms" in result.out and "1.00 ms" in result.out
    assert "b is faster on" in result.out
    unknown = cli("compare", submissions[0], "999999", "--server", server.url)
    assert unknown.code == 2 and "no submission #999999" in unknown.err


def test_submit_agent_check_stores_nothing_and_exits_2_on_bad_python(logged_in: Server, tmp_path: Path,
                                                                     cli: Any) -> None:
    bundle = tmp_path / "bundle"
    (bundle / "logs").mkdir(parents=True)
    (bundle / "manifest.json").write_text(json.dumps({"name": "kernel-agent", "version": "1", "model": "m"}))
    (bundle / "scale_shift.py").write_text(factories.CORRECT)
    good = cli("submit-agent", str(bundle), "--hardware", "cpu", "--check")
    assert good.code == 0, good.err
    assert "nothing stored" in good.out and "scale_shift" in good.out and "ok" in good.out
    (bundle / "scale_shift.py").write_text("def run(x, bias):\n    return x *\n")
    bad = cli("submit-agent", str(bundle), "--hardware", "cpu", "--check")
    assert bad.code == 2 and "scale_shift.py:2: invalid syntax" in bad.err
    assert cli("agent-submissions", "--json").json() == []  # the checks stored nothing


def test_agents_and_agent_submissions_list_what_the_api_has(logged_in: Server, tmp_path: Path,
                                                            cli: Any) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "manifest.json").write_text(json.dumps({"name": "kernel-agent", "version": "1", "model": "m"}))
    (bundle / "scale_shift.py").write_text(factories.CORRECT)
    assert cli("submit-agent", str(bundle), "--hardware", "cpu").code == 0
    mine = cli("agent-submissions")
    assert mine.code == 0 and "kernel-agent" in mine.out and "queued" in mine.out
    board = cli("agents", "--hardware", "cpu")
    assert board.code == 0 and "no entries yet" in board.out  # nothing finished yet


def test_test_and_benchmark_submit_private_runs(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    solution = write_solution(tmp_path)
    for command, mode in (("test", "test"), ("benchmark", "benchmark")):
        result = cli(command, str(solution), "--problem", "scale_shift", "--hardware", "cpu", "--json")
        assert result.code == 0, result.err
        assert result.json()["mode"] == mode
    ranked = cli("submit", str(solution), "--problem", "scale_shift", "--hardware", "cpu", "--mode", "test")
    assert ranked.code == 0 and "a private test run" in ranked.err
