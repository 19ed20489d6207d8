"""Two reviewers and an adjudicator audit a small release in headless Chromium (Debian's
`chromium` + `chromium-driver`, installed by .ci/run); the hostile pair's payloads stay text.

Skipped only where Chromium is not installed and CI is not set: in CI a missing browser fails.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.audit_web.app import create_app
from pipeline.audit_web.security import Access
from pipeline.core.audit import AuditStore, apply_audit
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.release.store import load_trajectories

from .conftest import serving

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the browser test: install chromium and chromium-driver")
    pytest.skip("chromium and chromium-driver are not installed", allow_module_level=True)

from selenium import webdriver  # noqa: E402  (only importable where the browser test runs)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

DISPUTED = "banking-0000-unsafe"
HOSTILE = "hostile-0000-unsafe"
SCREENSHOTS = os.environ.get("ATBENCH_AUDIT_SCREENSHOTS")
"""A folder to copy the screenshots into (docs/ when refreshing them)."""


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1600"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def _press(driver: WebDriver, *keys: str) -> None:
    ActionChains(driver).send_keys(*keys).perform()


def _submit_with_keyboard(driver: WebDriver, key: str = "") -> None:
    """Ctrl+Enter submits the form; `a` (accept the release's answer) submits it too."""
    before = driver.current_url
    if key:
        _press(driver, key)
    else:
        chord = ActionChains(driver).key_down(Keys.CONTROL).send_keys(Keys.ENTER)
        chord.key_up(Keys.CONTROL).perform()
    WebDriverWait(driver, 20).until(lambda d: d.current_url != before)
    # keys sent before the new page's script has run would be lost
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )


def _sign_in(driver: WebDriver, base: str, name: str) -> None:
    driver.get(f"{base}/signin")
    WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "name"))
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "signin").click()
    WebDriverWait(driver, 20).until(lambda d: "/signin" not in d.current_url)


def _sign_out(driver: WebDriver) -> None:
    driver.find_element(By.XPATH, "//form[@action='/signout']/button").click()
    # wait for the signed-out page, or its navigation would race the next `get`
    WebDriverWait(driver, 20).until(
        lambda d: d.find_elements(By.PARTIAL_LINK_TEXT, "Sign in to review")
    )


def _review_queue(driver: WebDriver, base: str, answers: dict[str, str]) -> list[str]:
    """Work through the queue: `a` accepts the release's answer; `s` marks safe."""
    seen = []
    driver.get(f"{base}/next")
    while "/trace/" in driver.current_url:
        uid = driver.current_url.rsplit("/", 1)[1]
        seen.append(uid)
        if answers.get(uid) == "safe":
            _press(driver, "s")
            _submit_with_keyboard(driver)
        else:
            _submit_with_keyboard(driver, "a")
    return seen


def _screenshot(driver: WebDriver, folder: Path, name: str) -> None:
    path = folder / name
    driver.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if SCREENSHOTS:
        shutil.copy(path, Path(SCREENSHOTS) / name)


def test_two_reviewers_and_an_adjudicator_audit_a_release_in_the_browser(
    browser: WebDriver, store: AuditStore, tmp_path: Path
) -> None:
    with serving(create_app(store, default_taxonomy(), Access())) as base:
        _sign_in(browser, base, "ann")
        assert _review_queue(browser, base, {}) == store.scope()
        _sign_out(browser)
        _sign_in(browser, base, "bob")
        assert _review_queue(browser, base, {DISPUTED: "safe"}) == store.scope()
        _sign_out(browser)

        _sign_in(browser, base, "cy")
        browser.get(f"{base}/adjudicate")
        browser.find_element(By.CLASS_NAME, "adjudicate-link").click()
        WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "review-2"))
        assert browser.current_url.endswith(f"/adjudicate/{DISPUTED}")
        reviews = [browser.find_element(By.ID, f"review-{i}").text for i in (1, 2)]
        assert "ann" in reviews[0] and "unsafe" in reviews[0]
        assert "bob" in reviews[1] and "safe" in reviews[1]
        _screenshot(browser, tmp_path, "audit-adjudication-view.png")
        _press(browser, "s")
        _submit_with_keyboard(browser)

    summary, report = apply_audit(store, tmp_path / "r2", taxonomy=default_taxonomy())
    labels = {
        t.id: (t.verdict, t.labels) for t in load_trajectories(tmp_path / "r2" / "release.duckdb")
    }
    assert labels[DISPUTED] == ("safe", None)
    unchanged = {
        t.id: (t.verdict, t.labels) for t in store.release.trajectories if t.id != DISPUTED
    }
    assert unchanged.items() <= labels.items()
    assert report["binary_corrections"] == {"safe_to_unsafe": 0, "unsafe_to_safe": 1}
    assert report["traces_touched"] == 1 and summary.version == 2
    verdict = report["agreement"][0]
    # 5 of 6 agree; ann said safe 3 times, bob 4 times: p_e = (3*4 + 3*2) / 36 = 1/2
    assert verdict["agreement"] == pytest.approx(5 / 6)
    assert verdict["kappa"] == pytest.approx(2 / 3)


def test_hostile_payloads_render_as_text_and_nothing_runs(
    browser: WebDriver, store: AuditStore, tmp_path: Path
) -> None:
    with serving(create_app(store, default_taxonomy(), Access())) as base:
        browser.get(f"{base}/trace/{HOSTILE}")
        _screenshot(browser, tmp_path, "audit-trace-view.png")
        for details in browser.find_elements(By.CSS_SELECTOR, "details.html, details.tool"):
            details.find_element(By.TAG_NAME, "summary").click()
        assert browser.title.startswith("Trajectory")  # the payloads would set it to "pwned"
        page = browser.execute_script(
            "return {scripts: [...document.scripts].map(s => s.src),"
            " images: document.images.length,"
            " handlers: document.querySelectorAll('[onerror], [onload], [onclick]').length,"
            " jsLinks: [...document.links].filter(a => a.protocol === 'javascript:').length}"
        )
        assert page == {
            "scripts": [f"{base}/static/audit.js"],
            "images": 0,
            "handlers": 0,
            "jsLinks": 0,
        }
        text = browser.find_element(By.TAG_NAME, "main").text
        assert '<script>document.title="pwned"</script>' in text
        assert "<a href=\"javascript:document.title='pwned'\">click me</a>" in text
