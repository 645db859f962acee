"""The manifest's usage figures read from a bundle (submissions/bundles.py, docs/agent-bundles.md):
tokens read and written beside the total, and per problem the cost, tokens and wall time; each bad
value refused with a message naming the key and, inside `problems`, the problem. No database."""

from __future__ import annotations

from typing import Any

import pytest

from submissions.bundles import ProblemUsage, read_bundle
from tests.platform.test_agent_bundles import bundle_with, make_zip, manifest, refused

USAGE = {"softmax": {"cost_usd": 1.2, "tokens_input": 1000, "tokens_output": 300, "wall_seconds": 95},
         "gemm": {"cost_usd": 3}}


def with_manifest(**changes: Any) -> bytes:
    return make_zip(bundle_with({"manifest.json": manifest(**changes)}))


def test_the_usage_is_read_per_problem_and_for_the_run() -> None:
    bundle = read_bundle(with_manifest(tokens=1_200_000, tokens_input=900_000, tokens_output=250_000,
                                       problems=USAGE), "agent.zip")
    assert (bundle.manifest.tokens_input, bundle.manifest.tokens_output) == (900_000, 250_000)
    assert bundle.manifest.problems == {"softmax": ProblemUsage(1.2, 1000, 300, 95), "gemm": ProblemUsage(3)}
    assert bundle.manifest.problems["gemm"].to_dict() == {"cost_usd": 3}
    plain = read_bundle(with_manifest(), "agent.zip").manifest
    assert (plain.tokens_input, plain.tokens_output, plain.problems) == (None, None, {})


def test_whole_tokens_given_as_floats_are_kept_as_whole_numbers() -> None:
    found = read_bundle(with_manifest(tokens_input=10.0, problems={"softmax": {"tokens_output": 5.0}}),
                        "agent.zip").manifest
    assert found.tokens_input == 10 and isinstance(found.tokens_input, int)
    output = found.problems["softmax"].tokens_output
    assert output == 5 and isinstance(output, int)


@pytest.mark.parametrize(("changes", "message"), [
    ({"tokens_input": -1}, "manifest.json: 'tokens_input' must be >= 0, not -1"),
    ({"tokens_output": 2.5}, "manifest.json: 'tokens_output' must be a whole number"),
    ({"tokens_input": "many"}, "manifest.json: 'tokens_input' must be a number"),
    ({"tokens": 1000, "tokens_input": 800, "tokens_output": 300},
     "manifest.json: 'tokens' (1000) is less than 'tokens_input' + 'tokens_output' (1100); 'tokens' is the "
     "total"),
    ({"problems": ["softmax"]}, "manifest.json: 'problems' must be an object: problem -> its 'cost_usd', "
                                "'tokens_input', 'tokens_output', 'wall_seconds'"),
    ({"problems": {"softmax": 1.5}}, "manifest.json: problems['softmax']: must be an object with any of "
                                     "'cost_usd', 'tokens_input', 'tokens_output', 'wall_seconds'"),
    ({"problems": {"softmax": {"cost": 1}}},
     "manifest.json: problems['softmax']: unknown key(s) 'cost'; the keys are 'cost_usd', 'tokens_input', "
     "'tokens_output', 'wall_seconds'"),
    ({"problems": {"softmax": {"wall_seconds": -3}}},
     "manifest.json: problems['softmax']: 'wall_seconds' must be >= 0, not -3"),
    ({"problems": {"softmax": {"tokens_input": 1.5}}},
     "manifest.json: problems['softmax']: 'tokens_input' must be a whole number"),
    ({"problems": {"softmax": {"cost_usd": True}}},
     "manifest.json: problems['softmax']: 'cost_usd' must be a number"),
    ({"problems": {"softmx": {"cost_usd": 1}}},
     "manifest.json: 'problems' names 'softmx', which the bundle has no solution for (its solutions: 'gemm', "
     "'rmsnorm', 'softmax')"),
    ({"cost_usd": 4, "problems": {"softmax": {"cost_usd": 3}, "gemm": {"cost_usd": 1.5}}},
     "manifest.json: the problems' 'cost_usd' add up to 4.5, more than the run's 'cost_usd' (4); 'problems' "
     "splits the run's figures"),
    ({"tokens_output": 100, "problems": {"softmax": {"tokens_output": 101}}},
     "manifest.json: the problems' 'tokens_output' add up to 101, more than the run's 'tokens_output' (100)"),
    ({"tokens": 1000, "problems": {"softmax": {"tokens_input": 900}, "gemm": {"tokens_output": 200}}},
     "manifest.json: the problems' 'tokens_input' + 'tokens_output' add up to 1100, more than the run's "
     "'tokens' (1000)"),
])
def test_bad_usage_is_refused_naming_the_key(changes: dict[str, Any], message: str) -> None:
    assert message in refused(with_manifest(**changes))


def test_sums_within_rounding_and_wall_times_that_overlap_are_accepted() -> None:
    # 0.1 + 0.2 is 0.30000000000000004 in floating point; problems may run side by side
    found = read_bundle(with_manifest(cost_usd=0.3, wall_seconds=60, problems={
        "softmax": {"cost_usd": 0.1, "wall_seconds": 60}, "gemm": {"cost_usd": 0.2, "wall_seconds": 60}}),
        "agent.zip").manifest
    assert found.cost_usd == 0.3 and found.problems["gemm"].cost_usd == 0.2


def test_a_repeated_problem_in_problems_is_refused() -> None:
    text = manifest().rstrip("}") + ', "problems": {"softmax": {}, "softmax": {"cost_usd": 1}}}'
    found = refused(make_zip(bundle_with({"manifest.json": text})))
    assert found == "manifest.json: key 'softmax' appears twice"
