"""Every operation of /api/v1/schema/, fuzzed by schemathesis through the Django WSGI app, signed in
with a token and anonymous: no input gets a server error, and every answer conforms to the schema
(the bodies of its documented status codes, its content types).

Knobs for benchmarks/fuzz_api.py's long run: SOLARENA_FUZZ_EXAMPLES (examples per operation and
caller; 25 by default, so CI stays bounded), SOLARENA_FUZZ_SEED (a fixed seed; by default the run
is derandomized, the same every time) and SOLARENA_FUZZ_LOG (a file each call's status is appended
to as a JSON line)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.conf import LazySettings
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from tests.fuzz.support import Known, known_objects

EXAMPLES = int(os.environ.get("SOLARENA_FUZZ_EXAMPLES", "25"))
SEED = os.environ.get("SOLARENA_FUZZ_SEED")
LOG = os.environ.get("SOLARENA_FUZZ_LOG")
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=SEED is None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.filter_too_much])

# Read from the app itself at collection: one test per operation and caller.
schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", get_wsgi_application())


@pytest.fixture(autouse=True)
def app_in_this_transaction(db: Any, settings: LazySettings) -> Iterator[None]:
    # The limits answer 429 soon and would hide the code behind them; they have their own tests.
    settings.SUBMISSIONS_PER_PROBLEM_PER_DAY = 0
    settings.SOLARENA_MAX_CONCURRENT_EVALUATIONS = 0
    # As Django's test client does: the end of a request must not close the connection that holds
    # this test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def known(db: Any) -> Known:
    return known_objects()


def call_and_validate(case: schemathesis.Case, aim: bool, known: Known, caller: str) -> None:
    cache.clear()  # throttle counters: each example starts below every rate
    if aim:
        # Half the examples name objects that exist, so the code past the look-ups is reached too.
        if case.path_parameters:
            case.path_parameters = {name: known.path_value(case.operation.path, name, value)
                                    for name, value in case.path_parameters.items()}
        if isinstance(case.body, dict):
            case.body = known.aimed_body(case.body)
    headers = {"Authorization": f"Bearer {known.token}"} if caller == "token" else {}
    response = case.call(headers=headers)
    if LOG:
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps({"operation": f"{case.method.upper()} {case.operation.path}",
                                  "caller": caller, "status": response.status_code}) + "\n")
    case.validate_response(response, checks=CHECKS, headers=headers)


def _seeded(test: Any) -> Any:
    return seed(int(SEED))(test) if SEED is not None else test


@schema.parametrize()
@schema.given(aim=st.booleans())
@FUZZ
@_seeded
def test_api_operation_signed_in(case: schemathesis.Case, aim: bool, known: Known) -> None:
    call_and_validate(case, aim, known, "token")


@schema.parametrize()
@schema.given(aim=st.booleans())
@FUZZ
@_seeded
def test_api_operation_anonymous(case: schemathesis.Case, aim: bool, known: Known) -> None:
    call_and_validate(case, aim, known, "anonymous")
