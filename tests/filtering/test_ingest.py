import json
import tempfile
import unicodedata
from io import StringIO
from pathlib import Path

from django.core.management import CommandError, call_command

from filtering import services
from filtering.models import Corpus, Document, Sentence
from filtering.readers import read_records
from filtering.services import corpus_ingest
from tests.base import BaseTestCase


def _doc(id, text, domain="finance", **extra):
    return json.dumps({"id": id, "domain": domain, "text": text, **extra}, ensure_ascii=False)


class IngestTestCase(BaseTestCase):
    def setUp(self):
        self.folder = Path(tempfile.mkdtemp())

    def write(self, name, content):
        path = self.folder / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        return path

    def ingest(self, path, **options):
        return corpus_ingest(path=path, corpus_name="test", **options)

    def assert_offsets_exact(self):
        for sentence in Sentence.objects.select_related("document"):
            self.assertEqual(sentence.document.text[sentence.start:sentence.end], sentence.text)


class JsonlTests(IngestTestCase):
    def test_it_stores_documents_and_sentences(self):
        path = self.write("news.jsonl", "\n".join([
            _doc("a", "Stocks rose. Bonds fell.", title="Markets", source="wire"),
            _doc("b", "The Senate voted.\n\nThe House did not.", domain="politics"),
        ]))
        report = self.ingest(path)
        self.assertEqual((report.documents, report.sentences, report.errors), (2, 4, []))
        document = Document.objects.get(external_id="a")
        self.assertEqual((document.title, document.source, document.domain), ("Markets", "wire", "finance"))
        self.assertEqual(list(document.sentences.order_by("index").values_list("text", flat=True)),
                         ["Stocks rose.", "Bonds fell."])
        self.assertEqual(report.by_domain["politics", "sentences"], 2)

    def test_it_keeps_exact_offsets_for_non_ascii_text(self):
        decomposed = "Cafe\u0301 “owners” said 😀 prices rose. Zoë’s shop closed. 東京 markets fell."
        self.ingest(self.write("news.jsonl", _doc("u", decomposed)))
        document = Document.objects.get()
        self.assertEqual(document.text, unicodedata.normalize("NFC", decomposed))
        self.assertIn("Café", document.text)
        self.assertEqual(document.sentences.count(), 3)
        self.assert_offsets_exact()

    def test_it_does_not_split_at_abbreviations(self):
        text = "Mr. Smith of Acme Inc. met U.S. officials on Jan. 5 in Washington. They agreed."
        self.ingest(self.write("news.jsonl", _doc("abbr", text)))
        self.assertEqual(list(Sentence.objects.order_by("index").values_list("text", flat=True)),
                         ["Mr. Smith of Acme Inc. met U.S. officials on Jan. 5 in Washington.", "They agreed."])

    def test_it_skips_documents_already_stored(self):
        path = self.write("news.jsonl", _doc("a", "One. Two."))
        self.ingest(path)
        again = self.ingest(path)
        self.assertEqual((again.documents, again.skipped_existing), (0, 1))
        self.assertEqual((Document.objects.count(), Sentence.objects.count()), (1, 2))

    def test_it_replaces_documents_when_asked(self):
        self.ingest(self.write("news.jsonl", _doc("a", "One. Two.")))
        report = self.ingest(self.write("news.jsonl", _doc("a", "Only one now.")), replace=True)
        self.assertEqual((report.documents, report.replaced), (1, 1))
        self.assertEqual(list(Sentence.objects.values_list("text", flat=True)), ["Only one now."])

    def test_it_reports_bad_records_by_file_and_line_and_stores_the_rest(self):
        lines = [
            _doc("good-1", "Fine text."),
            b"\xff\xfe not utf-8",
            json.dumps({"domain": "finance", "text": "no id"}),
            json.dumps({"id": "no-text", "domain": "finance"}),
            _doc("empty", "   "),
            json.dumps({"id": "sports", "domain": 7, "text": "Goal!"}),
            "{not json",
            _doc("nul", "Bad \x00 byte."),
            _doc("good-1", "Repeated id."),
            _doc("good-2", "Also fine. Two sentences."),
        ]
        raw = b"\n".join(line if isinstance(line, bytes) else line.encode("utf-8") for line in lines)
        path = self.write("mixed.jsonl", raw)
        report = self.ingest(path)
        messages = [str(error) for error in report.errors]
        self.assertEqual([error.line for error in report.errors], [2, 3, 4, 5, 6, 7, 8, 9])
        expected = ["invalid UTF-8", "missing field 'id'", "missing field 'text'", "is empty",
                    "domain 7 is not text", "not valid JSON", "NUL character", "repeats line 1"]
        for message, fragment in zip(messages, expected, strict=True):
            self.assertIn(str(path), message)
            self.assertIn(fragment, message)
        self.assertEqual(sorted(Document.objects.values_list("external_id", flat=True)), ["good-1", "good-2"])
        self.assertEqual(Sentence.objects.count(), 3)

    def test_it_refuses_a_huge_line_without_reading_it_whole(self):
        huge = _doc("huge", "word " * 2_100_000)  # a 10 MB line
        path = self.write("huge.jsonl", huge + "\n" + _doc("after", "Still read."))
        report = self.ingest(path)
        self.assertEqual(len(report.errors), 1)
        self.assertIn(f"{path}:1: line is longer than 2,000,000 bytes", str(report.errors[0]))
        self.assertEqual(list(Document.objects.values_list("external_id", flat=True)), ["after"])

    def test_it_takes_the_domain_from_the_option_when_records_have_none(self):
        path = self.write("news.jsonl", json.dumps({"id": "x", "text": "No domain here."}))
        self.assertIn("pass --domain", str(self.ingest(path).errors[0]))
        self.ingest(path, domain="healthcare")
        self.assertEqual(Document.objects.get().domain, "healthcare")

    def test_it_writes_in_batches_and_each_document_whole(self):
        lines = [_doc(f"d{i}", f"Sentence one of {i}. Sentence two of {i}.") for i in range(7)]
        lines.insert(3, _doc("bad", "", domain="finance"))
        original = services.FLUSH_DOCUMENTS
        services.FLUSH_DOCUMENTS = 2
        try:
            report = self.ingest(self.write("news.jsonl", "\n".join(lines)))
        finally:
            services.FLUSH_DOCUMENTS = original
        self.assertEqual((report.documents, len(report.errors)), (7, 1))
        for document in Document.objects.all():
            self.assertEqual(document.sentences.count(), 2)
        self.assert_offsets_exact()

    def test_it_reads_lazily(self):
        path = self.write("news.jsonl", _doc("a", "First.") + "\n{broken")
        records = read_records(path)
        self.assertEqual(next(records).external_id, "a")

    def test_it_refuses_an_empty_file(self):
        with self.assertRaisesRegex(CommandError, "empty.jsonl: the file is empty"):
            call_command("ingest", str(self.write("empty.jsonl", "")), stdout=StringIO())
        self.assertFalse(Document.objects.exists())


