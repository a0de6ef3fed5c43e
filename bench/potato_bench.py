"""Checking many Potato projects at once: 150 configs of ~100 items each through one
`manage.py design import-potato --check --json` call, against baselines in the same run.

    .venv/bin/python bench/potato_bench.py [--configs 150] [--items 100]

The configs rotate over every text scheme type and all four data formats (.json as an array and as JSON
Lines, .jsonl, .csv, .tsv). Baselines: Django's own start-up (`manage.py check`, what any command pays), and
reading the same config and data files with nothing but yaml/json/csv (what any importer pays).
"""

import argparse
import csv
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent

SCHEMES = [
    {"annotation_type": "radio", "name": "label", "description": "Which?",
     "labels": [{"name": "yes", "key_value": "y"}, {"name": "no", "key_value": "n"}],
     "label_requirement": {"required": True}},
    {"annotation_type": "multiselect", "name": "tags", "labels": ["a", "b", "c"], "sequential_key_binding": True},
    {"annotation_type": "likert", "name": "score", "size": 5, "min_label": "low", "max_label": "high"},
    {"annotation_type": "slider", "name": "level", "min_value": 0, "max_value": 10, "starting_value": 5},
    {"annotation_type": "text", "name": "why", "textarea": {"on": True, "rows": 3}},
    {"annotation_type": "span", "name": "marks", "labels": ["cue", "target"],
     "display_logic": {"show_when": [{"schema": "label", "operator": "equals", "value": "yes"}]}},
    {"annotation_type": "multirate", "name": "facets", "options": ["x", "y"], "labels": ["1", "2", "3"]},
    {"annotation_type": "select", "name": "pick", "labels": ["p", "q", "r"]},
    {"annotation_type": "number", "name": "count", "min": 0, "max": 9},
]
FORMATS = ["json-array", "json-lines", "jsonl", "csv", "tsv"]


def write_project(folder: Path, number: int, items: int) -> Path:
    folder.mkdir(parents=True)
    kind = FORMATS[number % len(FORMATS)]
    rows = [{"id": f"{number}-{n}", "text": f"Item {n} of project {number}: some words to mark and read.",
             "source": "bench"} for n in range(items)]
    name = {"json-array": "items.json", "json-lines": "items.json"}.get(kind, f"items.{kind}")
    (folder / "data").mkdir()
    path = folder / "data" / name
    if kind == "json-array":
        path.write_text(json.dumps(rows, indent=1))
    elif kind in ("json-lines", "jsonl"):
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    else:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), delimiter="\t" if kind == "tsv" else ",")
        writer.writeheader()
        writer.writerows(rows)
        path.write_text(buffer.getvalue())
    schemes = [SCHEMES[0]] + [SCHEMES[(number + k) % (len(SCHEMES) - 1) + 1] for k in range(3)]
    unique = list({scheme["name"]: scheme for scheme in schemes}.values())
    config = {"annotation_task_name": f"Bench project {number}", "task_dir": ".", "port": 8000,
              "data_files": [f"data/{name}"], "item_properties": {"id_key": "id", "text_key": "text"},
              "num_annotators_per_item": 3, "annotation_schemes": unique, "site_dir": "default"}
    config_path = folder / "config.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    return config_path


def plain_read(configs: list[Path]) -> int:
    """The baseline importer: parse each config and its data files, check nothing."""
    records = 0
    for path in configs:
        config = yaml.safe_load(path.read_text())
        for name in config["data_files"]:
            text = (path.parent / name).read_text()
            if name.endswith((".csv", ".tsv")):
                records += sum(1 for _ in csv.DictReader(io.StringIO(text), delimiter="\t" if name.endswith(".tsv")
                                                          else ","))
            elif text.lstrip().startswith("["):
                records += len(json.loads(text))
            else:
                records += sum(1 for line in text.splitlines() if line.strip() and json.loads(line))
    return records


def run(command: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    return time.perf_counter() - started, result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--configs", type=int, default=150)
    parser.add_argument("--items", type=int, default=100)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        configs = [write_project(Path(folder) / f"p{n:03d}", n, options.items) for n in range(options.configs)]
        startup, _ = run([sys.executable, "manage.py", "check"])
        started = time.perf_counter()
        records = plain_read(configs)
        plain = time.perf_counter() - started
        seconds, result = run([sys.executable, "manage.py", "design", "import-potato", "--check", "--json",
                               *map(str, configs)])
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    ok = sum(line["ok"] for line in lines)
    items = sum(line["items"] for line in lines)
    print(f"{options.configs} Potato configs, {records:,} records ({', '.join(FORMATS)} rotated)")
    print(f"  import-potato --check --json, one call      {seconds:>7.2f} s  ({ok} ok, {items:,} items read)")
    print(f"  baseline: manage.py check (Django start-up)  {startup:>7.2f} s")
    print(f"  baseline: yaml/json/csv reads, no checks      {plain:>7.2f} s")
    work = max(seconds - startup, 1e-9)
    print(f"  import beyond start-up: {work:.2f} s = {work / max(plain, 1e-9):.1f}x the plain reads; "
          f"{work / options.configs * 1000:.1f} ms a config")
    if result.returncode != 0 or ok != options.configs:
        print(result.stderr[-2000:] or "\n".join(json.dumps(line) for line in lines if not line["ok"])[:2000])
        sys.exit(1)


if __name__ == "__main__":
    main()
