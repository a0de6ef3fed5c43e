"""A dialogue's or an agent trace's turns as a person reads them: who says each turn and what (Potato's dialogue
display), a field's value as lines. Django-free and model-free: item reading (designs.items), the task page and the
scheme types (a turn rating) read it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

SPEAKERS = ("speaker", "role", "name", "agent", "author")  # who says a turn of a dialogue or a trace
SAYINGS = ("text", "content", "utterance", "message", "action", "observation")  # what the turn says


def as_lines(value: Any) -> str:
    """A field's value as a person reads it: a list one entry a line, a turn of a dialogue or an agent trace
    ({"speaker": ..., "text": ...}) as "speaker: text", a mapping as "key: value" lines."""
    if isinstance(value, list):
        return "\n".join(as_line(entry) for entry in value)
    if isinstance(value, dict):
        return "\n".join(f"{key}: {as_line(entry)}" for key, entry in value.items())
    return str(value)


def turns(value: Any) -> list[dict[str, Any]] | None:
    """A dialogue's turns as Potato's dialogue display draws them, or None when the value is not one (a list of
    {"speaker": ..., "text": ...} turns, any of SPEAKERS and SAYINGS): each turn's speaker, what it says, and the
    speaker's place among the dialogue's speakers (its colour)."""
    if not isinstance(value, list) or not value or not all(isinstance(entry, dict) for entry in value):
        return None
    found: list[dict[str, Any]] = []
    speakers: dict[str, int] = {}
    for entry in value:
        who = next((str(entry[key]) for key in SPEAKERS if entry.get(key) not in (None, "")), "")
        said = next((entry[key] for key in SAYINGS if entry.get(key) not in (None, "")), None)
        made = calls(entry)
        if said is None and not made:
            return None
        found.append({"speaker": who, "text": "" if said is None else _text(said), **({"calls": made} if made else {}),
                      "party": speakers.setdefault(who, len(speakers)) % 6})
    return found


def _text(said: Any) -> str:
    # A turn's content as blocks (Anthropic's messages: text and tool_use) reads as its text; its calls are apart.
    if isinstance(said, list) and said and all(isinstance(block, dict) and block.get("type") for block in said):
        return "\n".join(str(block.get("text", "")) for block in said if block["type"] == "text")
    return as_line(said)


CALL_LINES = 20  # a call's output is cut after this many lines, as Potato's coding trace folds a long one


def tool_calls(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool calls a turn of a coding agent's trace makes, as Potato's coding trace reads them: its tool_calls,
    else the tool_use blocks of its content (as Anthropic's messages write them)."""
    made = entry.get("tool_calls")
    if not made and isinstance(entry.get("content"), list):
        made = [block for block in entry["content"] if isinstance(block, dict) and block.get("type") == "tool_use"]
    return [call for call in made if isinstance(call, dict)] if isinstance(made, list) else []


def calls(entry: dict[str, Any]) -> str:
    """A turn's tool calls (tool_calls) as Potato's coding trace shows them: each its tool and file, an edit as its
    lines taken out (-) and put in (+), a command after $, a file written as its content, any other input as JSON,
    then what the call gave back; "" when it makes none."""
    shown = []
    for call in tool_calls(entry):
        given = next((call[key] for key in ("input", "args", "arguments") if key in call), None)
        path = given.get("file_path", given.get("path", "")) if isinstance(given, dict) else ""
        lines = [f"▸ {call.get('tool') or call.get('name') or 'tool'} {path}".rstrip()]
        if isinstance(given, dict):
            rest = {key: part for key, part in given.items() if key not in ("file_path", "path")}
            if "old_string" in rest or "new_string" in rest:
                lines += [f"- {line}" for line in str(rest.get("old_string", "")).splitlines()]
                lines += [f"+ {line}" for line in str(rest.get("new_string", "")).splitlines()]
            elif "command" in rest:
                lines.append(f"$ {rest['command']}")
            elif "content" in rest:
                lines += str(rest["content"]).splitlines()
            elif rest:
                lines.append(json.dumps(rest, ensure_ascii=False))
        elif given not in (None, ""):
            lines.append(str(given))
        output = str(call.get("output") or "").splitlines()
        if output:
            lines += [f"→ {output[0]}", *output[1:CALL_LINES]] + (["…"] if len(output) > CALL_LINES else [])
        shown.append("\n".join(lines))
    return "\n".join(shown)


