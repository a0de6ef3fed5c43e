"""Dependencies between the project's packages point one way.

Every import of every first-party module counts, including imports inside
functions (a lazy import is still a dependency). The root URLconf, which
wires every app into the site, is the one module allowed to import anything.
"""

import ast
import itertools
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Packages of the running site, bottom to top; tests and bench scripts may import anything.
# The design-file engine sits below the seed designs' own packages: a seed design's component builds on it.
# The provider emulators import nothing of the site (they stand in for the outside world).
PACKAGES = ("emulators", "core", "config", "accounts", "jobs", "filtering", "hits", "qualification", "annotation",
            "aggregation", "designs", "releases", "projects", "reproductions", "dashboard", "api", "demo")
EXEMPT = {ROOT / "config" / "urls.py"}
# The core package is plain Python: no Django, so its maths and formats run anywhere.
DJANGO_FREE = ("core",)
# The design-file engine's reading, checking and maths are plain Python too (the style guide's "designs as data").
DJANGO_FREE_MODULES = tuple(ROOT / "designs" / name for name in (
    "model.py", "loader.py", "answers.py", "aggregate.py", "items.py", "components.py", "potato.py", "labelstudio.py",
    "llm.py", "schemes"))


def _modules():
    for package in PACKAGES:
        folder = ROOT / package
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.py")):
            if "migrations" not in path.parts and path not in EXEMPT:
                yield package, path


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], node.lineno


def _graph():
    """{package: {imported package: [file:line, ...]}} over first-party packages."""
    edges = defaultdict(lambda: defaultdict(list))
    for package, path in _modules():
        for imported, line in _imports(path):
            if imported in PACKAGES and imported != package:
                edges[package][imported].append(f"{path.relative_to(ROOT)}:{line}")
    return edges


def _cycle(edges):
    """One import loop as a list of packages, or None."""
    state = {}

    def visit(node, trail):
        state[node] = "open"
        for following in sorted(edges.get(node, {})):
            if state.get(following) == "open":
                return [*trail[trail.index(following):], following]
            if following not in state:
                found = visit(following, [*trail, following])
                if found:
                    return found
        state[node] = "done"
        return None

    for start in sorted(edges):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


def test_no_import_loop_among_the_packages():
    edges = _graph()
    cycle = _cycle(edges)
    if cycle:
        where = [f"{a} -> {b}: {', '.join(edges[a][b][:3])}" for a, b in itertools.pairwise(cycle)]
        raise AssertionError("import loop " + " -> ".join(cycle) + "\n" + "\n".join(where))


def test_the_loop_detector_names_the_files_of_a_loop():
    edges = {"a": {"b": ["a/x.py:3"]}, "b": {"c": ["b/y.py:1"]}, "c": {"a": ["c/z.py:9"]}}
    assert _cycle(edges) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b": ["a/x.py:3"]}, "b": {}}) is None


def test_the_core_package_does_not_import_django():
    found = [f"{path.relative_to(ROOT)}:{line}" for package, path in _modules() if package in DJANGO_FREE
             for imported, line in _imports(path) if imported == "django"]
    assert found == []


def test_the_design_engine_reads_and_checks_without_django():
    found = [f"{path.relative_to(ROOT)}:{line}" for _, path in _modules()
             if any(path == free or free in path.parents for free in DJANGO_FREE_MODULES)
             for imported, line in _imports(path) if imported in ("django", "hits", "projects")]
    assert found == []


def test_no_product_module_imports_the_emulators():
    """The emulators are test and development infrastructure: only the demo (and tests, bench) may use them."""
    found = [f"{path.relative_to(ROOT)}:{line}" for package, path in _modules() if package not in ("emulators", "demo")
             for imported, line in _imports(path) if imported == "emulators"]
    assert found == []
    assert "emulators" not in __import__("django.conf").conf.settings.INSTALLED_APPS


def test_dependencies_point_down_the_layer_order():
    """Stricter than no loop: a package imports only packages listed before it."""
    rank = {package: index for index, package in enumerate(PACKAGES)}
    upward = [f"{package} -> {imported} ({', '.join(places[:2])})" for package, targets in _graph().items()
              for imported, places in targets.items() if rank[imported] > rank[package]]
    assert upward == []


def test_every_package_of_the_site_has_its_place_in_the_layer_order():
    found = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    assert sorted(found - set(PACKAGES)) == []


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_graph():
    """{module: {imported first-party module: line}}: `from a.b import c` counts as a.b.c when that is a module,
    else a.b; a package's __init__ is its own module."""
    modules = {_module_name(path): path for _, path in _modules()}
    edges = defaultdict(dict)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                           for alias in node.names]
            for target in targets:
                if target in modules and target != name:
                    edges[name].setdefault(target, node.lineno)
    return edges


def test_no_import_loop_among_the_modules():
    """Within a package too: two modules that import each other (even inside a function) are one module in two
    files, or a third one missing. A module of a package imports its siblings, not the package's __init__ that
    re-exports them."""
    edges = _module_graph()
    cycle = _cycle(edges)
    assert cycle is None, "import loop " + " -> ".join(cycle)
