"""solarena.page_stamps: a submission page's version is measured at most once per LIFETIME, a
writer's drop makes the next read measure again (at once, and again once its transaction commits,
so a read that raced the commit is not kept), drop_all drops every stamp, and without a cache every
read measures."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.db import transaction
from django.test import Client, override_settings

from leaderboard.models import Hardware, Problem
from solarena import changes, page_stamps
from submissions.services import set_published
from tests.pages.conftest import CountedCache, PageClock
from tests.platform import factories

SUBJECT = page_stamps.submission(7)
BROKEN_CACHE = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                            "LOCATION": "redis://127.0.0.1:1/0"}}  # nothing listens there


class Measures:
    """A measure that says how often it ran, and what the subject looks like now."""

    def __init__(self) -> None:
        self.value, self.calls, self.settled = "v1", 0, False

    def __call__(self) -> tuple[str, bool]:
        self.calls += 1
        return self.value, self.settled


@pytest.fixture
def measure() -> Iterator[Measures]:
    cache.clear()
    yield Measures()
    cache.clear()


def test_a_stamp_holds_for_its_lifetime(page_clock: PageClock, measure: Measures) -> None:
    assert page_stamps.read(SUBJECT, measure) == "v1"
    measure.value = "v2"  # changed by nobody who drops the stamp
    page_clock.advance(page_stamps.LIFETIME * 0.9)
    assert page_stamps.read(SUBJECT, measure) == "v1" and measure.calls == 1
    page_clock.advance(page_stamps.LIFETIME * 0.1)
    assert page_stamps.read(SUBJECT, measure) == "v2" and measure.calls == 2


def test_a_drop_measures_again_at_once(page_clock: PageClock, measure: Measures) -> None:
    page_stamps.read(SUBJECT, measure)
    measure.value = "v2"
    page_stamps.drop(SUBJECT)
    assert page_stamps.read(SUBJECT, measure) == "v2"
    page_stamps.drop(page_stamps.submission(8))  # another subject's drop leaves this one
    assert page_stamps.read(SUBJECT, measure) == "v2" and measure.calls == 2


def test_drop_all_measures_every_subject_again(page_clock: PageClock, measure: Measures) -> None:
    other = page_stamps.submission(8)
    page_stamps.read(SUBJECT, measure), page_stamps.read(other, measure)
    page_stamps.drop_all()
    page_stamps.drop_all()
    page_stamps.read(SUBJECT, measure), page_stamps.read(other, measure)
    assert measure.calls == 4
    page_stamps.read(SUBJECT, measure)
    assert measure.calls == 4, "the new stamps hold"


@pytest.mark.django_db(transaction=True)
def test_a_read_that_raced_the_commit_is_not_kept(page_clock: PageClock, measure: Measures) -> None:
    with transaction.atomic():
        page_stamps.drop(SUBJECT)
        # Another process reads before the commit: it measures what was committed before.
        assert page_stamps.read(SUBJECT, measure) == "v1"
        measure.value = "v2"  # what the transaction wrote, visible once it commits
    assert page_stamps.read(SUBJECT, measure) == "v2", "the drop at the commit forgot the early read"


@override_settings(CACHES=BROKEN_CACHE)
def test_without_a_cache_every_read_measures(measure: Measures) -> None:
    assert page_stamps.read(SUBJECT, measure) == "v1"
    measure.value = "v2"
    assert page_stamps.read(SUBJECT, measure) == "v2"
    page_stamps.drop(SUBJECT)  # and a writer's drop does not fail the write
    page_stamps.drop_all()


@pytest.mark.django_db
def test_publishing_shows_at_once_on_a_kept_page(client: Client, page_clock: PageClock,
                                                 problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.4)
    url = f"/submissions/{evaluation.submission_id}/"
    assert "its owner has not published it" in client.get(url).content.decode()
    set_published(evaluation.submission, True)
    assert "its owner has not published it" not in client.get(url).content.decode()


@pytest.mark.usefixtures("shared_cache")
def test_a_settled_stamp_holds_until_a_writer_drops_it(page_clock: PageClock, measure: Measures) -> None:
    measure.settled = True
    page_stamps.read(SUBJECT, measure)
    page_clock.advance(page_stamps.SETTLED * 0.9)
    assert page_stamps.read(SUBJECT, measure) == "v1" and measure.calls == 1
    measure.value = "v2"
    page_clock.advance(0.001)
    page_stamps.drop(SUBJECT)
    assert page_stamps.read(SUBJECT, measure) == "v2"


@pytest.mark.usefixtures("shared_cache")
def test_an_unsettled_stamp_holds_for_lifetime_only(page_clock: PageClock, measure: Measures) -> None:
    page_stamps.read(SUBJECT, measure)
    page_clock.advance(page_stamps.LIFETIME)
    page_stamps.read(SUBJECT, measure)
    assert measure.calls == 2


@pytest.mark.usefixtures("shared_cache")
def test_a_settled_stamp_measured_before_a_drop_is_not_kept(page_clock: PageClock) -> None:
    """A reader measured, then a writer committed and dropped, then the reader stored its stamp."""
    calls = []

    def measured_while_a_writer_drops() -> tuple[str, bool]:
        calls.append(1)
        if len(calls) == 1:
            page_clock.advance(0.001)
            page_stamps.drop(SUBJECT)
            return "before", True
        return "after", True

    assert page_stamps.read(SUBJECT, measured_while_a_writer_drops) == "before"
    page_clock.advance(0.001)
    assert page_stamps.read(SUBJECT, measured_while_a_writer_drops) == "after"


@pytest.mark.usefixtures("shared_cache")
def test_a_reading_asks_the_cache_for_its_own_subject_only(page_clock: PageClock, measure: Measures,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A page's request reads its own stamp, not those of every page its process served lately
    (150 keys at 50 pages cost the request that did it more than a millisecond)."""
    measure.settled = True
    subjects = [page_stamps.submission(n) for n in range(50)]
    for subject in subjects * 2:  # measured, then served its stamp
        page_stamps.read(subject, measure)
    counted = CountedCache()
    asked = counted.asked
    monkeypatch.setattr(page_stamps, "cache", counted)
    time.sleep(changes.REFRESH)  # every reading this process kept is past trusting
    assert page_stamps.read(subjects[0], measure) == "v1" and measure.calls == 50
    assert len(asked) == 1 and len(asked[0]) == 3 and subjects[0] in asked[0]
    page_stamps.read(subjects[0], measure)
    assert len(asked) == 1, "read again within REFRESH: no round trip"
