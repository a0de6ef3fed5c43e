"""Simulated crowds for the demo: workers with their own accuracy who answer
through the same HTTP paths a person (in-house pages), MTurk (the
externalSubmit form on the emulator) or Prolific (the study URL, then the
completion URL on the emulator) would use."""

import hashlib
import json
import logging
import random
import re
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlparse

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from accounts import roles
from annotation.models import SpanAnnotation
from core import spans
from emulators.mturk.worker_client import EmulatedWorker, WorkerRefused
from emulators.prolific.participant import EmulatedParticipant, ParticipantRefused
from hits.models import Item
from reproductions.story_evaluation import PAIR_LABELS, RATINGS, evaluation_kind

_ITEM_FIELD = re.compile(r'name="item-(\d+)"')  # a screening test's sentence
_VOTE_FIELD = re.compile(r'name="a-(\d+)-0"')  # a sentence's yes/no on designs/semeval-subtask1.yaml's page


@dataclass
class SimulatedWorker:
    name: str
    accuracy: float  # chance of giving the true answer; a spammer answers at random
    spammer: bool = False
    locale: str = "US"
    approval_rate: int = 97

    def answer(self, truth, rng):
        if self.spammer:
            return rng.randint(0, 1)
        return truth if rng.random() < self.accuracy else 1 - truth


def crowd(size=8, spammers=1, seed=0, prefix=""):
    rng = random.Random(seed)
    workers = [SimulatedWorker(f"{prefix}worker{n + 1}", round(rng.uniform(0.70, 0.97), 2))
               for n in range(size - spammers)]
    workers += [SimulatedWorker(f"{prefix}spammer{n + 1}", 0.5, spammer=True) for n in range(spammers)]
    return workers


def truths(batch):
    """The answer each item 'really' has: gold where known, otherwise a fixed
    pseudo-random label (1 in 4 counterfactual) standing in for the truth."""
    found = {}
    for item in Item.objects.filter(batch=batch):
        if item.gold_answer is not None:
            found[item.pk] = int(item.gold_answer)
        else:
            found[item.pk] = int(hashlib.sha256(item.key.encode()).digest()[0] < 64)
    return found


def _logged_in(name):
    """A test client logged in as the simulated annotator `name` (an annotator of the site), and its CSRF token."""
    user, _ = User.objects.get_or_create(username=f"sim-{name}")
    user.groups.add(roles.group(roles.ANNOTATOR))
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get(reverse("hits:work_list"))
    return client, client.cookies["csrftoken"].value


@contextmanager
def _refusals_quiet():
    """The simulated crowd's refusals (a claim by someone not qualified, a submission sent back) are expected and
    counted where they matter: Django's warning line for each 4xx is left out of the demo's output."""
    requests = logging.getLogger("django.request")
    level = requests.level
    requests.setLevel(logging.ERROR)
    try:
        yield
    finally:
        requests.setLevel(level)


def _work_through(batch, people, answer):
    """People take turns claiming a HIT of `batch` and submitting it over HTTP until none is left
    for any of them; `answer(person, page)` gives the form fields for a HIT page. Returns HITs submitted."""
    active = [(person, *_logged_in(person.name)) for person in people]
    submitted = 0
    with _refusals_quiet():
        while active:
            for entry in list(active):
                person, client, token = entry
                response = client.post(reverse("hits:claim", args=[batch.pk]), HTTP_X_CSRFTOKEN=token)
                if response.status_code != 302 or not response.url.startswith("/work/assignments/"):
                    active.remove(entry)  # nothing left for them (a redirect to the list), or refused (a 403)
                    continue
                page = client.get(response.url).content.decode()
                result = client.post(response.url + "submit/", {**answer(person, page), "csrfmiddlewaretoken": token})
                if result.status_code != 302:
                    raise RuntimeError(f"{person.name}: submit refused: {result.content.decode()}")
                submitted += 1
    return submitted


def run_inhouse(batch, workers, seed=0):
    """Every simulated worker logs in, claims HITs and submits them over HTTP until none is left."""
    rng = random.Random(seed)
    truth = truths(batch)
    return _work_through(batch, workers, lambda worker, page: {
        f"a-{pk}-0": str(worker.answer(truth[int(pk)], rng)) for pk in _VOTE_FIELD.findall(page)})


