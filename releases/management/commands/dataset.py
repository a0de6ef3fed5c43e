import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from aggregation.models import AggregationRun
from core.cues import label_cues
from designs.semeval import subtask1_batch_create
from filtering.models import Candidate, FilterRun
from hits.services import CrowdError
from releases import services
from releases.models import DatasetVersion
from releases.sampling import balanced_sample


class Command(BaseCommand):
    help = ("Dataset versions: build (from an aggregation), import (the released files), export (every format, "
            "statistics, plots, card), baselines (SVM and CRF scored with our scorer), stats.")

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        build = sub.add_parser("build", help="freeze the labels of an aggregation run, split")
        build.add_argument("run", type=int)
        build.add_argument("--name", required=True)
        for target in (build, imported := sub.add_parser("import", help="the released files as a version")):
            target.add_argument("--test-share", type=float, default=0.35)
            target.add_argument("--seed", type=int, default=0)
        build.add_argument("--stratify", default="label", help="comma-separated fields: label,domain")
        build.add_argument("--group-by-document", action="store_true")
        build.add_argument("--allow-stale", action="store_true",
                           help="build even when work was reviewed or submitted after the aggregation ran")
        imported.add_argument("--name", required=True)
        imported.add_argument("--subtask1", default=str(settings.SHARED_DIR / "semeval2020t5" / "subtask1_train.csv"))
        imported.add_argument("--subtask2", default=str(settings.SHARED_DIR / "semeval2020t5" / "subtask2_train.csv"))
        imported.add_argument("--subtask1-test", help="the released Subtask-1 test file: keep the released sides "
                                                      "instead of splitting again")
        imported.add_argument("--subtask2-test", help="the released Subtask-2 test file (with --subtask1-test)")
        sample = sub.add_parser("sample", help="N candidates of a filter run, balanced across domains")
        sample.add_argument("run", type=int, help="filter run id")
        sample.add_argument("--size", type=int, required=True)
        sample.add_argument("--seed", type=int, default=0)
        sample.add_argument("--batch", help="also create a Subtask-1 batch of the sample, with this name")
        export = sub.add_parser("export")
        export.add_argument("version")
        export.add_argument("--out", required=True)
        cues = sub.add_parser("cues", help="tokens that give the label away (the superficial-cue report)")
        cues.add_argument("version")
        cues.add_argument("--side", choices=("train", "test", "all"), default="train")
        cues.add_argument("--top", type=int, default=15)
        cues.add_argument("--minimum", type=int, default=20, help="leave out tokens in fewer sentences")
        cues.add_argument("--json", action="store_true")
        for action in ("stats", "baselines"):
            sub.add_parser(action).add_argument("version")
        sub.choices["stats"].add_argument("--json", action="store_true",
                                          help="Tables 1 and 2 and words per sentence as one JSON object")

    def handle(self, *args, action, **options):
        try:
            getattr(self, f"do_{action}")(**options)
        except services.DatasetError as error:
            raise CommandError(str(error)) from None

    def _version(self, name):
        version = DatasetVersion.objects.filter(name=name).first()
        if version is None:
            raise CommandError(f"no dataset version {name!r}")
        return version

    def do_sample(self, run, size, seed, batch, **options):
        found = FilterRun.objects.filter(pk=run).first()
        if found is None:
            raise CommandError(f"no filter run {run}")
        pairs = Candidate.objects.filter(run=found).values_list("pk", "sentence__document__domain")
        chosen, report = balanced_sample(list(pairs), size, seed=seed)
        self.stdout.write(f"sample of filter run {run}: {report['chosen']} of {report['requested']} requested "
                          f"(seed {seed}); available per domain {report['available']}, chosen {report['per_group']}"
                          + (f"; short by {report['short_by']}" if report["short_by"] else ""))
        if batch:
            try:
                created = subtask1_batch_create(run=found, name=batch, candidate_ids=chosen, seed=seed)
            except CrowdError as error:
                raise CommandError(str(error)) from None
            self.stdout.write(f"batch {created.pk}: {created.hits.count()} HITs of {created.items.count()} items")

    def do_build(self, run, name, test_share, seed, stratify, group_by_document, allow_stale=False, **options):
        found = AggregationRun.objects.filter(pk=run).first()
        if found is None:
            raise CommandError(f"no aggregation run {run}")
        version = services.dataset_from_aggregation(
            run=found, name=name, test_share=test_share, seed=seed, group="document" if group_by_document else None,
            stratify=tuple(field for field in stratify.split(",") if field), allow_stale=allow_stale)
        self.stdout.write(f"dataset {version}: {version.split_report}")
        if version.split_report.get("ungrouped"):
            self.stderr.write(f"warning: {version.split_report['ungrouped']} sentences have no source document; "
                              f"each was split on its own (the dataset card says so)")

    def do_import(self, name, subtask1, subtask2, subtask1_test, subtask2_test, test_share, seed, **options):
        version = services.dataset_import_released(name=name, subtask1_path=subtask1, subtask2_path=subtask2,
                                                   subtask1_test_path=subtask1_test, subtask2_test_path=subtask2_test,
                                                   test_share=test_share, seed=seed)
        self.stdout.write(f"dataset {version}: {version.sentences.count()} sentences, {version.spans.count()} spans")

    def do_export(self, version, out, **options):
        written = services.dataset_export(version=self._version(version), folder=out)
        self.stdout.write(f"wrote {len(written)} files to {out}: {', '.join(written)}")

    def do_stats(self, version, **options):
        version = self._version(version)
        if options.get("json"):
            self.stdout.write(json.dumps({"table1": services.table1(version), "table2": services.table2(version),
                                          "words_per_sentence": services.word_counts(version)}, indent=2))
            return
        self.stdout.write(services.format_table("Table 1 (Subtask 1)", services.table1(version)))
        self.stdout.write(services.format_table("Table 2 (Subtask 2)", services.table2(version)))

    def do_cues(self, version, side, top, minimum, **options):
        sentences = self._version(version).sentences.all()
        if side != "all":
            sentences = sentences.filter(split=side)
        report = label_cues(sentences.values_list("text", "label"))
        if options.get("json"):
            self.stdout.write(json.dumps({"instances": report.instances, "baseline": report.baseline,
                                          "imbalance": report.imbalance,
                                          "strongest": [cue.as_dict() for cue in report.strongest(top, minimum)]}))
            return
        self.stdout.write(f"{side} side: productivity is the share of sentences with the token that are "
                          f"counterfactual, against {report.baseline:.1%} overall")
        self.stdout.write(report.table(top, minimum))

    def do_baselines(self, version, **options):
        results = services.dataset_baselines(version=self._version(version))
        svm = results["subtask1_svm"]
        self.stdout.write(f"Subtask 1, tf-idf + linear SVM: precision {svm['precision']:.1%} recall "
                          f"{svm['recall']:.1%} F1 {svm['f1']:.1%}   (paper: P 69.7 R 11.5 F1 19.7)")
        crf = results.get("subtask2_crf")
        if crf:
            self.stdout.write(f"Subtask 2, CRF: F1 {crf['f1']:.1%} exact match {crf['exact_match']:.1%} "
                              f"(precision {crf['precision']:.1%}, recall {crf['recall']:.1%})   "
                              f"(paper: F1 55.5 EM 34.3)")
