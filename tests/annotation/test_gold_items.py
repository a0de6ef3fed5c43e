import tempfile
from pathlib import Path

from core.errors import InputError
from designs.semeval import semeval_gold_items
from tests.base import BaseTestCase


class GoldItemsTests(BaseTestCase):
    def write(self, content):
        path = Path(tempfile.mkdtemp()) / "gold.csv"
        path.write_text(content, encoding="utf-8")
        return path

    def test_it_draws_balanced_known_answers(self):
        rows = "".join(f"{n},{n % 4 == 0:d},Sentence {n}.\r\n" for n in range(40))
        gold = semeval_gold_items(path=self.write("sentenceID,gold_label,sentence\r\n" + rows), count=10, seed=3)
        self.assertEqual(sorted(item.gold_answer for item in gold), [0] * 5 + [1] * 5)
        self.assertTrue(all(item.key == f"semeval:{item.payload.sentence_id}" for item in gold))

    def test_it_names_missing_columns_and_bad_labels(self):
        with self.assertRaisesRegex(InputError, r"gold.csv:1: missing column\(s\) gold_label"):
            semeval_gold_items(path=self.write("sentenceID,sentence\n1,x\n"), count=2)
        with self.assertRaisesRegex(InputError, r"gold.csv:3: gold_label: 'yes' is not a whole number"):
            semeval_gold_items(path=self.write("sentenceID,gold_label,sentence\n1,1,x\n2,yes,y\n"), count=2)
