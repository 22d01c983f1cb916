"""A certified bracket a route has before its slower routes finish is reported at once, so a check stopped by its time
budget answers with it instead of the trivial [0, 1] (:func:`reference.profiles.check._partial`)."""
from __future__ import annotations

import reference.profiles.check as C
from reference.cli import main


def _contains(outer, inner) -> bool:
    return outer.lo <= inner.lo and inner.hi <= outer.hi


def test_the_closed_forms_are_reported_before_the_pld():
    reports = []
    v = C.check("subsampled-gaussian:q=0.01,sigma=1x100", "1", "1e-5", report=reports.append)
    deltas = [b for b in reports if b.quantity == "delta"]
    assert len(deltas) >= 2  # the closed forms' bracket, then the full one
    assert "total variation" in deltas[0].hi_source
    assert _contains(deltas[0], v.delta_bracket) and v.delta_bracket.hi < deltas[0].hi


def test_a_sub_composition_is_never_reported():
    """A mixture's routes compute brackets of its parts (the subsampled Gaussian alone): those answer another question
    and must not be reported; every reported bracket is consistent with the final one."""
    reports = []
    v = C.check("subsampled-gaussian:q=0.1,sigma=1x10+laplace:b=2x5", "2", "1e-3", report=reports.append)
    for b in reports:
        fin = v.delta_bracket if b.quantity == "delta" else v.eps_bracket
        assert b.lo <= fin.hi and fin.lo <= b.hi, (b, fin)


def test_a_stopped_check_answers_with_what_it_has(capsys):
    rc = main(["check", "subsampled-gaussian:q=1e-9,sigma=0.3x1000000", "--eps", "1", "--delta", "1e-5",
               "--max-seconds", "4"])
    out = capsys.readouterr().out
    assert rc == 3
    line = next(x for x in out.splitlines() if x.startswith("true delta"))
    assert "[0, 1]" not in line and "total variation" in out


def test_only_the_question_being_computed_is_reported():
    from fractions import Fraction

    full = C._merge(C.parse_spec("subsampled-gaussian:q=0.1,sigma=1x10+laplace:b=2x5"))
    part = C._merge(C.parse_spec("subsampled-gaussian:q=0.1,sigma=1x10"))
    b = C._trivial("delta", "test")
    got = []
    tok = C._PARTIAL.set((full, "delta", Fraction(2), got.append))
    try:
        C._partial(part, "delta", Fraction(2), b)  # a sub-composition
        C._partial(full, "delta", Fraction(3), b)  # another point
        C._partial(full, "eps", Fraction(2), b)  # another quantity
        assert got == []
        C._partial(full, "delta", Fraction(2), b)
        assert got == [b]
    finally:
        C._PARTIAL.reset(tok)