def as_line(entry: Any) -> str:
    if isinstance(entry, dict):
        who = next((str(entry[key]) for key in SPEAKERS if entry.get(key) not in (None, "")), "")
        said = next((entry[key] for key in SAYINGS if entry.get(key) not in (None, "")), None)
        if said is not None:
            return f"{who}: {as_line(said)}" if who else as_line(said)
        return "; ".join(f"{key}: {as_line(value)}" for key, value in entry.items())
    if isinstance(entry, list):
        return ", ".join(map(as_line, entry))
    return str(entry)


def acting(value: Any, agent_key: str, unnamed: str = "agent") -> list[str]:
    """Who acts in each step of an agent trace, as Potato's agent-evaluation pages name them: the step's `agent_key`,
    else its speaker or role, else the step's number after `unnamed` ("agent 3")."""
    return [next((str(step[key]) for key in (agent_key, "speaker", "role") if step.get(key)), f"{unnamed} {place + 1}")
            if isinstance(step, dict) else f"{unnamed} {place + 1}"
            for place, step in enumerate(value if isinstance(value, list) else [])]


TREE_NODES = 200  # the most nodes of a conversation tree drawn


def tree_nodes(value: Any) -> list[dict[str, Any]]:
    """A conversation tree (Potato's conversation_tree display: a node {id, speaker, text, children: [nodes]}, or
    its JSON) as its nodes in the order they are read, depth first, a node before its replies: each {id, speaker,
    text, depth, replies, asked}; a `synthetic` node (a root made to hold a thread's several) is not asked. [] when
    the value is not a tree."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    found: list[dict[str, Any]] = []

    def walk(node: Any, depth: int) -> None:
        if not isinstance(node, dict) or len(found) >= TREE_NODES:
            return
        replies = node.get("children")
        children = [child for child in replies if isinstance(child, dict)] if isinstance(replies, list) else []
        found.append({"id": str(node.get("id", f"t{len(found)}")), "speaker": str(node.get("speaker", "")),
                      "text": str(node.get("text", "")), "depth": depth, "replies": len(children),
                      "asked": not node.get("synthetic")})
        for child in children:
            walk(child, depth + 1)

    if isinstance(value, dict) and ("children" in value or "text" in value):
        walk(value, 0)
    return found


IDENTITY = ("turn_id", "step_id", "id")  # what a reply names the turn it answers by, as Potato reads it


class Said(list):
    """A dialogue's turns as drawn, with what its box needs (a height to scroll in, replies indented)."""

    max_height = ""
    threaded = False
    reply_lines = False
    folds = False  # a conversation tree's replies fold (collapsed_depth): Expand all and Collapse all are drawn


