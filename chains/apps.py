"""TimeTravel's story rewriting beyond its design files: the workflow runs as designs/timetravel.yaml (stages,
gate, rewrite rounds and lineage are the design engine's); this app starts it from a story file, writes the
released JSONL splits and statistics (chains/report.py), and runs the Likert and pairwise human evaluation as
designs/timetravel-ratings.yaml and designs/timetravel-comparisons.yaml (chains/evaluation.py)."""

from django.apps import AppConfig


class ChainsConfig(AppConfig):
    name = "chains"
    verbose_name = "Story rewriting (TimeTravel)"
