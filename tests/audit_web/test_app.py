"""The audit app over real HTTP: browsing, blind double review, adjudication, security."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.audit_web.app import create_app
from pipeline.audit_web.security import Access
from pipeline.core.audit import AuditStore, read_progress
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.errors import AtbenchError

from .conftest import Client, serving

HOSTILE = "hostile-0000-unsafe"
UNSAFE_FORM = {
    "verdict": "unsafe",
    "risk_source": "indirect_prompt_injection",
    "failure_mode": "unconfirmed_or_over_privileged_action",
    "real_world_harm": "financial_and_economic_harm",
}


def _rows(page_text: str) -> list[str]:
    return re.findall(r'<a href="/trace/([^"]+)">', page_text)


def test_every_response_carries_a_strict_content_security_policy(base_url: str) -> None:
    for path in ("/", f"/trace/{HOSTILE}", "/static/audit.js", "/trace/nope"):
        headers = Client(base_url).get(path).headers
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "default-src 'none'" in csp
        assert "unsafe-inline" not in csp
        assert headers["x-content-type-options"] == "nosniff"


def test_loopback_browsing_needs_no_sign_in(base_url: str, store: AuditStore) -> None:
    page = Client(base_url).get("/")
    assert page.status == 200
    assert _rows(page.text) == [t.id for t in store.release.trajectories]
    assert Client(base_url).get("/trace/banking-0000-safe").status == 200
    assert Client(base_url).get("/trace/nope").status == 404


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("label=safe", ["banking-0000-safe", "hostile-0000-safe", "smart_home-0001-safe"]),
        ("leaf=malicious_user_instruction_or_jailbreak", ["smart_home-0001-unsafe"]),
        ("domain=hostile", ["hostile-0000-safe", "hostile-0000-unsafe"]),
        ("subset=false_reference&label=unsafe&domain=banking", ["banking-0000-unsafe"]),
        ("status=in_review", []),
    ],
)
def test_overview_filters(base_url: str, query: str, expected: list[str]) -> None:
    assert _rows(Client(base_url).get(f"/?{query}").text) == expected


def test_hostile_trace_content_is_shown_as_escaped_text(base_url: str) -> None:
    text = Client(base_url).get(f"/trace/{HOSTILE}").text
    assert "<script>document" not in text
    assert "<img src=x" not in text
    assert 'href="javascript:' not in text
    assert "&lt;script&gt;document.title=&#34;pwned&#34;&lt;/script&gt;" in text
    # the long HTML page in the observation starts collapsed, as source text
    assert '<details class="html"><summary>HTML in <code>$.page</code>' in text
    # the injected tool description is on the page, marked as a planned risk point
    assert "risk point: tool description" in text


def test_no_template_marks_data_as_safe() -> None:
    for template in (templates_dir() / "audit").glob("*.html"):
        assert "|safe" not in template.read_text().replace(" ", ""), template.name


def test_blind_mode_hides_the_planned_risk_points(base_url: str) -> None:
    client = Client(base_url)
    assert "Planned risk point" in client.get(f"/trace/{HOSTILE}").text
    client.post("/prefs", {"blind": "1", "next": f"/trace/{HOSTILE}"})
    blind = client.get(f"/trace/{HOSTILE}").text
    assert "Planned risk point" not in blind and "risk point: tool description" not in blind
    assert "&lt;script&gt;" in blind  # the content itself is still shown


def test_a_post_without_the_csrf_token_is_refused(base_url: str, store: AuditStore) -> None:
    client = Client(base_url)
    client.sign_in("ann")
    target = store.assign("ann")[0]
    client.csrf = "forged"
    page = client.post(f"/trace/{target}/review", {"verdict": "safe"})
    assert page.status == 403
    assert store.reviews() == []


@pytest.mark.parametrize(
    "headers", [{"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}]
)
def test_a_cross_site_post_is_refused(
    base_url: str, store: AuditStore, headers: dict[str, str]
) -> None:
    client = Client(base_url)
    client.sign_in("ann")
    target = store.assign("ann")[0]
    client.get(f"/trace/{target}")  # a valid token: only the headers give the forgery away
    page = client.post(f"/trace/{target}/review", {"verdict": "safe"}, headers=headers)
    assert page.status == 403
    assert store.reviews() == []


def test_a_bad_review_is_refused_naming_the_field(base_url: str, store: AuditStore) -> None:
    client = Client(base_url)
    client.sign_in("ann")
    target = client.get("/next").url.rsplit("/", 1)[1]
    page = client.post(f"/trace/{target}/review", {**UNSAFE_FORM, "real_world_harm": ""})
    assert page.status == 400
    assert "field &#39;real_world_harm&#39;" in page.text
    assert store.reviews() == []


def test_double_review_is_blind_and_the_adjudicator_sees_both(
    base_url: str, store: AuditStore
) -> None:
    ann, bob, cy = Client(base_url), Client(base_url), Client(base_url)
    for client, name in ((ann, "ann"), (bob, "bob"), (cy, "cy")):
        client.sign_in(name)
    first = ann.get("/next")
    target = first.url.rsplit("/", 1)[1]
    ann.post(f"/trace/{target}/review", {"verdict": "safe", "comment": "ann-thinks-safe"})
    page = bob.get("/next")
    assert page.url.endswith(f"/trace/{target}")  # the same trajectory, second slot
    assert "ann-thinks-safe" not in page.text and "Submit review" in page.text
    after = bob.post(f"/trace/{target}/review", {**UNSAFE_FORM, "comment": "bob-says-unsafe"})
    assert after.url.endswith("/trace/" + store.scope()[1])  # on to the next one
    assert "ann-thinks-safe" not in bob.get(f"/trace/{target}").text
    assert read_progress(store).states[target].status == "disagreed"
    # a reviewer cannot open the adjudication of their own disagreement
    assert bob.get(f"/adjudicate/{target}").status == 403
    view = cy.get(f"/adjudicate/{target}")
    assert view.status == 200
    assert "ann-thinks-safe" in view.text and "bob-says-unsafe" in view.text
    cy.post(f"/adjudicate/{target}", {**UNSAFE_FORM, "comment": "cy decides"})
    (decision,) = store.adjudications()
    assert (decision.person, decision.answer.verdict) == ("cy", "unsafe")
    progress = cy.get("/progress").text
    assert "<td>cy</td><td>0</td><td>0</td><td>1</td>" in progress


def test_binding_beyond_loopback_needs_a_token() -> None:
    with pytest.raises(AtbenchError, match="without a token"):
        Access.for_host("0.0.0.0", None)
    assert Access.for_host("::1", None).token is None


def test_with_a_token_nothing_is_shown_before_sign_in(store: AuditStore) -> None:
    app = create_app(store, default_taxonomy(), Access.for_host("0.0.0.0", "s3cret"))
    with serving(app) as url:
        client = Client(url)
        assert client.get("/").url.endswith("/signin?next=%2F")
        assert client.sign_in("ann", token="wrong").status == 403
        assert client.sign_in("ann", token="s3cret").status == 200
        assert _rows(client.get("/").text)


def test_sign_in_never_redirects_off_site(base_url: str) -> None:
    client = Client(base_url)
    client.get("/signin")
    page = client.post("/signin", {"name": "ann", "next": "//evil.example/x"})
    assert page.url == base_url + "/"


def test_release_folder_is_untouched_by_the_web_audit(
    base_url: str, release_dir: Path, store: AuditStore
) -> None:
    before = sorted(p.name for p in release_dir.iterdir())
    client = Client(base_url)
    client.sign_in("ann")
    target = client.get("/next").url.rsplit("/", 1)[1]
    client.post(f"/trace/{target}/review", {"verdict": "safe"})
    assert len(store.reviews()) == 1
    assert sorted(p.name for p in release_dir.iterdir()) == before
    assert store.path.parent != release_dir
