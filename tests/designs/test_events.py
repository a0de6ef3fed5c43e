"""event_annotation (Potato's event_annotation): n-ary events over the spans a span scheme of the item marked, an
event's trigger and a span per role, made by keyboard with pickers (test_potato_side_by_side.py drives them beside
Potato's page) and checked on the server against the spans and labels of the same answer."""

import json

import pytest

from designs.answers import read_item
from designs.loader import DesignError, load_text
from designs.potato import import_file
from designs.schemes import SCHEME_TYPES, AnswerProblem, Record

SOURCE = """title: Attacks
hits: {layout: item, order: file, items_per_hit: 1, assignments_per_hit: 1}
annotation_schemes:
  - {annotation_type: span, name: entities, description: Mark them., labels: [ACTOR, PLACE, WEAPON, TRIGGER]}
  - annotation_type: event_annotation
    name: events
    description: Make each event.
    span_schema: entities
    event_types:
      - type: ATTACK
        trigger_labels: [TRIGGER]
        arguments:
          - {role: attacker, entity_types: [ACTOR], required: true}
          - {role: target, entity_types: [PLACE]}
      - {type: MOVE, color: "#000000"}
"""
TEXT = "Rebels attacked the town with rockets."
REBELS, ATTACKED, TOWN, ROCKETS = [0, 6, "ACTOR"], [7, 15, "TRIGGER"], [20, 24, "PLACE"], [30, 37, "WEAPON"]


def _read(spans, events):
    design = load_text(SOURCE, name="events.yaml")
    raw = {"a-1-0": json.dumps(spans), "a-1-1": json.dumps(events)}
    return read_item(design, Record("e1", TEXT), raw, 1)[0]


def test_an_event_is_a_trigger_and_a_span_per_role_of_the_labels_its_type_allows():
    answers = _read([REBELS, ATTACKED, TOWN, ROCKETS], [["ATTACK", ATTACKED, [["target", TOWN], ["attacker", REBELS]]],
                                                       ["MOVE", ROCKETS, []]])
    assert answers["events"] == [
        {"type": "ATTACK", "trigger": {"start": 7, "end": 15, "label": "TRIGGER"},
         # In the order they were picked, as Potato's page keeps them (not the type's order of roles).
         "arguments": [{"role": "target", "start": 20, "end": 24, "label": "PLACE"},
                       {"role": "attacker", "start": 0, "end": 6, "label": "ACTOR"}]},
        {"type": "MOVE", "trigger": {"start": 30, "end": 37, "label": "WEAPON"}, "arguments": []}]
    everything = [REBELS, ATTACKED, TOWN, ROCKETS]
    for events, said in (
            ([["ATTACK", REBELS, [["attacker", REBELS]]]],
             "an ATTACK event's trigger is an ACTOR; it must be a TRIGGER"),
            ([["ATTACK", ATTACKED, [["target", TOWN]]]], "an ATTACK event needs its attacker"),
            ([["ATTACK", ATTACKED, [["attacker", TOWN]]]],
             "an ATTACK event's attacker is a PLACE; it must be an ACTOR"),
            ([["ATTACK", ATTACKED, [["attacker", REBELS], ["weapon", ROCKETS]]]],
             "is not an argument \\[role, span\\] of an ATTACK event; its roles are attacker, target"),
            ([["ATTACK", ATTACKED, [["attacker", REBELS], ["attacker", REBELS]]]], "attacker is given twice"),
            ([["ATTACK", ATTACKED, [["attacker", REBELS]]], ["ATTACK", ATTACKED, [["attacker", REBELS]]]],
             "two ATTACK events have the trigger at 7:15"),
            ([["FIGHT", ATTACKED, []]], "is not an event \\[type, trigger, arguments\\] of one of ATTACK, MOVE"),
            ([["MOVE", [30, 99, "WEAPON"], []]], "the span 30:99 is outside the text \\(0:38\\)")):
        with pytest.raises(AnswerProblem, match=said):
            _read(everything, events)
    with pytest.raises(AnswerProblem, match="ATTACK event's attacker is a span not marked in entities "
                                            "\\(ACTOR at 0:6\\); mark it or remove the event"):
        _read([ATTACKED], [["ATTACK", ATTACKED, [["attacker", REBELS]]]])


