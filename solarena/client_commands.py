"""The `solarena` commands that talk to a server: login, problems, hardware, show, submit, status,
cancel, publish, unpublish, leaderboard, submit-agent and publish-agent (docs/cli.md).
solarena/cli.py registers them; HTTP and the stored login are in solarena/client.py."""

from __future__ import annotations

import argparse
import getpass
import io
import json
import os
import sys
import time
import zipfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from rich.console import Console
from rich.table import Table
from rich.text import Text

from evaluator.scoring import numbers
from evaluator.scoring.hardware import timing_note
from evaluator.scoring.outcome import evaluation_outcome, outcome_of_text

from . import agent_tables
from .client import (
    DEFAULT_SERVER,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    BadRequest,
    Client,
    WaitFailed,
    config_path,
    normalize_server,
    resolve_settings,
    save_config,
)

EXIT_CODES_HELP = """\
exit codes of the server commands (login, problems, hardware, show, submit, test, benchmark, status, cancel,
publish, unpublish, leaderboard, compare, submit-agent, publish-agent, agents, agent-results, agent-compare,
agent-frontier, agent-submissions):
  0  success
  2  bad arguments or files, or the server refused the request (its message is shown); with
     submit-agent --check, a bundle an upload would refuse or with a source that does not read
     (Python that does not compile, C++/CUDA with a lexical error)
  3  not logged in, or the server answered 401/403 (log in with `solarena login`)
  4  the server cannot be reached, or it failed (5xx)
  5  --wait: an evaluation failed on the platform, or --timeout passed before all finished
"""
TERMINAL = ("scored", "failed", "cancelled")
LIVE = ("queued", "running")
LANGUAGES = ("python", "triton", "cuda")
MODES = ("ranked", "test", "benchmark", "profile")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the server commands to the `solarena` parser's subcommands."""

    def add(name: str, func: Callable[[argparse.Namespace], int], help_text: str) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, help=help_text, description=help_text, epilog=EXIT_CODES_HELP,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
        parser.add_argument("--server", default=None,
                            help="the server's URL (default: $SOLARENA_SERVER, else the one logged in to)")
        parser.add_argument("--json", action="store_true", help="print the server's JSON document")
        parser.set_defaults(func=func)
        return parser

    login = add("login", cmd_login, "store an API token for a server (checked against it first)")
    login.add_argument("--token", default=None, help="the API token (sol_...); prompted for when left out")

    problems = add("problems", cmd_problems, "list the server's problems")
    problems.add_argument("--category", default=None, help="only this category (slug)")
    problems.add_argument("--hardware", default=None, help="only problems with entries on this hardware")

    add("hardware", cmd_hardware, "the server's hardware and whether a worker serves each one now")

    show = add("show", cmd_show, "a problem's definition and visible workloads with their SOL bounds")
    show.add_argument("problem", help="the problem's slug or name")

    submit = add("submit", cmd_submit, "submit a solution (.py or solution.json) for evaluation")
    _submit_options(submit)
    submit.add_argument("--mode", choices=MODES, default="ranked",
                        help="ranked (default): every workload, on the boards; test: correctness on the "
                             "visible workloads, no timing; benchmark: the visible workloads timed; "
                             "profile: each visible workload's top kernels under a profiler. The "
                             "private modes go ahead of ranked runs")
    _workload_option(submit)
    for mode, what in (("test", "check a solution's correctness on the visible workloads (no timing, "
                                "private, not ranked)"),
                       ("benchmark", "time a solution on the visible workloads (private, not ranked)"),
                       ("profile", "list each visible workload's top kernels under the server's profiler "
                                   "(private, not ranked)")):
        shortcut = _submit_options(add(mode, cmd_submit, what))
        shortcut.set_defaults(mode=mode)
        if mode == "profile":
            _workload_option(shortcut)

    status = add("status", cmd_status, "a submission's evaluations and per-workload results")
    status.add_argument("id", type=int, help="the submission's id")
    status.add_argument("--agent", action="store_true", help="ID is an agent submission's")

    cancel = add("cancel", cmd_cancel, "cancel a submission's evaluations that no worker has started yet")
    cancel.add_argument("id", type=int, help="the submission's id")

    publish = add("publish", cmd_publish, "make a submission's source public (anyone may read it)")
    publish.add_argument("id", type=int, help="the submission's id")

    unpublish = add("unpublish", cmd_unpublish, "make a published submission's source private again")
    unpublish.add_argument("id", type=int, help="the submission's id")

    board = add("leaderboard", cmd_leaderboard, "a problem's leaderboard on one hardware")
    board.add_argument("problem", help="the problem's slug or name")
    board.add_argument("--hardware", required=True, help="the hardware slug")

    versus = add("compare", cmd_compare, "two submissions of one problem side by side, workload by workload")
    versus.add_argument("a", type=int, help="a submission's id")
    versus.add_argument("b", type=int, help="another submission's id, of the same problem")
    versus.add_argument("--hardware", default=None, help="the hardware slug, when both ran on several")

    agent = add("submit-agent", cmd_submit_agent,
                "upload an agent bundle (a .zip, .tar.gz or a directory; docs/agent-bundles.md)")
    agent.add_argument("bundle", type=Path, help="the bundle archive, or a directory zipped on the fly")
    agent.add_argument("--hardware", action="append", required=True,
                       help="hardware slug to evaluate every solution on (repeat for several)")
    agent.add_argument("--mode", choices=MODES, default="ranked",
                       help="every solution's: ranked (default) counts on the agent board; test or "
                            "benchmark runs the visible workloads only, privately")
    agent.add_argument("--private", action="store_true",
                       help="keep the upload to you (and the admins) and off every board until "
                            "`solarena publish-agent ID`; it is evaluated all the same")
    agent.add_argument("--check", action="store_true",
                       help="a dry run: check the bundle (problems, languages, hardware, Python syntax, "
                            "C++/CUDA lexical errors) "
                            "and store nothing; exit 2 when an upload would fail")
    _wait_options(agent)

    publish_agent = add("publish-agent", cmd_publish_agent,
                        "publish a private agent upload: shown to everyone, its results on the boards")
    publish_agent.add_argument("id", type=int, help="the agent submission's id")

    agents = add("agents", cmd_agents, "the agent board: each finished upload's suite score and "
                                        "generalization figures on a hardware")
    agents.add_argument("--hardware", default="cpu", help="the hardware slug (default cpu)")
    agents.add_argument("--task-type", default=None, help="the figures over this task type's problems")

    frontier = add("agent-frontier", cmd_agent_frontier, "the agent board's score versus cost: the uploads "
                   "no other beats on both counts (docs/scoring.md)")
    frontier.add_argument("--hardware", default="cpu", help="the hardware slug (default cpu)")

    results = add("agent-results", cmd_agent_results,
                  "one agent upload problem by problem, per task type and per hardware")
    results.add_argument("id", type=int, help="the agent submission's id")

    versus_agent = add("agent-compare", cmd_agent_compare, "two agent uploads problem by problem, b minus a")
    versus_agent.add_argument("a", type=int, help="an agent submission's id")
    versus_agent.add_argument("b", type=int, help="another agent submission's id")
    versus_agent.add_argument("--hardware", default=None, help="default: the first hardware both ran on")

    add("agent-submissions", cmd_agent_submissions, "your agent submissions, newest first")


