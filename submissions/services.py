"""Writes that create, cancel and publish submissions (one transaction each), agent submissions (a
bundle expanded into one submission per problem, in one transaction), and the limits checked under
the owner's lock: the submissions per minute (every channel), the daily quota per problem and the
evaluations in flight at once."""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from evaluator import modes
from evaluator import services as evaluations
from evaluator.counting import counted
from evaluator.jobs import SolutionFiles
from evaluator.models import Evaluation
from evaluator.page_changes import submissions_changed
from evaluator.solution_check import missing_entry, task_type_mismatch
from evaluator.toolchains import UnsupportedLanguage as UnsupportedLanguage
from evaluator.toolchains import check_runnable, infer_language, languages_of, toolchains
from evaluator.workers import NoWorkerOnline as NoWorkerOnline
from evaluator.workers import check_served
from leaderboard.lookup import current_problems
from leaderboard.models import Hardware, Problem, Workload

from .bundles import AgentManifest, Bundle
from .models import AgentSubmission, Submission
from .native_check import defines_unbalanced_brackets, is_native, native_syntax_error

QUOTA_WINDOW = timedelta(hours=24)


class QuotaExceeded(Exception):
    """A limit on the participant is reached (a 429): today's submissions for a problem, or the
    evaluations in flight at once; the message says which and when more are allowed."""


class SubmittingTooFast(QuotaExceeded):
    """The participant has sent as many submissions as the rate allows in its period;
    `retry_after` is how many seconds until the oldest of them leaves it."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TooManyInFlight(QuotaExceeded):
    """The participant has too many evaluations queued or running to add these."""


class BundleProblemsError(Exception):
    """A bundle's solutions do not name the problems one to one; nothing of it is stored."""


class UnknownProblems(BundleProblemsError):
    """A bundle names problems that do not exist; `names` lists them."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        super().__init__(f"unknown problem(s) {', '.join(map(repr, names))} in the bundle; nothing of it "
                         "was stored (a bundle's solutions must all be for existing problems, named by "
                         "slug or by name)")


class ProblemNamedTwice(BundleProblemsError):
    """Two solutions of a bundle name one problem (by its slug and by its name)."""

    def __init__(self, first: str, second: str, problem: str) -> None:
        super().__init__(f"{first!r} and {second!r} in the bundle both name the problem {problem!r}; "
                         "nothing of it was stored (one solution per problem)")


class VersionTaken(Exception):
    """The owner already has a ranked upload of this agent name and version: each version is its own
    entry on the agent board, so a version is uploaded once (a test or benchmark run may repeat one)."""

    def __init__(self, earlier: AgentSubmission) -> None:
        self.earlier = earlier
        super().__init__(
            f"{earlier.name!r} version {earlier.version!r} is already uploaded (agent submission "
            f"#{earlier.pk}, {earlier.created:%Y-%m-%d %H:%M} UTC); nothing was stored: give this run "
            "another version (each version is its own entry on the agent board; a test or benchmark "
            "upload may repeat one)")


class WorkloadRefused(ValueError):
    """The one workload a profile run asked for is not to be had: asked for in another mode, or not
    a visible workload of the problem (an unknown uuid and a hidden one get the same message)."""


def check_workload(problem: Problem, mode: str, uuid: str) -> None:
    """Refuse (WorkloadRefused) a workload asked for outside profile mode, or not one of the
    problem's visible workloads; an empty uuid asks for none (every visible workload)."""
    if not uuid:
        return
    if not modes.profiled(mode):
        raise WorkloadRefused(f"one workload is asked for in profile mode only (mode=profile), not in "
                              f"{mode} mode")
    if not problem.workloads.filter(uuid=uuid, visibility=Workload.VISIBLE).exists():
        raise WorkloadRefused(f"problem {problem.name} (v{problem.version}) has no visible workload "
                              f"{uuid!r} (its visible workloads: GET /api/v1/problems/{problem.slug}/)")


