"""The aggregation app's job kinds."""

from aggregation.services import batch_aggregate
from jobs.registry import JOB_KINDS, JobKind


def run_aggregate(job, batch):
    run = batch_aggregate(batch=batch)
    alpha = f"{run.alpha:.3f}" if run.alpha is not None else "n/a"
    return f"aggregation {run.pk}: {run.votes} votes, alpha {alpha}", {"run": run.pk}


JOB_KINDS.register("aggregate", JobKind("aggregate", "aggregate", "hits.Batch", run_aggregate))