def _submit_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("file", type=Path, help="a .py solution or a solution.json")
    parser.add_argument("--problem", required=True, help="the problem's slug or name")
    parser.add_argument("--hardware", action="append", required=True,
                        help="hardware slug to evaluate on (repeat for several)")
    parser.add_argument("--language", choices=LANGUAGES, default=None,
                        help="default: the server infers it from the file (cuda when a solution.json "
                             "names C++, triton when the code imports triton, else python)")
    _wait_options(parser)
    return parser


def _workload_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workload", default=None, metavar="UUID",
                        help="profile mode only: profile just this visible workload (its uuid, as "
                             "`solarena show` lists them) on every hardware")


def _wait_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wait", action="store_true", help="follow the evaluations until they finish")
    parser.add_argument("--interval", type=float, default=1.0, metavar="SECONDS",
                        help="with --wait: seconds between polls (default 1)")
    parser.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS",
                        help="with --wait: give up waiting after this long (default 3600)")


# ---------------------------------------------------------------- helpers


def _client(args: argparse.Namespace) -> Client:
    settings = resolve_settings(args.server)
    return Client(settings.server, settings.token)


# No console markup: names, descriptions and messages come from the server and may hold brackets
# (`y[b, i] = ...`); colour goes through Text styles instead.
# The problem board's columns, as the board page shows them: (title, numeric).
BOARD_COLUMNS = (("rank", True), ("user", False), ("team", False), ("score", True), ("correct", False),
                 ("visible", True),
                 ("hidden", True), ("gap", True), ("cond. correct", True), ("speedup", True),
                 ("submissions", True), ("best", True), ("last improved", False))


def _out() -> Console:
    return Console(markup=False) if sys.stdout.isatty() else Console(width=140, highlight=False, markup=False)


def _err() -> Console:
    return Console(stderr=True, highlight=False, markup=False)


def _status(verdict: str) -> Text:
    return Text(verdict, style="green" if verdict == "PASSED" else "red")


OUTCOME_STYLES = {"state-scored": "green", "state-partial": "yellow", "state-failed": "red"}


