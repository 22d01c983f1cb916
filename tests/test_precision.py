"""The precision contract: exact parsing, validation messages, directed rounding."""
import threading
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.precision import (
    digits_of_inverse,
    last_true,
    Domain,
    certified,
    check,
    check_seq,
    compare_exp_rational,
    directed_decimal,
    enclosure,
    sign_of,
    to_exact,
)


@pytest.mark.parametrize("x, expected", [
    (3, Fraction(3)), ("1e-6", Fraction(1, 10**6)), ("1/3", Fraction(1, 3)), (0.1, Fraction(0.1)),
    (Fraction(2, 7), Fraction(2, 7)), (mpmath.mpf("0.5"), Fraction(1, 2)), (" 2.5 ", Fraction(5, 2)),
    (Decimal("0.25"), Fraction(1, 4)), ("1e-300", Fraction(1, 10**300)),
])
def test_exact_parsing(x, expected):
    assert to_exact(x, "x") == expected


def test_float_is_its_binary_value_not_its_repr():
    assert to_exact(0.1, "x") != Fraction(1, 10)
    assert to_exact(0.1, "x") == Fraction(3602879701896397, 36028797018963968)


@pytest.mark.parametrize("bad, exc", [
    (True, TypeError), (None, TypeError), ([1], TypeError), (float("nan"), ValueError), (float("inf"), ValueError),
    ("nan", ValueError), ("inf", ValueError), ("abc", ValueError), (mpmath.mpf("inf"), ValueError), ("1/0", ValueError),
])
def test_bad_inputs_name_the_parameter(bad, exc):
    with pytest.raises(exc, match="delta_prime"):
        to_exact(bad, "delta_prime")


def test_domain_error_names_parameter_domain_and_value():
    with pytest.raises(ValueError, match=r"delta must lie in \(0, 1\), found 2"):
        check("delta", 2, Domain.open_unit())
    with pytest.raises(ValueError, match=r"eps\[1\] must lie in"):
        check_seq("eps", [1, -1], Domain.positive())
    with pytest.raises(ValueError, match="non-empty"):
        check_seq("eps", [], Domain.positive())


@given(st.fractions(min_value=-10**6, max_value=10**6).filter(lambda q: q != 0), st.integers(1, 40))
def test_directed_decimal_brackets_value(q, digits):
    up = Fraction(Decimal(directed_decimal(q, digits, "upper")))
    lo = Fraction(Decimal(directed_decimal(q, digits, "lower")))
    assert lo <= q <= up
    # one unit in the last place apart at most
    e = abs(q)
    ulp = Fraction(10) ** (len(str(int(e))) - digits) if e >= 1 else None
    if ulp is not None:
        assert up - lo <= ulp


@given(st.fractions(min_value=Fraction(1, 10**6), max_value=1000), st.sampled_from([15, 30, 50]))
def test_certified_sqrt_directed(q, dps):
    up = certified(lambda c, x: c.sqrt(x), (q,), "upper", dps)
    lo = certified(lambda c, x: c.sqrt(x), (q,), "lower", dps)
    # check the direction at twice the precision, with exact squares
    from reference.precision import mpf_to_fraction
    assert mpf_to_fraction(up) ** 2 >= q >= mpf_to_fraction(lo) ** 2
    assert up - lo <= abs(up) * mpmath.mpf(10) ** (-dps + 1)


def test_precision_ladder_and_global_state_untouched():
    before = (mpmath.mp.prec, mpmath.iv.prec)
    f = lambda c, x: c.exp(x) * c.log(x)
    for q in (Fraction(1, 3), Fraction(10**12), Fraction(1, 10**300)):
        p50 = certified(f, (q,), "upper", 50)
        e100 = enclosure(f, (q,), 100)
        assert p50 >= e100.lo  # direction checked at twice the precision
        assert abs(p50 - e100.hi) <= abs(e100.hi) * mpmath.mpf(10) ** -49
    assert (mpmath.mp.prec, mpmath.iv.prec) == before


def test_exact_decisions():
    # exp(1) vs a 16-digit truncation of e: exp is transcendental, refinement decides
    assert compare_exp_rational(Fraction(1), Fraction(2718281828459045, 10**15)) == 1
    assert compare_exp_rational(Fraction(1), Fraction(2718281828459046, 10**15)) == -1
    assert compare_exp_rational(Fraction(0), Fraction(1)) == 0
    assert sign_of(lambda c, x: x - x, (Fraction(1, 3),), tie=lambda: 0) in (0,)


