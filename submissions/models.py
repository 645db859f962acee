"""What participants send: a solution's sources for one problem."""

from __future__ import annotations

from django.conf import settings
from django.db import models

LANGUAGES = [("python", "PyTorch"), ("triton", "Triton"), ("cuda", "CUDA C++")]


class Submission(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="submissions")
    problem = models.ForeignKey("leaderboard.Problem", on_delete=models.PROTECT,
                                related_name="submissions")
    language = models.CharField(max_length=16, choices=LANGUAGES)
    sources = models.JSONField(help_text="file name -> text")
    entry = models.CharField(max_length=200, help_text="the file the harness loads")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["owner", "-created"], name="submissions_by_owner")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.problem} by {self.owner}"