def _outcome(evaluation: Mapping[str, Any]) -> Text:
    """What happened, worded and coloured as the pages do (evaluator/scoring/outcome.py): the server's
    words where it gives them (it has the aggregates a list leaves out), else from the document."""
    if evaluation.get("outcome"):
        found = outcome_of_text(evaluation["outcome"])
    else:
        verdicts = (row["status"] for row in evaluation.get("results") or [])
        found = evaluation_outcome(evaluation["state"], bool(evaluation.get("reward_hack")),
                                   evaluation.get("aggregates"), verdicts)
    return Text(found.text, style=OUTCOME_STYLES.get(found.css, ""))


def _timing_note(document: Mapping[str, Any]) -> str:
    """What the hardware's times are not (the CPU's: no GPU timing); "" for a GPU."""
    return document.get("timing_note") or timing_note(str(document.get("hardware") or ""))


def _print_json(document: Any) -> None:
    print(json.dumps(document, indent=2))


def _ms(value: float | None) -> str:
    return numbers.duration(value)


def _score(value: float | None) -> str:
    return numbers.significant(value)


# ---------------------------------------------------------------- login


def cmd_login(args: argparse.Namespace) -> int:
    try:
        server = resolve_settings(args.server).server
    except BadRequest:  # an unreadable config.json: this login replaces it
        server = normalize_server(args.server or os.environ.get("SOLARENA_SERVER") or DEFAULT_SERVER)
    token = args.token
    if token is None:
        try:
            token = getpass.getpass(f"API token for {server} (from your profile page): ")
        except EOFError:
            token = ""
    token = token.strip()
    if not token:
        raise BadRequest("no token given: pass --token or type it at the prompt")
    with Client(server, token) as client:
        client.get("submissions/", auth=True, params={"page": 1})
    path = save_config({"server": server, "token": token})
    if args.json:
        _print_json({"server": server, "config": str(path)})
    else:
        _out().print(f"logged in to {server}; the token is stored in {path}")
    return EXIT_OK


# ---------------------------------------------------------------- problems and boards


def cmd_problems(args: argparse.Namespace) -> int:
    params = {key: value for key, value in (("category", args.category), ("hardware", args.hardware))
              if value}
    with _client(args) as client:
        problems = client.get_all("problems/", params=params)
    if args.json:
        _print_json(problems)
        return EXIT_OK
    console = _out()
    if not problems:
        console.print("no problems" + (" matching " + ", ".join(f"{k}={v}" for k, v in params.items())
                                        if params else ""))
        return EXIT_OK
    table = Table(title=f"problems on {client.server}")
    for column in ("name", "slug", "version", "category", "task type", "op type"):
        table.add_column(column, overflow="fold")
    for p in problems:
        table.add_row(p["name"], p.get("slug", ""), str(p["version"]), str(p.get("category") or ""),
                      p.get("task_type", ""), p.get("op_type", ""))
    console.print(table)
    return EXIT_OK


# A hardware's availability.state (api/serializers.py AvailabilitySerializer): words and colour.
AVAILABILITY = {"online": ("online", "green"),
                "expected": ("expected: no worker yet, the operator says they will come", "yellow"),
                "offline": ("offline: submissions to it are refused", "red")}


def cmd_hardware(args: argparse.Namespace) -> int:
    with _client(args) as client:
        hardware = client.get_all("hardware/")
    if args.json:
        _print_json(hardware)
        return EXIT_OK
    console = _out()
    if not hardware:
        console.print("no hardware")
        return EXIT_OK
    table = Table(title=f"hardware on {client.server}")
    for column, numeric in (("slug", False), ("name", False), ("accepts submissions", False),
                            ("workers now", False), ("online", True), ("last heard from", False)):
        table.add_column(column, overflow="fold", justify="right" if numeric else "left")
    notes = []
    for hw in hardware:
        available = hw.get("availability") or {}
        state = str(available.get("state", ""))
        words, style = AVAILABILITY.get(state, (state, ""))
        table.add_row(hw["slug"], hw.get("name", ""), "yes" if hw.get("active") else "no",
                      Text(words, style=style), str(available.get("workers", 0)),
                      _when(available.get("last_seen")))
        if note := timing_note(hw["slug"]):
            notes.append(f"{hw['slug']}: {note}")
    console.print(table)
    for note in notes:
        console.print(note, highlight=False)
    return EXIT_OK


def _problem(client: Client, name: str) -> dict[str, Any]:
    try:
        return client.get(f"problems/{quote(name, safe='')}/")
    except BadRequest as exc:
        if exc.status == 404:
            raise BadRequest(f"unknown problem {name!r} on {client.server} (`solarena problems` lists them)",
                             status=404) from None
        raise


