"""The certified DP-SGD accountant with Opacus's interface and the certified noise calibration
(:mod:`reference.profiles.dpsgd_accountant`), without Opacus or torch (the integration test with
them is ``tests/test_opacus_integration.py``).

Values are dyadic (sigma = 1.25, q = 1/64, ...) where a test compares with a spec text, so the
floats Opacus would pass and the exact decimals of the spec are the same numbers.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from reference.precision import mpf_to_fraction
from reference.profiles.check import profile
from reference.profiles.dpsgd_accountant import (MECHANISM, CertifiedAccountant, get_noise_multiplier,
                                                 register_with_opacus)


def _run(acc, sigma, q, n):
    for _ in range(n):
        acc.step(noise_multiplier=sigma, sample_rate=q)
    return acc


def test_history_is_opacus_s_merged_list():
    a = CertifiedAccountant()
    _run(a, 1.25, 0.015625, 3)
    _run(a, 1.0, 0.03125, 2)
    _run(a, 1.25, 0.015625, 1)
    assert a.history == [(1.25, 0.015625, 3), (1.0, 0.03125, 2), (1.25, 0.015625, 1)]
    assert len(a) == 3 and a.num_steps == 6  # __len__: the history's length, as Opacus's RDPAccountant
    assert a.mechanism() == CertifiedAccountant.mechanism() == MECHANISM


def test_no_step_is_zero_epsilon():
    a = CertifiedAccountant()
    assert a.get_epsilon(1e-5) == 0.0
    b = a.get_epsilon_bracket(1e-5)
    assert b.lo == 0 and b.hi == 0


def test_get_epsilon_is_the_certified_upper_end_rounded_up():
    a = _run(CertifiedAccountant(), 1.25, 0.015625, 200)
    b = a.get_epsilon_bracket(1e-5)
    e = a.get_epsilon(1e-5)
    assert Fraction(e) >= mpf_to_fraction(b.hi) >= mpf_to_fraction(b.lo) > 0
    assert Fraction(e) - mpf_to_fraction(b.hi) <= Fraction(e) * Fraction(1, 2 ** 50)  # one rounding to a double
    # the same run as a spec (an independent parse of the same composition) gives the same certified upper end
    spec = profile("subsampled-gaussian:q=1/64,sigma=1.25x200", "eps", "1e-5")
    assert Fraction(e) >= mpf_to_fraction(spec.hi)


def test_monotone_in_steps():
    """The truth is nondecreasing in the number of steps: the bracket after k steps lies below the one after 4k
    (its lower end below the later upper end), and 4k steps are certainly more costly (separated brackets)."""
    a = _run(CertifiedAccountant(), 1.25, 0.015625, 100)
    b1 = a.get_epsilon_bracket(1e-5)
    _run(a, 1.25, 0.015625, 300)
    b4 = a.get_epsilon_bracket(1e-5)
    assert b1.lo <= b4.hi
    assert b1.hi < b4.lo  # negative control of an accountant that ignores later steps


def test_heterogeneous_history_is_the_composition_of_its_phases():
    a = CertifiedAccountant()
    _run(a, 1.25, 0.015625, 60)
    _run(a, 1.0, 0.03125, 30)
    _run(a, 1.25, 0.015625, 40)
    b = a.get_epsilon_bracket(1e-5)
    ref = profile("subsampled-gaussian:q=1/64,sigma=1.25x100 + subsampled-gaussian:q=1/32,sigma=1x30", "eps", "1e-5")
    assert b.lo <= ref.hi and ref.lo <= b.hi  # the same composition (order does not matter): the brackets meet
    # each phase alone is a post-processing of the run: its certified lower end is below the run's upper end ...
    part = profile("subsampled-gaussian:q=1/32,sigma=1x30", "eps", "1e-5")
    assert part.lo <= b.hi
    # ... and the run is certainly more costly than its second phase alone (the first phase is not dropped)
    assert part.hi < b.lo


def test_state_dict_round_trip_through_json():
    a = CertifiedAccountant(precision="1/50")
    _run(a, 1.25, 0.015625, 50)
    _run(a, 1.0, 0.03125, 10)
    sd = a.state_dict()
    assert sd["mechanism"] == MECHANISM and sd["history"] == a.history
    b = CertifiedAccountant()
    b.load_state_dict(json.loads(json.dumps(sd)))  # lists instead of tuples, a string precision
    assert b.history == a.history and b.precision == Fraction(1, 50)
    assert b.get_epsilon(1e-5) == a.get_epsilon(1e-5)
    _run(b, 1.0, 0.03125, 1)  # a loaded history keeps merging
    assert b.history[-1] == (1.0, 0.03125, 11)


def test_load_state_dict_refuses_and_keeps_the_state():
    a = _run(CertifiedAccountant(), 1.25, 0.015625, 5)
    for bad, word in [({}, "empty"), ({"history": []}, "mechanism"), ({"mechanism": MECHANISM}, "history"),
                      ({"history": [], "mechanism": "rdp"}, "rdp"),
                      ({"history": [(0.0, 0.01, 3)], "mechanism": MECHANISM}, "noise_multiplier"),
                      ({"history": [(1.0, 1.5, 3)], "mechanism": MECHANISM}, "sample_rate"),
                      ({"history": [(1.0, 0.5, 0)], "mechanism": MECHANISM}, "num_steps")]:
        with pytest.raises(ValueError, match=word):
            a.load_state_dict(bad)
    assert a.history == [(1.25, 0.015625, 5)]


@pytest.mark.parametrize("kw, word", [
    (dict(noise_multiplier=0.0, sample_rate=0.01), "noise_multiplier"),
    (dict(noise_multiplier=-1.0, sample_rate=0.01), "noise_multiplier"),
    (dict(noise_multiplier=1.0, sample_rate=0.0), "sample_rate"),
    (dict(noise_multiplier=1.0, sample_rate=1.5), "sample_rate"),
    (dict(noise_multiplier=float("nan"), sample_rate=0.1), "noise_multiplier"),
])
def test_step_refuses_bad_input(kw, word):
    a = CertifiedAccountant()
    with pytest.raises(ValueError, match=word):
        a.step(**kw)
    assert a.history == []


def test_get_epsilon_refuses_bad_input():
    a = _run(CertifiedAccountant(), 1.25, 0.015625, 5)
    for d in (0.0, 1.0, -1e-5):
        with pytest.raises(ValueError, match="delta"):
            a.get_epsilon(d)
    with pytest.raises(TypeError, match="alphas"):
        a.get_epsilon(1e-5, alphas=[2, 3])
    with pytest.raises(ValueError, match="precision"):
        CertifiedAccountant(precision=0)


def test_get_noise_multiplier_meets_the_target_and_one_step_below_does_not():
    r = get_noise_multiplier(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.05, steps=100)
    assert r.steps == 100 and r.grid == Fraction(1, 100)
    sigma = float(r)
    assert Fraction(sigma) >= Fraction(round(sigma * 100), 100) > Fraction(sigma) - Fraction(1, 10 ** 12)  # on the grid
    assert mpf_to_fraction(r.bracket.hi) <= 1 and r.epsilon <= 1.0
    # an independent accountant at the returned float meets the target
    acc = CertifiedAccountant()
    acc.history = [(sigma, 0.05, 100)]
    assert acc.get_epsilon(1e-5) <= 1.0
    # one grid step below: its certified upper end misses the target, and its lower end too when labelled certified
    assert r.below is not None and round((sigma - r.below) * 100) == 1
    assert mpf_to_fraction(r.below_bracket.hi) > 1
    assert r.minimal in ("certified", "upper end only")
    if r.minimal == "certified":
        assert mpf_to_fraction(r.below_bracket.lo) > 1
    assert r.bracket.lo >= 0


def test_get_noise_multiplier_epochs_round_up_and_first_grid_point():
    # 1 epoch at q = 0.3: ceil(1/0.3) = 4 steps (Opacus's int(1/0.3) = 3 would under-count)
    r = get_noise_multiplier(target_epsilon=40, target_delta=0.1, sample_rate=0.3, epochs=1, grid="0.5")
    assert r.steps == 4
    assert mpf_to_fraction(r.bracket.hi) <= 40
    if r.below is None:
        assert float(r) == 0.5  # the first grid point
    else:
        assert mpf_to_fraction(r.below_bracket.hi) > 40


@pytest.mark.parametrize("kw, word", [
    (dict(target_epsilon=1, target_delta=1e-5, sample_rate=0.01), "epochs"),
    (dict(target_epsilon=1, target_delta=1e-5, sample_rate=0.01, epochs=1, steps=100), "epochs"),
    (dict(target_epsilon=-1, target_delta=1e-5, sample_rate=0.01, steps=100), "target_epsilon"),
    (dict(target_epsilon=1, target_delta=0, sample_rate=0.01, steps=100), "target_delta"),
    (dict(target_epsilon=1, target_delta=1.0, sample_rate=0.01, steps=100), "target_delta"),
    (dict(target_epsilon=1, target_delta=1e-5, sample_rate=0, steps=100), "sample_rate"),
    (dict(target_epsilon=1, target_delta=1e-5, sample_rate=1.01, steps=100), "sample_rate"),
    (dict(target_epsilon=1, target_delta=1e-5, sample_rate=0.01, steps=0), "steps"),
    (dict(target_epsilon=1, target_delta=1e-5, sample_rate=0.01, steps=2.5), "steps"),
    (dict(target_epsilon=1, target_delta=1e-5, sample_rate=0.01, epochs=-1), "epochs"),
    (dict(target_epsilon=1, target_delta=1e-5, sample_rate=0.01, steps=100, grid=0), "grid"),
    (dict(target_epsilon=1, target_delta=1e-5, sample_rate=0.01, steps=100, sigma_max="0.001"), "sigma_max"),
])
def test_get_noise_multiplier_refuses_bad_input(kw, word):
    with pytest.raises(ValueError, match=word):
        get_noise_multiplier(**kw)


def test_get_noise_multiplier_unreachable_target_names_sigma_max():
    with pytest.raises(ValueError, match="sigma_max"):
        get_noise_multiplier(target_epsilon=0.5, target_delta=1e-5, sample_rate=0.05, steps=100, sigma_max="1.5")


def test_register_with_opacus_without_opacus():
    try:
        import opacus  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match="Opacus"):
            register_with_opacus()
    else:  # pragma: no cover - with the 'opacus' extra
        assert register_with_opacus() == MECHANISM


def test_the_facade_module_re_exports_and_import_fullyadaptive_stays_light():
    import subprocess
    import sys

    code = ("import sys, fullyadaptive; assert 'torch' not in sys.modules and 'opacus' not in sys.modules; "
            "import fullyadaptive.opacus as o; from reference.profiles import dpsgd_accountant as d; "
            "assert o.CertifiedAccountant is d.CertifiedAccountant and o.get_noise_multiplier is d.get_noise_multiplier")
    subprocess.run([sys.executable, "-c", code], check=True)