def take_test_inhouse(test, workers, seed=0):
    """Each simulated annotator logs in and takes the hosted test, answering with its own accuracy."""
    rng = random.Random(seed)
    truth = dict(test.items.values_list("pk", "answer"))
    for worker in workers:
        client, token = _logged_in(worker.name)
        page = client.get(reverse("qualification:take", args=[test.name]))
        if page.status_code != 200 or b'id="cf-task"' not in page.content:
            continue  # already qualified, or waiting to retake
        attempt = re.search(r'attempts/(\d+)/submit/', page.content.decode()).group(1)
        answers = {f"item-{pk}": str(worker.answer(truth[int(pk)], rng))
                   for pk in _ITEM_FIELD.findall(page.content.decode())}
        client.post(reverse("qualification:submit", args=[test.name, attempt]),
                    {**answers, "csrfmiddlewaretoken": token})


def take_test_mturk(test, emulator_url, workers, seed=0):
    """Simulated MTurk workers take the QualificationType's test; MTurk (the emulator) grades it."""
    rng = random.Random(seed)
    scores = {}
    for worker in workers:
        account = EmulatedWorker(emulator_url, "A" + worker.name.upper().replace("-", ""), locale=worker.locale,
                                 approval_rate=worker.approval_rate)
        answers = {f"item-{item.pk}": str(worker.answer(item.answer, rng)) for item in test.items.all()}
        scores[worker.name] = account.take_qualification_test(test.mturk_qualification_type_id, answers)
    return scores


def run_mturk(batch, emulator_url, workers, seed=0):
    """Simulated MTurk workers accept and submit HITs on the emulator.

    Returns (submitted, refused), where refused counts accept attempts MTurk
    turned down for qualification (locale, approval rate) or a block.
    """
    rng = random.Random(seed)
    truth = truths(batch)
    hits = {hit.provider_hit_id: hit for hit in batch.hits.all()}
    submitted, refused = 0, 0
    remote = [(worker, EmulatedWorker(emulator_url, "A" + worker.name.upper().replace("-", ""),
                                      locale=worker.locale, approval_rate=worker.approval_rate)) for worker in workers]
    for hit_id, hit in hits.items():
        fields_of = [item.pk for item in hit.ordered_items()]
        rng.shuffle(remote)  # whoever comes first takes the places, as on MTurk
        for worker, account in remote:
            try:
                assignment = account.accept(hit_id)
            except WorkerRefused as refusal:
                refused += refusal.status == 403  # not qualified or blocked; 409 is a full HIT
                continue
            answers = {f"a-{pk}-0": str(worker.answer(truth[pk], rng)) for pk in fields_of}
            account.submit(assignment, answers)
            submitted += 1
    return submitted, refused


# --- Subtask 2: span annotators and the organizer's review ----------------------------

_TRIGGERS = {"if", "had", "were", "wish", "wished", "unless", "without", "otherwise"}
_MODALS = {"would", "could", "might", "should", "wouldn't", "couldn't", "would've", "could've"}
_BREAKS = {",", ";", ".", "—", ":", "?", "!"}
_SPAN_ITEM = re.compile(r'name="a-(\d+)-0" value="yes"')  # a sentence's double check on semeval-subtask2.yaml's page