def cmd_show(args: argparse.Namespace) -> int:
    with _client(args) as client:
        problem = _problem(client, args.problem)
    if args.json:
        _print_json(problem)
        return EXIT_OK
    console = _out()
    head = Text(problem["name"], style="bold")
    head.append(f" v{problem['version']}  category {problem.get('category')}  task {problem.get('task_type')}"
                f"  op {problem.get('op_type') or '-'}", style="")
    console.print(head)
    if problem.get("description"):
        console.print(problem["description"])
    workloads = problem.get("workloads") or []
    slugs = sorted({slug for w in workloads for slug in (w.get("sol_ms") or {})})
    table = Table(title=f"visible workloads ({len(workloads)}); SOL bound per hardware")
    for column in ("workload", "axes", "smoke", *slugs):
        table.add_column(column, overflow="fold", justify="right" if column in slugs else "left")
    for w in workloads:
        axes = ", ".join(f"{k}={v}" for k, v in (w.get("axes") or {}).items())
        table.add_row(w["uuid"], axes, "yes" if w.get("smoke") else "",
                      *(_ms((w.get("sol_ms") or {}).get(slug)) for slug in slugs))
    console.print(table)
    return EXIT_OK


def cmd_leaderboard(args: argparse.Namespace) -> int:
    with _client(args) as client:
        try:
            document = client.get(f"leaderboards/{quote(args.problem, safe='')}/"
                                  f"{quote(args.hardware, safe='')}/")
        except BadRequest as exc:
            if exc.status != 404:
                raise
            _problem(client, args.problem)  # names the problem when it is the unknown one
            raise BadRequest(f"unknown hardware {args.hardware!r} on {client.server}", status=404) from None
    if args.json:
        _print_json(document)
        return EXIT_OK
    console = _out()
    entries = document.get("entries") or []
    title = f"{document['problem']} v{document['version']} on {document['hardware']}"
    if not entries:
        console.print(f"{title}: no entries yet")
        return EXIT_OK
    table = Table(title=title)
    for column, numeric in BOARD_COLUMNS:
        table.add_column(column, overflow="fold", justify="right" if numeric else "left")
    for e in entries:
        speedup = e.get("geomean_speedup")
        table.add_row(e.get("band") or str(e["rank"]), e["user"], e.get("team") or "",
                      numbers.with_interval(e.get("score"), e.get("score_ci95")),
                      e.get("correct") or "-", _score(e.get("visible_score")), _score(e.get("hidden_score")),
                      _score(e.get("generalization_gap")), _score(e.get("conditional_correctness")),
                      "-" if speedup is None else f"{numbers.significant(speedup)}x",
                      str(e.get("submissions", "")), str(e.get("submission") or "-"),
                      _when(e.get("last_improved")))
    console.print(table)
    console.print(_confirmations(entries))
    if document.get("unranked"):
        console.print(_unranked(document["unranked"]))
    if document.get("timing_note"):
        console.print(document["timing_note"])
    return EXIT_OK


def _confirmations(entries: list[dict[str, Any]]) -> str:
    """Which entries a second run confirmed or disputed, and which are provisional, in one line under
    the table (docs/scoring.md, "Confirmed leaders"): a column would not fit its width."""
    by_label: dict[str, list[str]] = {}
    for e in entries:
        by_label.setdefault(e.get("confirmation") or "provisional", []).append(e["user"])
    words = {"confirmed": "confirmed by a second run", "disputed": "disputed by a second run, under review",
             "provisional": "provisional"}
    return "; ".join(f"{words[label]}: {', '.join(by_label[label])}" for label in words if label in by_label)


def _unranked(rows: list[dict[str, Any]]) -> Text:
    """The participants without a valid score and why, as the board pages say it (docs/scoring.md,
    "Why a row has no rank")."""
    said = []
    for row in rows:
        status = row.get("status") or {}
        about = f", #{status['submission']}" if status.get("submission") else ""
        said.append(f"{row['user']} ({status.get('text') or 'no valid score'}{about})")
    return Text("not ranked: " + "; ".join(said))