def drawn(value: Any, view: Any, numbered: bool = False) -> Said | None:
    """The dialogue's turns (turns) as a design draws them: numbered, and with its view (designs.model.DialogueView,
    or None) each turn's depth in the thread and its timestamp's label, as Potato's dialogue display draws them."""
    nodes = tree_nodes(value) if isinstance(value, dict) and "children" in value else []
    if nodes:  # a conversation tree, drawn as a thread: each reply indented under what it answers
        said = drawn([{"speaker": node["speaker"], "text": node["text"]} for node in nodes], None, numbered)
        folded = view.collapsed_depth if view is not None else None
        if said is not None:
            said.threaded, said.folds = True, folded is not None and any(node["replies"] for node in nodes)
            for turn, node in zip(said, nodes, strict=True):
                turn["depth"], turn["indent"] = node["depth"], min(node["depth"], 6)
                if folded is not None:
                    # As on Potato's page: a node this deep starts with its replies folded, so every node deeper is
                    # hidden until its fold is opened (designs/folds.js opens and folds them).
                    turn["replies"] = node["replies"]
                    turn["open"], turn["hidden"] = node["depth"] < folded, node["depth"] > folded
        return said
    found = turns(value)
    if found is None:
        return None
    said = Said({**turn, "number": place} if numbered else turn for place, turn in enumerate(found, 1))
    if view is None:
        return said
    height = view.max_height
    said.max_height = f"{height}px" if isinstance(height, int) else (height or "")
    if view.indent_replies:
        said.threaded, said.reply_lines = True, view.show_reply_lines
        for turn, depth in zip(said, depths(value, view.depth_key, view.reply_to_key), strict=True):
            turn["depth"], turn["indent"] = depth, min(depth, view.max_indent_depth)
    if view.meta_fields:
        for turn, entry in zip(said, value, strict=True):
            chips = meta(entry.get(view.meta_key), view.meta_fields)
            if chips:
                turn["meta"] = chips
    if view.timestamps:
        stamps = [_seconds(entry.get("timestamp")) for entry in value]
        origin = min((stamp for stamp in stamps if stamp is not None), default=0.0)
        for turn, entry, stamp in zip(said, value, stamps, strict=True):
            if stamp is not None:
                turn["stamp"] = _stamp(entry["timestamp"], stamp, view.timestamps, origin)
    return said


def meta(found: Any, names: list[str]) -> str:
    """A turn's metadata as Potato's dialogue display shows it on the turn: each named field that is there and is a
    text, a number or a truth, "name: value", a fraction to three figures, joined by "  ·  "."""
    if not isinstance(found, dict):
        return ""
    shown = []
    for name in names:
        value = found.get(name)
        if name not in found or value is None or isinstance(value, dict | list):
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, float):
            value = f"{value:.3g}"
        shown.append(f"{name}: {value}")
    return "  ·  ".join(shown)


def depths(entries: list[dict[str, Any]], depth_key: str, reply_to_key: str) -> list[int]:
    """Each turn's depth in the thread: the data's own where any turn gives one, else counted up its reply_to
    chain (a cycle or a parent not in the dialogue ends the count), as Potato derives it."""
    given = [_whole(entry.get(depth_key)) for entry in entries]
    if any(depth is not None for depth in given):
        return [depth or 0 for depth in given]
    places: dict[Any, int] = {}
    for place, entry in enumerate(entries):
        who = next((entry[key] for key in IDENTITY if _named(entry.get(key))), None)
        if who is not None:
            places.setdefault(who, place)
    found = []
    for place, entry in enumerate(entries):
        depth, seen, parent = 0, {place}, entry.get(reply_to_key)
        while _named(parent) and places.get(parent) is not None and places[parent] not in seen:
            seen.add(places[parent])
            depth += 1
            parent = entries[places[parent]].get(reply_to_key)
        found.append(depth)
    return found


def _named(value: Any) -> bool:
    """Whether a turn's id (or the id it replies to) names one: a text or a number, not empty, not a list or
    mapping (which names none)."""
    return isinstance(value, str | int | float) and value != ""


def _whole(value: Any) -> int | None:
    try:
        return None if value is None or isinstance(value, bool) else max(0, int(value))
    except (TypeError, ValueError):
        return None


def _seconds(value: Any) -> float | None:
    try:
        return None if value in (None, "") or isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        return None


def _stamp(written: Any, seconds: float, style: str, origin: float) -> str:
    """A turn's time as Potato's dialogue display labels it: "start", "+5m" (relative), a UTC date, or as written."""
    if style == "epoch":
        return str(written)
    if style == "absolute":
        try:
            return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%d %H:%M")
        except (OverflowError, OSError, ValueError):
            return str(written)
    delta = seconds - origin
    if 0 <= delta < 1:
        return "start"
    return ("-" if delta < 0 else "+") + _span(abs(delta))


def _span(seconds: float) -> str:
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"
