"""An exact phase-1 simplex over Fractions: a feasible point of {x >= 0 : A_le x <= b_le, A_eq x = b_eq}, or None.

Used by the constructive checks of the Kairouz-Oh-Viswanath reduction (rogers2016 Theorem 2.7,
whitehouse2022 Lemma 7): the post-processing kernel of randomized response is a feasible point of
a small rational linear programme.  Bland's rule guarantees termination; every pivot is exact.
(SymPy's ``linprog`` was tried first and returned infeasible points on zero objectives, so the
programme is solved here.)
"""
from __future__ import annotations

from fractions import Fraction as F
from typing import Optional, Sequence


def feasible_point(A_eq: Sequence[Sequence], b_eq: Sequence, A_le: Sequence[Sequence] = (), b_le: Sequence = (),
                   n: Optional[int] = None) -> Optional[list]:
    """Some x >= 0 (Fractions) with A_le x <= b_le and A_eq x = b_eq, or None if there is none."""
    if n is None:
        n = len((list(A_eq) or list(A_le))[0])
    n_le = len(A_le)
    rows, rhs = [], []
    for i, (a, b) in enumerate(zip(A_le, b_le)):  # slack variables turn <= into =
        rows.append([F(x) for x in a] + [F(1) if j == i else F(0) for j in range(n_le)])
        rhs.append(F(b))
    for a, b in zip(A_eq, b_eq):
        rows.append([F(x) for x in a] + [F(0)] * n_le)
        rhs.append(F(b))
    m, nv = len(rows), n + n_le
    for i in range(m):
        if rhs[i] < 0:
            rows[i], rhs[i] = [-x for x in rows[i]], -rhs[i]
    # tableau with one artificial variable per row; phase 1 minimises their sum
    T = [rows[i] + [F(1) if j == i else F(0) for j in range(m)] + [rhs[i]] for i in range(m)]
    basis = [nv + i for i in range(m)]
    obj = [-sum(T[i][j] for i in range(m)) for j in range(nv)] + [F(0)] * m + [-sum(rhs)]
    while True:
        enter = next((j for j in range(nv + m) if obj[j] < 0), None)
        if enter is None:
            break
        _, _, piv = min((T[i][-1] / T[i][enter], basis[i], i) for i in range(m) if T[i][enter] > 0)
        pv = T[piv][enter]
        T[piv] = [x / pv for x in T[piv]]
        for i in range(m):
            if i != piv and T[i][enter]:
                f = T[i][enter]
                T[i] = [x - f * y for x, y in zip(T[i], T[piv])]
        f = obj[enter]
        obj = [x - f * y for x, y in zip(obj, T[piv])]
        basis[piv] = enter
    if obj[-1] != 0 or any(basis[i] >= nv and T[i][-1] != 0 for i in range(m)):
        return None  # the artificial variables cannot all be driven to 0: infeasible
    x = [F(0)] * nv
    for i, bv in enumerate(basis):
        if bv < nv:
            x[bv] = T[i][-1]
    return x[:n]