def cmd_compare(args: argparse.Namespace) -> int:
    params = {"a": args.a, "b": args.b, **({"hardware": args.hardware} if args.hardware else {})}
    with _client(args) as client:
        document = client.get("compare/", params=params)
    if args.json:
        _print_json(document)
        return EXIT_OK
    console = _out()
    a, b = document["a"], document["b"]
    table = Table(title=f"{document['problem']} on {document['hardware']}: "
                        f"a = #{a['submission']} ({a['user']}), b = #{b['submission']} ({b['user']})")
    for column, numeric in (("workload", False), ("axes", False), ("a", False), ("a time", True),
                            ("b", False), ("b time", True), ("b / a", True), ("a score", True),
                            ("b score", True)):
        table.add_column(column, overflow="fold", justify="right" if numeric else "left")
    for pair in document["workloads"]:
        ratio = pair.get("latency_ratio")
        first, second = pair["a"], pair["b"]
        table.add_row(pair["uuid"], ", ".join(f"{k}={v}" for k, v in pair["axes"].items()),
                      _status(first["status"]), _ms(first["latency_ms"]), _status(second["status"]),
                      _ms(second["latency_ms"]), "-" if ratio is None else f"{numbers.significant(ratio)}x",
                      _score(first["score"]), _score(second["score"]))
    console.print(table)
    summary = f"b is faster on {document['faster_in_b']} of {len(document['workloads'])} workloads both ran"
    geomean = document.get("geomean_latency_ratio")
    if geomean is not None:
        summary += f"; b / a time, geometric mean {numbers.significant(geomean)}x"
    console.print(f"{summary}; score a {_score(a['score'])}, b {_score(b['score'])}")
    if _timing_note(document):
        console.print(_timing_note(document), highlight=False)
    return EXIT_OK


# ---------------------------------------------------------------- submissions


def _read_solution(path: Path) -> bytes:
    if not path.is_file():
        raise BadRequest(f"{path}: no such file")
    if path.suffix not in (".py", ".json"):
        raise BadRequest(f"{path}: a solution is a .py file or a solution.json")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise BadRequest(f"{path}: {exc.strerror or exc}") from None


def cmd_submit(args: argparse.Namespace) -> int:
    with _client(args) as client:
        client.require_login()
        data = _read_solution(args.file)
        fields = {"problem": args.problem, "hardware": args.hardware, "mode": args.mode}
        if args.language:  # else the server infers it from the sources, by its one rule
            fields["language"] = args.language
        if getattr(args, "workload", None):  # the server says when it is refused (another mode, unknown)
            fields["workload"] = args.workload
        submission = client.post("submissions/upload/", data=fields,
                                 files={"file": (args.file.name, data, "application/octet-stream")})
        err = _err()
        if not args.json:
            err.print(f"submission {submission['id']}: {submission['problem']} "
                      f"v{submission['problem_version']} ({submission['language']}{_private(submission)}) on "
                      f"{', '.join(e['hardware'] for e in submission['evaluations'])}")
        if args.wait:
            submission = _wait(client, f"submissions/{submission['id']}/", _evaluation_states, args, err)
    return _show_submission(submission, args)


def cmd_status(args: argparse.Namespace) -> int:
    with _client(args) as client:
        kind = "agent-submissions" if args.agent else "submissions"
        try:
            document = client.get(f"{kind}/{args.id}/", auth=True)
        except BadRequest as exc:
            if exc.status == 404:
                what = "agent submission" if args.agent else "submission"
                raise BadRequest(f"no {what} {args.id} of yours on {client.server}", status=404) from None
            raise
    if args.agent:
        return _show_agent(document, args)
    return _show_submission(document, args)


def _own_submission(client: Client, submission_id: int, action: str) -> dict[str, Any]:
    """POST submissions/ID/ACTION/ for the owner; a 404 says the submission is not one of theirs."""
    try:
        return client.post(f"submissions/{submission_id}/{action}/")
    except BadRequest as exc:
        if exc.status == 404:
            raise BadRequest(f"no submission {submission_id} of yours on {client.server}",
                             status=404) from None
        raise


def cmd_cancel(args: argparse.Namespace) -> int:
    with _client(args) as client:
        client.require_login()
        document = _own_submission(client, args.id, "cancel")
    if not args.json:
        _err().print(f"submission {args.id}: the evaluations no worker had started are cancelled")
    return _show_submission(document, args)


def cmd_publish(args: argparse.Namespace) -> int:
    return _set_published(args, "publish")


def cmd_unpublish(args: argparse.Namespace) -> int:
    return _set_published(args, "unpublish")


def _set_published(args: argparse.Namespace, action: str) -> int:
    with _client(args) as client:
        client.require_login()
        document = _own_submission(client, args.id, action)
        source_url = f"{client.server}/api/v1/submissions/{args.id}/source/"
    if args.json:
        _print_json(document)
    elif document.get("published"):
        _out().print(f"submission {args.id} is published: anyone may read its source at {source_url}",
                     highlight=False)
    else:
        _out().print(f"submission {args.id} is private again: only you and the admins may read its source",
                     highlight=False)
    return EXIT_OK


def _evaluation_states(document: Mapping[str, Any]) -> dict[str, str]:
    return {f"{e['hardware']}": _outcome(e).plain
            + (f", score {_score(e['score'])}" if e.get("score") is not None else "")
            + (f" ({_queue_text(e['queue'])})" if e.get("queue") else "")
            for e in document.get("evaluations") or []}