def reference_spans(text, released=None):
    """The spans a careful annotator would mark, as word ranges: the released ones
    where the sentence is in the released Subtask-2 file, otherwise a rule of thumb
    (the clause of the first trigger word; the modal clause beside it)."""
    if released and text in released:
        found = released[text]
        antecedent = spans.word_range(text, found.antecedent_start, found.antecedent_end)
        consequent = spans.word_range(text, found.consequent_start, found.consequent_end)
        if antecedent and (consequent is None or consequent[0] > antecedent[1] or consequent[1] < antecedent[0]):
            return antecedent, consequent
    words = [word.text.lower() for word in spans.words(text)]
    last = len(words) - 1
    while last > 0 and words[last] in _BREAKS:
        last -= 1
    start = next((i for i, word in enumerate(words) if word in _TRIGGERS), 0)
    end = next((i - 1 for i in range(start + 1, last + 1) if words[i] in _BREAKS), last)
    antecedent = (start, max(start, end))
    if start > 0:
        before = start - 1
        while before > 0 and words[before] in _BREAKS:
            before -= 1
        consequent = (0, before)
    elif antecedent[1] + 2 <= last:
        consequent = (antecedent[1] + 2, last)
    else:
        consequent = None
    if consequent and not _MODALS & set(words[consequent[0]:consequent[1] + 1]):
        consequent = None
    return antecedent, consequent


@dataclass
class SpanAnnotator:
    name: str
    accuracy: float  # chance of marking the reference spans exactly, and of a right double check

    def answer(self, text, truth, released, rng):
        """Form fields for one sentence: the double check, then the spans."""
        # The double check is easier than marking spans: five people agreed already.
        counterfactual = truth if rng.random() < (1 + self.accuracy) / 2 else 1 - truth
        if not counterfactual:
            return {"cf": "0"}
        antecedent, consequent = reference_spans(text, released)
        if rng.random() > self.accuracy and antecedent[1] > antecedent[0]:
            antecedent = (antecedent[0] + 1, antecedent[1])  # missed the first word
        if consequent and rng.random() > self.accuracy and consequent[1] > consequent[0]:
            consequent = (consequent[0], consequent[1] - 1)  # stopped a word short
        fields = {"cf": "1", "ant": f"{antecedent[0]}:{antecedent[1]}"}
        fields.update({"con": f"{consequent[0]}:{consequent[1]}"} if consequent else {"nocon": "1"})
        return fields


def design_fields(pk, text, answer):
    """An annotator's answer for one sentence as semeval-subtask2.yaml's page sends it: the double check (scheme
    0, yes/no), then the marked words as character spans (scheme 1: [[start, end, label]], end exclusive), as
    the page's span widget writes them."""
    fields = {f"a-{pk}-0": "yes" if answer["cf"] == "1" else "no"}
    if answer["cf"] == "1":
        antecedent = tuple(map(int, answer["ant"].split(":")))
        consequent = tuple(map(int, answer["con"].split(":"))) if "con" in answer else None
        found = spans.offsets(text, antecedent, consequent)
        marked = [[found.antecedent_start, found.antecedent_end + 1, "antecedent"]]
        if found.consequent_start >= 0:
            marked.append([found.consequent_start, found.consequent_end + 1, "consequent"])
        fields[f"a-{pk}-1"] = json.dumps(marked)
    return fields


def span_truths(batch):
    """Whether each Subtask-2 sentence is really counterfactual: the released label where known."""
    sources = {item.pk: item.content.source_item for item in Item.objects.filter(batch=batch)}
    known = dict(Item.objects.filter(pk__in=[s for s in sources.values() if s]).values_list("pk", "gold_answer"))
    return {pk: 1 if known.get(source) is None else int(known[source]) for pk, source in sources.items()}


def run_spans(batch, annotators, released, seed=0):
    """Span annotators log in and take turns claiming Subtask-2 HITs and submitting them over HTTP."""
    rng = random.Random(seed)
    truth = span_truths(batch)
    texts = {item.pk: item.content.text for item in Item.objects.filter(batch=batch)}

    def answer(annotator, page):
        fields = {}
        for pk in map(int, _SPAN_ITEM.findall(page)):
            fields.update(design_fields(pk, texts[pk], annotator.answer(texts[pk], truth[pk], released, rng)))
        return fields

    return _work_through(batch, annotators, answer)