class SolutionRefused(ValueError):
    """A solution that cannot run as submitted, told by reading it (a Python syntax error, no entry
    function, not the language the problem's task type asks for); the message names the problem."""


def check_solution(problem: Problem, files: SolutionFiles) -> None:
    """Refuse (SolutionRefused) a solution whose sources do not compile (syntax_errors, as the dry run
    of a bundle reads them), whose entry file binds no entry function, or which is not written in
    what the problem's task type asks for. The sources are parsed, never run."""
    errors = syntax_errors(files)
    if errors:
        raise SolutionRefused(f"the solution does not compile (file:line: error): {'; '.join(errors)}; "
                              "nothing was stored")
    problem_text = missing_entry(files.files, files.entry) or task_type_mismatch(
        files.files, files.entry, problem.task_type)
    if problem_text is not None:
        raise SolutionRefused(problem_text)


class NotCancellable(Exception):
    """Nothing of the submission is still queued, so there is nothing to cancel."""


def create_submission(
    owner: AbstractBaseUser,
    problem: Problem,
    files: SolutionFiles,
    language: str,
    hardware: list[Hardware],
    agent_submission: AgentSubmission | None = None,
    mode: str = modes.RANKED,
    agent_usage: dict[str, float | int] | None = None,
    workload: str = "",
) -> Submission:
    """Store the solution and one queued evaluation per hardware; the messages go out on commit.
    Raises SubmittingTooFast, storing nothing, past the owner's submissions per minute (a part of an
    agent submission is counted with it), QuotaExceeded past the owner's daily submissions for the
    problem, TooManyInFlight past the owner's evaluations queued or running at once, and
    UnsupportedLanguage where a hardware's evaluators cannot run the solution's language, and
    NoWorkerOnline where no worker serves a hardware now and none is expected, and WorkloadRefused
    where `workload` (a profile run's one visible workload) is not to be had. A submission of its
    own (not a part of an agent bundle) raises SolutionRefused where check_solution refuses it."""
    if not hardware:
        raise ValueError("a submission needs at least one hardware to run on")
    if mode not in modes.NAMES:
        raise ValueError(f"unknown mode {mode!r} (known: {', '.join(modes.NAMES)})")
    check_workload(problem, mode, workload)
    check_languages(files, language, hardware)
    if agent_submission is None:
        check_solution(problem, files)
    check_served(hardware)
    with transaction.atomic():
        _lock(owner)
        if agent_submission is None:
            _check_rate(owner)
        _check_quota(owner, problem, mode)
        _check_in_flight(owner, len(hardware))
        submission = Submission.objects.create(
            owner=owner, problem=problem, language=language, sources=dict(files.files), entry=files.entry,
            agent_submission=agent_submission, mode=mode, agent_usage=agent_usage or {},
            workload=workload,
        )
        for hw in hardware:
            evaluation = Evaluation.objects.create(
                submission=submission, hardware=hw, seed=secrets.randbits(48)
            )
            evaluations.enqueue_on_commit(evaluation)
    return submission


def create_agent_submission(owner: AbstractBaseUser, bundle: Bundle, hardware: list[Hardware],
                            mode: str = modes.RANKED, private: bool = False) -> AgentSubmission:
    """Store the bundle's manifest and logs, and one submission per problem (its current version, and
    what the manifest says the agent spent on it) on every hardware, all in one transaction. The
    bundle names each problem by its slug or its name. Raises UnknownProblems when a problem does not
    exist, ProblemNamedTwice when two solutions are for one problem, SubmittingTooFast past the
    owner's submissions per minute (the bundle counts as one), TooManyInFlight when all its
    evaluations would be too many at once, QuotaExceeded when one problem is over the daily quota,
    and VersionTaken when a ranked upload repeats a version; either way nothing is stored. A
    `private` upload is evaluated as any other but its owner's and the admins' alone, on no board,
    until published (submissions/agent_publication.py)."""
    if not hardware:
        raise ValueError("an agent submission needs at least one hardware to run on")
    check_served(hardware)
    with transaction.atomic():
        _lock(owner)
        names = list(bundle.solutions)
        problems = _bundle_problems(bundle)
        check_version(owner, bundle.manifest, mode)
        _check_rate(owner)
        _check_in_flight(owner, len(names) * len(hardware), what="this bundle")
        agent = _store_agent(owner, bundle.manifest, dict(bundle.logs), mode, private)
        for name, files in bundle.solutions.items():
            language = infer_language(files.files, files.entry)
            usage = bundle.manifest.problems.get(name)
            create_submission(owner, problems[name], files, language, hardware, agent_submission=agent,
                              mode=mode, agent_usage=usage.to_dict() if usage else None)
    return agent


