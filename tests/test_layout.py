"""The package layout: every module sits in the folder of its role and imports point one way.

Layers (CONTRIBUTING.md): core (``precision``, ``catalog``) <- ``bounds`` <- ``accountants``
(and ``profiles``) <- ``simulate`` <- ``verify`` / ``martingales`` <- ``report`` <- ``cli``.
A module may import its own layer's package and any lower layer, never a higher one or a
sibling layer; :mod:`reference.collect`, which imports (inside its function) every module that
registers a catalog entry, is the one exception.  The import graph has no cycle, imports inside
functions included (:func:`import_graph` states what is an edge), and no package ``__init__.py``
holds code.  The old flat paths still import, with a
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
CORE = {"__init__", "__main__", "precision", "catalog", "collect", "_compat", "_lazy"}
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


PACKAGES = ("reference", "symbolic", "fullyadaptive")


def _all_modules() -> dict[str, Path]:
    """{dotted name: file} of every module of the three packages (a package is its ``__init__.py``)."""
    out = {}
    for top in PACKAGES:
        for p in sorted((ROOT.parent / top).rglob("*.py")):
            parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = p
    return out


def import_graph() -> dict[str, set[str]]:
    """{module: the modules it imports}, every import statement of the file counted, function bodies included.

    ``import a.b`` and ``from a.b import name`` are edges to ``a.b`` (to the nearest enclosing module
    of ours when ``a.b`` is not one); ``from a import b`` is an edge to the submodule ``a.b`` when
    there is one, else to ``a`` (the name is defined or re-exported by ``a/__init__.py``).  Relative
    imports are resolved against the importing module's package.  The import of the parent packages
    that Python performs before every submodule is not an edge: a package's ``__init__`` importing
    its own children (re-exports) is the edge ``pkg -> pkg.child``, and closes a cycle only when a
    child, directly or through other modules, imports ``pkg`` itself, i.e. takes a name from
    ``pkg/__init__.py``, which must instead take it from the module that defines it.  The modules
    imported by a computed name (``importlib.import_module``), the subcommands listed in
    :data:`reference.cli.app.EXTENSIONS`, are edges of ``reference.cli.app`` too.
    """
    mods = _all_modules()

    def known(name: str) -> str:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = pkg.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            else:
                continue
            for t in targets:
                t = known(t)
                if t and t != mod:
                    graph[mod].add(t)
    from reference.cli.app import EXTENSIONS

    graph["reference.cli.app"] |= set(EXTENSIONS)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as ``[m0, m1, ..., m0]``, or None when it is acyclic."""
    state: dict[str, int] = {}
    for root in sorted(graph):
        if root in state:
            continue
        state[root] = 1
        path, todo = [root], [iter(sorted(graph[root]))]
        while todo:
            nxt = next(todo[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                todo.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                todo.append(iter(sorted(graph[nxt])))
    return None


def test_the_import_graph_has_no_cycle_function_level_imports_included():
    """No module imports itself back, through any chain, even lazily (rules: :func:`import_graph`).

    The catalog is the registry below every module that registers an entry; the modules are
    collected by :mod:`reference.collect`, above them, which the package root installs.
    """
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_sees_a_function_level_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


#: The most lines a package ``__init__.py`` may have: a docstring and its re-exports, no code.
MAX_INIT_LINES = 60


@pytest.mark.parametrize("init", sorted(str(p.relative_to(ROOT.parent)) for top in PACKAGES
                                        for p in (ROOT.parent / top).rglob("__init__.py")))
def test_package_inits_hold_no_code(init):
    """Every package ``__init__.py`` is at most :data:`MAX_INIT_LINES` lines: the code lives in named modules."""
    n = len((ROOT.parent / init).read_text(encoding="utf-8").splitlines())
    assert n <= MAX_INIT_LINES, f"{init} has {n} lines (at most {MAX_INIT_LINES}): move its code into a named module"


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
    # the package, and the Opacus / dp-accounting drop-in (a submodule: importing it imports Opacus and torch when
    # they are installed, which ``import fullyadaptive`` never does)
    assert [p.name for p in files] == ["__init__.py", "opacus.py"], "the facade is the package and its opacus module"
    for f in files:
        tree = ast.parse(f.read_text(encoding="utf-8"))
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


def test_importing_the_facade_is_cheap_and_every_name_still_resolves():
    """``import fullyadaptive`` loads no filter, verifier, falsifier, planner or checker; the names resolve on first use."""
    import subprocess

    code = ("import sys, fullyadaptive as fa\n"
            "before = sorted(m for m in sys.modules if m.startswith('reference.'))\n"
            "names = dir(fa)\n"
            "after_dir = sorted(m for m in sys.modules if m.startswith('reference.'))\n"
            "fa.GameFilter\n"
            "print(repr((before, after_dir, names, 'reference.accountants.game' in sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120,
                         cwd=ROOT.parent)
    before, after_dir, names, game_loaded = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    heavy = ("reference.accountants.", "reference.verify", "reference.falsify", "reference.bounds.planner",
             "reference.profiles", "reference.report", "reference.simulate")
    assert not [m for m in before if m.startswith(heavy)], before
    assert after_dir == before  # dir() lists the names without importing them
    assert set(importlib.import_module("fullyadaptive").__all__) <= set(names)
    assert game_loaded  # negative control: reading a name does import its module


def test_the_lazy_facade_refuses_unknown_names():
    import fullyadaptive

    with pytest.raises(AttributeError, match="no attribute 'NoSuchFilter'"):
        fullyadaptive.NoSuchFilter  # noqa: B018
    with pytest.raises(ImportError):
        exec("from fullyadaptive import NoSuchFilter", {})
