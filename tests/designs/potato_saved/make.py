"""Writes each side-by-side project's saved work as Potato saves it: the records of its potato-annotations.jsonl
(what Potato 2.12.1 exported after the runs in ../potato_side_by_side/README.md) put back into Potato's own
InMemoryUserState, with its Label and SpanAnnotation, and saved by its to_json as <project>/<user>/user_state.json.

Run with Potato installed (`pip install potato-annotation==2.12.1` in a scratch venv), from this folder:
    python make.py ../potato_side_by_side .
Checked so: each project folder with these states as its annotation_output/, `python -m potato.export -c config.yaml
-f jsonl` writes back its potato-annotations.jsonl exactly (all 37). Potato's export keeps neither links nor events:
the events project's state holds the events its server stored in the run (potato-stored-events.json), as they were.
"""

import json
import sys
from pathlib import Path

from potato.item_state_management import EventAnnotation, Label, SpanAnnotation
from potato.phase import UserPhase
from potato.user_state_management import InMemoryUserState


def main(source: Path, out: Path) -> None:
    for folder in sorted(path for path in source.iterdir() if (path / "potato-annotations.jsonl").exists()):
        states: dict[str, InMemoryUserState] = {}
        for line in (folder / "potato-annotations.jsonl").read_text().splitlines():
            record = json.loads(line)
            if record["user_id"] not in states:
                states[record["user_id"]] = InMemoryUserState(record["user_id"])
                states[record["user_id"]].current_phase_and_page = (UserPhase.ANNOTATION, None)
            state = states[record["user_id"]]
            state.instance_id_ordering.append(record["instance_id"])
            for schema, labels in record["labels"].items():
                for name, value in labels.items():
                    state.add_label_annotation(record["instance_id"], Label(schema, name), value)
            for spans in record["spans"].values():
                for span in spans:
                    state.add_span_annotation(record["instance_id"], SpanAnnotation(
                        span["schema"], span["name"], span["title"], span["start"], span["end"], id=span.get("id")),
                        "1")
        # The events its server stored (Potato's export writes none), where the run kept them.
        stored = folder / "potato-stored-events.json"
        for item, events in (json.loads(stored.read_text()) if stored.exists() else {}).items():
            for event in events.values():
                next(iter(states.values())).add_event_annotation(item, EventAnnotation.from_dict(event))
        for user, state in states.items():
            place = out / folder.name / user
            place.mkdir(parents=True, exist_ok=True)
            (place / "user_state.json").write_text(json.dumps(state.to_json(), indent=2))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
