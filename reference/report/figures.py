"""The papers' figures, drawn from the catalog (matplotlib, optional: the ``[plots]`` extra)."""
from __future__ import annotations

FIGURES: dict = {}


def have_matplotlib() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True
