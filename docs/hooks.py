"""MkDocs hooks: the reference pages are generated at build time from what the code ships, so they cannot drift.

- design-files/reference.md from designs/schema.json (itself generated from the design model), with the
  example file of every scheme type under design-files/examples/; a type without one fails the build;
- reference/commands.md from every management command's argparse help (the project's, then Django's and the
  libraries');
- reference/api.md from the OpenAPI schema the API serves at /api/schema/.
"""

import json
import os
import sys
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
DOCS = Path(__file__).resolve().parent
EXAMPLES = DOCS / "design-files" / "examples"
# Help text wraps at the terminal's width: fix it so the page is the same on every machine.
HELP_COLUMNS = "96"
COMMAND_APPS = ("filtering", "hits", "qualification", "aggregation", "releases", "projects", "designs",
                "choices", "facts", "chains", "demo")
# Django's own options, the same on every command: said once at the top of the page, not 25 times.
COMMON_OPTIONS = {"--version", "--verbosity", "--settings", "--pythonpath", "--traceback", "--no-color",
                  "--force-color", "--skip-checks"}


def on_config(config):
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["COLUMNS"] = HELP_COLUMNS
    import django

    django.setup()
    return config


def on_files(files, config):
    for path, text in (("design-files/reference.md", design_reference()),
                       ("reference/commands.md", commands_reference()),
                       ("reference/api.md", api_reference())):
        files.append(File.generated(config, path, content=text))
    return files


# --- design files -------------------------------------------------------------------------------------------

