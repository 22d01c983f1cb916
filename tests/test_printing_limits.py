"""What ``check``, ``plan`` and ``game`` print stays short, keeps its rounding direction, and names the right culprit.

* A value beyond the ordinary print range (delta = e^(-10^300): an exponent of 300 digits) prints as
  ``10^(F)`` in at most 25 characters, F rounded so that an upper end stays above the value and a
  lower end below it (checked against bounds on log10 computed independently, with interval arithmetic).
* A probability's upper end (a delta, a game value) never prints above 1: 1 is an upper bound of any
  probability.
* An input echoed back (``zcdp:rho=1e300``, ``--delta 1e-400``) is short, and exact when it has at most
  17 significant digits.
* A malformed repetition count (``x-5``, ``x1.5``, ``×10``) is refused as a count, never blamed on eps.
"""
from __future__ import annotations

import decimal
import json
import re
from fractions import Fraction as F

import mpmath
import pytest

from reference.cli import main

#: The bound promised for a number beyond the ordinary range (and met by every ordinary one at 12 digits).
MAX_NUMBER_CHARS = 25
_COMPACT = re.compile(r"^(-?)10\^\((-?[0-9.]+(?:e-?[0-9]+)?)\)$")


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _log10_2() -> tuple[F, F]:
    """Rational bounds lo <= log10(2) <= hi from the decimal module (correctly rounded at 60 digits; another
    library than the printer's mpmath)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        r = F(decimal.Decimal(2).log10())
    return r - F(1, 10 ** 59), r + F(1, 10 ** 59)


def _number(text: str) -> tuple[int, F]:
    """(sign, F) of a compact ``10^(F)`` text, or (0, value) of an ordinary decimal."""
    m = _COMPACT.match(text)
    if m:
        return (-1 if m.group(1) else 1), F(m.group(2))
    return 0, F(text)


# --------------------------------------------------------------------------
# 1. bounded_decimal: the compact form keeps the rounding direction
# --------------------------------------------------------------------------

@pytest.mark.parametrize("bits", [40, 50])
@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("direction", ["upper", "lower"])
def test_compact_form_is_a_directed_bound(bits, sign, direction):
    """x = +-2^(-2^bits) (log10|x| = -2^bits log10 2: a 12- and a 16-digit exponent, the latter rounded to 12 digits):
    the text is 10^(F) in at most 25 characters, an upper text >= x and a lower text <= x, against rational bounds
    on log10(2), and F within a unit of its 12th digit (plus the mantissa's 1) of log10|x|."""
    from reference.precision import bounded_decimal

    x = sign * mpmath.ldexp(1, -2 ** bits)
    s = bounded_decimal(x, 12, direction)
    assert len(s) <= MAX_NUMBER_CHARS, s
    neg, f = _number(s)
    assert neg == sign, s
    lo, hi = _log10_2()
    t_hi, t_lo = -(2 ** bits) * lo, -(2 ** bits) * hi  # log10|x| lies in [t_lo, t_hi]
    slack = abs(t_lo) / 10 ** 11 + 2
    if (direction == "upper") == (sign > 0):  # the text's magnitude must be >= |x|
        assert t_hi <= f <= t_lo + slack, s
    else:
        assert t_hi - slack <= f <= t_lo, s


def test_compact_form_of_a_huge_value_and_the_ordinary_range_unchanged():
    """2^(2^40) prints as 10^(F) with F >= 2^40 log10 2 (upper) and <= (lower); ordinary values print exactly as
    directed_decimal prints them (the form changes only beyond a 9-digit exponent)."""
    from reference.precision import bounded_decimal, directed_decimal

    lo, hi = _log10_2()
    x = mpmath.ldexp(1, 2 ** 40)
    assert _number(bounded_decimal(x, 12, "upper"))[1] >= 2 ** 40 * hi
    assert _number(bounded_decimal(x, 12, "lower"))[1] <= 2 ** 40 * lo
    for v in (mpmath.mpf("0.1"), F(1, 3), F(1, 10 ** 100000), mpmath.ldexp(3, -3000000), F(-7, 10 ** 999)):
        for d in ("upper", "lower", "exact"):
            assert bounded_decimal(v, 12, d) == directed_decimal(v, 12, d)


def test_probability_upper_end_is_clipped_at_one_and_nothing_else():
    """probability=True: an upper end above 1 prints '1' (a valid upper bound of a probability); an upper end
    below 1, and any lower end in [0, 1], print as without it; a non-probability end is never clipped."""
    from reference.precision import bounded_decimal, directed_decimal

    assert bounded_decimal(mpmath.mpf("1.5"), 12, "upper", probability=True) == "1"
    assert bounded_decimal(mpmath.inf, 12, "upper", probability=True) == "1"
    assert bounded_decimal(mpmath.mpf("1.5"), 12, "upper") == "1.5"  # negative control: an eps is not clipped
    for v in (F(1, 3), F(999999, 1000000), F(1)):
        assert bounded_decimal(v, 12, "upper", probability=True) == directed_decimal(v, 12, "upper")
        assert bounded_decimal(v, 12, "lower", probability=True) == directed_decimal(v, 12, "lower")


# --------------------------------------------------------------------------
# 2. check: bounded numbers, delta's upper end <= 1, the right label
# --------------------------------------------------------------------------

def _delta_line(out: str) -> str:
    return next(x for x in out.splitlines() if x.startswith("true delta at eps"))


def _bracket(line: str) -> tuple[str, str]:
    lo, hi = line.split("[", 1)[1].split("]", 1)[0].split(", ")
    return lo, hi


def test_check_at_eps_1e400_prints_a_short_directed_delta(capsys):
    """gaussian:sigma=1 at eps = 1e400: delta(eps) <= Phi(1/2 - eps) <= e^(-(eps - 1/2)^2 / 2) is about 10^(-2e799);
    the printed upper end (delta at eps = 1e300) is a 25-character 10^(F) above it, and the line says 'bracket'
    (the delta bracket is not an exact profile, though the eps bracket is)."""
    rc, out, err = run(capsys, "check", "gaussian:sigma=1", "--eps", "1e400", "--delta", "1e-6")
    assert rc == 0, err
    line = _delta_line(out)
    lo, hi = _bracket(line)
    assert len(hi) <= MAX_NUMBER_CHARS and len(line) <= 160, line
    sign, f = _number(hi)
    assert sign == 1 and -3 * 10 ** 799 < f < 0  # above the true delta, and below 1
    assert "bracket" in line and "exact profile" not in line
    assert max(map(len, out.splitlines())) <= 250


def test_check_json_at_eps_1e400_has_no_long_numbers(capsys):
    """--json: every number text (the bracket ends, widths, claim, gap) is short; the claim 1e400 stays exact."""
    rc, out, _ = run(capsys, "check", "gaussian:sigma=1", "--eps", "1e400", "--delta", "1e-6", "--json")
    assert rc == 0
    d = json.loads(out)
    texts = [d["claim"]["eps"], d["claim"]["delta"], d["gap_eps"]]
    for k in ("delta_at_claimed_eps", "eps_at_claimed_delta"):
        texts += [d[k]["lower"], d[k]["upper"], d[k]["width"]]
    assert all(len(t) <= MAX_NUMBER_CHARS for t in texts), texts
    assert F(d["claim"]["eps"]) == 10 ** 400
    assert len(out) < 4000


def test_check_never_prints_a_delta_above_one(capsys):
    """laplace:b=0.001x2000 (delta(1) within 1e-12 of 1): the certified upper end used to print as 1.00000000001;
    1 is printed instead (text and JSON), and the width is that of the printed bracket."""
    rc, out, err = run(capsys, "check", "laplace:b=0.001x2000", "--eps", "1", "--delta", "1e-6")
    assert rc == 1, err
    lo, hi = _bracket(_delta_line(out))
    assert F(lo) <= F(hi) <= 1
    rc, out, _ = run(capsys, "check", "laplace:b=0.001x2000", "--eps", "1", "--delta", "1e-6", "--json")
    b = json.loads(out)["delta_at_claimed_eps"]
    assert rc == 1 and F(b["lower"]) <= F(b["upper"]) <= 1
    assert F(b["width"]) <= F(1, 10 ** 6)  # the printed bracket [0.99999..., 1] is narrow


def test_check_echoes_a_huge_parameter_briefly(capsys):
    """zcdp:rho=1e300 used to be echoed as a 301-digit integer (in the composition and in a source)."""
    rc, out, err = run(capsys, "check", "zcdp:rho=1e300", "--eps", "1", "--delta", "1e-6")
    assert rc == 1, err
    comp = next(x for x in out.splitlines() if x.startswith("composition:"))
    assert "rho=1e300" in comp and len(comp) <= 40, comp
    assert max(map(len, out.splitlines())) <= 250


# --------------------------------------------------------------------------
# 3. the spec parser names the count
# --------------------------------------------------------------------------

@pytest.mark.parametrize("spec,found", [
    ("rr:0.01x-5", "'-5'"), ("rr:0.01x1.5", "'1.5'"), ("rr:0.01x1e3", "'1e3'"), ("rr:0.01x", "''"),
    ("rr:0.01x\u0663", "'\u0663'"),  # an Arabic-Indic digit three: a count is ASCII digits, as a number is
    ("gaussian:sigma=2,sensitivity=1x-3", "'-3'"), ("rr:0.01x10x2", "'10x2'"),
    ("rr:0.01x" + "9" * 5000, "'999"),  # beyond the interpreter's int-from-text limit
])
def test_a_malformed_count_is_refused_as_a_count(capsys, spec, found):
    rc, out, err = run(capsys, "check", spec, "--eps", "1", "--delta", "1e-6")
    assert rc == 2 and out == ""
    assert "repetition count must be a positive integer" in err and f"found {found}" in err, err
    assert "eps must" not in err and "sensitivity must" not in err
    assert len(err) < 300


def test_the_multiplication_sign_is_named(capsys):
    rc, _, err = run(capsys, "check", "rr:0.01\u00d710", "--eps", "1", "--delta", "1e-6")
    assert rc == 2
    assert "count" in err and "'x'" in err and "'\u00d7'" in err and "eps must" not in err, err


@pytest.mark.parametrize("count", ["1.5", "true", "\"1e3\""])
def test_a_json_count_is_refused_as_a_count(capsys, count):
    spec = f'[{{"mechanism": "rr", "eps": "0.01", "count": {count}}}]'
    rc, _, err = run(capsys, "check", spec, "--eps", "1", "--delta", "1e-6")
    assert rc == 2 and "repetition count must be a positive integer" in err, err


def test_plan_names_the_count_too(capsys):
    rc, _, err = run(capsys, "plan", "--eps", "1", "--delta", "1e-6", "--workload", "rr:0.01x-5")
    assert rc == 2 and "repetition count must be a positive integer" in err and "found '-5'" in err, err


# --------------------------------------------------------------------------
# 4. plan and game
# --------------------------------------------------------------------------

def test_plan_evaluations_never_print_a_delta_above_one(capsys):
    rc, out, err = run(capsys, "plan", "--eps", "1", "--delta", "1e-6", "--workload", "laplace:b=0.001x2000", "--json")
    assert rc == 0, err
    ev = json.loads(out)["optimum"]["evaluations"]
    assert ev and all(F(e["delta_lower"]) <= F(e["delta_upper"]) <= 1 for e in ev)


def test_plan_echoes_delta_1e_300_briefly(capsys):
    rc, out, err = run(capsys, "plan", "--eps", "1", "--delta", "1e-300", "--workload", "rr:0.5")
    assert rc == 0, err
    head = out.splitlines()[0]
    assert "(1, 1e-300)" in head and len(head) <= 120, head
    rc, out, _ = run(capsys, "plan", "--eps", "1", "--delta", "1e-300", "--workload", "rr:0.5", "--json")
    d = json.loads(out)
    assert rc == 0 and len(d["delta"]) <= 32 and F(d["delta"]) == F(1, 10 ** 300)


def test_game_refusal_echoes_1e_400_briefly(capsys):
    rc, _, err = run(capsys, "game", "--eps", "1", "--delta", "1e-400", "--grid", "0.1")
    assert rc == 2 and "found 1e-400" in err and len(err) < 300, err


def test_game_json_inputs_are_short_and_exact(capsys):
    rc, out, _ = run(capsys, "game", "--eps", "1", "--delta", "1e-300", "--grid", "0.5", "--json")
    d = json.loads(out)
    assert rc == 0 and len(d["delta"]) <= 32 and F(d["delta"]) == F(1, 10 ** 300)
    assert F(d["grid"]) == F(1, 2) and F(d["eps"]) == 1


def test_game_certificate_is_printed_in_its_directions(capsys):
    """The game values are printed directed: 'value at B* <= U' with U >= the certified upper end, and
    'at B* + 1 >= L' with L <= the certified lower end (a double's %g rounded 7.943815e-5 up to 7.94382e-05)."""
    from reference.bounds.game_filter import game_budget

    rc, out, _ = run(capsys, "game", "--eps", "1", "--delta", "1e-6", "--grid", "0.1")
    assert rc == 0
    gb = game_budget("1", "1e-6", "0.1")
    m = re.search(r"game value at B\* <= (\S+) <= delta; at B\* \+ 1 >= (\S+) > delta", out)
    assert m, out
    assert F(m.group(1)) >= gb.upper_at_budget and F(m.group(1)) <= F(1, 10 ** 6)
    assert F(m.group(2)) <= gb.lower_above and F(m.group(2)) > F(1, 10 ** 6)
