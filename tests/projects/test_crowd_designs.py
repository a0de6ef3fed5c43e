"""The Balanced COPA and Cheap Facts designs in the workspace: steps that follow the batch to the paper's
numbers, and a batch page with the filters and the cost."""

from django.conf import settings

from core import copa
from demo.crowd import ChoiceWorker, Writer, run_choices, run_writers
from hits.services import batch_publish
from projects import people
from projects.services import project_create
from reproductions.copa import choice_batch_create, copa_sample
from reproductions.facts import draw_items, fact_batch_create
from reproductions.rte import read_rte
from tests.base import BaseTestCase, page_after_jobs

SHARED = settings.SHARED_DIR / "corpora"


class CrowdDesignTests(BaseTestCase):
    def setUp(self):
        self.login(self.organizer)

    def test_a_copa_project_follows_its_batch_to_accuracy_and_kappa(self):
        project = project_create(name="B-COPA", design="balanced-copa", user=self.organizer)
        people.project_open(project=project, open_to_site=True)  # the simulated crowd are the site's annotators
        page = self.client.get(f"/projects/{project.slug}/")
        self.assertContains(page, "manage.py copa batch COPA.xml")
        items = copa_sample(copa.read_copa(SHARED / "balanced-copa" / "balacopa-dev-all.xml"), per_subset=10, seed=1)
        batch = batch_publish(batch=choice_batch_create(items=items, name="validation", items_per_hit=10,
                                                        assignments_per_hit=3, reward="0.10",
                                                        requirements={"masters": True, "min_approved_hits": 10000}))
        project.batches.add(batch)
        run_choices(batch, [ChoiceWorker(f"w{n}", 1.0, mirrored_penalty=0) for n in range(3)], seed=1)
        page = page_after_jobs(self.client, f"/projects/{project.slug}/")
        self.assertContains(page, "original accuracy 100%, kappa 1.000; mirrored accuracy 100%, kappa 1.000")
        self.assertContains(page, "6/6 assignments submitted")
        detail = self.client.get(f"/projects/{project.slug}/batches/{batch.pk}/")
        self.assertContains(detail, "Who may work: every annotator of this site (the project is open to the site); "
                                    "min approved hits, masters: MTurk and Prolific only, not applied here.")
        self.assertContains(detail, "spent 0.00 of 0.60")
        self.assertContains(detail, "id=\"spot-checks\"")
        self.assertNotContains(detail, "Aggregate the votes")

    def test_a_facts_project_shows_the_statements_and_no_spot_checks(self):
        project = project_create(name="Facts", design="cheap-facts", user=self.organizer)
        people.project_open(project=project, open_to_site=True)
        items = draw_items(read_rte(SHARED / "rte" / "rte1_dev.xml"), texts=5, instruction="facts", seed=1)
        batch = batch_publish(batch=fact_batch_create(items=items, name="writing", items_per_hit=5,
                                                      assignments_per_hit=2))
        project.batches.add(batch)
        run_writers(batch, [Writer("a"), Writer("b", "copier")], seed=1)
        page = page_after_jobs(self.client, f"/projects/{project.slug}/")
        self.assertContains(page, "facts on 5 paragraphs")
        detail = self.client.get(f"/projects/{project.slug}/batches/{batch.pk}/")
        self.assertContains(detail, "Who may work: every annotator of this site (the project is open to the site).")
        self.assertNotContains(detail, "id=\"spot-checks\"")

    def test_a_story_rewriting_project_follows_its_workflow(self):
        import json

        from core.stories import read_stories
        from demo.crowd import StoryWorker, run_story_workers
        from designs.stages import workflow_batches
        from reproductions.stories import workflow_start

        stories_file = settings.BASE_DIR / "demo" / "data" / "stories.jsonl"
        known = {row["story_id"]: row for row in map(json.loads, stories_file.read_text("utf-8").splitlines())}
        project = project_create(name="Stories", design="timetravel", user=self.organizer)
        people.project_open(project=project, open_to_site=True)
        page = self.client.get(f"/projects/{project.slug}/")
        self.assertContains(page, "manage.py stories start STORIES.jsonl")
        first = workflow_start(read_stories(stories_file)[:4], name="tt")
        stages = workflow_batches(first)
        run_story_workers(stages, [StoryWorker("s1"), StoryWorker("s2"), StoryWorker("s3", "breaker")], known)
        project.batches.add(*stages.values())
        page = page_after_jobs(self.client, f"/projects/{project.slug}/")
        self.assertContains(page, "edited endings;")
        self.assertContains(page, f"/review/chains/{first.pk}/")
        detail = self.client.get(f"/projects/{project.slug}/batches/{stages['check'].pk}/")
        self.assertContains(detail, "Who may work: every annotator of this site (the project is open to the site).")
        self.assertNotContains(detail, "id=\"spot-checks\"")
