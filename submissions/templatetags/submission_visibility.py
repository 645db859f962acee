"""`{% load submission_visibility %}` then `{% if submission|source_visible_to:user %}`."""

from __future__ import annotations

from typing import Any

from django import template

from submissions.models import Submission
from submissions.visibility import can_view_source

register = template.Library()


@register.filter
def source_visible_to(submission: Submission, user: Any) -> bool:
    return can_view_source(user, submission)
