"""What the browser tests share: Debian's Chromium driven by Playwright, and a folder for the
screenshots of each page kind (SOLARENA_SCREENSHOTS, else the test's tmp dir)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"no {CHROMIUM} (apt-get install chromium)")


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def browser_page(browser: Any) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(30_000)
    return page


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("SOLARENA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def sign_up(page: Any, url: str, username: str, password: str) -> None:
    """Sign up through the form, which logs the new account in and lands on its profile."""
    page.goto(f"{url}/accounts/signup/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password1]", password)
    page.fill("input[name=password2]", password)
    page.click("button:has-text('Create account')")
    page.wait_for_url(re.compile(r"/accounts/profile/$"))