def _bundle_problems(bundle: Bundle) -> dict[str, Problem]:
    """The current problem each of the bundle's solutions names; UnknownProblems or
    ProblemNamedTwice when they do not name existing problems one to one."""
    names = list(bundle.solutions)
    problems = current_problems(names)
    unknown = [name for name in names if name not in problems]
    if unknown:
        raise UnknownProblems(unknown)
    named_by: dict[int, str] = {}
    for name in names:
        first = named_by.setdefault(problems[name].pk, name)
        if first != name:
            raise ProblemNamedTwice(first, name, problems[name].name)
    return problems


@dataclass(frozen=True)
class CheckedSolution:
    name: str  # as the bundle names it
    problem: str  # the problem's name
    language: str  # as the server infers it
    entry: str
    files: int
    syntax_errors: list[str]  # "path:line: message": Python that does not compile, C++/CUDA with a
    # lexical error (native_check)


def check_agent_bundle(owner: AbstractBaseUser, bundle: Bundle, hardware: list[Hardware],
                       mode: str = modes.RANKED) -> list[CheckedSolution]:
    """What uploading the bundle would do, without storing or evaluating anything (the dry run):
    raises as create_agent_submission does for unknown or twice-named problems, a repeated version,
    languages the hardware cannot run and hardware no worker serves; each solution's Python sources
    compiled and its C++/CUDA sources checked lexically (native_check)."""
    if not hardware:
        raise ValueError("an agent submission needs at least one hardware to run on")
    check_served(hardware)
    problems = _bundle_problems(bundle)
    check_version(owner, bundle.manifest, mode)
    checked = []
    for name, files in bundle.solutions.items():
        language = infer_language(files.files, files.entry)
        check_languages(files, language, hardware)
        checked.append(CheckedSolution(name, problems[name].name, language, files.entry, len(files.files),
                                       syntax_errors(files)))
    return checked


def syntax_errors(files: SolutionFiles) -> list[str]:
    """Python sources compiled; C++/CUDA sources read lexically (submissions/native_check.py: no
    compiler, headers or GPU on this host, so they are built on the worker)."""
    errors = []
    check_brackets = not any(defines_unbalanced_brackets(text) for path, text in files.files.items()
                             if is_native(path))
    for path, text in files.files.items():
        if is_native(path):
            error = native_syntax_error(path, text, check_brackets)
            if error is not None:
                errors.append(error)
        elif path.endswith(".py"):
            try:
                compile(text, path, "exec", dont_inherit=True)
            except SyntaxError as exc:
                errors.append(f"{path}:{exc.lineno}: {exc.msg}")
            except ValueError as exc:  # a NUL byte, which the reader already refuses
                errors.append(f"{path}: {exc}")
    return errors


