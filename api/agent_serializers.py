"""The agent board, an upload's results and two uploads compared, as the API gives them: the figures
of submissions.agent_results (defined in docs/scoring.md, "Agent suites"), built as plain documents
by api/agents.py."""

from __future__ import annotations

from rest_framework import serializers

TIMING_NOTE_HELP = "what this hardware's times are not (the CPU's: no GPU timing); empty for a GPU"
FIGURE_HELP = {
    "problems": "problems in the suite: the current ones (of the task type), or those the upload solved "
                "where more",
    "attempted": "problems the upload has a solution for",
    "solved": "problems with a valid score (scored, not a reward hack, some workload passed)",
    "solved_visible": "problems that passed every visible workload",
    "solved_all": "problems that passed every workload, visible and hidden",
    "score": "the suite score: mean over the suite of the problems' scores, left-out and invalid ones 0",
    "visible_score": "the same mean of the visible scores",
    "hidden_score": "the same mean of the hidden scores",
    "generalization_gap": "visible_score - hidden_score: correctness and speed together",
    "correctness_gap": "mean over the solved problems of (share of visible workloads passed - share of "
                       "hidden ones passed): the failures to generalize",
    "speed_gap": "mean over the solved problems of (mean score of the passed visible workloads - that of the "
                 "passed hidden ones): slower on unseen shapes, not wrong",
    "conditional_correctness": "mean over the solved problems of the share of hidden workloads passed where "
                               "every visible one passed",
}


class SuiteFiguresSerializer(serializers.Serializer):
    problems = serializers.IntegerField(help_text=FIGURE_HELP["problems"])
    attempted = serializers.IntegerField(help_text=FIGURE_HELP["attempted"])
    solved = serializers.IntegerField(help_text=FIGURE_HELP["solved"])
    solved_visible = serializers.IntegerField(help_text=FIGURE_HELP["solved_visible"])
    solved_all = serializers.IntegerField(help_text=FIGURE_HELP["solved_all"])
    score = serializers.FloatField(help_text=FIGURE_HELP["score"])
    visible_score = serializers.FloatField(help_text=FIGURE_HELP["visible_score"])
    hidden_score = serializers.FloatField(help_text=FIGURE_HELP["hidden_score"])
    generalization_gap = serializers.FloatField(help_text=FIGURE_HELP["generalization_gap"])
    correctness_gap = serializers.FloatField(allow_null=True, help_text=FIGURE_HELP["correctness_gap"])
    speed_gap = serializers.FloatField(allow_null=True, help_text=FIGURE_HELP["speed_gap"])
    conditional_correctness = serializers.FloatField(allow_null=True,
                                                     help_text=FIGURE_HELP["conditional_correctness"])


class TaskTypeFiguresSerializer(SuiteFiguresSerializer):
    task_type = serializers.CharField()


USAGE_HELP = ("what the agent spent on this problem, as the manifest's `problems` says; null where it "
              "does not")


class ProblemResultSerializer(serializers.Serializer):
    """One problem of the suite in an upload on one hardware; a left-out one scores 0."""

    problem = serializers.CharField(help_text="its name, as written")
    problem_slug = serializers.CharField()
    task_type = serializers.CharField()
    submission = serializers.IntegerField(allow_null=True, help_text="the solution's submission id; null: "
                                                                     "left out of the bundle")
    outcome = serializers.CharField(help_text='what happened, in the pages\' words; "left out" when the '
                                              "bundle has no solution of it")
    valid = serializers.BooleanField(help_text="a valid score: scored, not a reward hack, some workload "
                                               "passed")
    score = serializers.FloatField(help_text="0 unless valid")
    visible_score = serializers.FloatField(allow_null=True)
    hidden_score = serializers.FloatField(allow_null=True)
    visible_passed = serializers.IntegerField()
    visible_total = serializers.IntegerField()
    hidden_passed = serializers.IntegerField()
    hidden_total = serializers.IntegerField()
    conditional_correctness = serializers.FloatField(allow_null=True)
    solved_visible = serializers.BooleanField()
    solved_all = serializers.BooleanField()
    generalization_gap = serializers.FloatField(allow_null=True)
    correctness_gap = serializers.FloatField(allow_null=True, help_text="share of visible workloads passed "
                                                                        "- share of hidden ones passed")
    speed_gap = serializers.FloatField(allow_null=True, help_text=(
        "mean score of the passed visible workloads - that of the passed hidden ones"))
    cost_usd = serializers.FloatField(allow_null=True, help_text=USAGE_HELP)
    tokens_input = serializers.IntegerField(allow_null=True, help_text=USAGE_HELP)
    tokens_output = serializers.IntegerField(allow_null=True, help_text=USAGE_HELP)
    wall_seconds = serializers.FloatField(allow_null=True, help_text=USAGE_HELP)