def review_spans(batch, released, auto_accept=False):
    """The organizer goes through the review queue over HTTP. With auto_accept the spans are
    taken as the annotators left them (flags removed); otherwise wrong spans are moved to the
    reference and sentences that are not counterfactual are removed."""
    organizer, _ = User.objects.get_or_create(username="demo-organizer", defaults={"is_staff": True})
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    client.get(reverse("annotation:review_list"))
    token = client.cookies["csrftoken"].value
    truth = span_truths(batch)
    for annotation in SpanAnnotation.objects.filter(item__batch=batch, state="unreviewed").order_by("pk"):
        fields = {"csrfmiddlewaretoken": token, "action": "accept"}
        if annotation.flagged and (auto_accept or not truth[annotation.item_id]):
            fields["action"] = "remove"
        elif not auto_accept and not truth[annotation.item_id]:
            fields.update(action="remove", note="not counterfactual")
        elif not auto_accept:
            antecedent, consequent = reference_spans(annotation.text, released)
            fields["ant-review"] = f"{antecedent[0]}:{antecedent[1]}"
            fields.update({"con-review": f"{consequent[0]}:{consequent[1]}"} if consequent else {"nocon-review": "1"})
        client.post(reverse("annotation:review", args=[annotation.pk]), fields)
        annotation.refresh_from_db()
        if annotation.state == "unreviewed":
            raise RuntimeError(f"the review of annotation {annotation.pk} was refused: {fields}")


def _prolific_page(url):
    """The path and query of a study URL (this site's address in it is the emulator's placeholder)."""
    found = urlparse(url)
    return f"{found.path}?{found.query}"


def take_test_prolific(test, emulator_url, workers, seed=0):
    """Simulated participants take the screening study: Prolific sends them here, they take the hosted test
    and go back with the pass or the fail code. Returns {name: passed}."""
    rng = random.Random(seed)
    truth = dict(test.items.values_list("pk", "answer"))
    study = test.provider_state["prolific"]["study_id"]
    results = {}
    for worker in workers:
        participant = EmulatedParticipant(emulator_url, _participant_id(worker))
        try:
            _, url = participant.start(study)
        except ParticipantRefused:
            continue
        client = Client()
        page = client.get(_prolific_page(url), follow=True).content.decode()
        attempt = re.search(r"attempts/(\d+)/submit/", page).group(1)
        answers = {f"item-{pk}": str(worker.answer(truth[int(pk)], rng)) for pk in _ITEM_FIELD.findall(page)}
        result = client.post(reverse("qualification:submit", args=[test.name, attempt]), answers, follow=True)
        back = re.search(r'href="([^"]+)" id="complete"', result.content.decode()).group(1).replace("&amp;", "&")
        participant.complete(back)
        results[worker.name] = "You passed" in result.content.decode()
    return results


def run_prolific(batch, emulator_url, workers, seed=0):
    """Simulated participants take a place in the batch's study (one each, as Prolific allows), do the HIT
    the site gives them and go back with the code. Returns (submitted, refused by Prolific's filters)."""
    rng = random.Random(seed)
    truth = truths(batch)
    submitted = refused = 0
    for worker in workers:
        participant = EmulatedParticipant(emulator_url, _participant_id(worker))
        try:
            _, url = participant.start(batch.provider_state["study_id"])
        except ParticipantRefused:
            refused += 1  # not in the screening test's group (failed it), or no place left
            continue
        client = Client()
        response = client.get(_prolific_page(url))
        if response.status_code != 302:
            continue
        page = client.get(response.url).content.decode()
        answers = {f"a-{pk}-0": str(worker.answer(truth[int(pk)], rng)) for pk in _VOTE_FIELD.findall(page)}
        done = client.post(response.url + "submit/", answers)
        if done.status_code == 302 and "cc=" in done.url:
            participant.complete(done.url)
            submitted += 1
    return submitted, refused


def _participant_id(worker):
    return "P" + hashlib.sha256(worker.name.encode()).hexdigest()[:20].upper()


# --- 2-choice validation (Balanced COPA) --------------------------------------------

@dataclass
class ChoiceWorker:
    """Picks the intended alternative with `accuracy` (a little less on mirrored items, which the paper
    found slightly harder); a careless worker clicks at random."""

    name: str
    accuracy: float
    careless: bool = False
    mirrored_penalty: float = 0.03

    def answer(self, intended, mirrored, rng):
        if self.careless:
            return rng.choice((1, 2))
        right = rng.random() < (self.accuracy - self.mirrored_penalty if mirrored else self.accuracy)
        return intended if right else 3 - intended


