"""The exact privacy profile of a composition of pure eps_i-DP mechanisms (equivalently eps_i-randomized response).

Sources (published statements, already catalog entries; wrapped here in the profile interface):

* homogeneous, k copies of (eps0, delta0)-DP: Kairouz, Oh, Viswanath 2015, Theorem 3.3 (arXiv
  1311.0776), :func:`reference.bounds.classical.kov_delta` / :func:`~reference.bounds.classical.kov_eps`
  (catalog ``kairouz2015_thm3_3_delta`` / ``_eps``);
* heterogeneous (eps_i, delta_i): Murtagh, Vadhan 2016 (the same hockey-stick sum over the exact
  loss lattice), :func:`~reference.bounds.classical.hetero_optimal_delta` / ``_eps`` (catalog
  ``murtagh2016_hetero_optimal_delta`` / ``_eps``); at most 2^22 distinct losses.

Both are *exact* optimal composition: randomized response attains them, so a Bracket from here is
the exact profile of RR and a tight upper bound for any eps_i-DP mechanisms.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import mpmath

from ..bounds import classical as _cl
from ..precision import DEFAULT_DPS, Domain, check, check_dps, check_seq, mpf_to_fraction
from .conversions import Bracket, invert_decreasing, round_down, round_up

__all__ = ["pure_dp_delta", "pure_dp_eps", "pure_dp_delta_pair"]

NN = Domain.nonnegative()
P = Domain.positive()
U = Domain.open_unit()
D0 = Domain.unit_nonneg()
SOURCE_HOM = "kairouz2015 Theorem 3.3 (optimal homogeneous composition)"
SOURCE_HET = "murtagh2016 optimal heterogeneous composition (exact loss lattice)"


def _bits(dps):
    return _cl._bits(dps)


def _homogeneous(es: Sequence[Fraction], ds: Sequence[Fraction]) -> bool:
    return len(set(es)) == 1 and len(set(ds)) == 1


def pure_dp_delta_pair(es: Sequence[Fraction], ds: Sequence[Fraction], eps: Fraction, dps: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified (lo, hi) of the optimal delta(eps) of the composition of (eps_i, delta_i)-DP steps."""
    bits = _bits(dps)
    if _homogeneous(es, ds) and es[0] > 0:
        lo, hi = _cl._kov_total_pair(es[0], ds[0], len(es), eps, bits)
        return _cl._mk(lo), _cl._mk(hi)
    D, counts, E, D0v = _cl._hetero_setup(es, ds)
    prec = bits + 64
    while True:
        H = _cl._hetero_rr_delta_pair(es, D, counts, E, eps, prec)
        tot = _cl._padd(H, _cl._pmul(_cl._pq(D0v, prec), _cl._pone_minus(H, prec), prec), prec)
        if _cl._rel_ok(tot, bits + 2) or prec >= _cl.MAX_PREC_BITS or tot[1] == _cl._ZERO:
            return _cl._mk(tot[0]), _cl._mk(tot[1])
        prec *= 2


def _parse(eps0s, delta0s):
    es = check_seq("eps0", eps0s, NN)
    ds = check_seq("delta0", delta0s, D0) if delta0s is not None else tuple(Fraction(0) for _ in es)
    if len(ds) != len(es):
        raise ValueError(f"delta0 must have the same length as eps0 ({len(es)}), found length {len(ds)}")
    return es, ds


def pure_dp_delta(eps0s, eps, *, delta0s=None, dps: int = DEFAULT_DPS) -> Bracket:
    """Exact optimal delta(eps) of the composition of (eps0_i, delta0_i)-DP mechanisms, as a certified Bracket.

    Homogeneous lists go to kairouz2015 Theorem 3.3 (any k <= 10^7), others to murtagh2016
    (lattice of at most 2^22 distinct losses).  ``exact`` is True.
    """
    dps = check_dps(dps)
    es, ds = _parse(eps0s, delta0s)
    e = check("eps", eps, NN)
    lo, hi = pure_dp_delta_pair(es, ds, e, dps)
    src = SOURCE_HOM if _homogeneous(es, ds) else SOURCE_HET
    return Bracket("delta", round_down(max(lo, mpmath.mpf(0)), dps), round_up(hi, dps), True, src)


def pure_dp_eps(eps0s, delta, *, delta0s=None, dps: int = DEFAULT_DPS) -> Bracket:
    """Exact optimal eps(delta) of the composition of (eps0_i, delta0_i)-DP mechanisms, as a certified Bracket.

    Upper end: kov_eps / hetero_optimal_eps (rounded up, certified by those functions).  Lower
    end: a candidate just below it, certified by a forward evaluation (delta(lo) > delta), or
    by :func:`~reference.profiles.conversions.invert_decreasing` when that fails.  ``inf`` when
    delta < 1 - prod(1 - delta0_i).
    """
    dps = check_dps(dps)
    es, ds = _parse(eps0s, delta0s)
    d = check("delta", delta, U)
    hom = _homogeneous(es, ds) and es[0] > 0
    src = SOURCE_HOM if hom else SOURCE_HET
    if hom:
        hi = _cl.kov_eps(es[0], ds[0], len(es), d, dps=dps)
    else:
        hi = _cl.hetero_optimal_eps(es, ds, d, dps=dps)
    if not mpmath.isfinite(hi):
        return Bracket("eps", _cl.INF, _cl.INF, True, src)
    if hi == 0:
        return Bracket("eps", mpmath.mpf(0), mpmath.mpf(0), True, src)
    hq = mpf_to_fraction(hi)
    cand = hq * (1 - Fraction(1, 10 ** max(dps - 3, 3)))
    if mpf_to_fraction(pure_dp_delta_pair(es, ds, cand, dps)[0]) > d:
        lo = cand
    else:
        top = sum(es)
        lo, _ = invert_decreasing(lambda x, p: pure_dp_delta_pair(es, ds, x, p), d, Fraction(0), top, dps)
    return Bracket("eps", round_down(lo, dps), hi, True, src)