def create_agent_solution(owner: AbstractBaseUser, manifest: AgentManifest, problem: Problem,
                          files: SolutionFiles, language: str, hardware: list[Hardware],
                          private: bool = False) -> Submission:
    """One solution sent with an agent's name, version and model (the browser form): an agent
    submission of that one problem (`private`: until its owner publishes it), stored with it in one
    transaction, under the same limits, and checked as a submission of its own (check_solution)."""
    check_solution(problem, files)
    with transaction.atomic():
        _lock(owner)
        check_version(owner, manifest, modes.RANKED)
        _check_rate(owner)
        agent = _store_agent(owner, manifest, {}, private=private)
        return create_submission(owner, problem, files, language, hardware, agent_submission=agent)


def check_version(owner: AbstractBaseUser, manifest: AgentManifest, mode: str) -> None:
    """VersionTaken when a ranked upload would repeat one of the owner's ranked agent versions. Run
    under the owner's lock (_lock), so two racing uploads of one version cannot both pass."""
    if not modes.is_ranked(mode):
        return
    earlier = (AgentSubmission.objects.filter(owner=owner, name=manifest.name, version=manifest.version,
                                              mode=modes.RANKED).order_by("created", "pk").first())
    if earlier is not None:
        raise VersionTaken(earlier)


def check_languages(files: SolutionFiles, language: str, hardware: list[Hardware]) -> None:
    """Every language of the solution (and the one it was declared as) can run on every chosen
    hardware's evaluators (settings.SOLARENA_TOOLCHAINS); raises UnsupportedLanguage."""
    languages = languages_of(files.files, files.entry)
    if language == "cuda" and "cuda" not in languages:
        languages.append("cuda")
    table = toolchains(settings.SOLARENA_TOOLCHAINS)
    for hw in hardware:
        check_runnable(languages, hw.slug, table)


def _store_agent(owner: AbstractBaseUser, manifest: AgentManifest, logs: dict[str, str],
                 mode: str = modes.RANKED, private: bool = False) -> AgentSubmission:
    return AgentSubmission.objects.create(
        owner=owner, name=manifest.name, version=manifest.version, model=manifest.model,
        description=manifest.description, budget_usd=manifest.budget_usd, cost_usd=manifest.cost_usd,
        tokens=manifest.tokens, tokens_input=manifest.tokens_input, tokens_output=manifest.tokens_output,
        wall_seconds=manifest.wall_seconds, logs=logs, mode=mode, private=private)


def _lock(owner: AbstractBaseUser) -> None:
    """One submission of an owner at a time, so two racing requests cannot both take the last slot
    of a limit (the owner's user row is the lock)."""
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()


PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


def submission_rate() -> tuple[int, int] | None:
    """settings.SUBMISSION_RATE ("<count>/<second|minute|hour|day>") as (count, seconds); None
    when it is empty or its count 0 (no limit)."""
    rate = settings.SUBMISSION_RATE.strip()
    if not rate:
        return None
    count, _, period = rate.partition("/")
    if not count.strip().isdigit() or period.strip() not in PERIODS:
        raise ImproperlyConfigured(f"API_THROTTLE_SUBMISSIONS={rate!r}: expected <count>/<second|minute|"
                                   "hour|day>, e.g. 20/minute")
    return (int(count), PERIODS[period.strip()]) if int(count) > 0 else None


def _check_rate(owner: AbstractBaseUser) -> None:
    """At most the rate's count of submissions per period, whichever way they come (the form, the
    API, the CLI, a bundle: each counts once), counted in the database so every web process sees
    the same figure."""
    rate = submission_rate()
    if rate is None:
        return
    limit, seconds = rate
    now = timezone.now()
    since = now - timedelta(seconds=seconds)
    alone = Submission.objects.filter(owner=owner, agent_submission=None, created__gte=since)
    bundles = AgentSubmission.objects.filter(owner=owner, created__gte=since)
    recent = sorted([*alone.values_list("created", flat=True), *bundles.values_list("created", flat=True)],
                    reverse=True)
    if len(recent) < limit:
        return
    # Free again once the limit-th latest leaves the period.
    wait = max(1, math.ceil((recent[limit - 1] + timedelta(seconds=seconds) - now).total_seconds()))
    period = _period_name(seconds)
    raise SubmittingTooFast(
        f"you have made {len(recent)} submissions in the last {period}, and at most {limit} are allowed "
        f"per {period}; try again in {wait} second{'s' if wait != 1 else ''}", wait)