def design_reference():
    schema = json.loads((ROOT / "designs" / "schema.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    schemes = schema["properties"]["annotation_schemes"]["items"]["discriminator"]["mapping"]
    # A scheme type's section is named by its annotation_type, not by the model's class name.
    ANCHORS.update({ref.rsplit("/", 1)[1]: kind for kind, ref in schemes.items()})
    lines = ["# Design file reference", "",
             "Generated from `designs/schema.json`, the JSON Schema the project ships "
             "(`python manage.py design schema` writes it from the design model; a test fails when it is stale). "
             "Point your editor's YAML support at that file to get completion and checks as you type.", "",
             "## Top-level keys", "", *key_table(schema, defs), "",
             "## Scheme types", "",
             "Every entry of `annotation_schemes` has an `annotation_type`, one of these. Each example below is a "
             "whole design file you can run: `python manage.py design check FILE`, then "
             "`python manage.py design new FILE --items docs/design-files/examples/items.jsonl`.", ""]
    missing = [kind for kind in schemes if not (EXAMPLES / f"{kind}.yaml").exists()]
    if missing:
        raise SystemExit(f"docs: no example for scheme type(s) {', '.join(missing)}: "
                         f"add {EXAMPLES.relative_to(ROOT)}/<type>.yaml")
    for kind, ref in schemes.items():
        definition = defs[ref.rsplit("/", 1)[1]]
        example = (EXAMPLES / f"{kind}.yaml").read_text(encoding="utf-8")
        lines += [f"### `{kind}` {{#{kind}}}", "", definition.get("description", ""), "",
                  *key_table(definition, defs, skip={"annotation_type"}), "",
                  f"Example ([{kind}.yaml](examples/{kind}.yaml)):", "", "```yaml", example.rstrip(), "```", ""]
    lines += ["## Other objects", "", "The values of the keys above that are objects.", ""]
    for name, definition in sorted(defs.items()):
        if name in {ref.rsplit("/", 1)[1] for ref in schemes.values()}:
            continue
        lines += [f"### {name}", "", definition.get("description", ""), "", *key_table(definition, defs), ""]
    return "\n".join(lines)


ANCHORS = {}


def key_table(definition, defs, skip=()):
    required = set(definition.get("required", ()))
    rows = ["| key | type | required | default | what it is |", "| --- | --- | --- | --- | --- |"]
    for key, spec in definition.get("properties", {}).items():
        if key in skip:
            continue
        default = json.dumps(spec["default"]) if "default" in spec else ""
        rows.append(f"| `{key}` | {type_of(spec)} | {'yes' if key in required else ''} | "
                    f"{cell(default)} | {cell(spec.get('description', ''))} |")
    return rows


def type_of(spec):
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[1]
        return f"[{name}](#{ANCHORS.get(name, name.lower())})"
    if "const" in spec:
        return f"`{json.dumps(spec['const'])}`"
    if "enum" in spec:
        return " \\| ".join(f"`{value}`" for value in spec["enum"])
    if "anyOf" in spec or "oneOf" in spec:
        kinds = [type_of(option) for option in spec.get("anyOf", spec.get("oneOf"))]
        return " or ".join(kind for kind in kinds if kind != "null") + (" or null" if "null" in kinds else "")
    if spec.get("type") == "array":
        return f"list of {type_of(spec.get('items', {}))}"
    if spec.get("type") == "object" and "additionalProperties" in spec:
        values = spec["additionalProperties"]
        return f"map to {type_of(values)}" if isinstance(values, dict) else "map"
    kind = spec.get("type", "any")
    return " or ".join(kind) if isinstance(kind, list) else kind


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


# --- management commands ------------------------------------------------------------------------------------

def commands_reference():
    from django.core.management import get_commands

    lines = ["# Commands", "",
             "Every `manage.py` command, the project's own first, then Django's and the libraries': each with its "
             "help as `--help` prints it (generated from the commands' argparse definitions when the docs are "
             "built). Each also takes Django's common "
             "options: `--verbosity`, `--settings`, `--pythonpath`, `--traceback`, `--no-color`, "
             "`--force-color`, `--skip-checks`.", ""]
    commands = sorted((name, app) for name, app in get_commands().items())
    ours = [(name, app) for name, app in commands if app in COMMAND_APPS]
    theirs = [(name, app) for name, app in commands if app not in COMMAND_APPS]
    for name, app in ours:
        lines += command_section(name, app, "##")
    lines += ["## Django's and the libraries' commands", "",
              "The commands of Django and of the installed libraries this project uses (`migrate`, "
              "`createsuperuser`, `collectstatic`, `runserver`, ...), as this installation has them.", ""]
    for name, app in theirs:
        lines += command_section(name, app, "###")
    return "\n".join(lines)


def command_section(name, app, level):
    from django.core.management import load_command_class

    parser = load_command_class(app, name).create_parser("manage.py", name)
    origin = f"the `{app}` app" if app in COMMAND_APPS else f"`{app}`"
    lines = [f"{level} {name}", "", f"From {origin}.", "", "```text", trim(parser.format_help()), "```", ""]
    for sub, subparser in subcommands(parser):
        lines += [f"{level}# {name} {sub}", "", "```text", trim(subparser.format_help()), "```", ""]
    return lines


def subcommands(parser):
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def trim(help_text):
    """The help without Django's common options (said once above), so each command shows only its own."""
    kept, skipping = [], False
    for line in help_text.rstrip().splitlines():
        option = line.strip().split(" ", 1)[0].rstrip(",")
        if line.startswith("  -") and (option in COMMON_OPTIONS or any(o in line for o in COMMON_OPTIONS)):
            skipping = True
            continue
        if skipping and line.startswith("      "):
            continue
        skipping = False
        kept.append(line)
    return "\n".join(kept)


# --- HTTP API -----------------------------------------------------------------------------------------------

def api_reference():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    lines = ["# HTTP API", "", f"{schema['info'].get('description', '')} Version {schema['info']['version']}.", "",
             "Generated from the OpenAPI schema the site serves at `/api/schema/` (load it into any OpenAPI "
             "tool). Every call takes a token: `Authorization: Token KEY`, the key from `/accounts/token/`.", ""]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            lines += [f"## `{method.upper()} {path}`", "", operation.get("summary", ""), "",
                      operation.get("description", ""), ""]
            parameters = operation.get("parameters", [])
            if parameters:
                lines += ["| parameter | in | required | what it is |", "| --- | --- | --- | --- |"]
                lines += [f"| `{p['name']}` | {p['in']} | {'yes' if p.get('required') else ''} | "
                          f"{cell(p.get('description', ''))} |" for p in parameters]
                lines.append("")
            body = operation.get("requestBody", {}).get("content", {})
            if "application/json" in body:
                json_body = schema_name(body["application/json"].get("schema", {}))
                lines += [f"Body (JSON; forms are taken too): {json_body}", ""]
            lines += ["| status | means |", "| --- | --- |"]
            lines += [f"| {status} | {cell(response_text(response))} |"
                      for status, response in operation.get("responses", {}).items()]
            lines.append("")
    lines += ["## Objects", ""]
    for name, spec in schema["components"]["schemas"].items():
        lines += [f"### {name}", "", spec.get("description", ""), ""]
        if "properties" in spec:
            required = set(spec.get("required", ()))
            lines += ["| field | type | | what it is |", "| --- | --- | --- | --- |"]
            lines += [f"| `{key}` | {type_of(field) if '$ref' not in field else schema_name(field)} | "
                      f"{'read-only' if field.get('readOnly') else 'required' if key in required else ''} | "
                      f"{cell(field.get('description', ''))} |" for key, field in spec["properties"].items()]
        elif "enum" in spec:
            lines.append("One of " + ", ".join(f"`{value}`" for value in spec["enum"] if value) + ".")
        lines.append("")
    return "\n".join(lines)


def response_text(response):
    said = response.get("description", "")
    bodies = [schema_name(content.get("schema", {})) for content in response.get("content", {}).values()]
    return "; ".join(part for part in (said, *(f"the body is {body}" for body in bodies[:1])) if part)


def schema_name(spec):
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[1]
        return f"[`{name}`](#{name.lower()})"
    if spec.get("type") == "array":
        return f"a list of {schema_name(spec.get('items', {}))}"
    if "properties" in spec:
        return "an object with " + ", ".join(f"`{key}`" for key in spec["properties"])
    return f"`{spec.get('type', 'object')}`"
