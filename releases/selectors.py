"""Read models of the dataset pages: a fixed number of queries however many versions there are."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Count

from jobs.models import Job
from releases.models import DatasetSentence, DatasetSpan, DatasetVersion, Split


def version_tables(version_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The paper's Tables 1 and 2 of each version, from two grouped counts (not a join of the two)."""
    tables: dict[int, dict[str, Any]] = {}
    for pk in version_ids:
        tables[pk] = {
            "table1": {side: {"counterfactual": 0, "non_counterfactual": 0, "total": 0}
                       for side in (*Split.values, "total")},
            "table2": {side: {"antecedent_only": 0, "antecedent_and_consequent": 0, "total": 0}
                       for side in (*Split.values, "total")}}
    sentences = (DatasetSentence.objects.filter(version_id__in=version_ids)
                 .values_list("version_id", "split", "label").annotate(n=Count("pk")).order_by())
    for pk, side, label, n in sentences:
        for row in (tables[pk]["table1"][side], tables[pk]["table1"]["total"]):
            row["counterfactual" if label == 1 else "non_counterfactual"] += n
            row["total"] += n
    spans = (DatasetSpan.objects.filter(version_id__in=version_ids)
             .values_list("version_id", "split", "consequent_start").order_by())
    for pk, side, start in spans.iterator():
        for row in (tables[pk]["table2"][side], tables[pk]["table2"]["total"]):
            row["antecedent_and_consequent" if start != -1 else "antecedent_only"] += 1
            row["total"] += 1
    return tables


def version_rows(*, limit: int | None = None, ids: Iterable[int] | None = None) -> list[dict[str, Any]]:
    """Versions (all, or those of `ids`), newest first, with Tables 1 and 2, their export files and last
    export job. Four queries."""
    chosen = DatasetVersion.objects.select_related("created_by").order_by("-created", "-pk")
    if ids is not None:
        chosen = chosen.filter(pk__in=list(ids))
    # The jobs before the versions: an export that ends in between then shows as still running (and the
    # page follows it), never as done beside the file list from before it ran.
    jobs: dict[int | None, Job] = {}
    for job in Job.objects.filter(kind="export", target__in=chosen.values("pk")).order_by("created", "pk"):
        jobs[job.target] = job  # the newest wins
    versions = list(chosen[:limit])
    tables = version_tables([version.pk for version in versions])
    return [{"version": version, **tables[version.pk], "job": jobs.get(version.pk),
             "files": version.results.get("export", {}).get("files", []),
             "sentence_count": tables[version.pk]["table1"]["total"]["total"],
             "span_count": tables[version.pk]["table2"]["total"]["total"]} for version in versions]
