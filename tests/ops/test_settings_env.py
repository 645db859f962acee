"""Settings come from the environment strictly (solarena/env.py), and the server-less broker keeps
all its files under the broker's folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from solarena import env
from tests.conftest import ROOT

SPELLINGS = [("1", True), ("TRUE", True), (" yes ", True), ("on", True),
             ("0", False), ("False", False), ("no", False), ("off", False)]


@pytest.mark.parametrize(("value", "expected"), SPELLINGS)
def test_booleans_in_every_spelling(monkeypatch: pytest.MonkeyPatch, value: str, expected: bool) -> None:
    monkeypatch.setenv("SOLARENA_X", value)
    assert env.env_bool("SOLARENA_X", not expected) is expected


@pytest.mark.parametrize("value", ["ture", "", "2", "enabled"])
def test_a_bad_boolean_is_an_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("SOLARENA_X", value)
    with pytest.raises(env.SettingError, match=f"SOLARENA_X={value!r} is not a boolean"):
        env.env_bool("SOLARENA_X", False)


@pytest.mark.parametrize(("read", "value", "words"), [(env.env_int, "12k", "not a whole number"),
                                                      (env.env_int, "1.5", "not a whole number"),
                                                      (env.env_int, "", "not a whole number"),
                                                      (env.env_float, "two", "not a number")])
def test_a_bad_number_is_an_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch, read, value: str,
                                                      words: str) -> None:
    monkeypatch.setenv("SOLARENA_X", value)
    with pytest.raises(env.SettingError, match=f"SOLARENA_X={value!r} is {words}"):
        read("SOLARENA_X", 1)


def test_unset_variables_take_their_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOLARENA_X", raising=False)
    assert env.env_bool("SOLARENA_X", True) is True
    assert env.env_int("SOLARENA_X", 7) == 7
    assert env.env_float("SOLARENA_X", 0.5) == 0.5
    monkeypatch.setenv("SOLARENA_X", " 42 ")
    assert env.env_int("SOLARENA_X", 7) == 42


def _django(code: str, cwd: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL")}
    environ |= {"PYTHONPATH": str(ROOT), "DJANGO_SETTINGS_MODULE": "solarena.settings", **variables}
    return subprocess.run([sys.executable, "-c", f"import django; django.setup()\n{code}"], cwd=cwd,
                          env=environ, capture_output=True, text=True, timeout=120)


def test_the_server_will_not_start_with_a_misspelt_flag(tmp_path: Path) -> None:
    run = _django("", tmp_path, SOLARENA_TRUSTED_WORKER="ture", SOLARENA_VAR_DIR=str(tmp_path / "var"))
    assert run.returncode != 0
    assert "SOLARENA_TRUSTED_WORKER='ture' is not a boolean" in run.stderr


def test_the_serverless_broker_keeps_its_exchange_tables_under_its_folder(tmp_path: Path) -> None:
    """kombu's filesystem transport writes its exchange tables to ./control unless told otherwise:
    in whatever folder a worker was started, the checkout's too."""
    code = """
from pathlib import Path
from django.conf import settings
for folder in settings.CELERY_BROKER_TRANSPORT_OPTIONS.values():
    if isinstance(folder, str):
        Path(folder).mkdir(parents=True, exist_ok=True)
from solarena.celery import app
app.send_task("evaluator.tasks.evaluate", args=[1], queue="hw.cpu")
"""
    run = _django(code, tmp_path, SOLARENA_VAR_DIR=str(tmp_path / "var"))
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "control").exists()
    assert (tmp_path / "var" / "broker" / "control" / "hw.cpu.exchange").is_file()
