"""The web image's command (gunicorn, production settings, static files collected and served by
WhiteNoise) answers: probes over plain HTTP, pages only over HTTPS (as a TLS proxy forwards them),
with the security headers."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import ROOT
from tests.ops.support import database_url, manage, production_env

HOST = "solarena.example.org"
HTTPS = {"Host": HOST, "X-Forwarded-Proto": "https"}
METRICS_TOKEN = "scrape-token-1234"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None) -> Iterator[str]:
    """One server for the module; it only reads the (empty) test database."""
    tmp_path = tmp_path_factory.mktemp("server")
    env = production_env(DATABASE_URL=database_url(), SOLARENA_STATIC_ROOT=str(tmp_path / "static"),
                         SECURE_PROXY_SSL_HEADER="HTTP_X_FORWARDED_PROTO,https", SOLARENA_LOG_FORMAT="json",
                         SOLARENA_METRICS_TOKEN=METRICS_TOKEN)
    collected = manage("collectstatic", "--noinput", env=env)
    assert collected.returncode == 0, collected.stderr
    port = free_port()
    argv = [sys.executable, "-m", "gunicorn", "solarena.wsgi:application", "--bind", f"127.0.0.1:{port}",
            "--workers", "2"]
    log = tmp_path / "gunicorn.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, log.read_text()
                try:
                    httpx.get(f"{url}/livez", headers={"Host": HOST}, timeout=2)
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, log.read_text()
                    time.sleep(0.3)
            yield url
        finally:
            process.terminate()
            process.wait(30)


def test_probes_answer_plain_http(server: str) -> None:
    assert httpx.get(f"{server}/livez", headers={"Host": HOST}).json() == {"status": "ok"}
    health = httpx.get(f"{server}/healthz", headers={"Host": HOST})
    assert health.status_code == 200 and health.json()["status"] == "ok"
    metrics = httpx.get(f"{server}/metrics",
                        headers={"Host": HOST, "Authorization": f"Bearer {METRICS_TOKEN}"})
    assert metrics.status_code == 200 and "solarena_submissions_total" in metrics.text


def test_pages_redirect_to_https_and_carry_the_security_headers(server: str) -> None:
    plain = httpx.get(f"{server}/", headers={"Host": HOST})
    assert plain.status_code == 301 and plain.headers["Location"] == f"https://{HOST}/"
    page = httpx.get(f"{server}/accounts/login/", headers=HTTPS)
    assert page.status_code == 200
    assert page.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert page.headers["X-Frame-Options"] == "DENY"
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert "secure" in page.headers["Set-Cookie"].lower()  # the CSRF cookie of the form
    assert len(page.headers["X-Request-ID"]) == 32


def test_unknown_hosts_are_refused(server: str) -> None:
    assert httpx.get(f"{server}/", headers={"Host": "evil.example.com", "X-Forwarded-Proto": "https"}
                     ).status_code == 400


def test_collected_static_files_are_served(server: str) -> None:
    script = httpx.get(f"{server}/static/vendor/htmx.min.js", headers=HTTPS)
    assert script.status_code == 200
    assert script.content == (ROOT / "static" / "vendor" / "htmx.min.js").read_bytes()
    assert "max-age" in script.headers["Cache-Control"]
