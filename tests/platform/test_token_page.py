"""The profile page's token controls: a new token comes with a copy button (static/copy.js, allowed
by the page's Content-Security-Policy), and revoking asks first. Every page links the icon, and
/favicon.ico leads to it."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.platform import factories


@pytest.mark.django_db
def test_a_new_token_has_a_copy_button_the_policy_lets_run(client: Client) -> None:
    client.force_login(factories.make_user())
    response = client.post(reverse("create_token"), {"name": "laptop"})
    page = response.content.decode()
    assert '<button type="button" data-copy="new-token-secret">Copy</button>' in page
    assert "/static/copy.js" in page and "script-src 'self'" in response["Content-Security-Policy"]
    assert 'id="new-token-secret"' in page


@pytest.mark.django_db
def test_revoking_asks_before_it_posts(client: Client) -> None:
    client.force_login(factories.make_user())
    client.post(reverse("create_token"), {"name": "ci runner"})
    page = client.get(reverse("profile")).content.decode()
    confirm = page[page.index('<details class="confirm">'):page.index("</details>")]
    assert "<summary>Revoke…</summary>" in confirm
    assert "Revoke “ci runner”?" in confirm and "Yes, revoke it</button>" in confirm
    assert page.count('/revoke/"') == 1 and '/revoke/"' in confirm  # the one revoke form is inside


@pytest.mark.django_db
def test_every_page_links_the_icon_and_favicon_ico_leads_to_it(client: Client) -> None:
    page = client.get(reverse("problems")).content.decode()
    assert 'rel="icon" href="/static/favicon' in page
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].startswith("/static/favicon")
    assert response["Location"].endswith(".svg")