def choice_crowd(size=6, seed=0):
    rng = random.Random(seed)
    people = [ChoiceWorker(f"copa-worker{n + 1}", round(rng.uniform(0.96, 1.0), 2)) for n in range(size - 1)]
    return [*people, ChoiceWorker("copa-careless1", 0.5, careless=True)]


def run_choices(batch, workers, seed=0, *, draw_per_button=True):
    """Every simulated worker claims HITs of a 2-choice design batch (designs/bcopa.yaml) over HTTP and answers its
    choice scheme on each item until no HIT is left: the intended alternative (the item's known answer) with
    their accuracy, less on mirrored items. With `draw_per_button` a worker draws once per radio button and the
    last draw counts, once per item otherwise: the demo's seeded figures were made that way (stage 11, stage 14)."""
    rng = random.Random(seed)
    items = {item.pk: (int(item.gold_answer), item.group == "mirrored") for item in Item.objects.filter(batch=batch)}
    fields = _CHOICE_BUTTON if draw_per_button else _CHOICE_FIELD
    return _work_through(batch, workers, lambda worker, page: {
        f"a-{pk}-0": str(worker.answer(*items[int(pk)], rng)) for pk in fields.findall(page)})


_CHOICE_FIELD = re.compile(r'name="a-(\d+)-0" value="1"')
_CHOICE_BUTTON = re.compile(r'name="a-(\d+)-0" value="[12]"')


# --- facts and counter-facts (Cheap Facts) -----------------------------------------------

_FACT_FIELD = re.compile(r'name="a-(\d+)-0-(\d+)"')  # designs/cheap-facts.yaml: scheme 0, one box a line
_OPPOSITES = {"rose": "fell", "fell": "rose", "won": "lost", "lost": "won", "increased": "decreased",
              "decreased": "increased", "more": "fewer", "high": "low", "low": "high", "before": "after",
              "after": "before", "first": "last", "last": "first", "new": "old", "old": "new", "up": "down",
              "down": "up", "strong": "weak", "large": "small", "agreed": "refused", "killed": "spared"}


def _after_entity(payload, count=7):
    """A few words of the paragraph that follow the entity: what the paragraph says about it."""
    rest = payload.text[payload.entity_end:].split()
    return " ".join(word.strip(".,;:\"'()") for word in rest[:count]).strip() or "appears in the news"


def _topic(payload):
    """The paragraph's longest word outside the entity, standing in for what it is about."""
    found = [word.strip(".,;:\"'()") for word in payload.text.split() if word not in payload.entity.split()]
    return max(found, key=len) if found else "the news"


@dataclass
class Writer:
    """A simulated writer of facts and counter-facts. "careful" writes two or three statements of its own;
    "careless" first writes bare words, "copier" first pastes a sentence of the paragraph; both write a
    statement of their own once the page refuses the first try."""

    name: str
    style: str = "careful"

    def write(self, payload, rng, first_try=True):
        if first_try and self.style == "careless":
            return [payload.entity.split()[0]]
        if first_try and self.style == "copier":
            start = payload.text.rfind(".", 0, payload.entity_start) + 1
            end = payload.text.find(".", payload.entity_end)
            return [payload.text[start:end if end > 0 else len(payload.text)].strip()]
        about, topic = _after_entity(payload), _topic(payload)
        if payload.instruction == "facts":
            lines = [f"According to this report, {payload.entity} {about}.",
                     f"{payload.entity} is part of a story about {topic.lower()}.",
                     f"Readers learn something about {payload.entity} here."]
        else:
            swapped = " ".join(_OPPOSITES.get(word, word) for word in about.split())
            lines = [f"{payload.entity} {swapped} ten years earlier, as it turned out.",
                     f"{payload.entity} had nothing to do with {topic.lower()} at all.",
                     f"Everyone agreed that {payload.entity} was unknown in those days."]
        count = 1 if self.style != "careful" else rng.choice((2, 3))
        return lines[:count]


