"""Class 19, channel attacks: a reply nested deeper than any message, written on the channel by
code in the solution's process, is a forgery (REWARD_HACK) and never crashes the reporter."""

from __future__ import annotations

from pathlib import Path

from tests.anticheat.conftest import assert_reward_hack, evaluate_cheat


def test_a_deeply_nested_reply_is_a_forgery_not_a_crash(tmp_path: Path) -> None:
    assert_reward_hack(evaluate_cheat(tmp_path, "deep_nested_reply"), "forg", "channel")
