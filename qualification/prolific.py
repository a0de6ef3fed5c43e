"""The screening test on Prolific, where there are no qualification tests: a screening study whose
participants take the hosted test on this site and go back with a code. The pass code puts them in a
participant group (and pays them), the fail code only pays them; batches that need the test filter on the
group, and a revoked participant goes on the block list (hits.providers.prolific)."""

import secrets
import uuid
from decimal import ROUND_CEILING, Decimal

from hits.models import Batch
from hits.providers import get_provider
from hits.providers.base import money
from hits.providers.prolific import RECOMMENDED
from hits.services import CrowdError
from qualification.models import QualificationTest
from qualification.services import current_test

SECONDS_PER_ITEM = 15  # a screening sentence is answered faster than a HIT's: one choice, no spans


def screening_minutes(test):
    return max(1, int((Decimal(test.items.count() * SECONDS_PER_ITEM) / 60).to_integral_value(ROUND_CEILING)))


def screening_study_create(*, test: QualificationTest, provider, places: int, reward: Decimal | None = None) -> dict:
    """Make (once) and publish the test's screening study; returns the test's Prolific state."""
    state = dict((test.provider_state or {}).get("prolific") or {})
    minutes = screening_minutes(test)
    if not state.get("key"):
        state.update(key=f"crowdset-test-{test.pk}-{uuid.uuid4().hex[:12]}", pass_code=secrets.token_hex(4).upper(),
                     fail_code=secrets.token_hex(4).upper())
        _save(test, state)
    if not state.get("group_id"):
        state["group_id"] = provider.group_create(f"crowdset: passed {test.name} v{test.version}")
        _save(test, state)
    if not state.get("study_id"):
        # Paid at Prolific's recommended rate unless told otherwise: everyone who finishes is paid, pass or fail.
        pay = money(reward if reward is not None else RECOMMENDED[provider.currency] * minutes / 60 + Decimal("0.004"))
        study = provider.study_create(
            key=state["key"], name=test.title, path=f"/qualification/{test.name}/prolific/",
            description=f"A short screening test: {test.items.count()} news sentences, each counterfactual or not. "
                        f"Those who pass are invited to paid annotation studies.",
            places=places, minutes=minutes, reward=pay, max_minutes=max(minutes, test.duration // 60),
            codes=[{"code": state["pass_code"], "code_type": "COMPLETED",
                    "actions": [{"action": "ADD_TO_PARTICIPANT_GROUP", "participant_group": state["group_id"]},
                                {"action": "AUTOMATICALLY_APPROVE"}]},
                   {"code": state["fail_code"], "code_type": "OTHER",
                    "actions": [{"action": "AUTOMATICALLY_APPROVE"}]}],
            filters=provider.filters(None))
        state["study_id"] = study["id"]
        _save(test, state)
    provider.study_publish(state["study_id"])
    return state


def _save(test, state):
    test.provider_state = {**(test.provider_state or {}), "prolific": state}
    QualificationTest.objects.filter(pk=test.pk).update(provider_state=test.provider_state)


def group_filter(batch: Batch) -> list[dict]:
    """Registered in hits.extensions.STUDY_FILTERS: a Prolific batch that needs the test is open only to the
    participant group of those who passed its screening study."""
    name = (batch.requirements or {}).get("qualification")
    if not name or batch.provider != "prolific":
        return []
    test = current_test(name)
    group = ((test.provider_state if test else {}) or {}).get("prolific", {}).get("group_id")
    if not group:
        raise CrowdError(f"batch {batch.pk} needs the screening test {name!r}, which has no Prolific screening "
                         f"study yet: run `manage.py qualification prolific --name {name}` first")
    return [{"filter_id": "participant_group_allowlist", "selected_values": [group]}]


def completion_url(test: QualificationTest, passed: bool) -> str:
    state = (test.provider_state or {}).get("prolific") or {}
    return f"{get_provider('prolific').complete_url}?cc={state['pass_code' if passed else 'fail_code']}"
