"""The hosted screening test in headless Chromium."""

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from accounts import roles
from qualification.models import Grant, QualificationTest, TestItem
from tests.browser import browser_page, log_in  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db(transaction=True)

SENTENCES = [("If kangaroos had no tails, they would topple over.", 1), ("Shares rose 3% on Monday.", 0),
             ("Had I known, I would have sold.", 1), ("<script>window.pwned = 1</script> Rates fell.", 0),
             ("I wish it were true.", 1)]


def test_an_annotator_takes_and_passes_the_test_in_the_browser(browser_page, live_server, tmp_path):  # noqa: F811
    test = QualificationTest.objects.create(name="screen", title="Counterfactual screening test",
                                            instructions="Read each sentence.", pass_threshold=80,
                                            examples=[{"sentence": "If X had been, Y would.", "answer": 1,
                                                       "why": "X was not."}])
    items = [TestItem.objects.create(test=test, position=n, sentence_id=str(n), text=text, answer=answer)
             for n, (text, answer) in enumerate(SENTENCES)]
    user = User.objects.create_user("taker", password="pass-word-1")
    user.groups.add(roles.group(roles.ANNOTATOR))
    page = browser_page
    log_in(page, live_server, "taker", "pass-word-1", "/qualification/screen/")
    page.wait_for_selector("#cf-task")
    page.wait_for_function("window.crowdsetTask && document.querySelector('.task-item.current')")
    assert page.is_visible("#test-instructions")
    page.click("#examples summary")
    assert page.is_visible("text=X was not.")
    assert page.inner_text("#cf-progress") == "0 of 5 answered"  # at the top, before any sentence
    page.keyboard.press("y")  # keys answer the sentence the worker is on, like the labeling page
    page.check(f"input[name='item-{items[2].pk}'][value='{items[2].answer}']")
    assert page.inner_text("#cf-progress") == "2 of 5 answered"
    # Sending it with gaps asks first: the gaps count as wrong and a fail waits a day.
    page.click("#cf-submit")
    page.wait_for_selector("#confirm-unanswered[open]")
    assert "3 of 5 sentences are not answered" in page.inner_text("#confirm-unanswered")
    page.click("#confirm-back")
    expect(page.locator(f".task-item[data-item='{items[1].pk}']")).to_be_focused()
    for item in items[1:-1]:
        page.check(f"input[name='item-{item.pk}'][value='{item.answer}']")
    page.check(f"input[name='item-{items[-1].pk}'][value='0']")  # one wrong: 4 of 5 = 80%, exactly the threshold
    assert page.inner_text("#cf-progress") == "5 of 5 answered"
    assert page.evaluate("window.pwned") is None
    assert "<script>window.pwned = 1</script> Rates fell." in page.inner_text("body")
    page.screenshot(path=str(tmp_path / "test.png"), full_page=True)
    page.click("#cf-submit")
    page.wait_for_selector("#verdict")
    assert "You passed" in page.inner_text("#verdict")
    assert Grant.objects.get(worker__user=user).score == 80
    # Every sentence with the worker's answer, the right one and why: the wrong one says so.
    feedback = page.locator("#feedback .feedback-item")
    expect(feedback).to_have_count(5)
    wrong = page.locator("#feedback .feedback-item.wrong")
    expect(wrong).to_have_count(1)
    assert "I wish it were true." in wrong.inner_text()
    assert "your answer: not counterfactual" in wrong.inner_text()
    assert "the answer: counterfactual" in wrong.inner_text()
    assert "Counterfactual." in wrong.inner_text()  # the explanation
    page.goto(f"{live_server.url}/qualification/screen/")
    assert "passed this test already" in page.inner_text("#verdict")
