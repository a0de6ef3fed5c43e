"""An exported version loads with Hugging Face `datasets`, from the folder alone: the default config and
each named one. `datasets` lives in an environment of its own (CROWDSET_HF_PYTHON names its interpreter;
.ci/run makes it from requirements-hf.txt), so the test runs it in a subprocess, offline."""

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from django.conf import settings

from releases import services
from tests.base import BaseTestCase

HF_PYTHON = os.environ.get("CROWDSET_HF_PYTHON", "")
RELEASED = settings.SHARED_DIR / "semeval2020t5"

LOAD = """
import json, sys
import datasets
found = {}
for name in (None, "subtask1", "subtask2"):
    loaded = datasets.load_dataset(sys.argv[1], name)
    found[name or "default"] = {split: [loaded[split].num_rows, {key: str(value) for key, value in
                                                                 loaded[split].features.items()}]
                                for split in loaded}
print(json.dumps(found))
"""


@pytest.mark.slow
class HuggingFaceLoadTests(BaseTestCase):
    def setUp(self):
        if not HF_PYTHON:
            if os.environ.get("CROWDSET_REQUIRE_HF"):
                self.fail("CROWDSET_REQUIRE_HF is set but CROWDSET_HF_PYTHON names no interpreter with `datasets`")
            self.skipTest("set CROWDSET_HF_PYTHON to a Python with `datasets` (pip install -r requirements-hf.txt)")

    def test_an_export_loads_with_its_default_and_named_configs(self):
        version = services.dataset_import_released(name="hf", subtask1_path=RELEASED / "subtask1_train.csv",
                                                   subtask2_path=RELEASED / "subtask2_train.csv", seed=3)
        folder = Path(tempfile.mkdtemp()) / "hf"
        services.dataset_export(version=version, folder=folder)
        home = tempfile.mkdtemp()
        done = subprocess.run([HF_PYTHON, "-c", LOAD, str(folder)], capture_output=True, text=True, timeout=600,
                              env={**os.environ, "HF_HOME": home, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"})
        self.assertEqual(done.returncode, 0, done.stderr[-3000:])
        found = json.loads(done.stdout.strip().splitlines()[-1])
        table1, table2 = services.table1(version), services.table2(version)
        for name in ("default", "subtask1"):
            self.assertEqual({split: rows for split, (rows, _) in found[name].items()},
                             {"train": table1["train"]["total"], "test": table1["test"]["total"]})
            # The ids stay strings, as the files mean them (a CSV reader alone would make them numbers).
            self.assertEqual(found[name]["train"][1]["sentenceID"], "Value('string')")
        self.assertEqual(found["subtask2"]["test"][0], table2["test"]["total"])
        self.assertEqual(found["subtask2"]["train"][1]["antecedent_startid"], "Value('int64')")
