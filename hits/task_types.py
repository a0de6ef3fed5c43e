"""Task types are plug-ins: each names its item payload, its page, how submitted
answers are validated and parsed, and what else a submission stores. `hits`
stores and moves answers without knowing what they mean; apps register their
types in TASK_TYPES from their AppConfig.ready() (see core.registry).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.conf import settings

from core.errors import InputError
from core.registry import Registry

if TYPE_CHECKING:
    from hits.models import Assignment, Batch, Hit, Item, Worker


class AnswerError(InputError):
    """A submission that does not fit the task; the message names the item or field."""


class TaskType:
    name = ""
    title = ""
    description = ""
    keywords = ""
    template = ""  # the annotator page that shows one HIT
    item_noun = "sentence"  # what the worker is told a HIT holds ("25 sentences a HIT")

    def listing(self, batch: Batch) -> dict[str, str]:
        """How the provider lists the batch's HITs: title, description and keywords."""
        return {"title": self.title, "description": self.description, "keywords": self.keywords}

    def listings(self, batches: Sequence[Batch]) -> dict[int, dict[str, str]]:
        """What the work list says of each batch: its listing and what its items are called (`noun`), for many
        batches at once."""
        return {batch.pk: {**self.listing(batch), "noun": self.item_noun} for batch in batches}

    def label_key(self, batch: Batch) -> str | None:
        """Where an item's one label is in an answer (a key of the answer), for spot checks against known answers
        and the agreement rules; None when answers are not one label per item."""
        return None

    def labels(self, batch: Batch) -> list[str]:
        """The labels that one label can take (see label_key), e.g. ["1", "0"] for yes/no votes."""
        return []

    def label_rule(self, batch: Batch) -> Any:
        """How one label per item is aggregated (a design file's `aggregation` rule of the label_key scheme), or
        None; the vote aggregation reads its threshold rule (aggregation.maths.vote_rule)."""
        return None

    def components(self, batch: Batch) -> list[str]:
        """The named components the batch's task runs (a design file's `components`), e.g. the span review's."""
        return []

    def parse_answers(self, items: Sequence[Item], raw: Mapping[str, Any], worker: Worker | None = None
                      ) -> dict[str, Any]:
        """Turn submitted form fields into {item id: answer}; raise AnswerError if they do not fit. `worker`, who
        sent them, where known (a design's display logic may test their condition)."""
        raise NotImplementedError

    def page_context(self, items: Sequence[Item]) -> dict[str, Any]:
        """What the task's template gets besides the assignment and HIT."""
        return {"items": items}

    def hit_page(self, hit: Hit) -> dict[str, Any]:
        """What the HIT's page shows of its items: `task_html`, `item_count`, `task_title`, `item_noun`."""
        raise NotImplementedError

    def assignment_page(self, assignment: Assignment) -> dict[str, Any]:
        """What one worker's page of the HIT adds to the HIT's (`hit_page`, the same for every worker)."""
        return {}

    def per_worker(self, batch: Batch) -> str:
        """Why each worker's page of a HIT must be this site's own, served to them as they work (their condition
        decides what it holds; what they make is kept on the site), or "": a provider that shows every worker of a
        HIT the same page (MTurk's question) cannot run such a batch."""
        return ""

    def html_question(self, hit: Hit, items: Sequence[Item]) -> str:
        """A self-contained HTML form for the HIT, posting to MTurk's externalSubmit."""
        raise NotImplementedError

    def on_submitted(self, assignment: Assignment) -> None:
        """Store what the task keeps beyond the parsed answers. Called once per assignment, inside the
        transaction that stores its answers, for in-house and synced submissions alike."""

    def on_withdrawn(self, assignment: Assignment) -> None:
        """Take back what `on_submitted` stored, for work its worker withdrew (hits.services.withdrawals). Called
        once, inside the withdrawal's transaction, while the answers are still on the assignment."""


def refuse_foreign_fields(raw: Mapping[str, Any], items: Sequence[Item], prefixes: Sequence[str], noun: str) -> None:
    """Refuse a form that answers items not in the HIT: fields "<prefix>-<item id>[-...]" whose item id is
    not one of `items`. Only a stale or forged form sends these: a page never shows another HIT's items."""
    known = {str(item.id) for item in items}
    foreign = sorted(key for key in raw if key.split("-")[0] in prefixes and key.count("-") >= 1
                     and key.split("-")[1] not in known)
    if foreign:
        raise AnswerError(f"this form has answers for {len(foreign)} {noun}{'s' if len(foreign) > 1 else ''} "
                          f"that are not in this HIT ({', '.join(foreign[:5])}); reload the page and answer again")


def question_context(hit: Hit, **context: Any) -> dict[str, Any]:
    """What every MTurk question page needs: the HIT and the hosts its form may post to."""
    return {"hit": hit, "submit_hosts": " ".join(settings.MTURK_SUBMIT_HOSTS), **context}


TASK_TYPES: Registry[TaskType] = Registry("task type")


def get_task_type(name: str) -> TaskType:
    return TASK_TYPES.get(name)
