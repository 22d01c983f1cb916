"""Sphinx configuration of the API reference (``python -m sphinx -W -b html docs docs/_build/html``).

The pages are written by hand (one per paper, one per subsystem) and pull the text from the
docstrings with autodoc.  The docstrings are written to be read in a terminal
(``help()``, ``fullyadaptive describe``): most are valid reStructuredText, but some use
``*`` for multiplication, indentation for alignment or unbalanced backquotes.  Such a
docstring is not rewritten: :func:`_docstring_as_rst_or_literal` tries it as
reStructuredText first and, where docutils would complain, shows it verbatim as a literal
block, so the build stays free of warnings without touching the library's text.
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

# furo is in the docs extra; without it the build falls back to the built-in theme
html_theme = "furo" if importlib.util.find_spec("furo") else "alabaster"
html_title = f"fullyadaptive {release}"
html_static_path: list[str] = []
html_show_sourcelink = False


# ---------------------------------------------------------------------------------------
# docstrings: reStructuredText where they parse cleanly, verbatim where they do not

_ROLE = re.compile(r":(?:[a-zA-Z]+:)*[a-zA-Z]+:(?=`)")


def _rst_is_clean(lines: list[str], *, titles_allowed: bool = False) -> bool:
    """True when docutils parses the docstring without a message of level WARNING or above.

    Sphinx's roles (``:func:``, ``:mod:``, ...) are unknown to plain docutils; each is
    replaced by as many spaces first, so that ``:func:`x``` is checked as the interpreted
    text ``x`` and the columns of a table stay where they were.
    """
    from docutils.core import publish_doctree
    from docutils.utils import Reporter

    text = _ROLE.sub(lambda m: " " * len(m.group()), "\n".join(lines))
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


def _docstring_as_rst_or_literal(app, what, name, obj, options, lines):
    if not lines or _rst_is_clean(lines, titles_allowed=(what == "module")):
        return
    body = [("    " + ln) if ln.strip() else "" for ln in lines]
    lines[:] = ["::", ""] + body + [""]


def setup(app):
    app.connect("autodoc-process-docstring", _docstring_as_rst_or_literal)
    return {"parallel_read_safe": True}
