"""Supermartingale checker: the processes and boundaries behind the seeds' filters and odometers, checked exactly and by Monte Carlo.

What is checked (see :mod:`.processes`, :mod:`.boundaries`, :mod:`.check`):

* ``X_0 <= 1`` exactly, and the one-step condition ``E[X_n | F_{n-1}] <= X_{n-1}``
  on a grid of states, exactly (interval arithmetic; exact rationals for Gaussian
  ties) and by Monte Carlo (a lower confidence bound at level 1e-9 must exceed 1 to
  reject), for whitehouse2022 Theorem 3 (= whitehouse2023 Theorem 4), its normal
  mixture (Theorem 4 / Theorem 5), rogers2016 Lemma 4.2, whitehouse2023 Lemma 6
  (eqs. (9)-(10)), feldman2021 Theorem 3.1 and the supermartingale behind the feldman2021
  Renyi odometer with steps viewed as KL-zCDP (``D_alpha <= alpha KL`` on the odometer's
  order grid), with randomized-response, Laplace and Gaussian steps;
* crossing frequencies of whitehouse2022 Theorems 3-5, the odometers of Theorem 2, the
  Rogers et al. Theorem 6.5 odometer as quoted (whitehouse2022 Lemma 4 / whitehouse2023
  Lemma 3) and corrected (rogers2016, two-sided: ``|L_n|``), and the feldman2021 Renyi
  odometer (RR steps as ``eps tanh(eps/2)``-zCDP) under homogeneous, alternating,
  loss-chasing and random adaptive adversaries, with certified Clopper-Pearson bounds
  (rogers2016 Algorithm 5, the stopping-time adversary, needs no separate run: stopping
  freezes L and V, so for a boundary b(V) its crossing event is contained, path by path,
  in that of the homogeneous adversary it stops);
* negative controls that must be rejected.

Array code is written once against ``xp`` (NumPy, or CuPy with a CUDA device:
:func:`~reference.martingales.backend.get_backend`); fused CUDA kernels live in :mod:`.cuda`.  The CLI
subcommand ``check-martingales`` is :mod:`reference.cli.martingales`.

How to add a process:
  1. write its one-step ratio as ``sqrt(A2) exp(A l^2 + B l + G)`` of the step's loss l and
     add a ``Process`` to ``PROCESSES`` with a ``coeffs(state, law, mu, num)`` returning
     ``(A2, A, B, G)`` (``A2``, ``A`` Fractions; ``mu`` the true mean loss);
  2. add its grid to :func:`.processes.default_grid`;
  3. add a naive second route for one state to ``_second_route_expectation`` in
     ``tests/test_martingales.py``.

How to add a boundary:
  1. append a ``Boundary`` in :func:`.boundaries.make_boundaries` with an interval formula,
     a float mirror, its ``target`` ("M" or "L"), ``strict`` and the public function it mirrors;
  2. the threshold, kernel and verdict code need no change; the tests compare the formula
     with the public function and the crossing frequency with exact enumerations.
"""
from .backend import Backend, BackendUnavailable, cupy_available, get_backend
from .boundaries import Boundary, make_boundaries
from .check import CheckConfig, render_table, run_checks
from .laws import StepLaw
from .processes import NEGATIVE_PROCESSES, PROCESSES, one_step_exact, one_step_mc, x0_exact
from .simulate import Adversary, default_adversaries, make_plan, simulate
from .stats import binom_tail_enclosure, binomial_exceeds, clopper_pearson

__all__ = ["Backend", "BackendUnavailable", "cupy_available", "get_backend", "Boundary", "make_boundaries",
           "CheckConfig", "render_table", "run_checks", "StepLaw", "PROCESSES",
           "NEGATIVE_PROCESSES", "one_step_exact", "one_step_mc", "x0_exact", "Adversary", "default_adversaries",
           "make_plan", "simulate", "binom_tail_enclosure", "binomial_exceeds", "clopper_pearson"]