def _queue_text(queue: Mapping[str, Any]) -> str:
    """`3 in line, starts in about 2 min` from an evaluation's `queue`."""
    position = int(queue["position"])
    text = "next in line" if position == 1 else f"{position} in line"
    seconds = queue.get("estimated_start_seconds")
    if seconds is None:
        return text
    if seconds < 60:
        return f"{text}, starts within a minute"
    return f"{text}, starts in about {max(1, round(seconds / 60))} min"


def _agent_states(document: Mapping[str, Any]) -> dict[str, str]:
    states = {}
    for suite in document.get("suites") or []:
        states[suite["hardware"]] = (f"{suite['status']} ({suite['scored']}/{suite['problems']} scored, "
                                     f"suite score {_score(suite['score'])})")
    for solution in document.get("submissions") or []:
        for e in solution.get("evaluations") or []:
            states[f"{solution['problem']} on {e['hardware']}"] = _outcome(e).plain
    return states


def _finished(document: Mapping[str, Any]) -> bool:
    if "suites" in document:
        return document.get("status") == "done"
    return all(e["state"] in TERMINAL for e in document.get("evaluations") or [])


def _wait(client: Client, path: str, states: Callable[[Mapping[str, Any]], dict[str, str]],
          args: argparse.Namespace, console: Console) -> dict[str, Any]:
    """Poll `path` until every evaluation has finished, printing each change of state."""
    if args.interval <= 0:
        raise BadRequest("--interval must be positive")
    deadline = time.monotonic() + args.timeout
    seen: dict[str, str] = {}
    quiet = args.json
    with console.status("waiting for the evaluations", spinner="dots") as spinner:
        while True:
            document = client.get(path, auth=True)
            current = states(document)
            for key, state in current.items():
                if seen.get(key) != state and not quiet:
                    console.print(f"  {key}: {state}")
            seen = current
            done = sum(1 for s in current.values() if not s.startswith(LIVE))
            spinner.update(f"waiting for the evaluations: {done}/{len(current)} finished")
            if _finished(document):
                return document
            if time.monotonic() >= deadline:
                document["_timed_out"] = True
                return document
            time.sleep(args.interval)


