"""Finite step laws for the falsifier: exact rational output laws under the two inputs of one step.

A step of an adaptive composition, seen by the analyst, is a pair of laws ``(P, Q)`` on a finite
outcome set: ``P`` under the input x, ``Q`` under its neighbour x'.  Its privacy loss at outcome
``o`` is ``L(o) = log(P(o)/Q(o))`` (``+inf`` on an atom only x charges).  Every claim the falsifier
attacks has a per-step hypothesis on such pairs; this module builds candidate pairs and decides
each hypothesis exactly.

Hypotheses (decided exactly; ``e^eps`` is irrational, so every comparison with it goes through
:func:`reference.precision.compare_exp_rational`):

* ``"dp"``: (eps, delta)-DP, both directions (rogers2016 Definition 2.1; whitehouse2022
  Definition 1): ``P(S) <= e^eps Q(S) + delta`` and the same with P, Q swapped, for every S.
* ``"pdp"``: (eps, delta)-pDP, both directions (whitehouse2022 Definition 3; rogers2016
  Definition 2.2): ``P(|L| > eps) <= delta`` and ``Q(|L'| > eps) <= delta`` with ``L' = -L``.
* ``"pure"``: eps-DP (delta = 0): every atom has ``|L| <= eps``.

Candidates (:func:`dp_candidates`): the generalized randomized response of whitehouse2022
Definition 6 / rogers2016 Definition 2.6 with a rational likelihood ratio ``r <= e^eps``, ::

    A0 = (delta, 0),  A1 = (s r, s),  A2 = (s, s r),  A3 = (0, delta),   s = (1 - delta)/(1 + r),

and its post-processings on at most four outcomes: every merge of its atoms (the 15 set
partitions), and the *threshold splits* that move exactly the fraction of A1 (or A2) needed for
the atom merged with A0 (or A3) to reach a likelihood ratio just beyond a threshold that the
claim's conclusion cares about (e.g. ``e^{2 eps}`` for the DP -> pDP conversions).  These are
the extreme points that matter: every (eps, delta)-DP pair is a post-processing of RR (Kairouz,
Oh, Viswanath 2015; whitehouse2022 Lemma 7), a loss-tail event is a set of atoms, and a merge or
a split at a threshold is what moves mass across it.  Atoms charged by one side only (A0, A3)
are included.  Each candidate is re-checked exactly against the hypothesis; the candidate list
is what "the searched space" means in the falsifier's report.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Optional

import mpmath

from ..catalog import cites
from ..precision import compare_exp_rational

__all__ = ["StepLaw", "rational_below_exp", "rational_above_exp", "is_dp", "is_pdp", "is_pure",
           "rr_atoms", "dp_candidates", "pdp_candidates", "pure_candidates", "pdp_drift_extremes", "HYPOTHESES"]

W22 = "whitehouse2022"


def rational_below_exp(x: Fraction, digits: int = 12) -> Fraction:
    """A rational ``r <= e^x`` within about ``10^-digits`` relative (exact decision)."""
    with mpmath.workdps(digits + 10):
        guess = Fraction(int(mpmath.floor(mpmath.exp(mpmath.mpf(x.numerator) / x.denominator) * 10**digits)), 10**digits)
    while compare_exp_rational(x, guess) < 0:  # e^x < guess: step down
        guess -= Fraction(1, 10**digits)
    return guess


def rational_above_exp(x: Fraction, digits: int = 12) -> Fraction:
    """A rational ``r > e^x`` within about ``10^-digits`` relative (exact decision)."""
    r = rational_below_exp(x, digits) + Fraction(1, 10**digits)
    while compare_exp_rational(x, r) >= 0:
        r += Fraction(1, 10**digits)
    return r


@cites(W22, "Definition 3 (privacy loss of one step, discrete outcomes)")
@dataclass(frozen=True)
class StepLaw:
    """One step's output laws: ``p`` under x, ``q`` under x' (exact, each summing to 1), and the
    parameters ``(eps, delta)`` the analyst *declares* to the accountant for this step.

    ``label`` says how the law was built.  ``ratio(o)`` is ``p[o]/q[o]`` (``None`` = +inf).
    """

    p: tuple
    q: tuple
    eps: Fraction
    delta: Fraction
    label: str = ""

    def __post_init__(self):
        if len(self.p) != len(self.q) or not self.p:
            raise ValueError("p and q must be non-empty tuples of the same length")
        if sum(self.p) != 1 or sum(self.q) != 1 or min(self.p) < 0 or min(self.q) < 0:
            raise ValueError(f"p and q must be probability vectors, found {self.p}, {self.q}")

    def ratio(self, o: int) -> Optional[Fraction]:
        return None if self.q[o] == 0 else self.p[o] / self.q[o]

    def swapped(self) -> "StepLaw":
        return StepLaw(self.q, self.p, self.eps, self.delta, self.label + " (swapped)")

    def as_dict(self) -> dict:
        return {"p": [str(x) for x in self.p], "q": [str(x) for x in self.q], "eps": str(self.eps),
                "delta": str(self.delta), "label": self.label}


def _bad_mass(p: tuple, q: tuple, eps: Fraction) -> Fraction:
    """P(|L| > eps) under p, exactly (an atom with q = 0 and p > 0 has L = +inf)."""
    out = Fraction(0)
    for a, b in zip(p, q):
        if a == 0:
            continue
        if b == 0 or compare_exp_rational(eps, a / b) < 0 or compare_exp_rational(-eps, a / b) > 0:
            out += a
    return out


def _dp_one_way(p, q, eps, delta) -> bool:
    S = [i for i, (a, b) in enumerate(zip(p, q)) if a > 0 and (b == 0 or compare_exp_rational(eps, a / b) < 0)]
    pS = sum((p[i] for i in S), Fraction(0))
    qS = sum((q[i] for i in S), Fraction(0))
    if pS <= delta:
        return True
    return qS > 0 and compare_exp_rational(eps, (pS - delta) / qS) >= 0


@cites(W22, "Definition 1 ((eps, delta)-DP of one step, both directions)")
def is_dp(law: StepLaw, eps=None, delta=None) -> bool:
    """Exact: is the pair (eps, delta)-DP in both directions (default: the declared parameters)?"""
    e = law.eps if eps is None else eps
    d = law.delta if delta is None else delta
    return _dp_one_way(law.p, law.q, e, d) and _dp_one_way(law.q, law.p, e, d)


@cites(W22, "Definition 3 ((eps, delta)-pDP of one step, both directions)")
def is_pdp(law: StepLaw, eps=None, delta=None) -> bool:
    """Exact: is the pair (eps, delta)-pDP in both directions (default: the declared parameters)?"""
    e = law.eps if eps is None else eps
    d = law.delta if delta is None else delta
    return _bad_mass(law.p, law.q, e) <= d and _bad_mass(law.q, law.p, e) <= d


def is_pure(law: StepLaw, eps=None) -> bool:
    """Exact: is the pair eps-DP (every atom has ``|L| <= eps``)?"""
    return is_pdp(law, law.eps if eps is None else eps, Fraction(0))


HYPOTHESES = {"dp": is_dp, "pdp": is_pdp, "pure": lambda law: is_pure(law)}


def rr_atoms(r: Fraction, delta: Fraction) -> list[tuple[Fraction, Fraction]]:
    """The four atoms (P-mass, Q-mass) of randomized response with likelihood ratio r and reveal mass delta."""
    s = (1 - delta) / (1 + r)
    atoms = [(delta, Fraction(0)), (s * r, s), (s, s * r), (Fraction(0), delta)]
    return [a for a in atoms if a != (0, 0)]


def _partitions(items: list):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]
        yield [[first]] + part


def _law_from_blocks(blocks, eps, delta, label) -> StepLaw:
    p = tuple(sum((a for a, _ in b), Fraction(0)) for b in blocks)
    q = tuple(sum((c for _, c in b), Fraction(0)) for b in blocks)
    keep = [i for i in range(len(p)) if p[i] or q[i]]
    return StepLaw(tuple(p[i] for i in keep), tuple(q[i] for i in keep), eps, delta, label)


def _threshold_split(atoms, theta: Fraction, side: str):
    """Split A1 (side 'up') or A2 ('down') so that A0 + t A1 (A3 + t A2) has ratio exactly theta (or 1/theta)."""
    if len(atoms) != 4:
        return None
    A0, A1, A2, A3 = atoms
    if side == "up":
        # ratio (d + t s r)/(t s) = theta  =>  t = d / (s (theta - r))
        d, (pr, qr) = A0[0], A1
        if theta * qr <= pr:
            return None
        t = d / (theta * qr - pr)
        if not 0 < t < 1:
            return None
        return [(A0[0] + t * A1[0], A0[1] + t * A1[1]), ((1 - t) * A1[0], (1 - t) * A1[1]), A2, A3]
    d, (pr, qr) = A3[1], A2
    if theta * pr <= qr:
        return None
    t = d / (theta * pr - qr)
    if not 0 < t < 1:
        return None
    return [A0, A1, ((1 - t) * A2[0], (1 - t) * A2[1]), (A3[0] + t * A2[0], A3[1] + t * A2[1])]


@cites(W22, "Lemma 7 (every (eps, delta)-DP step is a post-processing of randomized response)")
def dp_candidates(eps: Fraction, delta: Fraction, thresholds: Iterable[Fraction] = (), *, digits: int = 12,
                  hypothesis: str = "dp") -> list[StepLaw]:
    """Post-processings of RR_{eps,delta} (rational ratio r <= e^eps) on <= 4 outcomes that satisfy ``hypothesis`` exactly.

    ``thresholds``: loss levels x (rationals); for each, the laws whose merged reveal atom has a
    likelihood ratio just above e^x (up and down, and both at once) are added.  Both
    orientations (P, Q) and (Q, P) are included.  Duplicates are removed.
    """
    r = rational_below_exp(eps, digits) if eps > 0 else Fraction(1)
    atoms = rr_atoms(r, delta)
    out: list[StepLaw] = []
    seen = set()

    def add(law: StepLaw):
        for cand in (law, law.swapped()):
            key = tuple(sorted(zip(cand.p, cand.q)))
            if key in seen:
                continue
            seen.add(key)
            if HYPOTHESES[hypothesis](cand):
                out.append(cand)

    for blocks in _partitions(list(range(len(atoms)))):
        add(_law_from_blocks([[atoms[i] for i in b] for b in blocks], eps, delta,
                             f"RR({eps}, {delta}) merged {blocks}"))
    for x in thresholds:
        theta = rational_above_exp(Fraction(x), digits)
        up = _threshold_split(atoms, theta, "up")
        both = _threshold_split(up, theta, "down") if up else None
        for split, tag in ((up, "up"), (_threshold_split(atoms, theta, "down"), "down"), (both, "both")):
            if split:
                add(_law_from_blocks([[a] for a in split], eps, delta, f"RR({eps}, {delta}) split at e^{x} ({tag})"))
    return out


def pdp_candidates(eps: Fraction, delta: Fraction, thresholds: Iterable[Fraction] = (), *, digits: int = 12) -> list[StepLaw]:
    """The candidates of :func:`dp_candidates` that are (eps, delta)-pDP (both directions), exactly."""
    return dp_candidates(eps, delta, thresholds, digits=digits, hypothesis="pdp")


@cites(W22, "Definition 3 (the (eps, delta)-pDP steps with the largest mean loss on the good event |L| <= eps)")
def pdp_drift_extremes(eps: Fraction, delta: Fraction, *, digits: int = 12) -> list[StepLaw]:
    """(eps, delta)-pDP laws, both directions and exact, whose ``E_P[L 1_{|L| <= eps}]`` approaches its supremum.

    The supremum over (eps, delta)-pDP pairs is ``eps tanh(eps/2) + eps delta/sinh(eps)`` for
    delta < 1 - e^-eps and eps otherwise (:func:`reference.bounds.whitehouse2023.pdp_drift_two_sided`).
    With a rational ``r <= e^eps`` (:func:`rational_below_exp`, about ``10^-digits`` relative):
    for delta <= 1 - 1/r, ``P = (p1, p2, 0)``, ``Q = (p1/r, p2 r, delta)`` with
    ``p1 = r (r - 1 + delta)/(r^2 - 1)``, ``p2 = 1 - p1`` (randomized response whose Q-only atom
    took all of delta, with P's reveal mass spread over the two inner atoms); otherwise
    ``P = (1, 0)``, ``Q = (1/r, 1 - 1/r)``.  Its mean loss on G is ``(p1 - p2) log r`` (resp.
    ``log r``), which tends to the supremum as r -> e^eps.  The swapped pair is included when it
    is pDP too; atoms of mass zero under both laws are dropped.  Inputs: eps >= 0, delta in [0, 1]
    (Fractions).
    """
    e, d = Fraction(eps), Fraction(delta)
    r = rational_below_exp(e, digits) if e > 0 else Fraction(1)
    if r > 1 and d <= 1 - 1 / r:
        p1 = r * (r - 1 + d) / (r * r - 1)
        atoms = [(p1, p1 / r), (1 - p1, (1 - p1) * r), (Fraction(0), d)]
        label = f"pDP drift extreme ({e}, {d}): three atoms, ratio {r}"
    else:
        atoms = [(Fraction(1), 1 / r), (Fraction(0), 1 - 1 / r)]
        label = f"pDP drift extreme ({e}, {d}): two atoms, ratio {r}"
    atoms = [a for a in atoms if a != (0, 0)]
    law = StepLaw(tuple(a for a, _ in atoms), tuple(b for _, b in atoms), e, d, label)
    return [x for x in (law, law.swapped()) if is_pdp(x)]


def pure_candidates(eps: Fraction, thresholds: Iterable[Fraction] = (), *, digits: int = 12) -> list[StepLaw]:
    """Post-processings of eps-RR (rational ratio <= e^eps) on <= 4 outcomes: every such pair is eps-DP."""
    return dp_candidates(eps, Fraction(0), thresholds, digits=digits, hypothesis="pure")


def describe_space(laws: list[StepLaw]) -> str:
    """A short description of a candidate list (sizes of the outcome sets)."""
    sizes = sorted({len(x.p) for x in laws})
    return f"{len(laws)} laws on {sizes} outcomes"

