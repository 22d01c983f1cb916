"""The exact privacy curve of the Gaussian mechanism / mu-GDP (Dong, Roth, Su 2022).

Public names (one contract each; the implementations and their catalog entries are in
:mod:`reference.bounds.dong2022`, this module is their stable home by role):

* ``gaussian_mu(sensitivity, sigma)`` -> exact ``Fraction`` mu = sensitivity/sigma
  (Theorem 2.7, arXiv 1905.02383 v3);
* ``gdp_delta(eps, mu, *, dps)`` -> certified upper bound on the exact
  delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) of mu-GDP (Corollary 2.13; the
  analytic Gaussian mechanism's privacy profile, Balle and Wang 2018, Theorem 8), catalog id
  ``dong2022_cor2_13_delta``;
* ``gdp_delta_lower(eps, mu, *, dps)`` -> its certified lower end (``dong2022_cor2_13_delta_lower``);
* ``gdp_eps(delta, mu, *, dps)`` -> certified upper bound on the smallest eps with
  delta(eps) <= delta (a certified root; ``dong2022_cor2_13_eps``);
* ``gdp_mu(eps, delta, *, dps)`` -> certified lower bound on the largest mu with
  delta_mu(eps) <= delta (``dong2022_cor2_13_mu``);
* ``gdp_compose(mus)`` -> exact ``Fraction`` sum mu_i^2 (Corollary 3.3: the composition is
  sqrt(sum mu_i^2)-GDP; ``dong2022_cor3_3_mu`` is its square root rounded up).

>>> from reference.precision import directed_decimal
>>> directed_decimal(gdp_delta("1", gaussian_mu("1", "2")), 10, "upper")
'0.006829594984'
"""
from __future__ import annotations

from ..bounds.dong2022 import gaussian_mu, gdp_compose, gdp_compose_mu, gdp_delta, gdp_delta_lower, gdp_eps, gdp_mu

__all__ = ["gaussian_mu", "gdp_compose", "gdp_compose_mu", "gdp_delta", "gdp_delta_lower", "gdp_eps", "gdp_mu"]
