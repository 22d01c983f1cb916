"""The Opacus / dp-accounting drop-in: a certified DP-SGD accountant and noise calibration, and DpEvent translation.

Re-exports only (the code is in :mod:`reference.profiles.dpsgd_accountant` and :mod:`reference.profiles.dp_events`).
Importing this module imports Opacus (and so torch) when it is installed, to subclass its
``IAccountant``; ``import fullyadaptive`` does not.  A short tour::

    from fullyadaptive.opacus import CertifiedAccountant, get_noise_multiplier, register_with_opacus
    acc = CertifiedAccountant()
    for _ in range(1000):
        acc.step(noise_multiplier=1.1, sample_rate=0.01)
    acc.get_epsilon(1e-5)            # the certified upper end of eps(1e-5): a loop stopping on it never overspends
    acc.get_epsilon_bracket(1e-5)    # [lo, hi], both certified
    float(get_noise_multiplier(target_epsilon=2, target_delta=1e-5, sample_rate=0.01, epochs=10))
    register_with_opacus()           # then PrivacyEngine(accountant="certified-pld")

and for dp-accounting: ``event_for("subsampled-gaussian:q=0.01,sigma=1.1x1000")`` is the ``DpEvent``
of a composition, ``event_to_spec(event)`` the composition of an event, and ``check(event, eps, delta)``
grades a claim about it.
"""
from reference.profiles.check import check, event_for, event_to_spec
from reference.profiles.dp_events import event_items, event_to_json, read_event_file
from reference.profiles.dpsgd_accountant import (MECHANISM, SIGMA_GRID, SIGMA_MAX, CertifiedAccountant, NoiseMultiplier,
                                                 get_noise_multiplier, register_with_opacus)

__all__ = ["CertifiedAccountant", "NoiseMultiplier", "get_noise_multiplier", "register_with_opacus", "MECHANISM",
           "SIGMA_GRID", "SIGMA_MAX", "event_for", "event_to_spec", "event_items", "event_to_json", "read_event_file",
           "check"]
