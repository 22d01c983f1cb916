"""The package layout: every module sits in the folder of its role and imports point one way.

Layers (CONTRIBUTING.md): core (``precision``, ``catalog``) <- ``bounds`` <- ``accountants``
(and ``profiles``) <- ``simulate`` <- ``verify`` / ``martingales`` <- ``report`` <- ``cli``.
A module may import its own layer's package and any lower layer, never a higher one or a
sibling layer; :mod:`reference.collect`, which imports (inside its function) every module that
registers a catalog entry, is the one exception.  Module-level imports have no cycle.  The old flat paths still import, with a
``DeprecationWarning`` that names the new path.  The top-level package ``fullyadaptive`` (the
supported import name) is a facade above every layer, ``cli`` included: it imports from
``reference`` and defines nothing, and no module of ``reference`` or ``symbolic`` imports it.
"""
from __future__ import annotations

import ast
import importlib
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "reference"

RANK = {"core": 0, "bounds": 1, "accountants": 2, "profiles": 2, "simulate": 3, "verify": 4,
        "martingales": 4, "falsify": 5, "report": 6, "cli": 7}
CORE = {"__init__", "__main__", "precision", "catalog", "collect", "_compat"}
#: (module, layer package) imported only inside a function: the collection of the catalog's entries
ALLOWED_LAZY = {("reference.collect", "reference.bounds"), ("reference.collect", "reference.profiles")}


def _modules():
    for p in sorted(ROOT.rglob("*.py")):
        rel = p.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), p


def _layer(mod: str) -> str:
    parts = mod.split(".")
    if parts[-1] == "__main__":  # ``python -m`` entry points are command lines
        return "cli"
    if len(parts) == 1 or (len(parts) == 2 and parts[1] in CORE):
        return "core"
    return parts[1]


def _imports(mod: str, path: Path):
    """(imported module, at module level?) for every import of a ``reference`` module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    top_level = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("reference"):
                continue
            names = [target + "." + a.name for a in node.names] if not node.module else [target]
            for t in names:
                yield t, id(node) in top_level
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("reference"):
                    yield a.name, id(node) in top_level


MODULES = dict(_modules())


def test_every_module_sits_in_a_role_folder():
    for mod in MODULES:
        layer = _layer(mod)
        assert layer in RANK, f"{mod} is not in a role folder ({sorted(RANK)})"
        if layer == "core":
            assert mod.split(".")[-1] in CORE | {"reference"}, f"{mod} sits at the top level but is not core"


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_imports_point_downward(mod):
    src = _layer(mod)
    for target, top in _imports(mod, MODULES[mod]):
        dst = _layer(target)
        if dst not in RANK:  # e.g. ``from reference import __version__``
            continue
        if (mod, ".".join(target.split(".")[:2])) in ALLOWED_LAZY:
            assert not top, f"{mod} imports {target} at module level: it must stay inside the function"
            continue
        assert RANK[dst] < RANK[src] or dst == src, (
            f"{mod} ({src}) imports {target} ({dst}): imports must point to a lower layer")


def test_nothing_below_the_report_imports_it():
    for mod, path in MODULES.items():
        if _layer(mod) in ("report", "cli"):
            continue
        for target, _ in _imports(mod, path):
            assert not target.startswith("reference.report"), f"{mod} imports {target}"


def test_no_module_level_import_cycle():
    graph = {m: set() for m in MODULES}
    for mod, path in MODULES.items():
        for target, top in _imports(mod, path):
            while target and target not in MODULES:
                target = target.rsplit(".", 1)[0] if "." in target else ""
            if top and target and target != mod:
                graph[mod].add(target)
    state: dict[str, int] = {}

    def visit(m, stack):
        state[m] = 1
        for n in graph[m]:
            if state.get(n) == 1:
                cyc = stack[stack.index(n):] + [n]
                # a package importing its own submodules and being imported by them is not a cycle
                # of logic only when one side is the package's __init__ re-export
                raise AssertionError("import cycle: " + " -> ".join(cyc))
            if n not in state:
                visit(n, stack + [n])
        state[m] = 2

    # packages' __init__ re-exports (pkg -> pkg.sub) are edges into their own children: drop them
    for m in graph:
        graph[m] = {n for n in graph[m] if not n.startswith(m + ".")}
    for m in graph:
        if m not in state:
            visit(m, [m])


@pytest.mark.parametrize("old", sorted(importlib.import_module("reference._compat").MOVED))
def test_old_paths_import_with_a_warning_naming_the_new_path(old):
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        mod = importlib.import_module(old)
    new = importlib.import_module("reference._compat").MOVED[old]
    assert any(issubclass(w.category, DeprecationWarning) and new[0] in str(w.message) for w in rec)
    for n in new:
        for name in getattr(importlib.import_module(n), "__all__", ()):
            assert hasattr(mod, name), f"{old}.{name} is missing from the alias"


FACADE = Path(__file__).resolve().parents[1] / "fullyadaptive"


def test_the_facade_sits_above_every_layer():
    """fullyadaptive re-exports (imports from reference only, at module level) and nothing below imports it."""
    files = sorted(FACADE.rglob("*.py"))
    assert [p.name for p in files] == ["__init__.py"], "the facade is one module"
    tree = ast.parse(files[0].read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            assert node.__class__ is ast.ImportFrom and node.level == 0 and all(
                m == "reference" or m.startswith("reference.") for m in mods), ast.dump(node)
        else:
            assert isinstance(node, (ast.Expr, ast.Assign)), f"the facade defines nothing: {ast.dump(node)[:80]}"
    below = [*MODULES.values(), *sorted((ROOT.parent / "symbolic").rglob("*.py"))]
    for path in below:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            assert not any(n == "fullyadaptive" or n.startswith("fullyadaptive.") for n in names), path


def test_the_facade_exports_the_public_api():
    import fullyadaptive
    import reference
    import reference.accountants as A
    from reference.bounds.planner import plan
    from reference.catalog import entries, get
    from reference.falsify import falsify
    from reference.profiles.check import check
    from reference.report import provenance

    assert set(A.__all__) <= set(fullyadaptive.__all__) and "GameFilter" in fullyadaptive.__all__
    assert all(getattr(fullyadaptive, n) is getattr(A, n) for n in A.__all__)
    assert (fullyadaptive.plan, fullyadaptive.check, fullyadaptive.falsify, fullyadaptive.entries, fullyadaptive.get,
            fullyadaptive.provenance) == (plan, check, falsify, entries, get, provenance)
    assert fullyadaptive.__version__ == reference.__version__
    assert all(hasattr(fullyadaptive, n) for n in fullyadaptive.__all__)
    assert len(set(fullyadaptive.__all__)) == len(fullyadaptive.__all__)


def test_the_facades_tour_runs():
    """The module docstring of fullyadaptive is a doctest: its numbers are the library's."""
    import doctest

    import fullyadaptive

    res = doctest.testmod(fullyadaptive, optionflags=doctest.ELLIPSIS)
    assert res.attempted >= 8 and res.failed == 0, res
