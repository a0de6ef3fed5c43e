"""Property-based: schemathesis generates requests for every operation of the API's served OpenAPI schema
and sends each as every role (organizer, researcher, annotator, no token) through the site's WSGI app.
No answer may be a 5xx, and every answer must be one the schema declares, in its content type and shape.
The hand-picked bad inputs that were once 500s or silently ignored are checked by name below."""

import json

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts import roles
from aggregation.services import batch_aggregate
from designs.semeval import labeling_batch_create
from hits.services import assignment_claim, assignment_submit, batch_publish, worker_for_user
from projects.services import project_create
from releases.services import dataset_from_aggregation
from tests.hits.helpers import items

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def site(db):
    """Objects for the generated requests to find, and a token for each role."""
    tokens = {}
    for role in ("organizer", "researcher", "annotator"):
        user = User.objects.create_user(f"fuzz-{role}")
        user.groups.add(roles.group(role))
        tokens[role] = Token.objects.create(user=user).key
    organizer = User.objects.get(username="fuzz-organizer")
    project = project_create(name="Fuzz", user=organizer)
    batch = batch_publish(batch=labeling_batch_create(name="b", items=items(10)))
    project.batches.add(batch)
    for n in range(5):
        worker = worker_for_user(User.objects.create_user(f"fuzz-voter{n}"))
        assignment = assignment_claim(batch=batch, worker=worker)
        assignment_submit(assignment=assignment, worker=worker,
                          raw_answers={f"a-{item.pk}-0": "1" for item in assignment.hit.ordered_items()})
    dataset_from_aggregation(run=batch_aggregate(batch=batch, samples=50), name="fuzz-v1")
    return tokens


@pytest.fixture
def api_schema(site):
    """The schema the site serves, with the site's WSGI app to call. As Django's test client does, the
    requests keep the test's database connection (and its transaction) open between them."""
    document = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))
    loaded = schemathesis.openapi.from_dict(document)
    loaded.app = get_wsgi_application()
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield loaded
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_no_generated_request_gets_a_5xx_or_an_answer_the_schema_does_not_declare(api_schema, site):
    # Each operation's own Hypothesis run (schemathesis's pytest plugin does not load under this pytest).
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 15
    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=20, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
        def each_role(case):
            for token in [*site.values(), None]:
                case.call_and_validate(headers={"Authorization": f"Token {token}"} if token else {}, checks=CHECKS)

        each_role()


BAD = [
    ("/api/hits/?batch=18446744073709551616", "batch"),
    ("/api/assignments/?batch=18446744073709551616", "batch"),
    ("/api/hits/?batch=abc", "batch"),
    ("/api/assignments/?batch=-3", "batch"),
    ("/api/assignments/?state=lost", "state"),
    ("/api/batches/?offset=null", "offset"),
    ("/api/batches/?limit=0", "limit"),
    ("/api/batches/?project=%00x", "project"),
]


@pytest.mark.parametrize(("url", "parameter"), BAD)
def test_a_bad_query_parameter_is_a_400_naming_it(site, url, parameter):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {site['organizer']}")
    response = client.get(url)
    assert response.status_code == 400
    assert parameter in response.json()


@pytest.mark.parametrize("url", ["/api/hits/18446744073709551616/", "/api/jobs/99999999999999999999/",
                                 "/api/projects/%00/", "/api/nothing-here/"])
def test_an_id_out_of_range_or_an_unknown_path_is_a_json_404(site, url):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {site['organizer']}")
    response = client.get(url)
    assert (response.status_code, response["Content-Type"]) == (404, "application/json")
    assert "detail" in response.json()


def test_every_status_the_api_answers_is_in_its_schema(site):
    document = SchemaGenerator().get_schema(request=None, public=True)
    declared = {(path, method): set(operation["responses"]) for path, methods in document["paths"].items()
                for method, operation in methods.items()}
    assert {"400", "401", "403"} <= declared[("/api/hits/", "get")]
    assert {"202", "400", "401", "403", "404"} <= declared[("/api/assignments/{id}/bonus/", "post")]
    assert {"401", "403", "404"} <= declared[("/api/versions/{name}/files/{filename}/", "get")]


def test_a_path_without_its_slash_is_redirected_not_lost(site):
    response = APIClient().get("/api/projects?limit=5")
    assert (response.status_code, response["Location"]) == (301, "/api/projects/?limit=5")
