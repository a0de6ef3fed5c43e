"""code_review: a coding agent's change reviewed as a pull request is (Potato's code_review): a verdict, comments
(each a category, the file and line it is about, and what is wrong), and each file the agent's trace touches
rated 1 to 5 on each of `file_rating_dimensions`. "<prefix>-verdict" holds the verdict, "<prefix>-c<n>-category",
"-file", "-line" and "-text" the comment in slot n (the page shows a slot per comment added, designs/code_review.js),
"<prefix>-r<file>-<dimension>" a file's point. A comment is kept only once it says something, as Potato keeps it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from designs.dialogue import tool_calls
from designs.schemes.base import (
    AnswerProblem,
    SchemeBase,
    SchemeType,
    distinct_texts,
    majority,
    pick,
    point,
    scheme_type,
)

CATEGORIES = ["bug", "style", "suggestion", "security", "question"]
VERDICTS = ["approve", "request_changes", "comment_only"]
DIMENSIONS = ["correctness", "quality"]
POINTS = 5  # Potato's file ratings are 1 to 5


class CodeReview(SchemeBase):
    """A change reviewed: a verdict, comments on files and lines, each touched file rated."""

    annotation_type: Literal["code_review"]
    verdict_options: list[str] = Field(VERDICTS, min_length=1, description="the verdicts the change may be given")
    comment_categories: list[str] = Field(CATEGORIES, min_length=1, description="what a comment may be (the first "
                                                                                "is a new comment's)")
    file_rating_dimensions: list[str] = Field(DIMENSIONS, description="what each file is rated on, 1 to 5")
    trace_key: str | None = Field(None, description="the item field holding the coding trace whose files are rated "
                                                    "(those its tool calls read or change, by file_path or path); "
                                                    "none rated without it")
    max_comments: int = Field(10, ge=1, le=50, description="the most comments one review may hold")

    _distinct = field_validator("verdict_options", "comment_categories", "file_rating_dimensions")(distinct_texts)


def files(scheme: CodeReview, record: Any) -> list[str]:
    """The files the trace's tool calls touch, in the order they come, as Potato's page finds them on its coding
    trace: each call's input's file_path, else its path (a step's tool_calls, else its content's tool_use blocks)."""
    found = record.fields.get(scheme.trace_key) if record is not None and scheme.trace_key else None
    steps = [found] if isinstance(found, dict) else found if isinstance(found, list) else []
    touched: list[str] = []
    for step in steps:
        if not isinstance(step, dict):
            continue
        for call in tool_calls(step):
            given = call.get("input")
            path = given.get("file_path", given.get("path", "")) if isinstance(given, dict) else ""
            if path and isinstance(path, str) and path not in touched:
                touched.append(path)
    return touched


def shown(option: str) -> str:
    """An option as Potato's page writes it ("request_changes" is "Request Changes")."""
    return option.replace("_", " ").title()


