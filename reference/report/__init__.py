"""The ``fullyadaptive report``: the catalog and the paper's headline comparison at its own settings.

The report evaluates, at ``DEFAULTS`` (the setting of Whitehouse et al.:
target ``eps = 1``, ``delta' = 1e-6``, ``delta'' = 0``, a homogeneous workload of
``eps0 = 0.01``-DP steps):

(a) every catalog entry at its default parameters, printed with directed
    rounding (an upper bound rounded up, a lower bound rounded down);
(b) how many rounds the privacy filter (Theorem 1 of whitehouse2022) admits,
    against advanced composition, eq. (2), at the same ``(eps, delta')`` and
    against basic composition ``floor(eps/eps0)``;
(c) the privacy odometers (filter, mixture, stitched, and Rogers et al. as
    quoted) after ``n`` rounds of the workload, i.e. at ``V = n eps0^2``;
(d) the amplification bounds of Balle et al. at a few (eps0, n);
(e) the exact verifier's slack table: every filter and odometer of the seeds
    against adaptive randomized-response adversaries, the certified delta
    achieved against the delta allowed, and the negative controls it catches
    (:mod:`reference.verify.targets`; about half a minute; ``verify=False``
    or ``fullyadaptive report --no-verify`` leaves it out);
(f) the errata in ``reference/data/errata.json`` (when that file exists).

Every number comes from :mod:`reference.bounds.whitehouse2023` and the other bounds modules
(the round counts from :mod:`reference.bounds.baselines`: exact decisions, not rounded
values).  The package re-exports the names of its modules: :mod:`.build` (the report's
content), :mod:`.evaluate`, :mod:`.render`, :mod:`.write`, :mod:`.files`, :mod:`.errata`,
:mod:`.version` (provenance), :mod:`.figures`, :mod:`.progress` and :mod:`.identifiers`.
"""
from .build import DEFAULTS, build_report, validity_counts
from .errata import ERRATA_PATH, load_errata
from .evaluate import evaluate_entry, format_value, prepare_arguments
from .progress import Progress
from .render import render_markdown, render_summary
from .version import COMMIT_SOURCES, build_info, clear_provenance_cache, git_commit, provenance
from .files import new_file_mode
from .write import write_report
from ..bounds.baselines import (  # noqa: F401  (re-exported: the report's round counts)
    advcomp_admits_homogeneous, advcomp_eps_homogeneous, advcomp_rounds_homogeneous, basic_rounds_homogeneous)

__all__ = ["DEFAULTS", "ERRATA_PATH", "COMMIT_SOURCES", "build_info", "clear_provenance_cache", "git_commit",
           "provenance", "validity_counts", "render_summary", "prepare_arguments", "evaluate_entry", "format_value",
           "advcomp_eps_homogeneous", "advcomp_admits_homogeneous", "advcomp_rounds_homogeneous",
           "basic_rounds_homogeneous", "load_errata", "build_report", "render_markdown", "write_report",
           "new_file_mode", "Progress"]
