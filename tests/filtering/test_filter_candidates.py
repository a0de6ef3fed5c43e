import json
import tempfile
from io import StringIO
from pathlib import Path

from django.core.management import CommandError, call_command

from filtering import nlp
from filtering.models import Candidate, Corpus, FilterChunk, FilterRun, Sentence
from filtering.services import corpus_ingest, filter_chunk_process, filter_run_prepare, filter_run_report
from tests.base import BaseTestCase

DOCUMENTS = [
    ("f1", "finance", "If the bank had failed, the fund would have lost everything. Shares rose 3%. "
                      "The board met on Monday."),
    ("p1", "politics", "Had the senator known, she would have voted no. The bill passed. "
                       "What if the court strikes it down?"),
    ("h1", "healthcare", "The trial ended early. Patients wish to enroll again. "
                         "Without the vaccine, thousands could not have survived."),
]


class FilterCandidatesTests(BaseTestCase):
    def setUp(self):
        folder = Path(tempfile.mkdtemp())
        path = folder / "news.jsonl"
        path.write_text("\n".join(json.dumps({"id": i, "domain": d, "text": t}) for i, d, t in DOCUMENTS))
        corpus_ingest(path=path, corpus_name="news")
        self.corpus = Corpus.objects.get(name="news")

    def test_it_stores_candidates_with_their_rows(self):
        run = filter_run_prepare(corpus=self.corpus, chunk_size=4)
        self.assertEqual(run.chunks.count(), 3)  # 9 sentences in chunks of 4
        for chunk in run.chunks.all():
            filter_chunk_process(chunk_id=chunk.id)
        found = {c.sentence.text: c.rows for c in Candidate.objects.select_related("sentence")}
        self.assertEqual(found, {
            "If the bank had failed, the fund would have lost everything.": ["2", "3", "13"],
            "Had the senator known, she would have voted no.": ["3", "12"],
            "What if the court strikes it down?": ["4"],
            "Without the vaccine, thousands could not have survived.": ["3", "x4"],  # x4: the extended default
        })
        report = filter_run_report(run=run)
        self.assertEqual((report.sentences, report.candidates), (9, 4))
        self.assertEqual(report.by_domain["politics"], [3, 2])
        self.assertEqual(report.rows["3"], 3)
        self.assertTrue(run.is_complete)

    def test_it_resumes_and_never_duplicates(self):
        run = filter_run_prepare(corpus=self.corpus, chunk_size=4)
        first = run.chunks.first()
        filter_chunk_process(chunk_id=first.id)
        filter_chunk_process(chunk_id=first.id)  # a redelivered task
        self.assertFalse(run.is_complete)
        self.assertEqual(filter_run_prepare(corpus=self.corpus, chunk_size=4), run)
        self.assertEqual(run.chunks.count(), 3)
        out = StringIO()
        call_command("filter_candidates", "--corpus", "news", "--chunk-size", "4", stdout=out)
        self.assertIn("3 chunks, 1 already done", out.getvalue())
        self.assertEqual(Candidate.objects.count(), 4)
        self.assertEqual(FilterRun.objects.count(), 1)

    def test_it_chunks_sentences_ingested_later(self):
        run = filter_run_prepare(corpus=self.corpus, chunk_size=100)
        path = Path(tempfile.mkdtemp()) / "more.jsonl"
        path.write_text(json.dumps({"id": "f2", "domain": "finance", "text": "I wish it were true."}))
        corpus_ingest(path=path, corpus_name="news")
        filter_run_prepare(corpus=self.corpus, chunk_size=100)
        ids = list(Sentence.objects.order_by("id").values_list("id", flat=True))
        self.assertEqual(list(run.chunks.values_list("first_id", "last_id")),
                         [(ids[0], ids[8]), (ids[9], ids[9])])

    def test_it_scopes_a_run_by_domain(self):
        out = StringIO()
        call_command("filter_candidates", "--domain", "healthcare", stdout=out)
        self.assertIn("1 candidates of 3 sentences (33.33%)", out.getvalue())
        self.assertIn("14: 0", out.getvalue())
        self.assertEqual(FilterChunk.objects.get().run.scope, "*/healthcare")

    def test_it_names_an_unknown_corpus(self):
        with self.assertRaisesRegex(CommandError, r"no corpus 'wire' \(corpora: news\)"):
            call_command("filter_candidates", "--corpus", "wire", stdout=StringIO())


class FilterTextTests(BaseTestCase):
    def run_command(self, content, *args):
        path = Path(tempfile.mkdtemp()) / "input.txt"
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        out = StringIO()
        call_command("filter_text", str(path), *args, stdout=out)
        return content, [json.loads(line) for line in out.getvalue().splitlines()]

    def test_it_prints_candidates_with_offsets_into_the_input(self):
        text, records = self.run_command("Prices rose. “Had we known,” she said, “we’d have sold.” The end.\n\n"
                                         "What if rates rise?")
        self.assertEqual([r["sentence"] for r in records],
                         ["“Had we known,” she said, “we’d have sold.”", "What if rates rise?"])
        for record in records:
            self.assertEqual(text[record["start"]:record["end"]], record["sentence"])
        self.assertEqual(records[0]["rows"], ["3", "12", "x1"])  # x1: "had we known", inverted
        self.assertEqual(records[1]["pos_forms"], [])

    def test_it_reads_one_sentence_per_line_and_prints_all(self):
        text, records = self.run_command("Shares rose.\r\nI wish it were true.\n\n  \nThe U.S. economy grew.\n",
                                         "--sentences", "--all")
        self.assertEqual([(r["sentence"], r["candidate"]) for r in records],
                         [("Shares rose.", False), ("I wish it were true.", True), ("The U.S. economy grew.", False)])
        for record in records:
            self.assertEqual(text[record["start"]:record["end"]], record["sentence"])
        self.assertEqual(records[1]["rows"], ["8", "9"])
        self.assertEqual(records[1]["pos_forms"], ["4"])

    def test_reading_a_paragraph_at_a_time_splits_as_the_whole_text_would(self):
        text = ("\n\nShares rose. If only I had sold.\r\nThe end came fast.\r\n \t\r\n"
                "Had we known, we would have left.\n\n\n  Why?\nBecause.\n" + "Prices fell. " * 50)
        _, records = self.run_command(text, "--all")
        expected = [(start, end) for start, end in nlp.split_sentences(text)]
        self.assertEqual([(r["start"], r["end"]) for r in records], expected)
        for record in records:
            self.assertEqual(text[record["start"]:record["end"]], record["sentence"])

    def test_it_names_the_line_of_invalid_utf8(self):
        with self.assertRaisesRegex(CommandError, r"input.txt:2: invalid UTF-8"):
            self.run_command(b"fine\nbad \xff\n")
