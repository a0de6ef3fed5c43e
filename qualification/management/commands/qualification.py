from decimal import Decimal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from hits.providers import get_provider
from hits.providers.base import ProviderError
from hits.services import CrowdError
from qualification import mturk, prolific, services
from qualification.models import Grant


class Command(BaseCommand):
    help = ("The screening test: draw a version from the released file, put it on MTurk, sync MTurk scores, "
            "show the pool.")

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        draw = sub.add_parser("draw", help="draw 40 balanced, diverse items and store a new version")
        draw.add_argument("--name", default="counterfactual-screening")
        draw.add_argument("--file", default=str(settings.SHARED_DIR / "semeval2020t5" / "subtask1_train.csv"))
        draw.add_argument("--threshold", type=int, default=80, help="percent correct needed")
        draw.add_argument("--seed", type=int, default=0)
        for action in ("mturk", "sync", "pool"):
            sub.add_parser(action).add_argument("--name", default="counterfactual-screening")
        screen = sub.add_parser("prolific", help="publish the test as a Prolific screening study")
        screen.add_argument("--name", default="counterfactual-screening")
        screen.add_argument("--places", type=int, default=50, help="participants who may take the test")
        screen.add_argument("--reward", type=Decimal, default=None,
                            help="pay per participant (default: Prolific's recommended hourly rate)")

    def handle(self, *args, action, **options):
        try:
            getattr(self, f"do_{action}")(**options)
        except CrowdError as error:
            raise CommandError(str(error)) from None

    def _test(self, name):
        test = services.current_test(name)
        if test is None:
            raise CommandError(f"no qualification test {name!r}; draw one first")
        return test

    def do_draw(self, name, file, threshold, seed, **options):
        test = services.qualification_test_create(name=name, path=file, threshold=threshold, seed=seed)
        items = list(test.items.all())
        rows = sorted({row for item in items for row in item.rows}, key=lambda r: (len(r), r))
        self.stdout.write(f"{test}: {len(items)} items, {sum(i.answer for i in items)} counterfactual; Table 5 rows "
                          f"covered: {', '.join(rows)}; pass at {test.pass_threshold}%")

    def do_mturk(self, name, **options):
        type_id = mturk.qualification_type_create(test=self._test(name), provider=get_provider("mturk"))
        self.stdout.write(f"QualificationType {type_id}: require it with requirements "
                          f'{{"qualification_type_id": "{type_id}", "min_score": ...}}')

    def do_prolific(self, name, places, reward, **options):
        provider = get_provider("prolific")
        try:
            state = prolific.screening_study_create(test=self._test(name), provider=provider, places=places,
                                                    reward=reward)
        except ProviderError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"screening study {state['study_id']} is live; passers join participant group "
                          f"{state['group_id']}, which batches requiring {name!r} on Prolific filter on")

    def do_sync(self, name, **options):
        synced = mturk.qualification_sync(test=self._test(name), provider=get_provider("mturk"))
        self.stdout.write(f"synced {synced} MTurk scores")

    def do_pool(self, name, **options):
        test = self._test(name)
        self.stdout.write(f"pool of {test}: {Grant.objects.filter(test__name=name, revoked=None).count()} qualified")
        for grant in Grant.objects.filter(test__name=name).select_related("worker__user", "test").order_by("-score"):
            state = f"revoked ({grant.revoked_reason})" if grant.revoked else "qualified"
            self.stdout.write(f"  {grant.worker!s:<32} {grant.score:>4}%  {grant.test}  {state}")