@dataclass(frozen=True)
class _Paragraph:
    text: str
    entity: str
    entity_start: int
    instruction: str

    @property
    def entity_end(self):
        return self.entity_start + len(self.entity)


def _paragraph(record):
    return _Paragraph(record.text, record.fields["entity"], record.fields["entity_start"],
                      record.fields["instruction"])


def run_writers(batch, writers, seed=0):
    """Every simulated writer claims HITs of the writing batch over HTTP and submits until none is left.
    A refused submission (the server's rules) is written again once; returns (HITs submitted, refusals by
    rule)."""
    rng = random.Random(seed)
    items = {item.pk: _paragraph(item.content) for item in Item.objects.filter(batch=batch)}
    refusals = Counter()
    active = [(writer, *_logged_in(writer.name)) for writer in writers]
    with _refusals_quiet():
        return _write_through(batch, active, items, rng, refusals)


def _write_through(batch, active, items, rng, refusals):
    submitted = 0
    while active:
        for entry in list(active):
            writer, client, token = entry
            response = client.post(reverse("hits:claim", args=[batch.pk]), HTTP_X_CSRFTOKEN=token)
            if response.status_code != 302 or not response.url.startswith("/work/assignments/"):
                active.remove(entry)
                continue
            page = client.get(response.url).content.decode()
            shown = sorted({int(pk) for pk, _ in _FACT_FIELD.findall(page)})
            for first_try in (True, False):
                fields = {f"a-{pk}-0-{line}": text for pk in shown
                          for line, text in enumerate(writer.write(items[pk], rng, first_try), 1)}
                result = client.post(response.url + "submit/", {**fields, "csrfmiddlewaretoken": token})
                if result.status_code == 302:
                    submitted += 1
                    break
                refused = re.search(r"Statement \d+: (\w+):", result.content.decode())
                refusals[refused.group(1) if refused else "other"] += 1
                if not first_try:
                    raise RuntimeError(f"{writer.name}: submit refused twice: {result.content.decode()[:300]}")
    return submitted, refusals


# --- designs/timetravel.yaml: simulated story writers, checkers and editors --------------------------------------

_UNRELATED = ("The price of copper rose sharply in Chile that spring.", "A famous painter opened a gallery in Rome.",
              "The city council voted on a new parking rule.", "Scientists found a new kind of frog in Peru.",
              "The old lighthouse on the island was painted red.")
# The design's schemes by number: 0 counterfactual (write), 1 conditions (3 rows), 2 rewrite, 3 edited_ending (3 boxes).
_STORY_ITEM = re.compile(r'name="a-(\d+)-[01]')


@dataclass
class StoryWorker:
    """A simulated worker of designs/timetravel.yaml, who knows each story's reference counterfactual and edited
    ending (demo/data/stories.jsonl). "careful" writes and edits as asked and checks honestly; "breaker" writes
    counterfactuals unrelated to the story (breaking condition 1), and rewrites a failed one into another
    unrelated sentence; "rewriter" first replaces the whole ending with another story's, which the server
    refuses, then edits it."""

    name: str
    style: str = "careful"

    def counterfactual(self, record_id, known, rng):
        return rng.choice(_UNRELATED) if self.style == "breaker" else known[record_id]["counterfactual"]

    def check_fields(self, pk, payload, known, rng, first_try):
        reference = known[payload.record_id]
        fine = payload.fields["counterfactual"] == reference["counterfactual"]
        fields = {f"a-{pk}-1-1": "yes" if fine else "no", f"a-{pk}-1-2": "yes", f"a-{pk}-1-3": "yes"}
        if not fine:
            return {**fields, f"a-{pk}-2": self.counterfactual(payload.record_id, known, rng)}
        ending = reference["edited_ending"]
        if first_try and self.style == "rewriter":
            others = [entry for story, entry in sorted(known.items()) if story != payload.record_id]
            ending = rng.choice(others)["edited_ending"]
        return {**fields, **{f"a-{pk}-3-{n}": sentence for n, sentence in enumerate(ending, 1)}}


