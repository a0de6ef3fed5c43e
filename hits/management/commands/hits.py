from django.core.management.base import BaseCommand, CommandError
from django.db.models import Count, Q

from hits import services
from hits.models import Assignment, Batch, Worker
from hits.providers.base import ProviderError, money
from hits.reconcile import batch_reconcile


class Command(BaseCommand):
    help = ("Crowd work from the command line: list, status, publish, sync, expire, cancel, archive, reconcile, "
            "approve, reject, bonus, block.")

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        listing = sub.add_parser("list", help="the batches, newest first: id, state, provider, HITs and name")
        listing.add_argument("--state", choices=Batch.State.values, help="only the batches in this state")
        for action in ("status", "publish", "sync", "expire", "cancel", "archive"):
            sub.add_parser(action).add_argument("batch", type=int)
        reconcile = sub.add_parser("reconcile", help="compare the provider's HITs, assignments and bonuses with ours "
                                                     "and the ledger; exit 1 on any difference")
        reconcile.add_argument("batch", type=int, nargs="?")
        reconcile.add_argument("--all", action="store_true", help="every batch that is not a draft")
        reconcile.add_argument("--repair", action="store_true",
                               help="pull what is missing here, bring states and the ledger in line, mark orphans")
        approve = sub.add_parser("approve")
        approve.add_argument("assignments", type=int, nargs="+")
        approve.add_argument("--feedback", default="")
        reject = sub.add_parser("reject")
        reject.add_argument("assignments", type=int, nargs="+")
        reject.add_argument("--feedback", required=True)
        reject.add_argument("--category", default="", help="Prolific's rejection category, e.g. FAILED_CHECK")
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

    def do_list(self, state=None, **options):
        batches = Batch.objects.annotate(hit_count=Count("hits")).order_by("-pk")
        if state:
            batches = batches.filter(state=state)
        rows = [(str(batch.pk), batch.state, batch.provider, f"{batch.hit_count:,} HITs", batch.name)
                for batch in batches]
        if not rows:
            self.stdout.write("no batch" + (f" is {state}" if state else " yet"))
            return
        widths = [max(len(row[column]) for row in rows) for column in range(4)]  # the name, last, is not padded
        for *cells, name in rows:
            padded = (cell.ljust(width) for cell, width in zip(cells, widths, strict=True))
            self.stdout.write("  ".join([*padded, name]))

    def do_status(self, batch, **options):
        batch = self._batch(batch)
        states = dict(batch.hits.values_list("state").annotate(n=Count("pk")))
        assignments = Assignment.objects.filter(hit__batch=batch).aggregate(
            **{state: Count("pk", filter=Q(state=state)) for state in Assignment.State.values})
        self.stdout.write(f"{batch} — {batch.state}")
        self.stdout.write(f"  HITs: {batch.hits.count()} ({', '.join(f'{k} {v}' for k, v in sorted(states.items()))})")
        held = ", ".join(f"{k} {v}" for k, v in assignments.items() if v)
        self.stdout.write(f"  assignments: {held or 'none yet'}")
        self.stdout.write(f"  cost estimate {services.batch_estimate_cost(batch=batch)}, spent {batch.spent()}, "
                          f"budget {batch.budget if batch.budget is not None else 'none'}")

    def do_publish(self, batch, **options):
        batch = services.batch_publish(batch=self._batch(batch))
        self.stdout.write(f"published {batch.hits.exclude(provider_hit_id='').count()} HITs of {batch}")

    def do_sync(self, batch, **options):
        report = services.batch_sync(batch=self._batch(batch))
        if report.skipped:
            self.stdout.write(f"nothing done: {report.skipped}")
            return
        self.stdout.write(f"synced {report.hits} HITs: {report.new} new, {report.updated} updated, {report.invalid} "
                          f"unusable, {report.flagged} flagged for a person, {report.disposed} disposed of, "
                          f"{report.expired_claims} expired claims freed"
                          + (f", {report.withdrawn} withdrawn by their worker" if report.withdrawn else "")
                          + (f", {report.held} places held for participants on their way" if report.held else "")
                          + (f"; {report.left} HITs left for the next sync" if report.left else "")
                          + (f"; places taken: {report.places}" + (" (they differ: `hits reconcile` says which)"
                                                                 if report.places_differ else "")
                             if report.places else ""))

    def do_cancel(self, batch, **options):
        self.stdout.write(f"{services.batch_cancel(batch=self._batch(batch))} cancelled; it keeps syncing until "
                          f"what was taken is in")

    def do_archive(self, batch, **options):
        self.stdout.write(f"{services.batch_archive(batch=self._batch(batch))} archived")

    def do_reconcile(self, batch, all, repair, **options):
        if batch is None and not all:
            raise CommandError("name a batch, or pass --all")
        batches = [self._batch(batch)] if batch is not None else list(
            Batch.objects.exclude(state=Batch.State.DRAFT).order_by("pk"))
        differences = 0
        for found in batches:
            report = batch_reconcile(batch=found, repair=repair)
            differences += len(report.differences)
            status = "clean" if report.clean else f"{len(report.differences)} differences"
            self.stdout.write(f"batch {found.pk} ({found.provider}): {status}")
            for difference in report.differences:
                self.stdout.write(f"  {difference['kind']}: {difference['what']}")
            for repaired in report.repaired:
                self.stdout.write(f"  repaired: {repaired}")
            for note in report.notes:
                self.stdout.write(f"  note: {note}")
        if differences:
            raise CommandError(f"{differences} differences between the providers and our records"
                               + (" (repaired where that is safe; run again to see what is left)" if repair else
                                  "; --repair pulls what is missing and marks orphans"))

    def do_expire(self, batch, **options):
        self.stdout.write(f"{services.batch_expire(batch=self._batch(batch))} expired")

    def do_approve(self, assignments, feedback, **options):
        for assignment in self._assignments(assignments):
            services.assignment_approve(assignment=assignment, feedback=feedback)
            if assignment.review_note:
                self.stdout.write(f"assignment {assignment.pk}: {assignment.review_note}")
        self.stdout.write(f"approved {len(assignments)}")

    def do_reject(self, assignments, feedback, category, **options):
        for assignment in self._assignments(assignments):
            services.assignment_reject(assignment=assignment, feedback=feedback, category=category)
        self.stdout.write(f"rejected {len(assignments)}")

    def do_bonus(self, assignment, amount, reason, **options):
        (assignment,) = self._assignments([assignment])
        bonus = services.worker_bonus(worker=assignment.worker, assignment=assignment, amount=amount, reason=reason)
        self.stdout.write(f"bonus {money(bonus.amount)} to {bonus.worker} ({bonus.state}; payment {bonus.pk})")

    def do_block(self, worker, reason, **options):
        found = Worker.objects.filter(pk=worker).first()
        if found is None:
            raise CommandError(f"no worker {worker}")
        services.worker_block(worker=found, reason=reason)
        self.stdout.write(f"blocked {found}")
