"""SymPy derivations of the closed forms implemented in :mod:`reference`.

One module per paper (``symbolic.whitehouse2023``, ...), each exposing
``DERIVATIONS``: name -> function returning a :class:`symbolic.whitehouse2023.Derivation`
(premise, intermediate steps, result).  :func:`derivations` collects them under
qualified names ``<module>.<name>``; ``fullyadaptive derive NAME`` prints one.
"""
from __future__ import annotations

import importlib

#: Modules searched for ``DERIVATIONS`` (absent ones are skipped).
MODULES = ("whitehouse2023", "rogers2016", "feldman2021", "classical", "balle2020", "smith2022")


def derivations() -> dict:
    """All derivations, keyed ``<module>.<name>`` (e.g. ``whitehouse2023.y_star``), in module order."""
    out: dict = {}
    for m in MODULES:
        try:
            mod = importlib.import_module(f"{__name__}.{m}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{m}":
                continue
            raise
        for name, fn in mod.DERIVATIONS.items():
            out[f"{m}.{name}"] = fn
    return out


def find(name: str):
    """The derivation called ``name``: a qualified name, or a bare name that is unique across modules.

    Raises ``KeyError`` listing close matches when ``name`` is unknown or ambiguous.
    """
    allf = derivations()
    if name in allf:
        return allf[name]
    hits = [k for k in allf if k.split(".", 1)[1] == name]
    if len(hits) == 1:
        return allf[hits[0]]
    if hits:
        raise KeyError(f"derivation name {name!r} is ambiguous: {sorted(hits)}")
    import difflib

    close = difflib.get_close_matches(name, list(allf) + [k.split('.', 1)[1] for k in allf], n=5)
    raise KeyError(f"unknown derivation {name!r}; close matches: {close}; see 'fullyadaptive derive --list'")
