"""Problem names are data kept as written; the slug made from one is URL-safe, deterministic, and
the name itself for every name in our older, strict form."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from evaluator.harness.names import NAME_MAX, SLUG_MAX, slug_of, why_not_a_name

SLUG = re.compile(r"[a-z0-9_]+(-[a-z0-9_]+)*")


def test_sol_execbench_names_get_readable_slugs() -> None:
    assert slug_of("black-forest-labs_FLUX.1-schnell_flux_rope_apply_rotation") == \
        "black-forest-labs_flux-1-schnell_flux_rope_apply_rotation"
    assert slug_of("google_gemma-3-12b-it_gemma3_fused_gate_up_projection_with_swiglu") == \
        "google_gemma-3-12b-it_gemma3_fused_gate_up_projection_with_swiglu"
    assert slug_of("nvidia_Llama-3.3-Nemotron-70B-Select_rms_norm") == \
        "nvidia_llama-3-3-nemotron-70b-select_rms_norm"


def test_runs_of_other_characters_become_one_dash_trimmed_at_the_ends() -> None:
    assert slug_of("  Fused (Add) + RMSNorm!! ") == "fused-add-rmsnorm"
    assert slug_of("a..b//c") == "a-b-c"
    assert slug_of("Ünïcödé Naïve café") == "unicode-naive-cafe"
    assert slug_of("_keeps_underscores_") == "_keeps_underscores_"


@given(st.from_regex(r"[a-z0-9][a-z0-9_]{0,99}", fullmatch=True))
def test_a_name_in_the_old_strict_form_is_its_own_slug(name: str) -> None:
    """Rows stored before slugs existed got slug = name; syncing them again must agree."""
    assert slug_of(name) == name


@given(st.text(min_size=1, max_size=NAME_MAX))
def test_every_slug_is_url_safe_and_bounded(name: str) -> None:
    slug = slug_of(name)
    assert len(slug) <= SLUG_MAX
    assert slug == "" or SLUG.fullmatch(slug), slug
    assert slug_of(name) == slug  # deterministic


def test_long_names_differing_only_at_the_end_get_two_slugs() -> None:
    stem = "very_long_problem_name_" * 6
    first, second = slug_of(stem + "one"), slug_of(stem + "two")
    assert first != second
    assert len(first) == len(second) == SLUG_MAX
    assert first.startswith(stem[:80]) and re.fullmatch(r".*-[0-9a-f]{8}", first)


def test_what_a_name_may_be() -> None:
    for good in ("softmax", "black-forest-labs_FLUX.1-schnell_flux_rope_apply_rotation",
                 "Fused Add + RMSNorm (bf16)", "n" * NAME_MAX, "ünïcode_ok"):
        assert why_not_a_name(good) is None, good
    refused = {
        "": "required: a non-empty string",
        None: "required: a non-empty string",
        "n" * (NAME_MAX + 1): "longer than 200 characters",
        "tab\there": "control or format character '\\t'",
        "nul\x00": "control or format character",
        "bidi\u202eoverride": "control or format character",
        "line\u2028separator": "control or format character",
        "trailing ": "begins or ends with white space",
        "a/b": "contains '/' or '\\'",
        "a\\b": "contains '/' or '\\'",
        "---": "at least one letter or digit",
        "日本語": "at least one letter or digit",
    }
    for name, why in refused.items():
        reason = why_not_a_name(name)
        assert reason is not None and why in reason, (name, reason)