def test_an_event_scheme_names_a_span_scheme_and_its_labels():
    with pytest.raises(DesignError) as found:
        load_text(SOURCE.replace("span_schema: entities", "span_schema: mentions"), name="events.yaml")
    assert "span_schema: names 'mentions', which is not a span scheme of the design; its span schemes are entities" \
        in str(found.value)
    with pytest.raises(DesignError, match=r"event_types\.0\.arguments\.1\.entity_types: 'LOCATION' is not a label "
                                          r"of entities \(ACTOR, PLACE, TRIGGER, WEAPON\)"):
        load_text(SOURCE.replace("[PLACE]", "[LOCATION]"), name="events.yaml")
    with pytest.raises(DesignError, match="two arguments have the role 'attacker'"):
        load_text(SOURCE.replace("role: target", "role: attacker"), name="events.yaml")


def test_events_are_combined_by_majority_and_written_as_potato_s_page_keeps_them():
    design = load_text(SOURCE, name="events.yaml")
    scheme = design.scheme("events")
    kind = SCHEME_TYPES.of(scheme)
    one = _read([REBELS, ATTACKED, TOWN], [["ATTACK", ATTACKED, [["attacker", REBELS], ["target", TOWN]]]])["events"]
    other = _read([REBELS, ATTACKED], [["ATTACK", ATTACKED, [["attacker", REBELS]]]])["events"]
    assert kind.combine(scheme, [one, one, other]) == one
    assert kind.combine(scheme, [one, other]) == []
    move = {"type": "MOVE", "trigger": {"start": 30, "end": 37, "label": "WEAPON"}, "arguments": []}
    written = kind.potato_answer(scheme, [*one, move], Record("e1", TEXT))
    assert written == {"events": [
        {"id": "event_1", "schema": "events", "event_type": "ATTACK", "trigger_span_id": "entities_TRIGGER_7_15",
         "arguments": [{"role": "attacker", "span_id": "entities_ACTOR_0_6", "text": "Rebels"},
                       {"role": "target", "span_id": "entities_PLACE_20_24", "text": "town"}],
         "properties": {"color": "#dc2626", "trigger_text": "attacked", "trigger_label": "TRIGGER"}},
        {"id": "event_2", "schema": "events", "event_type": "MOVE", "trigger_span_id": "entities_WEAPON_30_37",
         "arguments": [], "properties": {"color": "#000000", "trigger_text": "rockets", "trigger_label": "WEAPON"}}]}


def test_a_potato_event_config_imports_with_its_arcs_kept_and_said(tmp_path):
    (tmp_path / "data.jsonl").write_text(json.dumps({"id": "e1", "text": TEXT}) + "\n")
    config = tmp_path / "config.yaml"
    config.write_text("""annotation_task_name: Attacks
data_files: [data.jsonl]
item_properties: {id_key: id, text_key: text}
annotation_schemes:
  - {annotation_type: span, name: entities, description: Mark them., labels: [ACTOR, TRIGGER]}
  - annotation_type: event_annotation
    name: events
    description: Make each event.
    span_schema: entities
    event_types:
      - {type: ATTACK, trigger_labels: [TRIGGER], arguments: [{role: attacker, entity_types: [ACTOR]}]}
    visual_display: {enabled: true, arc_position: above}
""")
    found = import_file(str(config))
    assert found.ok, found.errors
    events = found.design.scheme("events")
    assert events.annotation_type == "event_annotation" and events.visual_display == {"enabled": True,
                                                                                        "arc_position": "above"}
    bad = config.read_text().replace("entity_types: [ACTOR]", "entity_types: [PERSON]")
    config.write_text(bad)
    found = import_file(str(config))
    assert not found.ok and any("'PERSON' is not a label of entities" in error for error in found.errors)
