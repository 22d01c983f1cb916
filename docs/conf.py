"""Sphinx configuration of the API reference (``python -m sphinx -n -W -b html docs docs/_build/html``).

The pages are written by hand (one per paper, one per subsystem) and pull the text from the
docstrings with autodoc.  The docstrings are written to be read in a terminal
(``help()``, ``fullyadaptive describe``) and are valid reStructuredText: absolute values
and formulas that contain ``*`` or ``|`` are ``literal``, a formula block follows ``::``,
and a cross-reference names a documented object (a private helper or an undocumented
constant is written as ``literal`` text).  The build is nitpicky (``-n``): every
cross-reference must resolve; the only exceptions are the names of other projects, listed
in :data:`nitpick_ignore` below with the reason (there is no intersphinx: the build must
work offline).  :func:`_docstring_as_rst_or_literal` checks each docstring with docutils
and shows one that does not parse verbatim, as a literal block, with a warning (so the
``-W`` build fails) unless it is listed in :data:`VERBATIM_DOCSTRINGS`.
"""
from __future__ import annotations

import importlib.util
import io
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)

import reference  # noqa: E402  (after the path is set)

project = "fullyadaptive"
author = "fullyadaptive contributors"
copyright = "the fullyadaptive contributors (MIT license)"
release = version = reference.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.viewcode"]
# viewcode gives every documented object a link to its source; it is cheap at this size.

root_doc = "index"
exclude_patterns = ["_build"]
templates_path: list[str] = []

# single backquotes in the docstrings mean code, not titles
default_role = "literal"

autodoc_default_options = {
    "members": True,
    "show-inheritance": True,
    "member-order": "bysource",
}
autodoc_typehints = "signature"
# the literal blocks of the docstrings are formulas and commands, not Python
highlight_language = "none"
# keep signatures as written: the defaults (DEFAULT_DPS, Fractions) read better by name
autodoc_preserve_defaults = True
autodoc_inherit_docstrings = True
# the deprecated flat aliases of reference._compat are never imported by autodoc: the pages
# name the new modules only; a warning raised by an import would fail the -W build anyway.
suppress_warnings: list[str] = []

# every cross-reference must resolve (``-n``); the names below belong to other projects.
# Sphinx would link them through intersphinx, which needs the network at build time, and the
# build must run offline (CI reaches the package index only), so they are shown unlinked.
nitpick_ignore = [
    # the standard library: the exact rational type of every input and output, paths, the
    # CLI's argparse classes, locks and executors named in signatures and docstrings
    ("py:class", "fractions.Fraction"),
    ("py:class", "pathlib.Path"),
    ("py:class", "os.PathLike"),
    ("py:class", "collections.abc.Mapping"),
    ("py:class", "argparse.ArgumentParser"),
    ("py:class", "argparse.RawDescriptionHelpFormatter"),
    ("py:class", "threading.Lock"),
    ("py:class", "threading.RLock"),
    ("py:class", "concurrent.futures.ProcessPoolExecutor"),
    ("py:func", "functools.partial"),
    # argparse's own docstring of ArgumentParser.error (inherited by reference.cli's parser)
    # types its argument "string"
    ("py:class", "string"),
    # mpmath: the certified values are mpf numbers, the interval context and its module
    ("py:mod", "mpmath"),
    ("py:mod", "mpmath.iv"),
    ("py:class", "mpmath.ctx_mp_python.mpf"),
    ("py:class", "mpmath.ctx_iv.MPIntervalContext"),
    # NumPy arrays and the bit generator of the simulations, SymPy expressions of symbolic/,
    # the Matplotlib figures of reference.report.figures
    ("py:class", "numpy.ndarray"),
    ("py:class", "numpy.random._pcg64.PCG64DXSM"),
    ("py:class", "sympy.core.expr.Expr"),
    ("py:class", "matplotlib.figure.Figure"),
]
# private helpers (a name with a leading underscore) are not documented: a signature or a
# "Bases:" line that names one (``_Accountant``, ``_SumFilter``, ...) shows it unlinked
nitpick_ignore_regex = [
    (r"py:(class|func|meth|data|attr|obj)", r"reference\.(.+\.)?_[A-Za-z]\w*"),
]

# furo is in the docs extra; without it the build falls back to the built-in theme
html_theme = "furo" if importlib.util.find_spec("furo") else "alabaster"
html_title = f"fullyadaptive {release}"
html_static_path: list[str] = []
html_show_sourcelink = False


# ---------------------------------------------------------------------------------------
# docstrings: reStructuredText where they parse cleanly, verbatim where they do not

# a role and the interpreted text it applies to
_ROLE = re.compile(r"(:(?:[a-zA-Z]+:)*[a-zA-Z]+:)(`[^`]*`)")


def _rst_is_clean(lines: list[str], *, titles_allowed: bool = False) -> bool:
    """True when docutils parses the docstring without a message of level WARNING or above.

    Sphinx's roles (``:func:``, ``:mod:``, ...) are unknown to plain docutils; each is
    replaced by as many spaces after its interpreted text first, so that ``:func:`x``` is
    checked as the interpreted text ``x`` and the text after it (the columns of a table)
    stays where it was.  Blanking the role in place would not do: a line that begins with
    a role would become an indented line, which docutils reads as a block quote or a
    definition, and a clean docstring would be shown verbatim.
    """
    from docutils.core import publish_doctree
    from docutils.utils import Reporter

    text = _ROLE.sub(lambda m: m.group(2) + " " * len(m.group(1)), "\n".join(lines))
    stream = io.StringIO()
    try:
        doctree = publish_doctree(text, settings_overrides={
            "report_level": Reporter.WARNING_LEVEL, "halt_level": Reporter.SEVERE_LEVEL + 1,
            "warning_stream": stream, "file_insertion_enabled": False, "raw_enabled": False,
            "doctitle_xform": False, "sectsubtitle_xform": False,
        })
    except Exception:  # pragma: no cover - any parser failure means "not clean"
        return False
    if stream.getvalue().strip():
        return False
    from docutils import nodes
    if any(m["level"] >= Reporter.WARNING_LEVEL for m in doctree.findall(nodes.system_message)):
        return False
    # autodoc parses a module's docstring with its section titles; any other docstring is
    # the body of a directive, where a title or a transition is an error
    if titles_allowed:
        return True
    return not any(True for _ in doctree.findall(lambda n: isinstance(n, (nodes.section, nodes.transition))))


#: Docstrings allowed to be shown verbatim (full name -> why).  Any other docstring that
#: docutils cannot parse fails the build: fix its markup instead of adding it here.
VERBATIM_DOCSTRINGS: dict[str, str] = {}


def _docstring_as_rst_or_literal(app, what, name, obj, options, lines):
    if not lines or _rst_is_clean(lines, titles_allowed=(what == "module")):
        return
    if name not in VERBATIM_DOCSTRINGS:
        from sphinx.util import logging
        logging.getLogger(__name__).warning(
            "the docstring of %s is not valid reStructuredText (check it with docutils); shown verbatim",
            name, type="fullyadaptive", subtype="verbatim-docstring")
    # verbatim, without the role markup (``:func:`x``` reads ``x``)
    text = _ROLE.sub(lambda m: m.group(2)[1:-1], "\n".join(lines))
    body = [("    " + ln) if ln.strip() else "" for ln in text.split("\n")]
    lines[:] = ["::", ""] + body + [""]


def setup(app):
    app.connect("autodoc-process-docstring", _docstring_as_rst_or_literal)
    return {"parallel_read_safe": True}
