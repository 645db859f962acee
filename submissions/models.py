"""What participants send: a solution's sources for one problem, and an agent's bundle of them."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evaluator import modes

LANGUAGES = [("python", "PyTorch"), ("triton", "Triton"), ("cuda", "CUDA C++")]


class AgentSubmission(models.Model):
    """One uploaded agent bundle (docs/agent-bundles.md): the manifest and logs; its solutions are
    the Submissions that point here, one per problem."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="agent_submissions")
    name = models.CharField(max_length=100, help_text="the agent's name, from the manifest")
    version = models.CharField(max_length=100)
    model = models.CharField(max_length=200, help_text="the model behind the agent")
    description = models.TextField(blank=True)
    budget_usd = models.FloatField(null=True, blank=True)
    cost_usd = models.FloatField(null=True, blank=True)
    tokens = models.PositiveBigIntegerField(null=True, blank=True)
    tokens_input = models.PositiveBigIntegerField(null=True, blank=True, help_text="of `tokens`, those read")
    tokens_output = models.PositiveBigIntegerField(null=True, blank=True,
                                                   help_text="of `tokens`, those written")
    wall_seconds = models.FloatField(null=True, blank=True)
    logs = models.JSONField(default=dict, blank=True, help_text="path in the bundle -> text")
    mode = models.CharField(max_length=12, choices=modes.MODES, default=modes.RANKED,
                            help_text="every solution's (evaluator/modes.py): only ranked uploads are on the "
                                      "agent board")
    private = models.BooleanField(default=False,
                                  help_text="its owner's and the admins' alone, on no board, until published")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["owner", "-created"], name="agent_submissions_by_owner")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.name} {self.version} by {self.owner}"


class Submission(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="submissions")
    problem = models.ForeignKey("leaderboard.Problem", on_delete=models.PROTECT,
                                related_name="submissions")
    language = models.CharField(max_length=16, choices=LANGUAGES)
    sources = models.JSONField(help_text="file name -> text")
    entry = models.CharField(max_length=200, help_text="the file the harness loads")
    agent_submission = models.ForeignKey(AgentSubmission, null=True, blank=True, on_delete=models.CASCADE,
                                         related_name="submissions",
                                         help_text="the agent bundle this solution came in, if any")
    published = models.BooleanField(default=False,
                                    help_text="the owner has made the sources public")
    agent_usage = models.JSONField(default=dict, blank=True,
                                   help_text="what the agent spent on this problem, from its bundle's "
                                             "manifest (cost_usd, tokens_input, tokens_output, wall_seconds)")
    mode = models.CharField(max_length=12, choices=modes.MODES, default=modes.RANKED,
                            help_text="what it is for (evaluator/modes.py): only ranked runs are "
                                      "on the boards")
    workload = models.CharField(max_length=200, blank=True, default="", db_default="",
                                help_text="a profile run's one visible workload (its uuid), run on every "
                                          "hardware whatever its size; empty: every visible workload")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["owner", "-created"], name="submissions_by_owner")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.problem} by {self.owner}"
