"""docker-compose.host.yml keeps to docker-compose.yml: its web-host service is the web service
with the host's addresses, and every service it starts uses the host's network (no container
network is ever made)."""

from __future__ import annotations

from tests.conftest import ROOT
from tests.ops.test_compose_files import BASE, ENV, services

HOST = ROOT / "docker-compose.host.yml"
LOOPBACK_DEFAULTS = {"CELERY_BROKER_URL", "CACHE_URL"}  # redis://127.0.0.1, not the redis service


def test_web_host_is_the_web_service_on_the_hosts_network() -> None:
    merged = services(BASE, HOST)
    web, web_host = merged["web"]["environment"], merged["web-host"]["environment"]
    assert set(web_host) == set(web) | {"SOLARENA_WEB_BIND"}
    assert {k: v for k, v in web_host.items() if k in web and k not in LOOPBACK_DEFAULTS} == \
        {k: v for k, v in web.items() if k not in LOOPBACK_DEFAULTS}
    assert merged["web-host"]["image"] == merged["web"]["image"]
    assert merged["web-host"]["command"][:2] == merged["web"]["command"][:2]


def test_every_service_is_on_the_hosts_network() -> None:
    merged = services(BASE, HOST, env={**ENV, "SOLARENA_WEB_BIND": "127.0.0.1:8000"})
    assert {name: s.get("network_mode") for name, s in merged.items()} == {name: "host" for name in merged}
    assert merged["web"]["profiles"] == ["published-port"]  # its port mapping never meets host mode