def run_story_workers(stages, workers, known, seed=0):
    """The simulated workers take turns over the workflow's stages ({name: batch}, in order) over HTTP (the write
    stage first, then the check stage, which grows as they go) until no stage has work any of them may take. A
    refused submission is answered again once. Returns ({stage: HITs submitted}, refusals by reason)."""
    rng = random.Random(seed)
    active = [(worker, *_logged_in(worker.name)) for worker in workers]
    submitted, refusals = Counter(), Counter()
    with _refusals_quiet():
        progress = True
        while progress:
            progress = False
            for worker, client, token in active:
                for name, batch in stages.items():
                    response = client.post(reverse("hits:claim", args=[batch.pk]), HTTP_X_CSRFTOKEN=token)
                    if response.status_code != 302 or not response.url.startswith("/work/assignments/"):
                        continue
                    page = client.get(response.url).content.decode()
                    shown = sorted({int(pk) for pk in _STORY_ITEM.findall(page)})
                    for first_try in (True, False):
                        fields = {}
                        for pk in shown:
                            payload = Item.objects.get(pk=pk).content
                            if name == "write":
                                fields[f"a-{pk}-0"] = worker.counterfactual(payload.record_id, known, rng)
                            else:
                                fields |= worker.check_fields(pk, payload, known, rng, first_try)
                        result = client.post(response.url + "submit/", {**fields, "csrfmiddlewaretoken": token})
                        if result.status_code == 302:
                            submitted[name] += 1
                            progress = True
                            break
                        refused = re.search(r"edit: (?:is )?(\w+)", result.content.decode())
                        refusals[f"ending {refused.group(1)}" if refused else "other"] += 1
                        if not first_try:
                            said = re.findall(r'Not submitted yet:</strong>([^<]*)', result.content.decode())
                            raise RuntimeError(f"{worker.name}: refused twice: {said or result.status_code}")
                    break  # one HIT a turn: the others get theirs
    return dict(submitted), refusals


_RATE_FIELD = re.compile(r'name="a-(\d+)-(\d+)"')  # designs/timetravel-ratings.yaml: one radio a point
_PAIR_FIELD = re.compile(r'name="a-(\d+)-0"')  # designs/timetravel-comparisons.yaml
_PAIR_VALUES = {label: value for value, label in PAIR_LABELS.items()}


@dataclass
class Rater:
    """A simulated judge of endings. Each ending has a quality of its own (seeded by its item), which every
    rater sees: on "fits the new sentence" an edited ending is a 2 or a 3 and the original (unchanged) ending a
    1 or a 2; on "kept as much as it could" the original is a 3 and an edit a 2 or a 3. With chance `noise` a
    rater gives a random point instead. In a comparison the edited ending wins, with the same noise."""

    name: str
    noise: float = 0.25

    def rating(self, item, question, rng, scale=3):
        system = item.content.fields["system"]
        if rng.random() < self.noise:
            return rng.randint(1, scale)
        quality = random.Random(f"{item.pk}-{question}")
        if question == 1:
            return quality.choice((scale, scale - 1)) if system == "human" else quality.choice((1, 2))
        return scale if system == "original" else quality.choice((scale, scale - 1))

    def compare(self, fields, rng):
        if rng.random() < self.noise:
            return rng.choice(("a", "b", "both_good", "both_bad"))
        return "a" if fields["system_a"] == "human" else "b"


def run_raters(batch, raters, seed=0):
    """The raters take the Likert or pairwise batch's HITs over HTTP until none is left; returns HITs submitted."""
    rng = random.Random(seed)
    items = {str(item.pk): item for item in Item.objects.filter(batch=batch)}
    likert = evaluation_kind(batch) == RATINGS

    def answer(rater, page):
        if likert:
            # Question n is the design's scheme n - 1; every radio button of a question draws, the last one counts.
            return {f"a-{pk}-{index}": str(rater.rating(items[pk], int(index) + 1, rng))
                    for pk, index in _RATE_FIELD.findall(page)}
        return {f"a-{pk}-0": _PAIR_VALUES[rater.compare(items[pk].content.fields, rng)]
                for pk in dict.fromkeys(_PAIR_FIELD.findall(page))}

    return _work_through(batch, raters, answer)
