import json

from django.core.management.base import BaseCommand, CommandError

from core.errors import InputError
from releases.scorer import score_files


class Command(BaseCommand):
    help = ("Score predictions against gold as the SemEval-2020 Task 5 evaluation does. Task 1: GOLD has "
            "sentenceID,gold_label,sentence and PRED sentenceID,pred_label. Task 2: GOLD is a released Subtask-2 "
            "file and PRED has sentenceID,antecedent_startid,antecedent_endid,consequent_startid,consequent_endid. "
            "A gold sentence with no prediction counts as predicted wrong; a prediction for a sentence not in GOLD "
            "is refused.")
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--task", type=int, choices=(1, 2), required=True)
        parser.add_argument("gold")
        parser.add_argument("pred")
        parser.add_argument("--json", action="store_true", help="print one JSON object with the metric names as keys")

    def handle(self, *args, **options):
        try:
            result = score_files(options["task"], options["gold"], options["pred"])
        except InputError as error:
            raise CommandError(str(error)) from None
        if result["missing_predictions"]:
            self.stderr.write(f"{result['missing_predictions']} sentence(s) of the gold file have no prediction "
                              f"and count as predicted wrong")
        if options["json"]:
            self.stdout.write(json.dumps(result, sort_keys=True))
            return
        for name, value in result.items():
            self.stdout.write(f"{name:<20} {value:.4f}" if isinstance(value, float) else f"{name:<20} {value}")
