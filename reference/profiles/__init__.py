"""Exact privacy curves of mechanisms (privacy profiles delta(eps) and trade-off curves).

* :mod:`.gaussian`: the Gaussian mechanism / mu-GDP (Dong, Roth, Su 2022; Balle and Wang 2018):
  :func:`~.gaussian.gaussian_mu`, :func:`~.gaussian.gdp_delta`, :func:`~.gaussian.gdp_delta_lower`,
  :func:`~.gaussian.gdp_eps`, :func:`~.gaussian.gdp_mu`, :func:`~.gaussian.gdp_compose`.

Each curve is computed from exactly parsed inputs in interval arithmetic and rounded once in
the conservative direction; the closed forms and their catalog entries live in
:mod:`reference.bounds` (this package sits one layer above them and imports them).
"""
from .gaussian import gaussian_mu, gdp_compose, gdp_delta, gdp_delta_lower, gdp_eps, gdp_mu

__all__ = ["gaussian_mu", "gdp_compose", "gdp_delta", "gdp_delta_lower", "gdp_eps", "gdp_mu"]
