from django.core.management.base import BaseCommand, CommandError
from django.db.models import Count, Q

from hits import services
from hits.models import Assignment, Batch, Worker
from hits.providers.base import ProviderError


class Command(BaseCommand):
    help = "Crowd work from the command line: status, publish, sync, expire, approve, reject, bonus, block."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        for action in ("status", "publish", "sync", "expire"):
            sub.add_parser(action).add_argument("batch", type=int)
        approve = sub.add_parser("approve")
        approve.add_argument("assignments", type=int, nargs="+")
        approve.add_argument("--feedback", default="")
        reject = sub.add_parser("reject")
        reject.add_argument("assignments", type=int, nargs="+")
        reject.add_argument("--feedback", required=True)
        bonus = sub.add_parser("bonus")
        bonus.add_argument("assignment", type=int)
        bonus.add_argument("amount")
        bonus.add_argument("--reason", required=True)
        block = sub.add_parser("block")
        block.add_argument("worker", type=int)
        block.add_argument("--reason", required=True)

    def handle(self, *args, action, **options):
        try:
            getattr(self, f"do_{action}")(**options)
        except (services.CrowdError, ProviderError) as error:
            raise CommandError(str(error)) from None

    def _batch(self, batch_id):
        batch = Batch.objects.filter(pk=batch_id).first()
        if batch is None:
            raise CommandError(f"no batch {batch_id}")
        return batch

    def _assignments(self, ids):
        found = {a.pk: a for a in Assignment.objects.select_related("hit__batch").filter(pk__in=ids)}
        missing = sorted(set(ids) - set(found))
        if missing:
            raise CommandError(f"no assignment {', '.join(map(str, missing))}")
        return [found[i] for i in ids]

    def do_status(self, batch, **options):
        batch = self._batch(batch)
        states = dict(batch.hits.values_list("state").annotate(n=Count("pk")))
        assignments = Assignment.objects.filter(hit__batch=batch).aggregate(
            **{state: Count("pk", filter=Q(state=state)) for state in Assignment.State.values})
        self.stdout.write(f"{batch} — {batch.state}")
        self.stdout.write(f"  HITs: {batch.hits.count()} ({', '.join(f'{k} {v}' for k, v in sorted(states.items()))})")
        self.stdout.write("  assignments: " + ", ".join(f"{k} {v}" for k, v in assignments.items() if v) or "none")
        self.stdout.write(f"  cost estimate {services.batch_estimate_cost(batch=batch)}, spent {batch.spent()}, "
                          f"budget {batch.budget if batch.budget is not None else 'none'}")

    def do_publish(self, batch, **options):
        batch = services.batch_publish(batch=self._batch(batch))
        self.stdout.write(f"published {batch.hits.exclude(provider_hit_id='').count()} HITs of {batch}")

    def do_sync(self, batch, **options):
        report = services.batch_sync(batch=self._batch(batch))
        self.stdout.write(f"synced: {report.new} new, {report.updated} updated, {report.invalid} unusable, "
                          f"{report.expired_claims} expired claims freed")

    def do_expire(self, batch, **options):
        self.stdout.write(f"{services.batch_expire(batch=self._batch(batch))} expired")

    def do_approve(self, assignments, feedback, **options):
        for assignment in self._assignments(assignments):
            services.assignment_approve(assignment=assignment, feedback=feedback)
        self.stdout.write(f"approved {len(assignments)}")

    def do_reject(self, assignments, feedback, **options):
        for assignment in self._assignments(assignments):
            services.assignment_reject(assignment=assignment, feedback=feedback)
        self.stdout.write(f"rejected {len(assignments)}")

    def do_bonus(self, assignment, amount, reason, **options):
        (assignment,) = self._assignments([assignment])
        bonus = services.worker_bonus(worker=assignment.worker, assignment=assignment, amount=amount, reason=reason)
        self.stdout.write(f"bonus {bonus.amount} to {bonus.worker}")

    def do_block(self, worker, reason, **options):
        found = Worker.objects.filter(pk=worker).first()
        if found is None:
            raise CommandError(f"no worker {worker}")
        services.worker_block(worker=found, reason=reason)
        self.stdout.write(f"blocked {found}")