@scheme_type
class CodeReviewType(SchemeType):
    name = "code_review"
    settings = CodeReview
    aggregators = ("majority", "none")
    potato_keys = ("comment_categories", "verdict_options", "file_rating_dimensions")
    potato_json = True
    potato_order = ("verdict", "comments", "file_ratings", "category", "file", "line", "text")
    page = {"value": "texts"}  # answered once a verdict, a rating or a comment is given
    style = "designs/code_review.css"
    script = "designs/code_review.js"

    def widget_context(self, scheme, record, field, keys):
        return {"verdicts": [(option, shown(option)) for option in scheme.verdict_options],
                "categories": [(option, shown(option)) for option in scheme.comment_categories],
                "slots": range(scheme.max_comments), "files": list(enumerate(files(scheme, record))),
                "points": range(1, POINTS + 1)}

    def read(self, scheme, fields, record):
        verdict = fields.get("verdict")
        if verdict:
            pick(verdict, scheme.verdict_options, "verdicts")
        comments = []
        for slot in range(scheme.max_comments):
            text = fields.get(f"c{slot}-text", 2000)
            if not text:
                continue  # a comment added and not written is not kept, as in Potato
            line = fields.get(f"c{slot}-line")
            comments.append({"category": pick(fields.get(f"c{slot}-category") or scheme.comment_categories[0],
                                              scheme.comment_categories, "comment categories"),
                             "file": fields.get(f"c{slot}-file", 500),
                             "line": point(line, 10 ** 9, f"comment {len(comments) + 1}", "line") if line else None,
                             "text": text})
        ratings: dict[str, dict[str, int]] = {}
        for place, path in enumerate(files(scheme, record)):
            given = {dimension: point(fields.get(f"r{place}-{number_}"), POINTS, f"{path}, {dimension}")
                     for number_, dimension in enumerate(scheme.file_rating_dimensions)
                     if fields.get(f"r{place}-{number_}")}
            if given:
                ratings[path] = given
        if scheme.required and not verdict:
            raise AnswerProblem("give the change a verdict")
        # A comment opened and left unwritten answers with nothing in it, as Potato's page keeps one (its JSON is
        # written once a card opens); the page counts it answered too (a category is picked).
        opened = any(fields.get(f"c{slot}-category") for slot in range(scheme.max_comments))
        if not (verdict or comments or ratings or opened):
            return None
        return {"verdict": verdict, "comments": comments, "file_ratings": ratings}

    def answer_schema(self, scheme):
        points = {"type": "integer", "minimum": 1, "maximum": POINTS}
        comment = {"type": "object", "required": ["category", "file", "line", "text"], "additionalProperties": False,
                   "properties": {"category": {"enum": scheme.comment_categories},
                                  "file": {"type": "string", "maxLength": 500},
                                  "line": {"type": ["integer", "null"], "minimum": 1},
                                  "text": {"type": "string", "minLength": 1, "maxLength": 2000}}}
        return {"type": "object", "required": ["verdict", "comments", "file_ratings"], "additionalProperties": False,
                "properties": {"verdict": {"enum": ["", *scheme.verdict_options]},
                               "comments": {"type": "array", "maxItems": scheme.max_comments, "items": comment},
                               "file_ratings": {"type": "object", "additionalProperties": {
                                   "type": "object", "propertyNames": {"enum": scheme.file_rating_dimensions},
                                   "additionalProperties": points}}}}

    def form_fields(self, scheme, value, record=None):
        if not isinstance(value, dict):
            return {}
        fields = {"verdict": str(value.get("verdict") or "")}
        for slot, comment in enumerate((value.get("comments") or [])[:scheme.max_comments]):
            if isinstance(comment, dict):
                fields.update({f"c{slot}-{part}": "" if comment.get(part) is None else str(comment[part])
                               for part in ("category", "file", "line", "text")})
        for place, path in enumerate(files(scheme, record)):
            given = (value.get("file_ratings") or {}).get(path) or {}
            fields.update({f"r{place}-{number_}": str(given[dimension])
                           for number_, dimension in enumerate(scheme.file_rating_dimensions) if dimension in given})
        return fields

    def units(self, scheme, value, text=""):
        # Agreement on the verdict and on each file's each rating; comments are free text.
        return {**({"verdict": value["verdict"]} if value["verdict"] else {}),
                **{f"{path} · {dimension}": given for path, rated in value["file_ratings"].items()
                   for dimension, given in rated.items()}}

    def combine(self, scheme, values):
        ratings: dict[str, dict[str, int]] = {}
        for path in dict.fromkeys(path for value in values for path in value["file_ratings"]):
            given = {dimension: majority([value["file_ratings"][path][dimension] for value in values
                                          if dimension in value["file_ratings"].get(path, {})])
                     for dimension in scheme.file_rating_dimensions}
            ratings[path] = {dimension: point for dimension, point in given.items() if point is not None}
        return {"verdict": majority([value["verdict"] for value in values if value["verdict"]]) or "",
                "comments": [comment for value in values for comment in value["comments"]],  # every reviewer's
                "file_ratings": ratings}

    def potato_ordered(self, scheme, value, record):
        # The files in the trace's order and the dimensions in the scheme's, as Potato's page rates them.
        ratings = value["file_ratings"]
        return {**value, "file_ratings": {
            path: {dimension: ratings[path][dimension] for dimension in scheme.file_rating_dimensions
                   if dimension in ratings[path]}
            for path in [*files(scheme, record), *ratings] if path in ratings}}

    def from_potato(self, converted, importer):
        # Potato rates the files of the coding trace its page shows; here the scheme names the trace's field.
        traces = importer.displayed("coding_trace")
        if traces:
            converted.setdefault("trace_key", traces[0])
        return [converted]

    def told(self, scheme, record=None):
        touched = files(scheme, record) if record is not None else []
        rated = (f" Rate each file ({', '.join(touched)}) on {', '.join(scheme.file_rating_dimensions)}, 1 to "
                 f"{POINTS}, as file_ratings {{file: {{dimension: point}}}}." if touched and
                 scheme.file_rating_dimensions else "")
        return (f"Review the change: a verdict ({', '.join(scheme.verdict_options)}) and any comments, each "
                f"{{category ({', '.join(scheme.comment_categories)}), file, line, text}}.{rated}")

    def card_labels(self, scheme):
        return ", ".join(scheme.verdict_options) + "; comments; files rated 1 to 5"