def test_threads_get_private_contexts():
    errs = []

    def work(dps):
        try:
            for _ in range(50):
                v = certified(lambda c, x: c.sqrt(x), (Fraction(2),), "upper", dps)
                assert abs(v - mpmath.sqrt(2)) < 1e-14
        except Exception as e:  # pragma: no cover
            errs.append(e)

    ts = [threading.Thread(target=work, args=(d,)) for d in (15, 50, 200, 30)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert not errs


# --------------------------------------------------------------------------
# last_true / digits_of_inverse: exact counts from rough estimates
# --------------------------------------------------------------------------

@given(st.integers(0, 10**6), st.integers(-10**6, 3 * 10**6))
@example(0, 0)
@example(0, 10**6)
@example(10**6, 0)
def test_last_true_finds_the_threshold_from_any_estimate(K, guess):
    calls = []

    def pred(j):
        calls.append(j)
        return j <= K
    assert last_true(pred, guess) == K
    assert len(calls) <= 4 * (abs(guess - K).bit_length() + 2)  # galloping: logarithmic in the estimate's error


def test_last_true_false_at_zero_returns_zero():
    assert last_true(lambda j: False, 17) == 0


@pytest.mark.parametrize("q,d", [(Fraction(1, 10**40), 40), (Fraction(3, 10**40), 40), (Fraction(1), 0), (Fraction(5, 2), 0), (Fraction(1, 7), 1)])
def test_digits_of_inverse(q, d):
    got = digits_of_inverse(q)
    assert got >= 0 and abs(got - d) <= 1
    assert got == 0 or 10 ** (got + 1) >= 1 / q  # never fewer digits than 1/q needs, minus one


@pytest.mark.parametrize("eps0", ["1e-20", "1e-300"])
def test_rounds_homogeneous_at_tiny_eps0_is_the_exact_threshold(eps0):
    """whitehouse2022 Theorem 1 and feldman2021 Theorem 4.7 on 10^40 and 10^599 rounds: K admitted, K + 1 refused
    (exact decisions), and K agrees with y*/eps0^2 computed independently at 700 digits."""
    from reference.bounds import feldman2021, whitehouse2023 as W

    v0 = Fraction(eps0) ** 2
    K = W.filter_rounds_homogeneous(eps0, 0, 1, "1e-6", 0)
    assert W.filter_admits(K * v0, Fraction(1), Fraction(1, 10**6)) and not W.filter_admits((K + 1) * v0, Fraction(1), Fraction(1, 10**6))
    with mpmath.workdps(700):
        L = mpmath.log(10**6)
        ys = (mpmath.sqrt(2 * L + 2) - mpmath.sqrt(2 * L)) ** 2  # f(y) = sqrt(2Ly) + y/2 = 1
        assert abs(ys / (mpmath.mpf(v0.numerator) / v0.denominator) - K) <= 1
    K2 = feldman2021.dp_filter_rounds_homogeneous(eps0, 1, "1e-6")
    assert feldman2021.dp_filter_admits(K2 * v0, Fraction(1), Fraction(1, 10**6))
    assert not feldman2021.dp_filter_admits((K2 + 1) * v0, Fraction(1), Fraction(1, 10**6))


# --------------------------------------------------------------------------
# Bounded cost, strict syntax, no interpreter-internal messages
# --------------------------------------------------------------------------

import time
import warnings

import numpy as np

from reference.precision import FloatInputWarning, MAX_DECIMAL_EXPONENT


@pytest.mark.parametrize("x, digits, direction, expected", [
    (mpmath.mpf("1e-1000000"), 5, "upper", "1e-1000000"),
    (mpmath.mpf("1e-1000000"), 5, "lower", "9.9999e-1000001"),
    (mpmath.ldexp(1, 10**7), 5, "upper", "9.0499e3010299"),
    (mpmath.ldexp(1, 10**7), 5, "lower", "9.0498e3010299"),
    (Fraction(1, 10**5000), 12, "exact", "1e-5000"),
    (Fraction(-1, 2**(10**6)), 3, "upper", "-1.01e-301030"),
])
def test_directed_decimal_of_huge_exponents_is_fast_and_directed(x, digits, direction, expected):
    t = time.perf_counter()
    assert directed_decimal(x, digits, direction) == expected
    assert time.perf_counter() - t < 2


def test_directed_decimal_beyond_4300_digits():
    s = directed_decimal(Fraction(1, 3), 5000, "upper")
    assert s == "0." + "3" * 4999 + "4"
    s = directed_decimal(Fraction(10**6000 + 1), 4400, "lower")
    assert s == "1e6000"
    s = directed_decimal(Fraction(10**6000 + 1), 4400, "upper")
    assert s == "1." + "0" * 4398 + "1e6000"


@given(st.integers(1, 60), st.integers(-400, 400), st.integers(1, 10**40), st.integers(1, 10**40),
       st.sampled_from(["upper", "lower", "exact"]))
def test_directed_decimal_matches_exact_rational_rounding(digits, k, a, b, direction):
    """Second route: the exact rational rounding (exact decade search, exact floor)."""
    q = Fraction(a, b) * Fraction(10) ** k
    e = 0
    while Fraction(10) ** e > q:
        e -= 1
    while Fraction(10) ** (e + 1) <= q:
        e += 1
    m = q * Fraction(10) ** (digits - 1 - e)
    fl = m.numerator // m.denominator
    frac = m - fl
    up = {"upper": frac > 0, "lower": False, "exact": frac > Fraction(1, 2) or (frac == Fraction(1, 2) and fl % 2 == 1)}[direction]
    want = (fl + up) * Fraction(10) ** (e - digits + 1)
    assert Fraction(Decimal(directed_decimal(q, digits, direction))) == want


@pytest.mark.parametrize("digits, exc", [(0, ValueError), (-1, ValueError), (2.5, TypeError), ("3", TypeError), (True, TypeError)])
def test_directed_decimal_refuses_bad_digits(digits, exc):
    """digits=0 printed '0e0' for 0.99945 as an 'upper' bound (below the value); 2.5 raised AttributeError."""
    with pytest.raises(exc, match="digits"):
        directed_decimal(Fraction(99945, 100000), digits, "upper")


@pytest.mark.parametrize("s", ["1e-999999999", "1e999999999", f"1e-{MAX_DECIMAL_EXPONENT + 1}", "1e-99999999999999999999"])
def test_huge_exponents_are_refused_at_once_naming_the_parameter_and_range(s):
    t = time.perf_counter()
    with pytest.raises(ValueError, match=r"eps = .* outside the supported range.*1e-100000"):
        check("eps", s, Domain.positive())
    assert time.perf_counter() - t < 0.5


def test_huge_mpf_is_refused_but_the_range_edges_parse():
    with pytest.raises(ValueError, match="delta .*supported range"):
        to_exact(mpmath.ldexp(1, -10**9), "delta")
    assert to_exact(f"1e-{MAX_DECIMAL_EXPONENT}", "x") == Fraction(1, 10**MAX_DECIMAL_EXPONENT)
    assert to_exact("1e-4000", "x") == Fraction(1, 10**4000)
    assert to_exact("1/" + "7" * 5000, "x") == Fraction(1, int("7" * 1000) * 0 + int(Decimal("7" * 5000)))


@pytest.mark.parametrize("s", ["١٢", "_1__0_", "1_0", "１２", "0x10", "1e", ".", "+-1", "1/-3", "1/2/3", "inf"])
def test_only_ascii_decimal_syntax(s):
    with pytest.raises(ValueError, match="delta"):
        to_exact(s, "delta")


def test_sets_are_refused_as_sequences():
    """basic_composition_eps({'0.1','0.1','0.1'}) returned 0.1: a set merges equal steps."""
    for bad in ({"0.1", "0.2"}, frozenset({"0.1"}), {"0.1": 1}, {"0.1": 1}.keys()):
        with pytest.raises(TypeError, match="eps.*ordered"):
            check_seq("eps", bad, Domain.positive())
    from reference.bounds.classical import basic_composition_eps
    with pytest.raises(TypeError):
        basic_composition_eps({"0.1", "0.2", "0.3"})
    assert check_seq("eps", ("0.1", "0.1"), Domain.positive()) == (Fraction(1, 10),) * 2


@pytest.mark.parametrize("x", [np.float32(0.1), np.float64(0.1), np.float16(0.5), np.int64(3), np.int8(-2),
                               np.array(0.1), np.array(3), np.array(np.float32(2.5))])
def test_numpy_scalars_are_their_exact_binary_value(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FloatInputWarning)
        q = to_exact(x, "x")
        assert check("x", x, Domain()) == q
    v = x[()] if isinstance(x, np.ndarray) else x
    assert q == (Fraction(int(v)) if isinstance(v, np.integer) else Fraction(*[int(t) for t in v.as_integer_ratio()]))


@pytest.mark.parametrize("bad", [np.bool_(True), np.array([1.0, 2.0]), np.float64("nan"), np.float32("inf"), np.complex128(1)])
def test_bad_numpy_values_are_refused(bad):
    with pytest.raises((TypeError, ValueError), match="x"):
        to_exact(bad, "x")


def test_float_input_warning_says_the_exact_value_and_the_fix():
    with pytest.warns(FloatInputWarning, match=r"eps = 0.1 is a binary float: its exact value 0.1000000000000000055511151231257827"
                                                r"021181583404541015625 is used.*'0.1'") as rec:
        to_exact(0.1, "eps")
    assert rec[0].filename == __file__  # points at the caller, not at the package
    with warnings.catch_warnings():
        warnings.simplefilter("error", FloatInputWarning)
        assert to_exact(0.5, "eps") == Fraction(1, 2)  # exactly representable: no warning
        with pytest.raises(FloatInputWarning):
            to_exact(1e-300, "eps")
    assert issubclass(FloatInputWarning, UserWarning)


def test_float_input_warning_from_a_filter_points_at_user_code_and_is_silenceable():
    from reference.accountants import DPFilter

    with pytest.warns(FloatInputWarning) as rec:
        DPFilter(1.0, 1e-6)
    assert all(r.filename == __file__ for r in rec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", FloatInputWarning)
        DPFilter(1.0, 1e-6).run(0.1)


@pytest.mark.parametrize("ebits", [70, 200, 3000])
def test_directed_decimal_of_astronomical_exponents_matches_log10_route(ebits):
    """x = 3 * 2^(2^ebits): the digits come from 10^K = exp(K log 10) (K beyond 64 bits); second
    route: the fractional part of log10(x) at 2^ebits-aware precision with mpmath."""
    E = 2 ** ebits
    x = mpmath.mp.make_mpf((0, 3, E, 2))
    up, lo = directed_decimal(x, 20, "upper"), directed_decimal(x, 20, "lower")
    with mpmath.workprec(ebits + 200):
        L = mpmath.log10(3) + E * mpmath.log10(2)
        ip = int(mpmath.floor(L))
        mant = mpmath.power(10, L - ip)
        ref = mpmath.nstr(mant, 25, strip_zeros=False)
    m_up, e_up = up.split("e")
    m_lo, e_lo = lo.split("e")
    assert int(e_up) == int(e_lo) == ip
    assert mpmath.mpf(m_lo) <= mpmath.mpf(ref) <= mpmath.mpf(m_up)
    assert mpmath.mpf(m_up) - mpmath.mpf(m_lo) <= mpmath.mpf("1.01e-19")


def test_directed_decimal_refuses_beyond_the_exponent_range_at_once():
    t = time.perf_counter()
    with pytest.raises(ValueError, match="binary exponent"):
        directed_decimal(mpmath.mp.make_mpf((0, 1, 2 ** 9000, 1)), 10, "upper")
    assert time.perf_counter() - t < 0.5


# --------------------------------------------------------------------------
# Direction and tightness of certified / enclosure (mutation tests)
# --------------------------------------------------------------------------

_FORMULAS = {
    "exp_log": (lambda c, x, y: c.exp(x) * c.log(1 + y), lambda x, y: mpmath.exp(x) * mpmath.log(1 + y)),
    "sqrt_ratio": (lambda c, x, y: c.sqrt(x / (1 + y)), lambda x, y: mpmath.sqrt(x / (1 + y))),
    "log1p_pow": (lambda c, x, y: c.log(1 + x * x) / (y + 1) - x, lambda x, y: mpmath.log(1 + x * x) / (y + 1) - x),
}


def _m(q):
    return mpmath.mpf(q.numerator) / q.denominator


@given(st.sampled_from(sorted(_FORMULAS)), st.fractions(min_value=Fraction(1, 1000), max_value=30, max_denominator=10**9),
       st.fractions(min_value=Fraction(1, 1000), max_value=30, max_denominator=10**9), st.sampled_from([15, 50, 120]))
@example("exp_log", Fraction(1, 3), Fraction(2, 7), 50)
def test_certified_directions_bracket_a_200_digit_reference(name, x, y, dps):
    """lower <= reference <= upper (reference: mpmath at 200 digits, a different context and route)."""
    f, ref_f = _FORMULAS[name]
    lo = certified(f, (x, y), "lower", dps)
    up = certified(f, (x, y), "upper", dps)
    with mpmath.workdps(200):
        ref = ref_f(_m(x), _m(y))
        assert lo <= ref <= up
        assert up - lo <= abs(ref) * mpmath.mpf(10) ** (-dps + 1)


@given(st.integers(1, 2**40), st.integers(-60, 60), st.sampled_from([15, 30, 50]))
@example(3, 0, 15)
def test_certified_direction_just_below_and_above_a_representable_value(m, k, dps):
    """The value r -/+ t with r exactly representable at the output precision and t far below the
    enclosure's width: the enclosure of exp(log(r)) -/+ t straddles r, so a lower bound taken from
    the enclosure's UPPER end (or an upper bound from its lower end) lands on the wrong side of r."""
    from reference.precision import _target_bits, mpf_to_fraction

    bits = _target_bits(dps)
    r = Fraction(m) * Fraction(2) ** k  # <= 40 bits: representable at `bits` bits
    t = r / 2 ** (bits + 48)
    f_minus = lambda c, r, t: c.exp(c.log(r)) - t
    f_plus = lambda c, r, t: c.exp(c.log(r)) + t
    assert mpf_to_fraction(certified(f_minus, (r, t), "lower", dps)) <= r - t
    assert mpf_to_fraction(certified(f_plus, (r, t), "upper", dps)) >= r + t
    assert mpf_to_fraction(certified(f_minus, (r, t), "upper", dps)) >= r - t
    assert mpf_to_fraction(certified(f_plus, (r, t), "lower", dps)) <= r + t


@given(st.sampled_from(sorted(_FORMULAS)), st.fractions(min_value=Fraction(1, 100), max_value=20, max_denominator=10**6),
       st.fractions(min_value=Fraction(1, 100), max_value=20, max_denominator=10**6), st.sampled_from([20, 50, 200]))
def test_enclosure_width_meets_the_promised_precision(name, x, y, dps):
    """enclosure(..., dps) promises a relative width <= 2^-(ceil(dps log2 10) + 4) < 10^-dps."""
    from reference.precision import _target_bits

    f, _ = _FORMULAS[name]
    enc = enclosure(f, (x, y), dps)
    assert enc.lo <= enc.hi
    scale = max(abs(enc.lo), abs(enc.hi))
    assert enc.hi - enc.lo <= scale * mpmath.ldexp(1, -_target_bits(dps))
    assert enc.hi - enc.lo <= scale * mpmath.mpf(10) ** -dps


@given(st.decimals(allow_nan=False, allow_infinity=False, min_value=Decimal("-1e300"), max_value=Decimal("1e300")),
       st.sampled_from(["{}", "{:e}", "{:f}", " {} ", "+{}"]))
@example(Decimal("0.000123"), "{}")
@example(Decimal("1200"), "{:e}")
@example(Decimal("-0"), "{}")
def test_ascii_decimal_parser_agrees_with_decimal(d, fmt):
    """Second route: the standard library's Decimal (the parser is now a strict ASCII regex)."""
    s = fmt.format(d)
    if s.strip().startswith("+-"):
        return
    assert to_exact(s, "x") == Fraction(Decimal(s.strip()))


def test_frac_gcd_is_the_largest_common_unit():
    """frac_gcd: every input is an integer multiple of it, and the quotients have gcd 1 (so no larger unit exists)."""
    import math
    from fractions import Fraction as Fr

    from reference.precision import frac_gcd

    assert frac_gcd([Fr(1, 4), Fr(1, 6)]) == Fr(1, 12)
    assert frac_gcd([Fr(0), Fr(3, 10)]) == Fr(3, 10) and frac_gcd([0, 0]) == 0
    for xs in ([Fr(1, 100), Fr(1, 40), Fr(1, 10)], [Fr(7, 3), Fr(14, 9)], [Fr(19, 10000), Fr(1, 100)]):
        g = frac_gcd(xs)
        q = [x / g for x in xs]
        assert all(v.denominator == 1 for v in q) and math.gcd(*(int(v) for v in q)) == 1
