"""Bad corpus input is refused by name, never as a traceback, and never costs the good documents beside it;
replacing documents keeps the work that uses them valid. Runs on SQLite and, in CI, on PostgreSQL."""

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from filtering import services
from filtering.models import Corpus, Document, FilterRun, Sentence
from filtering.services import filter_chunk_process, filter_run_prepare, filter_run_report
from hits.models import Item
from tests.filtering.test_ingest import IngestTestCase, _doc

ROOT = Path(__file__).resolve().parents[2]


class BadInputTests(IngestTestCase):
    def ingest_one_flush(self, lines):
        """All in one flush: a bad document must not cost the good ones of its flush."""
        return self.ingest(self.write("news.jsonl", "\n".join(lines)))

    def test_a_lone_surrogate_a_nul_in_a_title_and_an_overlong_id_are_named_and_the_rest_stored(self):
        report = self.ingest_one_flush([
            _doc("good-1", "Fine text."),
            '{"id": "sur", "domain": "finance", "text": "Bad \\ud800 escape."}',
            _doc("nul-title", "Text.", title="A\x00B"),
            _doc("x" * 5000, "Long id."),
            _doc("nul\x00id", "Text."),
            _doc("good-2", "Also fine."),
        ])
        messages = [str(error) for error in report.errors]
        self.assertIn("news.jsonl:2: document 'sur': field 'text' has an unpaired surrogate (\\ud800) at character 4",
                      messages[0])
        self.assertIn("field 'title' contains a NUL character", messages[1])
        self.assertIn(":4: id 'xxxxxxxx", messages[2])
        self.assertIn("is 5,000 characters long; use ids of at most 200", messages[2])
        self.assertIn("field 'id' contains a NUL character", messages[3])
        self.assertEqual(sorted(Document.objects.values_list("external_id", flat=True)), ["good-1", "good-2"])

    def test_a_document_the_database_refuses_does_not_cost_its_flush(self):
        original = services.SENTENCE_BATCH

        class Refusing(str):
            """Passes every check here and then breaks the row's write (as PostgreSQL's DataError would)."""

        lines = [_doc(f"d{n}", f"Sentence {n}.") for n in range(5)]
        path = self.write("news.jsonl", "\n".join(lines))
        write = services._write

        def refuse_d2(corpus_name, pending, replace, force):
            if "d2" in pending:
                from django.db import DataError

                raise DataError("value too long for type character varying(200)")
            return write(corpus_name, pending, replace, force)

        services._write = refuse_d2
        try:
            report = self.ingest(path)
        finally:
            services._write = write
            services.SENTENCE_BATCH = original
        self.assertEqual(sorted(Document.objects.values_list("external_id", flat=True)), ["d0", "d1", "d3", "d4"])
        self.assertEqual(report.documents, 4)
        self.assertIn("news.jsonl:3: document 'd2': the database refused it (value too long", str(report.errors[0]))
        self.assertEqual(Corpus.objects.get().document_count, 4)

    def test_a_bom_is_accepted_at_the_start_of_jsonl_and_text_files_and_never_hides_a_word(self):
        self.ingest(self.write("bom.jsonl", b"\xef\xbb\xbf" + _doc("a", "If only I had gone.").encode()))
        (self.folder / "texts").mkdir()
        self.write("texts/b.txt", b"\xef\xbb\xbfIf only I had gone.")
        self.ingest(self.folder / "texts", domain="finance")
        self.assertEqual(sorted(Sentence.objects.values_list("text", flat=True)),
                         ["If only I had gone.", "If only I had gone."])
        run = filter_run_prepare(profile="news", corpus=Corpus.objects.get())
        for chunk in run.chunks.all():
            filter_chunk_process(chunk_id=chunk.pk)
        self.assertEqual(run.candidates.count(), 2)

    def test_a_csv_field_longer_than_the_csv_modules_limit_is_read(self):
        text = "If it had rained, we would have stayed home. " * 4000  # 180,000 characters
        report = self.ingest(self.write("long.csv", f'id,text\n1,"{text}"\n2,Short.\n'), domain="finance")
        self.assertEqual((report.documents, report.errors), (2, []))

    def test_an_unterminated_quote_is_named_with_the_line_it_opens_on(self):
        content = 'id,text\n1,Fine.\n2,"Opened and never closed.\n3,Swallowed.\n4,Also swallowed.\n'
        report = self.ingest(self.write("quote.csv", content), domain="finance")
        self.assertEqual(report.documents, 1)
        self.assertIn("quote.csv:3: a quote opened on line 3 is never closed", str(report.errors[0]))

    def test_a_folder_read_as_jsonl_an_empty_file_and_a_missing_file_store_nothing(self):
        (self.folder / "texts").mkdir()
        for path, options, message in ((self.folder / "texts", ["--format", "jsonl"], "is a folder"),
                                       (self.write("empty.jsonl", ""), [], "the file is empty"),
                                       (self.folder / "missing.jsonl", [], "no such file or folder")):
            with self.subTest(path=path.name), self.assertRaisesRegex(CommandError, message):
                call_command("ingest", str(path), *options, "--corpus", "never", stdout=StringIO())
        self.assertFalse(Corpus.objects.exists())

    @pytest.mark.slow  # a fault run of hundreds of HITs or a timer running out: CI runs it
    def test_a_megabyte_paragraph_is_split_without_a_time_out(self):
        sentence = "If the bank had cut rates, stocks would have risen. Officials said so "
        path = self.write("paragraph.txt", (sentence * 14_000).strip())  # 1 MB, no blank line
        done = subprocess.run([sys.executable, "manage.py", "filter_text", str(path), "--all"], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        self.assertGreater(len(lines), 13_000)
        self.assertEqual(lines[-1]["end"], len(path.read_text()))


class ReplaceTests(IngestTestCase):
    def setUp(self):
        super().setUp()
        self.ingest(self.write("news.jsonl", "\n".join([
            _doc("a", "If the bank had cut rates, stocks would have risen. Shares fell."),
            _doc("b", "Nothing to see here. Prices were flat.")])))
        self.run_ = filter_run_prepare(profile="news", corpus=Corpus.objects.get())
        for chunk in self.run_.chunks.all():
            filter_chunk_process(chunk_id=chunk.pk)
        from designs.semeval import subtask1_batch_create

        self.batch = subtask1_batch_create(run=self.run_, name="voted")
        self.item = self.batch.items.get()

    def test_replace_refuses_a_document_in_use_and_force_keeps_its_old_sentences(self):
        new = self.write("new.jsonl", "\n".join([_doc("a", "A rewritten article. It is new."),
                                                 _doc("b", "A rewritten quiet article.")]))
        report = self.ingest(new, replace=True)
        self.assertEqual((report.replaced, report.documents), (1, 1))  # b had no candidate: replaced
        self.assertIn("document 'a': its sentences are in use (2 candidates or batch items", str(report.errors[0]))
        self.assertIn("pass --force", str(report.errors[0]))
        self.assertTrue(Sentence.objects.filter(pk=self.item.content.sentence_pk).exists())

        report = self.ingest(new, replace=True, force=True)  # b again (unused, deleted) and a (kept, superseded)
        self.assertEqual((report.replaced, report.documents, report.errors), (2, 2, []))
        old = Sentence.objects.select_related("document").get(pk=self.item.content.sentence_pk)
        self.assertIsNotNone(old.document.superseded)
        self.assertEqual(old.text, self.item.content.text)  # the voted item still shows what was voted on
        corpus = Corpus.objects.get()
        current = Sentence.objects.filter(document__corpus=corpus, document__superseded=None)
        self.assertEqual((corpus.document_count, corpus.sentence_count), (2, current.count()))
        self.assertEqual(corpus.revision, 3)

        # The old run keeps its report; a new run is a new pass over the current text only.
        self.assertEqual(filter_run_report(run=self.run_).sentences, 4)
        fresh = filter_run_prepare(profile="news", corpus=corpus)
        self.assertNotEqual(fresh.pk, self.run_.pk)
        for chunk in fresh.chunks.all():
            filter_chunk_process(chunk_id=chunk.pk)
        self.assertEqual(filter_run_report(run=fresh).sentences, corpus.sentence_count)
        self.assertEqual(FilterRun.objects.count(), 2)
        self.assertEqual(Item.objects.get(pk=self.item.pk).content.text, old.text)
