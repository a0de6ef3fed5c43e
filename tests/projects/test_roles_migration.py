"""A site from before project roles migrates without locking anyone out (projects/0005): its projects open to the
site and say so, their annotators stay their members (as annotators), and the site's organizers go on running
them until one is named their organizer."""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from accounts import roles
from projects.models import Member, Project


@pytest.mark.django_db(transaction=True)
def test_existing_projects_stay_open_and_run_by_the_sites_organizers():
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    executor.migrate([("projects", "0004_free_domains")])
    executor.loader.build_graph()
    old = executor.loader.project_state([node for node in leaves if node[0] != "projects"]
                                        + [("projects", "0004_free_domains")]).apps
    OldProject, OldMember = old.get_model("projects", "Project"), old.get_model("projects", "Member")
    annotator = User.objects.create_user("old-annotator", password="x")
    annotator.groups.add(roles.group(roles.ANNOTATOR))
    project = OldProject.objects.create(name="Old study", slug="old-study", design="design-file")
    OldMember.objects.create(project_id=project.pk, user_id=annotator.pk)

    MigrationExecutor(connection).migrate(leaves)

    migrated = Project.objects.get(pk=project.pk)
    assert migrated.open_to_site
    assert Member.objects.get(project=migrated).role == "annotator"
    organizer = User.objects.create_user("site-organizer", password="x")  # a site organizer, not staff
    organizer.groups.add(roles.group(roles.ORGANIZER))
    client = Client()
    client.force_login(organizer)
    page = client.get("/projects/old-study/")
    assert page.status_code == 200
    assert "every annotator of this site (the project is open to the site)" in page.content.decode()
    people = client.get("/projects/old-study/people/").content.decode()
    assert "Nobody is named this project's organizer yet" in people
