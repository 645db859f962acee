"""The browser's submission form: the same checks as the API (evaluator.jobs), as form errors."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from evaluator import modes, workers
from evaluator.jobs import SolutionError, SolutionFiles, SourceTooLarge, check_size
from evaluator.toolchains import infer_language
from leaderboard.models import Hardware, Problem

from .bundles import AgentManifest
from .models import LANGUAGES, AgentSubmission
from .services import WorkloadRefused, check_workload

PASTED_NAME = "solution.py"
AGENT_FIELDS = ("agent_name", "agent_version", "agent_model")


def _max_length(field: str) -> int:
    return AgentSubmission._meta.get_field(field).max_length


class ProblemChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Problem) -> str:
        return f"{obj.name} (v{obj.version})"


class HardwareCheckboxes(forms.CheckboxSelectMultiple):
    """A checkbox per hardware; those in `unserved` are shown but cannot be ticked."""

    unserved: frozenset[str] = frozenset()

    def create_option(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(*args, **kwargs)
        if str(option["value"]) in self.unserved:
            option["attrs"]["disabled"] = True
        return option


class HardwareChoice(forms.ModelMultipleChoiceField):
    """Each hardware with whether a worker serves it now (evaluator/workers.py), read once per form:
    one that no worker serves, nor is expected to, is disabled (a submission to it is refused)."""

    widget = HardwareCheckboxes

    def label_from_instance(self, obj: Hardware) -> str:
        return f"{obj.name} ({obj.slug}): {self.states()[obj.slug].text}"

    def states(self) -> dict[str, workers.Availability]:
        if not hasattr(self, "_states"):
            self._states = workers.availability(self.queryset)
            self.widget.unserved = frozenset(slug for slug, found in self._states.items()
                                             if found.state == workers.OFFLINE)
        return self._states


class SubmissionForm(forms.Form):
    """A solution as one uploaded file (.py or solution.json) or as pasted Python code; exactly one."""

    problem = ProblemChoice(queryset=Problem.objects.filter(is_current=True).order_by("name"),
                            to_field_name="slug", empty_label=None,
                            help_text="its current version is evaluated")
    hardware = HardwareChoice(queryset=Hardware.objects.filter(active=True).order_by("slug"),
                              to_field_name="slug", help_text="one evaluation is queued on each")
    language = forms.ChoiceField(choices=[("", "infer it from the sources"), *LANGUAGES], required=False,
                                 help_text="left to infer: cuda when a solution.json names C++, triton when "
                                 "the code imports triton, else python")
    mode = forms.ChoiceField(choices=modes.MODES, initial=modes.RANKED, widget=forms.RadioSelect,
                             required=False,
                             help_text="test and benchmark runs are private, never ranked, and go first")
    workload = forms.CharField(required=False, max_length=200, label="Workload to profile",
                               help_text="optional, profile mode only: the uuid of one visible workload "
                               "(listed on the problem's page), profiled alone on every hardware")
    file = forms.FileField(required=False, label="Upload a file",
                           help_text='a .py solution or a <a href="/docs/solution-format/">solution.json</a>')
    code = forms.CharField(required=False, strip=False, label="or paste the code",
                           widget=forms.Textarea(attrs={"rows": 16, "cols": 90, "spellcheck": "false"}),
                           help_text=f"stored as {PASTED_NAME}, the file the harness loads")
    agent_name = forms.CharField(required=False, max_length=_max_length("name"), label="Agent name",
                                 help_text="optional: the agent that wrote the solution; give its name, "
                                 "version and model together to count it on the agent board")
    agent_version = forms.CharField(required=False, max_length=_max_length("version"), label="Agent version")
    agent_model = forms.CharField(required=False, max_length=_max_length("model"), label="Agent model",
                                  help_text="the model behind the agent")
    agent_private = forms.BooleanField(required=False, label="Keep it private until I publish it",
                                       help_text="the agent's upload is yours and the admins' alone, on no "
                                       "board, until you press Publish on its agent page")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["hardware"].states()  # before the checkboxes render: which to disable

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        self._clean_agent(data)
        if self.has_error("file") or self.has_error("code"):  # e.g. Django's own "the file is empty"
            return data
        upload, code = data.get("file"), data.get("code") or ""
        if (upload is None) == (not code):
            self.add_error("file", "give either a file or pasted code, not both and not neither")
            return data
        limit = settings.SOLARENA_MAX_SOURCE_BYTES
        field = "file" if upload is not None else "code"
        try:
            if upload is not None:
                check_size(upload.size, upload.name, limit)  # before reading any of it
                data["files"] = SolutionFiles.from_upload(upload.name, upload.read(), limit,
                                                          settings.SOLARENA_MAX_SOURCE_FILES)
            else:  # browsers send a textarea's line ends as CRLF
                data["files"] = SolutionFiles.from_sources({PASTED_NAME: code.replace("\r\n", "\n")},
                                                           PASTED_NAME, limit)
        except SourceTooLarge as exc:
            self.add_error(None, str(exc))
        except SolutionError as exc:
            self.add_error(field, str(exc))
        data["mode"] = data.get("mode") or modes.RANKED  # left out: a ranked run, as before modes
        data["workload"] = (data.get("workload") or "").strip()
        if data.get("problem") is not None:
            try:
                check_workload(data["problem"], data["mode"], data["workload"])
            except WorkloadRefused as exc:
                self.add_error("workload", str(exc))
        agent_errors = any(map(self.has_error, AGENT_FIELDS))
        if data.get("agent_private") and data.get("agent") is None and not agent_errors:
            self.add_error("agent_private", "only a solution sent with an agent (its name, version and "
                                            "model) can be kept private until published")
        if data.get("agent") is not None and data["mode"] != modes.RANKED:
            self.add_error("mode", "a solution sent with an agent is a ranked run (it counts on the agent "
                                   "board)")
        if "files" in data and not data.get("language"):
            data["language"] = infer_language(data["files"].files, data["files"].entry)
        return data

    def _clean_agent(self, data: dict[str, Any]) -> None:
        """The agent fields come all together or not at all; `agent` is their manifest, or None."""
        data["agent"] = None
        if any(self.has_error(name) for name in AGENT_FIELDS):
            return
        values = {name: (data.get(name) or "").strip() for name in AGENT_FIELDS}
        if not any(values.values()):
            return
        missing = [name for name, value in values.items() if not value]
        for name in missing:
            self.add_error(name, "give the agent's name, version and model together, or none of them")
        if not missing:
            data["agent"] = AgentManifest(name=values["agent_name"], version=values["agent_version"],
                                          model=values["agent_model"])
