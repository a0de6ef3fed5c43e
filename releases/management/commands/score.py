import json

from django.core.management.base import BaseCommand, CommandError

from core import semeval as formats
from core.errors import InputError
from releases.scorer import ScoreError, score_subtask1, score_subtask2


class Command(BaseCommand):
    help = ("Score predictions against gold as the SemEval-2020 Task 5 evaluation does. Task 1: GOLD has "
            "sentenceID,gold_label,sentence and PRED sentenceID,pred_label. Task 2: GOLD is a released Subtask-2 "
            "file and PRED has sentenceID,antecedent_startid,antecedent_endid,consequent_startid,consequent_endid.")
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--task", type=int, choices=(1, 2), required=True)
        parser.add_argument("gold")
        parser.add_argument("pred")
        parser.add_argument("--json", action="store_true", help="print one JSON object with the metric names as keys")

    def handle(self, *args, **options):
        try:
            if options["task"] == 1:
                result = score_subtask1(formats.read_subtask1(options["gold"]),
                                        formats.read_subtask1(options["pred"], label_column="pred_label"))
            else:
                gold = formats.read_subtask2_gold(options["gold"])
                predicted = formats.read_subtask2_predictions(options["pred"])
                unknown = sorted(set(predicted) - set(gold))
                if unknown:
                    raise ScoreError(f"{options['pred']}: sentenceID(s) not in the gold file: {', '.join(unknown[:5])}")
                result = score_subtask2(gold, predicted)
        except InputError as error:
            raise CommandError(str(error)) from None
        if options["json"]:
            self.stdout.write(json.dumps(result, sort_keys=True))
            return
        for name, value in result.items():
            self.stdout.write(f"{name:<20} {value:.4f}" if isinstance(value, float) else f"{name:<20} {value}")