def _period_name(seconds: int) -> str:
    return next(name for name, length in PERIODS.items() if length == seconds)



def counted_submissions(owner: AbstractBaseUser, problem: Problem, now: datetime | None = None,
                        ranked: bool = True) -> int:
    """The owner's submissions to the problem (any version) in the last 24 hours that count against
    the quota of ranked runs (ranked=False: of the other modes, which have their own): all but those
    whose every evaluation the platform failed."""
    since = (now or timezone.now()) - QUOTA_WINDOW
    platform_failed = Q(evaluations__state=Evaluation.FAILED) & ~Q(evaluations__error="")
    rows = Submission.objects.filter(owner=owner, problem__name=problem.name, created__gte=since)
    rows = rows.filter(mode=modes.RANKED) if ranked else rows.exclude(mode=modes.RANKED)
    return rows.annotate(counted=Count("evaluations", filter=~platform_failed)).filter(counted__gt=0).count()


def _check_quota(owner: AbstractBaseUser, problem: Problem, mode: str = modes.RANKED) -> None:
    ranked = modes.is_ranked(mode)
    if ranked:
        limit, kind = settings.SUBMISSIONS_PER_PROBLEM_PER_DAY, "submissions to"
    else:
        limit, kind = settings.SOLARENA_PRIVATE_RUNS_PER_PROBLEM_PER_DAY, "test and benchmark runs of"
    if limit <= 0:  # no quota
        return
    if counted_submissions(owner, problem, ranked=ranked) >= limit:
        raise QuotaExceeded(
            f"you have made {limit} {kind} {problem.name} in the last 24 hours, the most "
            "allowed; each one counts for 24 hours after it was made, so try again later")


def in_flight(owner: AbstractBaseUser) -> int:
    """The owner's evaluations queued or running now (finished, failed and cancelled ones are not;
    nor the platform's own runs: rescores under a newer harness, confirmation runs of leaders)."""
    pending = (Evaluation.QUEUED, Evaluation.RUNNING)
    return counted().filter(submission__owner=owner, state__in=pending).count()


def _check_in_flight(owner: AbstractBaseUser, adding: int, what: str = "this submission") -> None:
    limit = settings.SOLARENA_MAX_CONCURRENT_EVALUATIONS
    if limit <= 0:  # no limit
        return
    current = in_flight(owner)
    if current + adding > limit:
        raise TooManyInFlight(
            f"you have {current} evaluation{'s' if current != 1 else ''} queued or running and {what} "
            f"would add {adding}, over the limit of {limit} at once; submit again when some have "
            "finished (or cancel queued ones)")


def set_published(submission: Submission, published: bool) -> Submission:
    """The owner makes the sources public, or private again (submissions.visibility)."""
    Submission.objects.filter(pk=submission.pk).update(published=published)
    submissions_changed(submission.pk, agents=submission.agent_submission_id is not None)
    submission.published = published
    return submission


def cancel_submission(submission: Submission) -> int:
    """Cancel the submission's evaluations that no worker has claimed yet; returns how many.
    Raises NotCancellable when none is left queued (running and finished ones stay as they are; the
    platform's own runs, rescores and confirmations, are not the owner's to cancel)."""
    cancelled = counted().filter(submission=submission, state=Evaluation.QUEUED).update(
        state=Evaluation.CANCELLED, finished_at=timezone.now(), lease_until=None)
    submissions_changed(submission.pk, agents=submission.agent_submission_id is not None)
    if cancelled == 0:
        raise NotCancellable(f"submission #{submission.pk} has no queued evaluation left to cancel: "
                             "a worker has already started or finished every one")
    return cancelled
