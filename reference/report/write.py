"""Writing the report: ``report.md``, ``report.json`` and its figures, each atomically."""
from __future__ import annotations

import json
import os
from pathlib import Path

from .files import _write_atomic
from .render import render_markdown

__all__ = ["write_report"]


def write_report(rep: dict, out_dir: str | os.PathLike, *, figures: bool = False, progress=None) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.json`` into ``out_dir`` (created if needed), each atomically.

    With ``figures=True`` and matplotlib installed (the ``[plots]`` extra), every figure of
    :data:`reference.report.figures.FIGURES` is drawn as SVG into ``out_dir/figures/`` (the
    verifier's figure from the report's own verifier results) and embedded in ``report.md``;
    without matplotlib the report is written without them.
    Raises ``ValueError`` for an empty ``out_dir`` and ``OSError`` when it cannot be written.
    """
    if not str(out_dir).strip():
        raise ValueError("the output directory must not be empty (use --out . for the current directory)")
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    md, js = d / "report.md", d / "report.json"
    embedded = None
    if figures:
        from . import figures as F

        if F.have_matplotlib():
            names = [n for n in F.FIGURES if n != "verifier_delta" or rep.get("verification")]
            data = {"verifier_delta": F.verifier_delta_data(rep["verification"])} if rep.get("verification") else {}
            if rep.get("settings", {}).get("recorded", True):  # the rounds from the record, while it matches the code
                from .build import comparison_from
                from .recorded import load_record

                cmp = comparison_from(load_record(rep.get("settings", {}).get("record_path")))
                data.update(rounds_vs_eps0=F.rounds_vs_eps0_data(comparison=cmp), renyi_alpha=F.renyi_alpha_data(comparison=cmp))
            written = F.draw(names, d / "figures", progress=progress, fmt="svg", data=data)
            embedded = [(n, p.relative_to(d).as_posix()) for n, p in written]
    _write_atomic(md, render_markdown(rep, embedded))
    _write_atomic(js, json.dumps(rep, indent=2, ensure_ascii=False) + "\n")
    return md, js