class CsvAndFolderTests(IngestTestCase):
    def test_it_reads_csv_with_a_named_text_column(self):
        content = 'doc,body,domain\n1,"Prices rose, then fell. Again.",finance\n2,"Vote held.",politics\n'
        path = self.write("news.csv", content)
        report = self.ingest(path, text_column="body", id_column="doc")
        self.assertEqual((report.documents, report.sentences), (2, 3))
        self.assertEqual(Document.objects.get(external_id="2").domain, "politics")

    def test_it_names_the_missing_csv_column(self):
        path = self.write("news.csv", "id,content\n1,text\n")
        with self.assertRaisesRegex(CommandError, r"news.csv:1: no column 'text' \(columns: id, content\)"):
            call_command("ingest", str(path), "--domain", "finance", stdout=StringIO())

    def test_it_reports_bad_utf8_in_a_csv_row(self):
        path = self.write("news.csv", b"id,text\n1,Good.\n2,Bad \xff.\n3,Good too.\n")
        report = self.ingest(path, domain="finance")
        self.assertEqual(report.documents, 2)
        self.assertIn("news.csv:3: invalid UTF-8", str(report.errors[0]))

    def test_it_reads_a_folder_of_text_files(self):
        (self.folder / "texts" / "sub").mkdir(parents=True)
        self.write("texts/a.txt", "Alpha. Beta.")
        self.write("texts/sub/b.txt", "Gamma.")
        self.write("texts/c.txt", b"line one\nbad \xff")
        report = self.ingest(self.folder / "texts", domain="healthcare")
        self.assertEqual(sorted(Document.objects.values_list("external_id", flat=True)), ["a", "sub/b"])
        self.assertIn("c.txt:2: invalid UTF-8", str(report.errors[0]))

    def test_it_refuses_a_folder_with_no_files(self):
        (self.folder / "nothing").mkdir()
        with self.assertRaisesRegex(CommandError, "the folder has no .txt files"):
            call_command("ingest", str(self.folder / "nothing"), "--domain", "finance", stdout=StringIO())


class IngestCommandTests(IngestTestCase):
    def test_it_prints_a_summary_per_domain(self):
        path = self.write("news.jsonl", "\n".join([_doc("a", "One. Two."), _doc("b", "Three.", domain="politics")]))
        out = StringIO()
        call_command("ingest", str(path), "--corpus", "wire", stdout=out)
        self.assertIn("corpus wire: stored 2 documents, 3 sentences", out.getvalue())
        self.assertRegex(out.getvalue(), r"politics\s+1 document\s+1 sentence\n")
        self.assertRegex(out.getvalue(), r"finance\s+1 document\s+2 sentences")
        self.assertTrue(Corpus.objects.filter(name="wire").exists())

    def test_it_exits_with_an_error_when_documents_were_skipped(self):
        path = self.write("news.jsonl", "\n".join([_doc("a", "One."), _doc("b", "Two.", domain="sport")]))
        err = StringIO()
        with self.assertRaisesRegex(CommandError, "1 document not stored because of the errors above"):
            call_command("ingest", str(path), "--domains", "finance,politics", stdout=StringIO(), stderr=err)
        self.assertIn("news.jsonl:2: document 'b': domain 'sport' is not one of the accepted domains (finance, "
                      "politics)", err.getvalue())
        self.assertEqual(Document.objects.count(), 1)

    def test_any_domain_the_corpus_names_is_taken(self):
        path = self.write("news.jsonl", "\n".join([_doc("a", "One."), _doc("b", "Two.", domain="technology")]))
        out = StringIO()
        call_command("ingest", str(path), stdout=out)
        self.assertRegex(out.getvalue(), r"technology\s+1 document\s")
        self.assertEqual(sorted(Document.objects.values_list("domain", flat=True)), ["finance", "technology"])
