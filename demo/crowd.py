"""Simulated crowds for the demo: workers with their own accuracy who answer
through the same HTTP paths a person (in-house pages) or MTurk (the
externalSubmit form on the emulator) would use."""

import hashlib
import random
import re
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from config import roles
from hits.models import Item
from hits.mturk_emulator.worker_client import EmulatedWorker, WorkerRefused

_ITEM_FIELD = re.compile(r'name="item-(\d+)"')


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


def run_inhouse(batch, workers, seed=0):
    """Every simulated worker logs in, claims HITs and submits them over HTTP until none is left."""
    rng = random.Random(seed)
    truth = truths(batch)
    group = roles.group(roles.ANNOTATOR)
    clients = []
    for worker in workers:
        user, _ = User.objects.get_or_create(username=f"sim-{worker.name}")
        user.groups.add(group)
        client = Client(enforce_csrf_checks=True)
        client.force_login(user)
        client.get(reverse("hits:work_list"))
        clients.append((worker, client, client.cookies["csrftoken"].value))
    submitted = 0
    active = list(clients)
    while active:
        for entry in list(active):
            worker, client, token = entry
            response = client.post(reverse("hits:claim", args=[batch.pk]), HTTP_X_CSRFTOKEN=token)
            if not response.url.startswith("/work/assignments/"):
                active.remove(entry)
                continue
            page = client.get(response.url).content.decode()
            answers = {f"item-{pk}": str(worker.answer(truth[int(pk)], rng)) for pk in _ITEM_FIELD.findall(page)}
            result = client.post(response.url + "submit/", {**answers, "csrfmiddlewaretoken": token})
            if result.status_code != 302:
                raise RuntimeError(f"{worker.name}: submit refused: {result.content.decode()}")
            submitted += 1
    return submitted


def take_test_inhouse(test, workers, seed=0):
    """Each simulated annotator logs in and takes the hosted test, answering with its own accuracy."""
    rng = random.Random(seed)
    truth = dict(test.items.values_list("pk", "answer"))
    group = roles.group(roles.ANNOTATOR)
    for worker in workers:
        user, _ = User.objects.get_or_create(username=f"sim-{worker.name}")
        user.groups.add(group)
        client = Client(enforce_csrf_checks=True)
        client.force_login(user)
        page = client.get(reverse("qualification:take", args=[test.name]))
        if page.status_code != 200 or b"test-form" not in page.content:
            continue  # already qualified, or waiting to retake
        token = client.cookies["csrftoken"].value
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
            answers = {f"item-{pk}": str(worker.answer(truth[pk], rng)) for pk in fields_of}
            account.submit(assignment, answers)
            submitted += 1
    return submitted, refused
