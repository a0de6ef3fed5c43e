"""`dataset cues`: the tokens of a labelled export that give its label away, counted by hand."""

import json
from io import StringIO

from django.core.management import call_command

from releases.models import DatasetSentence, DatasetVersion
from tests.base import BaseTestCase


class CueCommandTests(BaseTestCase):
    def test_it_counts_each_token_against_the_label_on_the_chosen_side(self):
        version = DatasetVersion.objects.create(name="tiny")
        rows = [("If only I had known.", 1, "train"), ("If it rains, we stay.", 0, "train"),
                ("Had I known, I would have left.", 1, "train"), ("Prices rose.", 0, "train"),
                ("If only it were so.", 1, "test")]
        DatasetSentence.objects.bulk_create(DatasetSentence(version=version, sentence_id=str(n), text=text,
                                                            label=label, split=split)
                                            for n, (text, label, split) in enumerate(rows))
        out = StringIO()
        call_command("dataset", "cues", "tiny", "--minimum", "2", "--json", stdout=out)
        found = json.loads(out.getvalue())
        self.assertEqual((found["instances"], found["baseline"]), (4, 0.5))
        cues = {cue["token"]: cue for cue in found["strongest"]}
        # "known" is in sentences 1 and 3, both counterfactual; "if" in 1 and 2, one of each.
        self.assertEqual((cues["known"]["applicable"], cues["known"]["productivity"]), (2, 1.0))
        self.assertEqual((cues["if"]["applicable"], cues["if"]["productivity"]), (2, 0.5))
        # Strongest first: "had", "i" and "known" each cover half the sentences, all counterfactual.
        self.assertEqual([cue["token"] for cue in found["strongest"][:3]], ["had", "i", "known"])
        self.assertNotIn("if", [cue["token"] for cue in found["strongest"][:3]])
        out = StringIO()
        call_command("dataset", "cues", "tiny", "--side", "all", "--minimum", "1", stdout=out)
        self.assertIn("5 instances", out.getvalue())
