"""Every admin list renders (the admin is the operations console)."""

from django.contrib import admin
from django.contrib.auth.models import User
from django.urls import reverse

from designs.semeval import labeling_batch_create
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from tests.base import BaseTestCase
from tests.hits.helpers import spec


class AdminTests(BaseTestCase):
    def test_it_renders_every_list_with_data(self):
        batch = batch_publish(batch=labeling_batch_create(name="b", items=[spec("s", "S.")]))
        worker = worker_for_user(self.annotator)
        assignment = assignment_claim(batch=batch, worker=worker)
        assignment_submit(assignment=assignment, worker=worker, raw_answers={f"a-{batch.items.get().pk}-0": "1"})
        self.client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
        for model in admin.site._registry:
            url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
            self.assertEqual(self.client.get(url).status_code, 200, url)
