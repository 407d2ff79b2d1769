"""The email subscription form in a browser: axe finds nothing on /subscribe/ and on the
pages it opens, in both interfaces and both themes (the form on the home page and after a
note is in test_accessibility.py's run); it fits a 390 px phone; and it can be filled in and
sent with the keyboard, answered by the "check your inbox" page.
"""

import pytest
from django_tasks_db.models import DBTaskResult
from playwright.sync_api import expect

from blog.mail.urls_for import unsubscribe_url
from blog.models import Subscriber, SubscriberState
from tests.browser.site import FLASH, effective_background, in_language, luminance, visit
from tests.browser.test_accessibility import NO_TRANSITIONS, WCAG_TAGS, describe, run_axe

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
ADDRESS = "browser-test-reader@example.com"


@pytest.fixture
def own_rows():
    """What a test writes into the demo's database, deleted after it (the others only read):
    a subscriber with the address above, and the confirmation it queued."""
    before = set(DBTaskResult.objects.values_list("pk", flat=True))
    yield
    Subscriber.objects.filter(email=ADDRESS).delete()
    DBTaskResult.objects.exclude(pk__in=before).filter(
        task_path__endswith="send_confirmation"
    ).delete()


@pytest.fixture
def unsubscribe_path(demo):
    """An unsubscribe page of a subscriber made for the test (deleted after it)."""
    subscriber = Subscriber.objects.create(email=ADDRESS, state=SubscriberState.CONFIRMED)
    yield unsubscribe_url(subscriber).removeprefix(demo.url)
    subscriber.delete()


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_axe_finds_nothing_on_the_subscribe_pages(
    open_page, axe_source, language, unsubscribe_path
):
    page = open_page(bypass_csp=True, color_scheme="light", reduced_motion="reduce")
    page.context.add_init_script(script=axe_source)
    failures = []
    for path in ("/subscribe/", unsubscribe_path.removeprefix("/en")):
        url = in_language(path, language)
        page.emulate_media(color_scheme="light")
        visit(page, url)
        page.add_style_tag(content=NO_TRANSITIONS)
        for theme in ("light", "dark"):
            if theme == "dark":
                page.emulate_media(color_scheme="dark")
                assert luminance(effective_background(page)) < 0.2, f"{url} is not dark"
            for violation in run_axe(page, axe_source, WCAG_TAGS, colour_only=theme == "dark"):
                failures.append(describe(violation, f"{language}/{theme}: {url}"))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("path", ["/subscribe/", "/", FLASH])
def test_the_form_fits_a_phone(open_page, scheme, path):
    page = open_page(
        color_scheme=scheme, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    visit(page, path)
    form = page.locator(".mail-subscribe")
    expect(form).to_be_visible()
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"{path} scrolls sideways by {overflow}px"
    email = page.locator("#mail-subscribe-email")
    box, frame = email.bounding_box(), form.bounding_box()
    assert box["width"] >= 200 and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1
    assert not page.locator(".mail-subscribe-trap").is_visible()  # the honeypot


def test_the_form_is_filled_in_and_sent_with_the_keyboard(open_page, own_rows):
    page = open_page(color_scheme="light")
    visit(page, "/en/subscribe/")
    page.get_by_label("Email address").fill(ADDRESS)
    page.get_by_label("中文").check()
    expect(page.get_by_label("English")).not_to_be_checked()
    page.get_by_label("Which notes").select_option(label="GPU notes")
    page.get_by_role("button", name="Subscribe").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_have_text("Check your inbox")
    subscriber = Subscriber.objects.get(email=ADDRESS)
    assert (subscriber.wants, subscriber.state) == ("zh-hans", SubscriberState.PENDING)
    assert subscriber.series is not None and subscriber.interface_language == "en"
    assert not page.problems, str(page.problems)