class HardwareResultsSerializer(serializers.Serializer):
    hardware = serializers.CharField()
    timing_note = serializers.CharField(help_text=TIMING_NOTE_HELP)
    status = serializers.CharField(help_text="queued, running or done: the figures are final once done")
    suite = SuiteFiguresSerializer()
    task_types = TaskTypeFiguresSerializer(many=True)
    missing_problems = serializers.ListField(child=serializers.CharField(),
                                             help_text="the suite's problems the bundle left out (each 0)")
    problems = ProblemResultSerializer(many=True)


class UploadResultsSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="the agent submission's id")
    agent = serializers.CharField(help_text="the manifest's name")
    version = serializers.CharField()
    model = serializers.CharField()
    user = serializers.CharField(help_text="who uploaded it")
    mode = serializers.CharField()
    private = serializers.BooleanField(help_text="kept to its owner (and the admins) until published")
    created = serializers.DateTimeField()
    cost_usd = serializers.FloatField(allow_null=True)
    budget_usd = serializers.FloatField(allow_null=True)
    tokens = serializers.IntegerField(allow_null=True)
    tokens_input = serializers.IntegerField(allow_null=True, help_text="of `tokens`, those read")
    tokens_output = serializers.IntegerField(allow_null=True, help_text="of `tokens`, those written")
    wall_seconds = serializers.FloatField(allow_null=True)
    hardware = HardwareResultsSerializer(many=True)


class AgentDocumentSerializer(serializers.Serializer):
    user = serializers.CharField()
    agent = serializers.CharField()
    uploads = UploadResultsSerializer(many=True, help_text="newest first")


class AgentRowSerializer(SuiteFiguresSerializer):
    """One upload's row of an agent board: who, what it spent, its suite figures."""

    rank = serializers.IntegerField(help_text="its place on the agent board")
    agent = serializers.CharField()
    version = serializers.CharField()
    model = serializers.CharField()
    user = serializers.CharField()
    team = serializers.CharField()
    agent_submission = serializers.IntegerField(help_text="the upload's id")
    submitted_at = serializers.DateTimeField(help_text="when it was uploaded (ties go earlier)")
    cost_usd = serializers.FloatField(allow_null=True, help_text="what the run cost, as its manifest says")
    tokens = serializers.IntegerField(allow_null=True, help_text=(
        "the tokens it used, as its manifest says (input + output where only those are given)"))
    tokens_input = serializers.IntegerField(allow_null=True)
    tokens_output = serializers.IntegerField(allow_null=True)
    wall_seconds = serializers.FloatField(allow_null=True)


class AgentBoardEntrySerializer(AgentRowSerializer):
    task_types = TaskTypeFiguresSerializer(many=True, help_text="the same figures over each task type")
    missing_problems = serializers.ListField(child=serializers.CharField())
    results = ProblemResultSerializer(many=True, required=False, help_text=(
        "every problem of the suite (left-out ones too), with ?problems=1 only"))


class AgentBoardSerializer(serializers.Serializer):
    hardware = serializers.CharField()
    timing_note = serializers.CharField(help_text=TIMING_NOTE_HELP)
    task_type = serializers.CharField(allow_null=True, help_text="the task type the figures are over")
    problems = serializers.IntegerField(help_text="problems in the suite (of the task type)")
    entries = AgentBoardEntrySerializer(many=True)


class FigureDeltasSerializer(serializers.Serializer):
    """b minus a for each suite figure; null where either has none."""

    score = serializers.FloatField(allow_null=True)
    visible_score = serializers.FloatField(allow_null=True)
    hidden_score = serializers.FloatField(allow_null=True)
    generalization_gap = serializers.FloatField(allow_null=True)
    correctness_gap = serializers.FloatField(allow_null=True)
    speed_gap = serializers.FloatField(allow_null=True)
    conditional_correctness = serializers.FloatField(allow_null=True)
    solved = serializers.IntegerField(allow_null=True)
    solved_visible = serializers.IntegerField(allow_null=True)
    solved_all = serializers.IntegerField(allow_null=True)
    attempted = serializers.IntegerField(allow_null=True)
    problems = serializers.IntegerField(allow_null=True)


class ComparedUploadSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    agent = serializers.CharField()
    version = serializers.CharField()
    model = serializers.CharField()
    user = serializers.CharField()
    status = serializers.CharField()
    suite = SuiteFiguresSerializer()


class ComparedTaskTypeSerializer(serializers.Serializer):
    task_type = serializers.CharField()
    a = SuiteFiguresSerializer(allow_null=True)
    b = SuiteFiguresSerializer(allow_null=True)
    delta = FigureDeltasSerializer()


BETTER_HELP = ('"a" or "b": the one that ranks higher on the problem by the boards\' rule (correct on every '
               "workload first, then the score); null where they stand level")


class ComparedProblemSerializer(serializers.Serializer):
    problem = serializers.CharField()
    task_type = serializers.CharField()
    a = ProblemResultSerializer(allow_null=True, help_text="null: neither in a's suite nor solved by it")
    b = ProblemResultSerializer(allow_null=True)
    score_delta = serializers.FloatField(help_text="b's score - a's, left-out or invalid ones 0")
    visible_delta = serializers.FloatField()
    hidden_delta = serializers.FloatField()
    change = serializers.CharField(help_text='e.g. "visible only -> all workloads", or "same"')
    better = serializers.CharField(allow_null=True, help_text=BETTER_HELP)


class AgentComparisonSerializer(serializers.Serializer):
    hardware = serializers.CharField()
    timing_note = serializers.CharField(help_text=TIMING_NOTE_HELP)
    a = ComparedUploadSerializer()
    b = ComparedUploadSerializer()
    delta = FigureDeltasSerializer(help_text="b minus a over the suite")
    better = serializers.CharField(allow_null=True, help_text=(
        '"a" or "b": the one that ranks higher over the suite by the agent board\'s rule (an upload '
        "with a problem that failed some workload below one whose problems passed them all, then the "
        "suite score); null where they stand level"))
    improved = serializers.IntegerField(help_text="problems b ranks above a on: correct first, then score")
    worse = serializers.IntegerField(help_text="problems b ranks below a on")
    task_types = ComparedTaskTypeSerializer(many=True)
    problems = ComparedProblemSerializer(many=True)


class FrontierEntrySerializer(AgentRowSerializer):
    on_frontier = serializers.BooleanField()


class AgentFrontierSerializer(serializers.Serializer):
    hardware = serializers.CharField()
    timing_note = serializers.CharField(help_text=TIMING_NOTE_HELP)
    problems = serializers.IntegerField(help_text="problems in the suite")
    frontier = FrontierEntrySerializer(many=True, help_text=(
        "the uploads no other beats on both counts (a suite score at least as high for at most the cost), "
        "cheapest first"))
    dominated = FrontierEntrySerializer(many=True, help_text="the other uploads with a cost, in rank order")
    no_cost = FrontierEntrySerializer(many=True, help_text=(
        "the uploads whose manifest gives no cost, in rank order: not compared"))


class ToolCallSerializer(serializers.Serializer):
    name = serializers.CharField(allow_blank=True)
    arguments = serializers.CharField(allow_blank=True, help_text="as written when text, else its JSON")


class TrajectoryStepSerializer(serializers.Serializer):
    """One line of a trajectory (docs/agent-bundles.md, "Trajectories"): every text as written, whole."""

    line = serializers.IntegerField(help_text="its line in the log, from 1 (blank lines are no steps)")
    role = serializers.CharField(allow_blank=True, help_text="system, user, assistant, tool, ...")
    content = serializers.CharField(allow_blank=True)
    tool_calls = ToolCallSerializer(many=True)
    result = serializers.CharField(allow_null=True,
                                   help_text="the line's tool_result (or result); null: none")
    problem = serializers.CharField(allow_blank=True, help_text='why the line is no step, e.g. "line 7 is '
                                                                'not JSON (...)"; empty for a step')
    raw = serializers.CharField(allow_blank=True, help_text="the line as written, where it is no step")


class TrajectorySerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="the agent submission's id")
    agent = serializers.CharField()
    version = serializers.CharField()
    user = serializers.CharField()
    log = serializers.CharField(help_text="the log's path in the bundle")
    steps = TrajectoryStepSerializer(many=True)