def _wait_outcome(document: Mapping[str, Any], args: argparse.Namespace, timed_out: bool,
                  evaluations: Iterable[Mapping[str, Any]]) -> int:
    if timed_out:
        agent = " --agent" if "suites" in document else ""
        raise WaitFailed(f"still unfinished after {args.timeout:g} s; follow it with "
                         f"`solarena status {document['id']}{agent}`")
    failed = [e for e in evaluations if e["state"] == "failed"]
    if failed:
        names = ", ".join(f"{e['hardware']}" + (f" ({e['error']})" if e.get("error") else "") for e in failed)
        print(f"error: evaluation failed on the platform: {names}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _show_submission(document: dict[str, Any], args: argparse.Namespace) -> int:
    timed_out = document.pop("_timed_out", False)
    if args.json:
        _print_json(document)
    else:
        print_submission(document, _out())
    if getattr(args, "wait", False):
        return _wait_outcome(document, args, timed_out, document["evaluations"])
    return EXIT_OK


def _private(submission: Mapping[str, Any]) -> str:
    mode = submission.get("mode", "ranked")
    one = f" of workload {submission['workload']}" if submission.get("workload") else ""
    return "" if mode == "ranked" else f", a private {mode} run{one}"


def _when(value: Any) -> str:
    return str(value)[:16].replace("T", " ") if value else "-"


def print_submission(document: Mapping[str, Any], console: Console) -> None:
    created = str(document.get("created", ""))[:19].replace("T", " ")
    console.print(f"submission {document['id']}: {document['problem']} v{document['problem_version']} "
                  f"({document['language']}{_private(document)}), created {created}")
    for evaluation in document.get("evaluations") or []:
        head = Text(f"{evaluation['hardware']}: ").append_text(_outcome(evaluation))
        if evaluation.get("queue"):
            head.append(f" ({_queue_text(evaluation['queue'])})")
        if evaluation.get("score") is not None:
            head.append(f", score {_score(evaluation['score'])}")
        if evaluation.get("reward_hack"):
            rules = f"/problems/{document.get('problem_slug') or document['problem']}/#rules"
            head.append(f" (not ranked; the rules it broke: {rules} on the server)", style="red")
        console.print(head)
        if evaluation.get("error"):
            console.print(Text.assemble("  ", ("error:", "red"), f" {evaluation['error']}"))
        if evaluation.get("timing_note"):
            console.print(Text(f"  note: {evaluation['timing_note']}", style="yellow"))
        results = evaluation.get("results") or []
        hidden = evaluation.get("hidden")
        if not results and not hidden:
            continue
        table = Table(title=f"{document['problem']} on {evaluation['hardware']}")
        for column in ("workload", "vis", "axes", "status", "time", "SOL", "SOL frac", "score"):
            table.add_column(column, overflow="fold",
                             justify="right" if column in ("time", "SOL", "SOL frac", "score") else "left")
        notes = []
        for row in results:
            latency, sol = row.get("latency_ms"), row.get("sol_ms")
            fraction = _score(sol / latency) if latency and sol else "-"
            axes = ",".join(f"{k}={v}" for k, v in (row.get("axes") or {}).items())
            table.add_row(row["uuid"], "vis", axes, _status(row["status"]), _ms(latency), _ms(sol), fraction,
                          _score(row.get("score")))
            if row.get("message"):
                notes.append(f"{row['uuid']}: {row['message']}")
        if hidden:  # the server shows hidden workloads as one aggregate only
            passed = f"{hidden['passed']} of {hidden['total']} passed"
            table.add_row(f"({hidden['total']} hidden)", "hid", "", passed, "", "", "",
                          _score(hidden.get("score")))
        console.print(table)
        if any(row.get("profile") for row in results):  # a profile run's kernels, as eval prints them
            from solarena.cli import print_profiles  # the local instrument: imported only when needed

            print_profiles({"workloads": results}, console,
                           stored_report=_profile_report(document["id"], evaluation["hardware"]))
        for note in notes:
            console.print(note, highlight=False)
        aggregates = evaluation.get("aggregates") or {}
        parts = [f"{label} {numbers.with_interval(aggregates[key], aggregates.get(f'{key}_ci95'))}"
                 for key, label in
                 (("score", "score"), ("visible_score", "visible"), ("hidden_score", "hidden"),
                  ("geomean_speedup", "geomean speedup")) if isinstance(aggregates.get(key), int | float)]
        if isinstance(aggregates.get("conditional_correctness"), int | float):  # as the board page shows it
            parts.append(f"cond. correct {numbers.share(aggregates['conditional_correctness'])}")
        if parts:
            console.print("  ".join(parts))


def _profile_report(submission: int, hardware: str) -> Callable[[str], str]:
    """Where the owner downloads a workload's Nsight Compute report (docs/api.md)."""
    base = f"/api/v1/submissions/{submission}/profile/{hardware}"
    return lambda uuid: f"{base}/{quote(uuid)}.ncu-rep on the server"


# ---------------------------------------------------------------- agent bundles


def _bundle_bytes(path: Path) -> tuple[str, bytes]:
    if path.is_dir():
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for file in sorted(p for p in path.rglob("*") if p.is_file()):
                archive.write(file, file.relative_to(path).as_posix())
        return f"{path.name or 'bundle'}.zip", buffer.getvalue()
    if not path.is_file():
        raise BadRequest(f"{path}: no such file or directory")
    try:
        return path.name, path.read_bytes()
    except OSError as exc:
        raise BadRequest(f"{path}: {exc.strerror or exc}") from None


def cmd_submit_agent(args: argparse.Namespace) -> int:
    with _client(args) as client:
        client.require_login()
        name, data = _bundle_bytes(args.bundle)
        if args.check:
            return _check_bundle(client, name, data, args)
        fields = {"hardware": args.hardware, "mode": args.mode}
        if args.private:
            fields["private"] = "true"
        agent = client.post("agent-submissions/", data=fields,
                            files={"file": (name, data, "application/octet-stream")})
        err = _err()
        if not args.json:
            problems = ", ".join(s["problem"] for s in agent.get("submissions") or [])
            err.print(f"agent submission {agent['id']}: {agent['name']} {agent['version']} "
                      f"({agent['model']}); problems {problems}; hardware {', '.join(args.hardware)}")
        if args.wait:
            agent = _wait(client, f"agent-submissions/{agent['id']}/", _agent_states, args, err)
    return _show_agent(agent, args)


def cmd_publish_agent(args: argparse.Namespace) -> int:
    with _client(args) as client:
        client.require_login()
        try:
            document = client.post(f"agent-submissions/{args.id}/publish/")
        except BadRequest as exc:
            if exc.status == 404:
                raise BadRequest(f"no agent submission {args.id} of yours on {client.server}",
                                 status=404) from None
            raise
    if args.json:
        _print_json(document)
    else:
        _out().print(f"agent submission {args.id} is public: anyone may see it, and its ranked results are "
                     "on the boards (the agent board once every evaluation has finished)", highlight=False)
    return EXIT_OK


def _check_bundle(client: Client, name: str, data: bytes, args: argparse.Namespace) -> int:
    report = client.post("agent-submissions/", params={"validate": 1},
                         data={"hardware": args.hardware, "mode": args.mode},
                         files={"file": (name, data, "application/octet-stream")})
    if args.json:
        _print_json(report)
    else:
        console = _out()
        table = Table(title=f"{report['name']} {report['version']} ({report['model']}): nothing stored")
        for column in ("solution", "problem", "language", "entry", "files", "syntax"):
            table.add_column(column, overflow="fold")
        for solution in report["solutions"]:
            syntax = Text("; ".join(solution["syntax_errors"]), style="red") if solution["syntax_errors"] \
                else Text("ok", style="green")
            table.add_row(solution["name"], solution["problem"], solution["language"], solution["entry"],
                          str(solution["files"]), syntax)
        console.print(table)
    if not report["valid"]:
        for error in report["errors"]:
            print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def cmd_agents(args: argparse.Namespace) -> int:
    params = {"hardware": args.hardware, **({"task_type": args.task_type} if args.task_type else {})}
    with _client(args) as client:
        document = client.get("leaderboards/agents/", params=params)
    return _print_agents(document, args, agent_tables.print_board)


def cmd_agent_frontier(args: argparse.Namespace) -> int:
    with _client(args) as client:
        document = client.get("agents/frontier/", params={"hardware": args.hardware})
    return _print_agents(document, args, agent_tables.print_frontier)


def cmd_agent_results(args: argparse.Namespace) -> int:
    with _client(args) as client:
        # the stored token where there is one: the owner reads their private uploads too
        document = client.get(f"agent-submissions/{args.id}/results/", auth=bool(client.token))
    return _print_agents(document, args, agent_tables.print_upload)


def cmd_agent_compare(args: argparse.Namespace) -> int:
    params = {"a": args.a, "b": args.b, **({"hardware": args.hardware} if args.hardware else {})}
    with _client(args) as client:
        document = client.get("agent-submissions/compare/", auth=bool(client.token), params=params)
    return _print_agents(document, args, agent_tables.print_comparison)


def _print_agents(document: dict[str, Any], args: argparse.Namespace,
                  printer: Callable[[Mapping[str, Any], Console], None]) -> int:
    if args.json:
        _print_json(document)
        return EXIT_OK
    console = _out()
    printer(document, console)
    hardware = document.get("hardware")
    note = timing_note(hardware) if isinstance(hardware, str) else ""
    if note:
        console.print(note, highlight=False)
    return EXIT_OK


def cmd_agent_submissions(args: argparse.Namespace) -> int:
    with _client(args) as client:
        client.require_login()
        agents = client.get_all("agent-submissions/", auth=True)
    if args.json:
        _print_json(agents)
        return EXIT_OK
    console = _out()
    if not agents:
        console.print("no agent submissions yet (solarena submit-agent uploads one)")
        return EXIT_OK
    table = Table(title="your agent submissions")
    for column in ("id", "agent", "version", "model", "status", "suite score per hardware", "uploaded"):
        table.add_column(column, overflow="fold")
    for agent in agents:
        suites = ", ".join(f"{s['hardware']} {_score(s['score'])} ({s['scored']}/{s['problems']} scored)"
                           for s in agent.get("suites") or [])
        table.add_row(str(agent["id"]), agent["name"], agent["version"], agent["model"], agent["status"],
                      suites or "-", _when(agent.get("created")))
    console.print(table)
    return EXIT_OK


def _show_agent(document: dict[str, Any], args: argparse.Namespace) -> int:
    timed_out = document.pop("_timed_out", False)
    if args.json:
        _print_json(document)
    else:
        print_agent(document, _out())
    if getattr(args, "wait", False):
        evaluations = [e for s in document.get("submissions") or [] for e in s.get("evaluations") or []]
        return _wait_outcome(document, args, timed_out, evaluations)
    return EXIT_OK


def print_agent(document: Mapping[str, Any], console: Console) -> None:
    private = " (private until `solarena publish-agent`)" if document.get("private") else ""
    console.print(f"agent submission {document['id']}: {document['name']} {document['version']} "
                  f"({document['model']}), {document['status']}{private}", highlight=False)
    suites = Table(title="suites")
    for column in ("hardware", "status", "scored", "suite score"):
        suites.add_column(column)
    for suite in document.get("suites") or []:
        suites.add_row(suite["hardware"], suite["status"], f"{suite['scored']}/{suite['problems']}",
                       _score(suite.get("score")))
    console.print(suites)
    solutions = Table(title="solutions")
    for column in ("submission", "problem", "language", "hardware", "outcome", "score"):
        solutions.add_column(column)
    for solution in document.get("submissions") or []:
        for e in solution.get("evaluations") or []:
            solutions.add_row(str(solution["id"]), solution["problem"], solution["language"], e["hardware"],
                              _outcome(e), _score(e.get("score")))
    console.print(solutions)


__all__ = ["EXIT_CODES_HELP", "config_path", "register"]
