"""Mutation benchmark: re-plant plausible slips and check that the tests kill every one.

Each mutant is a (file, exact old text, new text) patch with the pytest selection that must kill
it.  The repository is copied once into a scratch directory (``--workdir``, default a fresh
temporary one; from the working tree, or with ``--rev`` from a commit, without ``.git`` and
caches); for each mutant the copy's file is patched, the selection runs there with a timeout,
and the file is restored.  The working tree is never modified.

Outcomes, decided from pytest's own report (``--junitxml``), not from its exit status alone (with
``-x``, and under pytest-xdist, a real failure can end with status 2, and status 2 is also what a
collection error gives):

* ``killed``: at least one selected test ran and failed (a failure, or an error in its setup or
  teardown; or the run timed out: a planted deadlock);
* ``survived``: the selected tests ran and passed;
* ``broken``: the mutant proves nothing -- a collection or import error, no test ran (nothing
  collected, all deselected or skipped), pytest's internal or usage error (status 3, 4, 5), an
  exit status without a failing test, or the same selection failing on the unmutated copy;
* ``stale``: the old text is no longer found exactly once (the code moved: update the list);
* ``equivalent``: not run; the mutant carries an argument (``equivalent=``) that no test can
  tell it from the original.

Before the mutants, each distinct selection runs once on the unmutated copy (its baseline).

Run (the whole list: ``--list`` counts the mutants and their distinct selections; every mutant is killed, each new
one checked with ``-k`` when it was added; a full run takes several minutes of wall time on the project's two cores)::

    python benchmarks/mutation.py                  # every mutant; a table of outcomes per module
    python benchmarks/mutation.py -k check         # mutants whose name or file matches the regular expression
    python benchmarks/mutation.py --list           # the mutants, their kinds and selections; runs nothing
    python benchmarks/mutation.py --workdir /tmp/m --rev HEAD   # mutate the committed tree in /tmp/m

The slow job runs a representative subset (one mutant of each kind of slip, a deliberately broken
one and a surviving one; about a minute) through ``tests/test_mutation_benchmark.py``::

    python -m pytest -m slow tests/test_mutation_benchmark.py

Prints one line per mutant and a table per module; exits 0 when every mutant is killed (or argued
equivalent), 1 when one survived, is broken or is stale, 2 on bad arguments or a failing setup.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Mutant:
    """One planted slip: ``old`` (found exactly once in ``file``) replaced by ``new``; ``tests`` the pytest arguments
    (paths, ``-k`` expressions) run from the copy's root; ``kind`` the kind of slip (rounding direction, off-by-one,
    dropped term, swapped end, regression); ``equivalent`` an argument why no test can kill it (then it is not run)."""

    name: str
    kind: str
    why: str
    file: str
    old: str
    new: str
    tests: tuple
    equivalent: str = ""


MUTANTS = (
    # -- precision, the Renyi odometer, the homogeneous rounds, the verifier, the Monte Carlo check ----
    Mutant("certified_lower_from_upper_end", "swapped end",
           "(a) precision.certified 'lower' takes the floor of the enclosure's UPPER end",
           "reference/precision.py",
           'raw = libmp.mpf_pos(enc.lo._mpf_, bits, "f")',
           'raw = libmp.mpf_pos(enc.hi._mpf_, bits, "f")',
           ("tests/test_precision.py", "-k", "certified")),
    Mutant("renyi_odometer_no_union_bound", "dropped term",
           "(b) feldman2021 renyi_odometer_zcdp drops log|A| (Ville at delta, not delta/|A|)",
           "reference/bounds/feldman2021.py",
           "a * r + (c.log(k) - c.log(d)) / (a - 1)",
           "a * r + (- c.log(d)) / (a - 1)",
           ("tests/test_reliability_mutants.py", "-k", "renyi")),
    Mutant("enclosure_half_bits", "rounding direction",
           "(c) precision.enclosure accepts an enclosure half as tight as promised",
           "reference/precision.py",
           "    bits = _target_bits(dps)\n    prec = bits + GUARD_BITS\n",
           "    bits = _target_bits(dps) // 2\n    prec = bits + GUARD_BITS\n",
           ("tests/test_precision.py", "-k", "enclosure")),
    Mutant("rounds_homogeneous_round_not_floor", "rounding direction",
           "(d) whitehouse2023 filter_rounds_homogeneous counts the delta'' budget with round()",
           "reference/bounds/whitehouse2023.py",
           "k = min(k, int(d2 / d0))",
           "k = min(k, round(d2 / d0))",
           ("tests/test_reliability_mutants.py", "-k", "homogeneous")),
    Mutant("verifier_upper_weight_rounded_down", "rounding direction",
           "(e) verify/engine.py: the upper weight rounded down to a double (1 ulp below the enclosure)",
           "reference/verify/engine.py",
           'hi[i] = _to_float(b, "c")',
           'hi[i] = _to_float(b, "f")',
           ("tests/test_reliability_mutants.py", "-k", "verifier")),
    Mutant("mc_check_rejects_above_1_01", "off-by-one",
           "(f) martingales one-step Monte Carlo check rejects only a lower bound above 1.01",
           "reference/martingales/processes.py",
           "rejected = [o for o in out if o[3] > 1.0]",
           "rejected = [o for o in out if o[3] > 1.01]",
           ("tests/test_reliability_mutants.py", "-k", "monte_carlo")),
    # -- classics ------------------------------------------------------------------------------
    Mutant("factor_2_in_a_log", "dropped term",
           "classic: a factor 2 on log(1/delta) in the Renyi odometer",
           "reference/bounds/feldman2021.py",
           "a * r + (c.log(k) - c.log(d)) / (a - 1)",
           "a * r + (c.log(k) - 2 * c.log(d)) / (a - 1)",
           ("tests/test_reliability_mutants.py", "-k", "renyi")),
    Mutant("dropped_union_bound_grid_size", "dropped term",
           "classic: dropped union bound, |A| counted as 1",
           "reference/bounds/feldman2021.py",
           "k = Fraction(len(set(grid)))",
           "k = Fraction(1)",
           ("tests/test_reliability_mutants.py", "-k", "renyi")),
    Mutant("lt_for_le_in_zcdp_filter", "off-by-one",
           "classic: '>=' for '>' in the ZCDP filter (a step that exactly fills rho is refused)",
           "reference/accountants/whitehouse2023.py",
           'if self._rho_spent + r > self._p["rho"]:',
           'if self._rho_spent + r >= self._p["rho"]:',
           ("tests/test_reliability.py", "-k", "ten_thousand")),
    Mutant("directed_decimal_never_rounds_up", "rounding direction",
           "classic: directed_decimal drops the 'round up' step (upper bounds print below the value)",
           "reference/precision.py",
           "    n = fl + 1 if up else fl\n",
           "    n = fl\n",
           ("tests/test_precision.py", "-k", "directed_decimal")),
    Mutant("state_json_decimal_only", "regression",
           "regression: to_json writes str(q) for every value (the 4300-digit int/str limit again)",
           "reference/accountants/base.py",
           "    if max(abs(num).bit_length(), den.bit_length()) <= _HEX_ABOVE_BITS:\n",
           "    if True:\n",
           ("tests/test_reliability.py", "-k", "ten_thousand or tiny_step or hex")),
    Mutant("plain_lock", "regression",
           "regression: threading.Lock instead of RLock (a rule reading its own filter deadlocks)",
           "reference/accountants/base.py",
           "self._lock = threading.RLock()  # re-entrant",
           "self._lock = threading.Lock()  # re-entrant",
           ("tests/test_reliability.py", "-k", "reentrant")),
    Mutant("hmac_not_checked", "dropped term",
           "regression: from_dict accepts a keyed state without checking its HMAC",
           "reference/accountants/base.py",
           "            if not isinstance(d[\"hmac\"], str) or not hmac.compare_digest(d[\"hmac\"], _mac(key, body)):\n",
           "            if not isinstance(d[\"hmac\"], str):\n",
           ("tests/test_reliability.py", "-k", "hmac or raising_eps or truncated or wrong_key")),
    Mutant("filter_charges_rounded_value", "swapped end",
           "regression: a filter charges a value rounded to nearest instead of its enclosure's upper end",
           "reference/precision.py",
           "    if end is not None and isinstance(value, Certified) and value.exact is None:\n",
           "    if False:\n",
           ("tests/test_exact_outputs.py",)),
    Mutant("rational_forgets_exact", "rounding direction",
           "regression: a rational result (rho = 1/200) is parsed at its rounded binary value",
           "reference/precision.py",
           "    return Certified._make(v._mpf_, v.lower._mpf_, v.upper._mpf_, q)\n",
           "    return Certified._make(v._mpf_, v.lower._mpf_, v.upper._mpf_, None)\n",
           ("tests/test_exact_outputs.py",)),
    Mutant("pld_product_rounded_down", "rounding direction",
           "the PLD engine's exact products truncated instead of rounded up (the composed vector is no longer an upper bound)",
           "reference/profiles/sgm_pld.py",
           "    carry = rem\n",
           "    carry = np.zeros(n, dtype=bool)\n",
           ("proofs/test_sgm_pld_certified.py",)),
    # -- the Opacus-compatible certified accountant and the dp-accounting event translation ----
    Mutant("dpsgd_get_epsilon_lower_end", "swapped end",
           "get_epsilon returns the bracket's lower end (a loop stopping on it can overspend)",
           "reference/profiles/dpsgd_accountant.py",
           "        return _up(self.get_epsilon_bracket(delta).hi)",
           "        return _up(self.get_epsilon_bracket(delta).lo)",
           ("tests/test_dpsgd_accountant.py", "-k", "upper_end")),
    Mutant("dpsgd_step_not_counted", "dropped term",
           "a repeated step is merged into the history without adding to its count",
           "reference/profiles/dpsgd_accountant.py",
           "            self.history[-1] = (s, q, n + 1)",
           "            self.history[-1] = (s, q, n)",
           ("tests/test_dpsgd_accountant.py", "-k", "monotone")),
    Mutant("dpsgd_noise_one_grid_step_low", "off-by-one",
           "the noise calibration returns the grid point below the smallest one that meets the target",
           "reference/profiles/dpsgd_accountant.py",
           "    return j_meet\n",
           "    return max(1, j_meet - 1)\n",
           ("tests/test_dpsgd_accountant.py", "-k", "meets_the_target")),
    Mutant("dpsgd_epochs_floored", "rounding direction",
           "epochs become floor(epochs / sample_rate) steps (fewer than the run takes)",
           "reference/profiles/dpsgd_accountant.py",
           "        k = math.ceil(ep / q)",
           "        k = math.floor(ep / q)",
           ("tests/test_dpsgd_accountant.py", "-k", "epochs_round_up")),
    Mutant("dp_event_noise_rounded_up", "rounding direction",
           "event_for rounds the subsampled Gaussian's noise multiplier up to a double (the event is less lossy than the spec)",
           "reference/profiles/dp_events.py",
           'de.GaussianDpEvent(_double(p["sigma"], "down"))',
           'de.GaussianDpEvent(_double(p["sigma"], "up"))',
           ("tests/test_dp_events.py", "-k", "rounding")),
    Mutant("dp_event_rr_eps_rounded_down", "rounding direction",
           "a randomized-response event's irrational epsilon is rounded down (its 'upper' item no longer dominates it)",
           "reference/profiles/dp_events.py",
           'certified(lambda c, x: c.log(x), (r,), "upper", 30)',
           'certified(lambda c, x: c.log(x), (r,), "lower", 30)',
           ("tests/test_dp_events.py", "-k", "randomized_response")),
    Mutant("dp_event_self_composed_count_dropped", "dropped term",
           "a SelfComposedDpEvent is read as one copy of its event",
           "reference/profiles/dp_events.py",
           '        return [{**it, "count": it["count"] * n} for it in items]',
           '        return [{**it, "count": it["count"]} for it in items]',
           ("tests/test_dp_events.py", "-k", "round_trip")),
    # -- the closed-form front door of the subsampled-Gaussian routes (sgm_closed) and the engine's stops ----
    Mutant("sgm_closed_one_step_upper_rounded_down", "rounding direction",
           "the exact one-step profile's upper end rounded down (the shortcut's bracket no longer contains the truth)",
           "reference/profiles/sgm_closed.py",
           'return Bracket("delta", _rnd(lo, dps, "d"), _rnd(hi, dps, "u"), False, "bracket", lo_source=src, hi_source=src)',
           'return Bracket("delta", _rnd(lo, dps, "d"), _rnd(hi, dps, "d"), False, "bracket", lo_source=src, hi_source=src)',
           ("tests/test_sgm_extremes.py", "-k", "single_step")),
    Mutant("sgm_closed_domination_forgets_count", "dropped term",
           "the dominating Gaussian run takes mu^2 = sum 1/sigma_i^2 (one step per phase) instead of sum k_i/sigma_i^2",
           "reference/profiles/sgm_closed.py",
           "    return _sqrt_bracket(sum((Fraction(k) / (s * s) for _, s, k in ph), Fraction(0)))",
           "    return _sqrt_bracket(sum((Fraction(1) / (s * s) for _, s, k in ph), Fraction(0)))",
           ("tests/test_sgm_extremes.py", "-k", "gaussian")),
    Mutant("sgm_closed_tv_forgets_count", "dropped term",
           "the total variation bound of the run counts each phase once (1 - (1 - TV_i) instead of 1 - (1 - TV_i)^k_i)",
           "reference/profiles/sgm_closed.py",
           "            tot = tot + k * (-tv).log1p()",
           "            tot = tot + (-tv).log1p()",
           ("tests/test_sgm_extremes.py", "-k", "tv or tiny_q")),
    Mutant("pld_delta_tail_absolute", "regression",
           "a delta(eps) request's tail budget is the absolute 2^-60 again, not relative to the answer",
           "reference/profiles/sgm_pld.py",
           "            tl = min(2.0 ** -60, est * 1e-5) if est > 0 else 2.0 ** -60",
           "            tl = 2.0 ** -60",
           ("tests/test_sgm_extremes.py", "-k", "tail_budget")),
    Mutant("pld_refines_a_fixed_point_limited_bracket", "regression",
           "the PLD refinement ignores that the fixed point, not the grid, limits the bracket (delta = 1e-300: it refines "
           "past the memory budget)",
           "reference/profiles/sgm_pld.py",
           "        if _fix_need(ph, bits, tl) > F_MAX:\n            break\n",
           "        if False:\n            break\n",
           ("tests/test_sgm_extremes.py", "-k", "fixed_point_limited")),
    Mutant("binary_scan_walks_every_term", "regression",
           "the binary threshold's float scan no longer stops when its terms underflow (a million terms at k = 1e6)",
           "reference/profiles/subsampled_gaussian.py",
           "        if j > mode and (t < tot * 1e-18 and tot > 0 or l1 < -746):",
           "        if j > mode and t < tot * 1e-18:",
           ("tests/test_sgm_extremes.py", "-k", "float_scan")),
    Mutant("pld_lower_forgets_shift", "dropped term",
           "the PLD lower end reads the optimistic vector at eps, not eps + K dev (the buckets' loss deviation unpaid)",
           "reference/profiles/sgm_pld.py",
           "        return max(self.lvP.lower(e + self.shift - self.loss_offset), self.lvQ.lower(e + self.shift + self.loss_offset))\n",
           "        return max(self.lvP.lower(e - self.loss_offset), self.lvQ.lower(e + self.loss_offset))\n",
           ("proofs/test_sgm_pld_certified.py", "-k", "step_5")),
    Mutant("pld_lower_atoms_not_shrunk", "dropped term",
           "the optimistic atoms keep their P-mass instead of shrinking to the exact grid ratio min(P_B, e^g Q_B)",
           "reference/profiles/sgm_pld.py",
           "                pl = min(PB.lower(), p2.lower())\n",
           "                pl = PB.lower()\n",
           ("proofs/test_sgm_pld_certified.py", "-k", "step_5")),
    Mutant("pld_lower_entries_rounded_up", "rounding direction",
           "the optimistic step's entries rounded up (the ceiling of the upper end) instead of down",
           "reference/profiles/sgm_pld.py",
           "            vals.append(max(0, _floor_lo(pl * (-(g * t) / 2).exp() * scale)))\n",
           "            vals.append(max(0, _ceil_fix(pl * (-(g * t) / 2).exp() * scale)))\n",
           ("proofs/test_sgm_pld_certified.py", "-k", "step_5")),
    Mutant("pld_solver_ends_on_any_newton_step", "regression",
           "the bucket solver stops after the first plain Newton step whatever its predicted residual (buckets off their "
           "grid ratio: dropped, or kept with a large deviation)",
           "reference/profiles/sgm_pld.py",
           "                if (2 * abs(g2) * step * step).mid() <= (eg * QB * self.tol).mid() / 16:\n",
           "                if True:\n",
           ("proofs/test_sgm_pld_certified.py", "-k", "step_5_optimistic_buckets")),
    Mutant("pld_split_erfc_at_the_fixed_point_only", "regression",
           "the split's erfc values evaluated at the fixed point's precision alone (the division by about h of the split "
           "amplifies their error past the unit 2^-F)",
           "reference/profiles/sgm_pld.py",
           "    eprec = max(96, F + bits + 24)\n",
           "    eprec = max(96, F)\n",
           ("proofs/test_sgm_pld_certified.py", "-k", "final_rounding")),
    Mutant("pld_shared_split_forgets_the_fixed_point", "regression",
           "the shared tilt-independent split of a step is looked up without its fixed point F (a vector at 2^-68 built "
           "from masses scaled to 2^-60)",
           "reference/profiles/sgm_pld.py",
           '_core(("step", q, s, bits, F, tail, K),',
           '_core(("step", q, s, bits, tail, K),',
           ("proofs/test_sgm_pld_certified.py", "-k", "shared_step")),
    Mutant("pld_shared_buckets_forget_the_tail_budget", "regression",
           "the shared optimistic buckets of a step are looked up without the tail budget and step count that bound their "
           "region",
           "reference/profiles/sgm_pld.py",
           '_core(("lstep", q, s, bits, F, tail, K),',
           '_core(("lstep", q, s, bits, F),',
           ("proofs/test_sgm_pld_certified.py", "-k", "shared_step")),
    Mutant("pld_lower_products_rounded_up", "rounding direction",
           "the optimistic vector's products rounded up like the pessimistic one's",
           "reference/profiles/sgm_pld.py",
           "    W = _shift(C8.view(np.uint64).reshape(n, Lf), F, L, up=not A.down)\n",
           "    W = _shift(C8.view(np.uint64).reshape(n, Lf), F, L, up=True)\n",
           ("proofs/test_sgm_pld_certified.py", "-k", "step_5")),
    Mutant("pld_lower_deviation_not_recorded", "dropped term",
           "the optimistic step forgets to record the buckets' certified deviations (the shift K dev becomes 0)",
           "reference/profiles/sgm_pld.py",
           "                dev = max(dev, d.upper())\n",
           "                dev = max(dev, arb(0))\n",
           ("proofs/test_sgm_pld_certified.py", "-k", "step_5")),
    Mutant("pld_lower_grid_offset_dropped", "dropped term",
           "the optimistic vector read without its grid offset sum k c (every loss log(1 - q)/2 too high per step)",
           "reference/profiles/sgm_pld.py",
           "    C = sum((st.c * k for st, k in zip(lsteps, map(_steps_of, phases))), Fraction(0))  # the composed grid's offset (exact)\n",
           "    C = Fraction(0)\n",
           ("tests/test_sgm_pld.py", "-k", "quadrature")),
    Mutant("pld_lower_grid_index_off_by_one", "off-by-one",
           "the optimistic atoms recorded one grid step above their bucket's ratio",
           "reference/profiles/sgm_pld.py",
           "                idx.append(j)\n",
           "                idx.append(j + 1)\n",
           ("tests/test_sgm_pld.py", "-k", "quadrature")),
    # -- the PLD engine: the eps upper end ---------------------------------------------------------
    Mutant("pld_eps_upper_one_grid_step_low", "off-by-one",
           "the PLD eps bracket's upper end read one grid step below the certified point (delta_upper there exceeds delta)",
           "reference/profiles/sgm_pld.py",
           "        hi = mpmath.inf if hi_ is None else round_up(hi_, 30)\n",
           "        hi = mpmath.inf if hi_ is None else round_up(hi_ - self.h, 30)\n",
           ("tests/test_sgm_pld.py", "-k", "eps_bracket_ends")),
    Mutant("pld_first_index_off_by_one", "off-by-one",
           "the PLD upper end sums from the first grid loss at or below eps (a term with a negative weight enters)",
           "reference/profiles/sgm_pld.py",
           "math.floor(eps / self.h) + 1 - self.base",
           "math.floor(eps / self.h) - self.base",
           ("tests/test_sgm_pld.py", "-k", "quadrature or eps_bracket_ends")),
    # -- check: verdicts and the routes of mixtures ------------------------------------------------
    # -- modules the layout split created: one planted slip each --------------------------------------
    Mutant("renyi_gaussian_rdp_half_dropped", "dropped term",
           "the Gaussian mechanism's Renyi curve alpha D^2/(2 sigma^2) loses its factor 1/2 (bounds.renyi)",
           "reference/bounds/renyi.py",
           "    return rational(a * D * D / (2 * s * s), \"exact\", dps)\n",
           "    return rational(a * D * D / (s * s), \"exact\", dps)\n",
           ("tests/test_feldman2021.py", "tests/test_classical.py")),
    Mutant("rdp_to_dp_log_delta_sign", "rounding direction",
           "the standard RDP -> DP conversion adds log(1/delta)/(alpha - 1) with the wrong sign (bounds.rdp_to_dp)",
           "reference/bounds/rdp_to_dp.py",
           "    return certified(lambda c, a, e, d: e - c.log(d) / (a - 1), (a, e, d), \"upper\", dps)\n",
           "    return certified(lambda c, a, e, d: e + c.log(d) / (a - 1), (a, e, d), \"upper\", dps)\n",
           ("tests/test_feldman2021.py", "tests/test_classical.py")),
    Mutant("kov_closed_form_sqrt_halved", "dropped term",
           "the KOV closed form's third branch uses sqrt(k log(1/dt)) instead of sqrt(2 k log(1/dt)) (bounds.optimal_composition)",
           "reference/bounds/optimal_composition.py",
           "e * c.sqrt(-2 * kq * c.log(dt))",
           "e * c.sqrt(-kq * c.log(dt))",
           ("tests/test_classical.py", "tests/test_vectors.py")),
    Mutant("collect_forgets_game_filter", "dropped term",
           "the catalog's collector no longer imports the game filter's module: its entries vanish (reference.collect)",
           "reference/collect.py",
           "    from .bounds import game_filter  # noqa: F401  (the game-certified filter budget)\n",
           "",
           ("tests/test_vectors.py",)),
    Mutant("cli_internal_error_reads_as_verdict", "off-by-one",
           "an internal error exits 1, the code of an anti-conservative verdict (cli.app)",
           "reference/cli/app.py",
           "        pass\n    return EXIT_INTERNAL\n",
           "        pass\n    return 1\n",
           ("tests/test_check_robustness.py",)),
    Mutant("report_files_private_mode", "rounding direction",
           "files written through a temporary name keep mode 0600 instead of 0o666 & ~umask (report.files)",
           "reference/report/files.py",
           "    return 0o666 & ~_umask()\n",
           "    return 0o600\n",
           ("tests/test_cli.py", "-k", "mode or umask or permission")),
    Mutant("check_binary_lower_always_skipped", "dropped term",
           "check never computes the binary lower end of a subsampled-Gaussian item, also where the PLD cannot answer",
           "reference/profiles/check.py",
           "        return sgm.sgm_eps_bracket(q, sigma, s.count, at, dps=dps)\n",
           "        return sgm.sgm_eps_bracket(q, sigma, s.count, at, dps=dps, lower=False)\n",
           ("tests/test_sgm_pld.py", "-k", "binary_lower")),
    Mutant("check_tight_from_inexact_bracket", "dropped term",
           "check prints 'valid and tight' from an inexact bracket (the exactness condition dropped)",
           "reference/profiles/check.py",
           "gap <= t * max(ehi, Fraction(1, 10 ** 30)) and eb.exact\n",
           "gap <= t * max(ehi, Fraction(1, 10 ** 30))\n",
           ("tests/test_check.py", "tests/test_bracket_definitions.py", "-k", "tight or verdict")),
    Mutant("check_zcdp_gaussian_rho_is_mu2", "dropped term",
           "a zCDP + Gaussian mixture charges each Gaussian rho = mu^2 instead of mu^2/2",
           "reference/profiles/check.py",
           "        low = _gaussian(2 * rho, quantity, at, dps)\n",
           "        rho += _gauss_mu2([s for s in steps if s.mechanism == \"gaussian\"]) / 2\n"
           "        low = _gaussian(2 * rho, quantity, at, dps)\n",
           ("tests/test_check.py", "tests/test_bracket_definitions.py", "-k", "zcdp or mixture")),
    Mutant("check_total_variation_rounded_down", "rounding direction",
           "the total variation bound 1 - prod (1 - q_i)^k_i on delta rounded down instead of up",
           "reference/profiles/check.py",
           "zip(x, ns)), c.mpf(0))), qs, \"upper\", dps)",
           "zip(x, ns)), c.mpf(0))), qs, \"lower\", dps)",
           ("tests/test_bracket_definitions.py", "-k", "total_variation")),
    Mutant("check_huge_zcdp_tail_halved", "dropped term",
           "beyond the Gaussian route, delta(eps) <= exp(-(eps - rho)^2/(2 rho)): the 4 of bun2016 Prop. 1.3 halved",
           "reference/profiles/check.py",
           "c.exp(-(e - r) ** 2 / (4 * r))",
           "c.exp(-(e - r) ** 2 / (2 * r))",
           ("tests/test_check_robustness.py", "tests/test_bracket_definitions.py", "-k", "huge or zcdp")),
    # -- the moment bracket of huge counts (concentration.py) and its use in check ---------------------
    Mutant("concentration_sgm_mean_without_cubic_term", "dropped term",
           "the subsampled Gaussian's mean loss bound v/2 - E u^3/6 loses its cubic term (v/2 is above the KL divergence)",
           "reference/profiles/concentration.py",
           "            return v / 2 - t3 / 6\n",
           "            return v / 2\n",
           ("tests/test_concentration.py", "-k", "moments_against_quadrature")),
    Mutant("concentration_sgm_variance_quartered", "dropped term",
           "the subsampled Gaussian's variance bound E_Q u^2 is divided by 4 (below the second moment of the loss)",
           "reference/profiles/concentration.py",
           "        var = certified(_sgm_v, (q, s), \"upper\", dps)\n",
           "        var = certified(lambda c, q, s: _sgm_v(c, q, s) / 4, (q, s), \"upper\", dps)\n",
           ("tests/test_concentration.py", "-k", "moments_against_quadrature")),
    Mutant("check_moment_bracket_never_used", "regression",
           "check answers huge counts without the moment bracket (the closed forms' [96.7, 5.0e7] comes back)",
           "reference/profiles/check.py",
           "    if b.exact or (quantity == \"eps\" and at == 0):\n        return b\n",
           "    if True:\n        return b\n",
           ("tests/test_concentration.py", "-k", "huge_counts")),
    # -- the command line of check -----------------------------------------------------------------
    Mutant("cli_check_bracket_ends_swapped", "swapped end",
           "check prints the delta bracket as [upper, lower]",
           "reference/cli/check.py",
           "[{d['lower']}, {d['upper']}]",
           "[{d['upper']}, {d['lower']}]",
           ("tests/test_check.py", "tests/test_bracket_definitions.py", "-k", "cli")),
    Mutant("cli_check_bracket_called_exact", "swapped end",
           "check labels an inexact bracket 'exact profile'",
           "reference/cli/check.py",
           'kind = "exact profile" if db.exact else',
           'kind = "exact profile" if not db.exact else',
           ("tests/test_check.py", "tests/test_bracket_definitions.py", "-k", "cli")),
    Mutant("cli_check_refusal_is_status_1", "off-by-one",
           "check answers an input beyond a stated limit with status 1 (a certified 'invalid') instead of 2",
           "reference/cli/check.py",
           "        v = _check_limited(steps, args, seconds)\n"
           "    except ValueError as exc:\n"
           "        print(error_line(\"check\", str(exc)), file=sys.stderr)\n"
           "        return 2\n",
           "        v = _check_limited(steps, args, seconds)\n"
           "    except ValueError as exc:\n"
           "        print(error_line(\"check\", str(exc)), file=sys.stderr)\n"
           "        return 1\n",
           ("tests/test_check.py", "tests/test_check_robustness.py", "tests/test_bracket_definitions.py", "-k", "cli")),
    # -- the subsampled Gaussian's RDP / binary bracket ------------------------------------------------
    Mutant("sgm_binary_lower_rounded_up", "rounding direction",
           "the binary lower end of the subsampled Gaussian's delta rounded up instead of down",
           "reference/profiles/subsampled_gaussian.py",
           '    v = certified(formula, (qq, s, tau, e), "lower", dps)\n',
           '    v = certified(formula, (qq, s, tau, e), "upper", dps)\n',
           ("tests/test_profiles.py", "tests/test_bracket_definitions.py", "-k", "sgm")),
    Mutant("sgm_binary_lower_drops_e_eps", "dropped term",
           "the binary lower end drops the e^eps factor of the hockey-stick (it becomes the total variation)",
           "reference/profiles/subsampled_gaussian.py",
           "- c.exp(ev + lc + j * lp0 + (kk - j) * lq0)",
           "- c.exp(lc + j * lp0 + (kk - j) * lq0)",
           ("tests/test_profiles.py", "tests/test_bracket_definitions.py", "-k", "sgm")),
    Mutant("sgm_upper_eps_takes_the_larger", "swapped end",
           "the eps upper end takes the larger of the integer-order and continuous-order bounds",
           "reference/profiles/subsampled_gaussian.py",
           "    return (hc, SOURCE_UP_CONT.format(alpha=alpha)) if hc < hi_int else (hi_int, SOURCE_UP)\n",
           "    return (hc, SOURCE_UP_CONT.format(alpha=alpha)) if hc > hi_int else (hi_int, SOURCE_UP)\n",
           ("tests/test_sgm_rdp_continuous.py", "tests/test_bracket_definitions.py", "-k", "never_worse or smaller_of")),
    # -- pure DP, Laplace, Gaussian profiles; the shared conversions -----------------------------------
    Mutant("pure_dp_closed_form_tail_halved", "dropped term",
           "kairouz2015 Thm 3.5's delta(eps) for huge counts with exp(-(eps - F)^2/V) (the 2 of 2V dropped)",
           "reference/profiles/pure_dp.py",
           "c.exp(-(x - F(c, *a[:m])) ** 2 / (2 * v))",
           "c.exp(-(x - F(c, *a[:m])) ** 2 / v)",
           ("tests/test_check_robustness.py", "tests/test_bracket_definitions.py", "-k", "huge_rr or closed_form")),
    Mutant("pure_dp_basic_lower_end_swapped", "swapped end",
           "at eps >= sum k_i eps_i the lower end 1 - P is formed from P rounded down (it lands above the truth)",
           "reference/profiles/pure_dp.py",
           '        lows.append(mpmath.fsub(1, _keep(tr, dps + 5, "upper"), prec=bits, rounding="d"))\n',
           '        lows.append(mpmath.fsub(1, _keep(tr, dps + 5, "lower"), prec=bits, rounding="d"))\n',
           ("tests/test_check_robustness.py", "tests/test_bracket_definitions.py", "-k", "pure or basic")),
    Mutant("laplace_rr_threshold_loses_half", "dropped term",
           "the randomized response a Laplace step dominates taken as log(2 e^eps0 - 1) (the /2 dropped)",
           "reference/profiles/laplace.py",
           "c.log(2 * c.exp(x / 2) - 1)",
           "c.log(2 * c.exp(x) - 1)",
           ("tests/test_check_robustness.py", "tests/test_bracket_definitions.py", "-k", "laplace")),
    Mutant("laplace_sensitivity_inverted", "swapped end",
           "a Laplace step of scale b and sensitivity s read as eps0 = b/s instead of s/b",
           "reference/profiles/laplace.py",
           "        e0 = sensitivity / x\n",
           "        e0 = x / sensitivity\n",
           ("tests/test_profiles.py", "tests/test_bracket_definitions.py", "-k", "laplace")),
    Mutant("laplace_atom_prefix_off_by_one", "off-by-one",
           "the cached atom sums of delta(eps) taken one atom too far (an atom at or below eps counted)",
           "reference/profiles/laplace.py",
           "    E0, half_k, at_p, at_m, sp, sm = _prefix_sums(c, e0, k, len(atoms), len(plus0))\n",
           "    E0, half_k, at_p, at_m, sp, sm = _prefix_sums(c, e0, k, len(atoms) + 1, len(plus0))\n",
           ("tests/test_profiles.py", "-k", "laplace")),
    Mutant("laplace_composed_c_one_shift_short", "off-by-one",
           "the precomposed C of delta(eps) summed over one active spline shift too few",
           "reference/profiles/laplace.py",
           "        Cn = _c_suffix_polys(e0, k)[k - len(plus0)](fmpq(en, ed))\n",
           "        Cn = _c_suffix_polys(e0, k)[k - len(plus0) - 1](fmpq(en, ed))\n",
           ("tests/test_profiles.py", "-k", "laplace")),
    Mutant("laplace_narrow_decision_inverted", "swapped end",
           "the eps(delta) search's first bracket moves the wrong end (delta above the target read as below)",
           "reference/profiles/laplace.py",
           "        if mpf_to_fraction(mid) > d:\n",
           "        if mpf_to_fraction(mid) <= d:\n",
           ("tests/test_profiles.py", "tests/test_vectors.py", "-k", "laplace")),
    Mutant("gaussian_profile_ends_swapped", "swapped end",
           "the Gaussian profile module exports the lower end as gdp_delta and the upper end as gdp_delta_lower",
           "reference/profiles/gaussian.py",
           "gdp_compose_mu, gdp_delta, gdp_delta_lower, gdp_eps",
           "gdp_compose_mu, gdp_delta_lower as gdp_delta, gdp_delta as gdp_delta_lower, gdp_eps",
           ("tests/test_profiles.py", "tests/test_bracket_definitions.py", "-k", "gaussian or gdp")),
    Mutant("gaussian_profile_upper_is_lower", "swapped end",
           "the Gaussian profile module's gdp_delta (an upper bound) is the certified lower end",
           "reference/profiles/gaussian.py",
           "gdp_compose_mu, gdp_delta, gdp_delta_lower, gdp_eps",
           "gdp_compose_mu, gdp_delta_lower as gdp_delta, gdp_delta_lower, gdp_eps",
           ("tests/test_profiles.py", "tests/test_bracket_definitions.py", "-k", "gaussian or gdp")),
    Mutant("round_up_rounds_down", "rounding direction",
           "conversions.round_up rounds towards -inf",
           "reference/profiles/conversions.py",
           "    return mpmath.mp.make_mpf(libmp.from_rational(q.numerator, q.denominator, _bits(dps), _C))\n",
           "    return mpmath.mp.make_mpf(libmp.from_rational(q.numerator, q.denominator, _bits(dps), _F))\n",
           ("tests/test_check_robustness.py", "tests/test_bracket_definitions.py", "-k", "delta_zero or round")),
    Mutant("integer_order_takes_the_worst", "swapped end",
           "the integer-order RDP conversion keeps the worst of the candidate orders",
           "reference/profiles/conversions.py",
           "        if best is None or e < best[0]:\n",
           "        if best is None or e > best[0]:\n",
           ("tests/test_check.py", "tests/test_bracket_definitions.py", "-k", "zcdp or minimum_over")),
    # -- golden vectors, catalog values, peers, the executor ---------------------------------------------
    Mutant("vector_lower_double_not_directed", "rounding direction",
           "a golden vector's lower double is the nearest double, not the one below the lower end",
           "reference/profiles/vectors.py",
           "    if Fraction(f) > q:\n        f = math.nextafter(f, -math.inf)\n",
           "    if False:\n        f = math.nextafter(f, -math.inf)\n",
           ("tests/test_vectors.py", "-k", "directed or regenerated")),
    Mutant("vector_grade_at_the_lower_double", "off-by-one",
           "grading calls a value equal to the lower double anti-conservative",
           "reference/profiles/vectors.py",
           "    if value < lo:\n",
           "    if value <= lo:\n",
           ("tests/test_vectors.py", "-k", "grading")),
    Mutant("catalog_value_rounded_to_nearest", "rounding direction",
           "catalog values written rounded to nearest instead of in the entry's direction",
           "reference/profiles/catalog_vectors.py",
           '    case["value"] = directed_decimal(v, DIGITS, direction)\n',
           '    case["value"] = directed_decimal(v, DIGITS, "exact")\n',
           ("tests/test_vectors.py", "-k", "catalog_values_are_current")),
    Mutant("catalog_enclosure_lower_rounded_up", "rounding direction",
           "a catalog value's enclosure has its lower end rounded up",
           "reference/profiles/catalog_vectors.py",
           '        case["enclosure"] = [directed_decimal(v.lower, DIGITS, "lower"), directed_decimal(v.upper, DIGITS, "upper")]\n',
           '        case["enclosure"] = [directed_decimal(v.lower, DIGITS, "upper"), directed_decimal(v.upper, DIGITS, "upper")]\n',
           ("tests/test_vectors.py", "-k", "catalog_values_are_current")),
    Mutant("peers_grade_labels_swapped", "swapped end",
           "the crosscheck labels an anti-conservative answer 'conservative'",
           "reference/profiles/peers.py",
           '            if g == "ANTI-CONSERVATIVE":\n                row["verdict"] = f"ANTI-CONSERVATIVE by',
           '            if g == "conservative":\n                row["verdict"] = f"ANTI-CONSERVATIVE by',
           ("tests/test_check.py", "-k", "crosscheck")),
    Mutant("peers_rr_noise_halved", "dropped term",
           "dp_accounting's randomized-response noise parameter formed as 1/(1 + e^eps0) (the 2 dropped)",
           "reference/profiles/peers.py",
           "    return 2.0 / (1.0 + math.exp(eps0))\n",
           "    return 1.0 / (1.0 + math.exp(eps0))\n",
           ("tests/test_crosscheck_peers.py", "tests/test_bracket_definitions.py", "-k", "randomized_response or rr_noise")),
    Mutant("findings_comparison_reversed", "swapped end",
           "a peer value is held below the certified lower end when it lies above it",
           "reference/profiles/findings.py",
           "    return Fraction(lower_text) > Fraction(v)\n",
           "    return Fraction(lower_text) < Fraction(v)\n",
           ("tests/test_peer_findings.py", "-k", "recheck_holds")),
    Mutant("findings_cpu_cap_kill_read_as_crash", "regression",
           "a call killed at the CPU cap is recorded as a crash of the peer",
           "reference/profiles/findings.py",
           "        if p.returncode in (-signal.SIGXCPU, -signal.SIGKILL):\n",
           "        if False:\n",
           ("tests/test_peer_findings.py", "-k", "run_call_outcomes")),
    Mutant("findings_prv_lower_end_graded", "swapped end",
           "prv-accountant's lower end graded instead of the upper end it claims as a bound",
           "reference/profiles/findings.py",
           "    return float(parts[-1]) if peer == \"prv_accountant\" else float(parts[0])\n",
           "    return float(parts[0])\n",
           ("tests/test_peer_findings.py", "-k", "call_snippets")),
    Mutant("executor_pool_reverses_order", "swapped end",
           "the process pool returns the results in reverse order",
           "reference/profiles/executor.py",
           "        futs = {self._pool.submit(fn, x): i for i, x in enumerate(items)}\n",
           "        futs = {self._pool.submit(fn, x): len(items) - 1 - i for i, x in enumerate(items)}\n",
           ("tests/test_executor.py", "-k", "keeps_the_order")),
    Mutant("executor_zero_interval_accepted", "off-by-one",
           "a progress interval of 0 seconds is accepted (a line per item) instead of falling back to the default",
           "reference/profiles/executor.py",
           "    return v if v > 0 else DEFAULT_INTERVAL_S\n",
           "    return v if v >= 0 else DEFAULT_INTERVAL_S\n",
           ("tests/test_executor.py", "-k", "interval")),
    # -- the Gaussian-DP filter (smith2022), its accountant and verifier adapters ------------------------
    Mutant("gdp_rounds_gaussian_one_without_budget", "off-by-one",
           "gdp_filter_rounds_gaussian returns 1 where not one step fits",
           "reference/bounds/smith2022.py",
           "    m0 = check(\"mu0\", mu0, P)\n    e = check(\"eps\", eps, P)\n    d = check(\"delta\", delta, U)\n"
           "    from .dong2022 import gdp_mu\n\n    est = int(float(gdp_mu(e, d, dps=15)) ** 2 / float(m0) ** 2)\n"
           "    return last_true(lambda k: k == 0 or",
           "    m0 = check(\"mu0\", mu0, P)\n    e = check(\"eps\", eps, P)\n    d = check(\"delta\", delta, U)\n"
           "    from .dong2022 import gdp_mu\n\n    est = int(float(gdp_mu(e, d, dps=15)) ** 2 / float(m0) ** 2)\n"
           "    return last_true(lambda k: k <= 1 or",
           ("tests/test_conservative_inputs.py", "-k", "zero_steps")),
    Mutant("gdp_rounds_dp_one_without_budget", "off-by-one",
           "gdp_filter_rounds_dp returns 1 where not one step fits",
           "reference/bounds/smith2022.py",
           "    m0 = dp_step_mu_q(e0)\n    from .dong2022 import gdp_mu\n\n"
           "    est = int(float(gdp_mu(e, d, dps=15)) ** 2 / float(m0) ** 2)\n    return last_true(lambda k: k == 0 or",
           "    m0 = dp_step_mu_q(e0)\n    from .dong2022 import gdp_mu\n\n"
           "    est = int(float(gdp_mu(e, d, dps=15)) ** 2 / float(m0) ** 2)\n    return last_true(lambda k: k <= 1 or",
           ("tests/test_conservative_inputs.py", "-k", "zero_steps")),
    Mutant("gdp_step_mu_rounded_down", "rounding direction",
           "the GDP charge of an eps-DP step, 2 Phi^-1(e^eps/(1 + e^eps)), rounded down",
           "reference/bounds/smith2022.py",
           "    raw = libmp.from_rational(2 * good.numerator, good.denominator, bits, _C)\n",
           "    raw = libmp.from_rational(2 * good.numerator, good.denominator, bits, _F)\n",
           ("proofs/test_smith2022_dp_to_gdp.py",)),
    Mutant("gdp_admits_mu2_for_mu", "dropped term",
           "the GDP filter evaluates the curve at mu = S instead of sqrt(S)",
           "reference/bounds/smith2022.py",
           "_delta_formula(c, e, c.sqrt(s)) - d",
           "_delta_formula(c, e, s) - d",
           ("proofs/test_smith2022_gdp_filter.py",)),
    Mutant("gdp_filter_sigma_upper_end", "swapped end",
           "GaussianDPFilter reads an inexact sigma at its upper end (mu = 1/sigma too small)",
           "reference/accountants/smith2022.py",
           '        s = check("sigma", sigma, _P, end="lower")\n',
           '        s = check("sigma", sigma, _P, end="upper")\n',
           ("tests/test_conservative_inputs.py", "-k", "certified")),
    Mutant("gdp_filter_eps_step_lower_end", "swapped end",
           "GaussianDPFilter charges an inexact eps_t at its lower end",
           "reference/accountants/smith2022.py",
           '        e = check("eps_t", eps_t, _NN, end="upper")\n',
           '        e = check("eps_t", eps_t, _NN, end="lower")\n',
           ("tests/test_conservative_inputs.py", "-k", "certified")),
    Mutant("gdp_filter_mu_step_lower_end", "swapped end",
           "GaussianDPFilter.run_gdp charges an inexact mu_t at its lower end",
           "reference/accountants/smith2022.py",
           '        return self._decide(check("mu_t", mu_t, _NN, end="upper"), True, True)\n',
           '        return self._decide(check("mu_t", mu_t, _NN, end="lower"), True, True)\n',
           ("tests/test_conservative_inputs.py", "-k", "certified")),
    Mutant("budget_end_upper", "swapped end",
           "filters read an inexact budget (eps, delta, B) at its upper end",
           "reference/accountants/base.py",
           '                self._p[name] = check(name, v, dom, end=self._PARAM_ENDS.get(name, "lower"))\n',
           '                self._p[name] = check(name, v, dom, end=self._PARAM_ENDS.get(name, "upper"))\n',
           ("tests/test_conservative_inputs.py", "-k", "certified")),
    # -- the calibrated Renyi and zCDP filters ---------------------------------------------------------
    Mutant("calibrated_renyi_one_without_budget", "off-by-one",
           "the calibrated Renyi filter's count is 1 where not one step fits",
           "reference/bounds/calibrated.py",
           "    return last_true(lambda k: k == 0 or calibrated_renyi_admits(alpha, B, ((eps0, k),)), int(est))\n",
           "    return last_true(lambda k: k <= 1 or calibrated_renyi_admits(alpha, B, ((eps0, k),)), int(est))\n",
           ("tests/test_conservative_inputs.py", "-k", "zero_steps")),
    Mutant("calibrated_zcdp_one_without_budget", "off-by-one",
           "the calibrated zCDP filter's count is 1 where not one step fits",
           "reference/bounds/calibrated.py",
           "    return last_true(lambda k: k == 0 or rr_zcdp_admits(rho, ((e0, k),)), int(est))\n",
           "    return last_true(lambda k: k <= 1 or rr_zcdp_admits(rho, ((e0, k),)), int(est))\n",
           ("tests/test_conservative_inputs.py", "-k", "zero_steps")),
    Mutant("cks_budget_rounded_up", "rounding direction",
           "the Renyi budget B(alpha) of the calibrated filter rounded up instead of down",
           "reference/bounds/calibrated.py",
           '    return certified(_budget_formula, (a, e, d), "lower", dps)\n',
           '    return certified(_budget_formula, (a, e, d), "upper", dps)\n',
           ("proofs/test_feldman2021_calibrated.py", "tests/test_conservative_inputs.py", "-k", "budget")),
    Mutant("verify_gdp_adapter_drops_square", "dropped term",
           "the GDP verifier adapter rebuilds S = sum mu instead of sum mu^2",
           "reference/verify/calibrated.py",
           "        o._S = sum((c * o._dp(x) ** 2 for x, c in state.eps_counts().items()), Fraction(0))\n",
           "        o._S = sum((c * o._dp(x) for x, c in state.eps_counts().items()), Fraction(0))\n",
           ("proofs/test_smith2022_gdp_filter.py", "-k", "adapter")),
    Mutant("verify_naive_gdp_control_made_valid", "swapped end",
           "the naive-GDP negative control charges the true mu(eps) (the control no longer fails)",
           "reference/verify/calibrated.py",
           "        o._S = sum((c * (x / 2) ** 2 for x, c in state.eps_counts().items()), Fraction(0))\n"
           "        return o.can_run_gdp(e / 2)\n",
           "        o._S = sum((c * o._dp(x) ** 2 for x, c in state.eps_counts().items()), Fraction(0))\n"
           "        return o.can_run_dp(e)\n",
           ("proofs/test_smith2022_gdp_filter.py", "-k", "verifier")),
    # -- the planner --------------------------------------------------------------------------------------
    Mutant("planner_zcdp_gaussian_charged_mu2", "dropped term",
           "the planner's zCDP rows charge a Gaussian step mu^2 instead of mu^2/2",
           "reference/bounds/planner.py",
           "        gauss = sum((c * s.value ** 2 / 2 for s, c in runs.items() if s.kind == \"gdp\"), Fraction(0))\n",
           "        gauss = sum((c * s.value ** 2 for s, c in runs.items() if s.kind == \"gdp\"), Fraction(0))\n",
           ("tests/test_plan.py", "tests/test_conservative_inputs.py", "-k", "gaussian or plan")),
    Mutant("planner_renyi_gaussian_drops_alpha", "dropped term",
           "the planner's Renyi rows charge a Gaussian step mu^2/2 instead of alpha mu^2/2",
           "reference/bounds/planner.py",
           "            gauss = sum((c * a * s.value ** 2 / 2 for s, c in runs.items() if s.kind == \"gdp\"), Fraction(0))\n",
           "            gauss = sum((c * s.value ** 2 / 2 for s, c in runs.items() if s.kind == \"gdp\"), Fraction(0))\n",
           ("tests/test_plan.py", "-k", "gaussian")),
    Mutant("planner_recommends_the_fewest", "swapped end",
           "the planner sorts its rows by rounds ascending (recommends the filter admitting the fewest)",
           "reference/bounds/planner.py",
           '    rows.sort(key=lambda r: (r["rounds"] is None, -(r["rounds"] or 0)))\n',
           '    rows.sort(key=lambda r: (r["rounds"] is None, (r["rounds"] or 0)))\n',
           ("tests/test_plan.py",)),
    Mutant("planner_game_row_skips_a_refused_step", "off-by-one",
           "the planner's game-filter count walks past a refused charge and admits a later, smaller one (continue for break)",
           "reference/bounds/planner.py",
           "        if c > rem:\n            break\n",
           "        if c > rem:\n            continue\n",
           ("tests/test_plan_replay.py",)),
    # -- the falsifier --------------------------------------------------------------------------------------
    Mutant("falsify_dp_test_strict", "off-by-one",
           "the exact DP test refuses a step whose reveal mass equals delta (pS < delta for pS <= delta)",
           "reference/falsify/laws.py",
           "    if pS <= delta:\n",
           "    if pS < delta:\n",
           ("proofs/test_falsifier.py", "tests/test_falsifier_units.py")),
    Mutant("falsify_pdp_one_tail", "dropped term",
           "the exact pDP test counts only the upper tail of the loss",
           "reference/falsify/laws.py",
           "compare_exp_rational(eps, a / b) < 0 or compare_exp_rational(-eps, a / b) > 0:",
           "compare_exp_rational(eps, a / b) < 0:",
           ("proofs/test_falsifier.py", "tests/test_falsifier_units.py")),
    Mutant("falsify_candidates_above_e_eps", "rounding direction",
           "the DP candidates are built on a rational ratio above e^eps (randomized response itself drops out)",
           "reference/falsify/laws.py",
           "    r = rational_below_exp(eps, digits) if eps > 0 else Fraction(1)\n",
           "    r = rational_above_exp(eps, digits) if eps > 0 else Fraction(1)\n",
           ("proofs/test_falsifier.py", "tests/test_falsifier_units.py")),
    Mutant("falsify_hockey_lower_from_upper", "swapped end",
           "the engine's certified lower end of the hockey-stick uses the lower rational of e^eps",
           "reference/falsify/engine.py",
           "        lo += pm * max(Fraction(0), 1 - e_hi / R)\n",
           "        lo += pm * max(Fraction(0), 1 - e_lo / R)\n",
           ("proofs/test_falsifier.py", "tests/test_falsifier_units.py")),
    Mutant("falsify_violation_with_slack", "rounding direction",
           "the falsifier's engine reports a violation only when the certified value exceeds 1.1 x the promise",
           "reference/falsify/engine.py",
           "        return self.value > self.allowed\n",
           "        return self.value > self.allowed * Fraction(11, 10)\n",
           ("tests/test_falsifier_units.py", "-k", "small_certified_excess")),
    Mutant("falsify_two_sided_lower_tail_dropped", "dropped term",
           "two-sided odometers are only checked against the upper tail of the loss",
           "reference/falsify/engine.py",
           "        return c2 > 0 or (at_eq and c2 == 0)\n",
           "        return False\n",
           ("proofs/test_falsifier.py", "tests/test_falsifier_units.py")),
    Mutant("falsify_conversion_one_tail", "dropped term",
           "the DP -> pDP conversion search counts only the upper tail of |L| > 2 eps",
           "reference/falsify/search.py",
           " or compare_exp_rational(-2 * e, a / b) > 0):",
           "):",
           ("proofs/test_falsifier.py", "tests/test_falsifier_units.py")),
    Mutant("falsify_search_first_adversary_only", "dropped term",
           "the search runs only the first adversary of each menu",
           "reference/falsify/search.py",
           "            for adv in adversaries_for(len(menu)):\n",
           "            for adv in adversaries_for(len(menu))[:1]:\n",
           ("proofs/test_falsifier.py", "tests/test_falsifier_units.py")),
    Mutant("falsify_printed_odometer_off_by_one", "off-by-one",
           "a printed odometer stops bounding when the spent delta equals delta'' (>= for >)",
           "reference/falsify/claims.py",
           "        if state.delta_spent > self.delta_second:\n",
           "        if state.delta_spent >= self.delta_second:\n",
           ("proofs/test_falsifier.py", "tests/test_falsifier_units.py")),
    Mutant("falsify_least_extreme_laws_first", "swapped end",
           "the probes keep the least extreme candidate laws",
           "reference/falsify/claims.py",
           "            cand.sort(key=_extremeness, reverse=True)\n",
           "            cand.sort(key=_extremeness, reverse=False)\n",
           ("proofs/test_falsifier.py", "tests/test_falsifier_units.py")),
    Mutant("verifier_menu_odometer_family_swapped", "swapped end",
           "the general-law table gives pDP odometers pure laws and pure odometers pDP laws",
           "reference/falsify/verifier_menu.py",
           '        return "pdp" if target.supports_delta else "pure"\n',
           '        return "pure" if target.supports_delta else "pdp"\n',
           ("tests/test_conservative_inputs.py", "-k", "family")),
    Mutant("verifier_menu_filters_never_get_delta", "dropped term",
           "the general-law table gives every filter pure laws (delta_n > 0 never tried)",
           "reference/falsify/verifier_menu.py",
           '    return "dp" if target.supports_delta else "pure"\n',
           '    return "pure"\n',
           ("tests/test_conservative_inputs.py", "-k", "family")),
    # -- the exact adaptive game, the game filter, the falsifier's optimal adversary ----------------
    Mutant("game_lower_end_keeps_the_window_terms", "dropped term",
           "the game's lower end forgets the probability of leaving the window (and the payoff bound below it)",
           "reference/bounds/game.py",
           "        return _dyadic(max(Fraction(0), x - self.exit_hi - self.pad_lo), \"f\")",
           "        return _dyadic(max(Fraction(0), x), \"f\")",
           ("proofs/test_game.py", "-k", "coarse")),
    Mutant("game_exit_bound_one_step_out", "off-by-one",
           "the exit probability is bounded at two lattice steps above the window instead of one",
           "reference/bounds/game.py",
           "    exit_hi = hoeffding_exit((l_hi + 1) * g, var, drift)",
           "    exit_hi = hoeffding_exit((l_hi + 2) * g, var, drift)",
           ("proofs/test_game.py", "-k", "coarse or exit_bound")),
    Mutant("game_step_that_exhausts_the_budget_refused", "off-by-one",
           "a step whose charge equals the remaining budget is refused (c >= R instead of c > R)",
           "reference/bounds/game.py",
           "            if c > R:\n                break\n            pu, pd = probs[k]",
           "            if c >= R:\n                break\n            pu, pd = probs[k]",
           ("proofs/test_game.py", "-k", "one_item or reproduces")),
    Mutant("game_filter_charge_rounded_down", "rounding direction",
           "the game filter charges floor(eps_t/g) grid units instead of the ceiling",
           "reference/bounds/game_filter.py",
           "    m = math.ceil(q) if q > 0 else 1",
           "    m = max(1, math.floor(q)) if q > 0 else 1",
           ("proofs/test_game.py", "-k", "menu_and_charges")),
    Mutant("game_filter_horizon_stops_at_kov", "off-by-one",
           "the sweep stops at the KOV count, so B* + 1 is never certified to exceed delta",
           "reference/bounds/game_filter.py",
           "    R_max = kov + 1\n",
           "    R_max = kov\n",
           ("proofs/test_game.py", "-k", "replayed or certificate or still_decided")),
    Mutant("game_filter_admits_one_unit_short", "off-by-one",
           "GameFilter refuses a step that exactly exhausts its budget (>= instead of >)",
           "reference/accountants/game.py",
           "            if self._spent + c > self._gb.budget:",
           "            if self._spent + c >= self._gb.budget:",
           ("proofs/test_game.py", "-k", "accountant")),
    Mutant("game_filter_load_skips_the_certificate", "dropped term",
           "a saved game filter is loaded without comparing its stored budget with the recomputed one",
           "reference/accountants/game.py",
           "            if kw[name] is not None and kw[name] != obj._p[name]:",
           "            if False:",
           ("proofs/test_game.py", "-k", "accountant")),
    Mutant("pair_game_upper_closes_below_with_zero", "rounding direction",
           "the upper game reads the cells below its window as 0 instead of at the window's bottom (V nondecreasing)",
           "reference/bounds/pair_game.py",
           "        out[:i1] = vals[0] if up else 0.0       # upper: read at lo (V nondecreasing); lower: 0 <= V",
           "        out[:i1] = 0.0       # upper: read at lo (V nondecreasing); lower: 0 <= V",
           ("proofs/test_sgm_game.py", "-k", "closure")),
    Mutant("apply_law_upper_closes_below_with_zero", "rounding direction",
           "the fixed-window transition (count-state games) reads the cells below its window as 0 on the upper side",
           "reference/bounds/pair_game.py",
           "        row[:pad_dn] = row[pad_dn]          # below the window: read at lo (V nondecreasing in the loss)",
           "        row[:pad_dn] = 0.0                  # below the window: read at lo (V nondecreasing in the loss)",
           ("proofs/test_sgm_game.py", "-k", "fixed_window")),
    Mutant("pair_game_forgets_the_infinite_mass", "dropped term",
           "the upper game drops the mass at +infinity (tails moved there pay 1)",
           "reference/bounds/pair_game.py",
           "        if L.inf:\n            c += L.inf",
           "        if False:\n            c += L.inf",
           ("proofs/test_sgm_game.py", "-k", "infinite")),
    Mutant("sgm_window_top_cut_at_the_roots_reach", "regression",
           "the level window's top is cut at the root's reach below eps + 8 (rows read as 1 just above it poison V)",
           "reference/bounds/sgm_game.py",
           "        return math.floor(max(e - reach(R), -reach(R_max - R)) / hf), hi",
           "        return min(math.floor(max(e - reach(R), -reach(R_max - R)) / hf), min(hi, math.ceil(reach(R_max - R) / hf))), min(hi, math.ceil(reach(R_max - R) / hf))",
           ("proofs/test_sgm_game.py", "-k", "level")),
    Mutant("natural_region_admits_on_the_smaller_direction", "swapped end",
           "the natural filter's region keeps the smaller of the directions' certified deltas (here 0: everything admitted)",
           "reference/bounds/natural_filter.py",
           "                    val = max(val, certified_end(float(r[R.i0]), sum(m), terms, \"upper\"))",
           "                    val = min(val, certified_end(float(r[R.i0]), sum(m), terms, \"upper\"))",
           ("proofs/test_natural_filter.py", "-k", "down_set")),
    Mutant("natural_game_records_the_argmin", "swapped end",
           "the natural filter's game records as its policy the cells where an item is WORSE than the best so far",
           "reference/bounds/natural_filter.py",
           "                better = c > best",
           "                better = c < best",
           ("proofs/test_natural_filter.py", "-k", "replayed")),
    Mutant("natural_game_lower_end_rounded_up", "rounding direction",
           "the natural filter's game certifies its lower end by rounding the computed value UP",
           "reference/bounds/natural_filter.py",
           "    value = certified_end(raw, depth + 1, _terms(laws), side)",
           "    value = certified_end(raw, depth + 1, _terms(laws), \"upper\")",
           ("proofs/test_natural_filter.py", "-k", "tiny")),
    Mutant("sgm_split_atoms_swapped", "swapped end",
           "the pessimistic split puts the bucket's high atom at the low grid point (losses rounded down)",
           "reference/bounds/sgm_game.py",
           "                    acc[i] += _ub(p_lo)\n                    acc[i + 1] += _ub(p_hi)",
           "                    acc[i] += _ub(p_hi)\n                    acc[i + 1] += _ub(p_lo)",
           ("proofs/test_sgm_game.py", "-k", "quadrature")),
    Mutant("sgm_lower_law_at_the_rounded_up_loss", "off-by-one",
           "the lower law puts each bucket's mass at its loss rounded UP ((a + 1) h), above the bucket's true loss",
           "reference/bounds/sgm_game.py",
           "                    acc[i] += _lb(PB)           # the bucket's P-mass at its loss rounded down, a h <= l_B",
           "                    acc[i + 1] += _lb(PB)       # the bucket's P-mass at its loss rounded down, a h <= l_B",
           ("proofs/test_sgm_game.py", "-k", "quadrature")),
    Mutant("optimal_adversary_horizon_from_the_smallest_step", "regression",
           "the optimal adversary's cap reverts to rounds x (smallest step)^2, pruning large items silently",
           "reference/verify/game.py",
           "        J = rounds * max(a) ** 2          # V cap in units of u^2: every path of at most `rounds` steps",
           "        J = rounds * min(a) ** 2          # V cap in units of u^2: every path of at most `rounds` steps",
           ("proofs/test_game_horizon.py", "-k", "cap")),
    Mutant("optimal_adversary_cut_not_counted", "dropped term",
           "an admitted step cut by an explicit cap is not counted (the capped value is presented as complete)",
           "reference/verify/game.py",
           "                    cut += 1   # admitted but beyond the explicit cap: counted, and the result is labelled",
           "                    pass   # admitted but beyond the explicit cap: counted, and the result is labelled",
           ("proofs/test_game_horizon.py", "-k", "cap")),
    Mutant("game_probes_replay_on_a_short_horizon", "regression",
           "the falsifier replays the game's policy on a horizon of one round of the smallest step (lower end too low)",
           "reference/falsify/game_probes.py",
           "        rep = verify(target, res.adversary, max_V=math.inf if res.max_V is None else res.max_V)",
           "        rep = verify(target, res.adversary, 1)",
           ("proofs/test_game_horizon.py", "-k", "refute")),
    Mutant("dpsgd_game_filter_first_dominating_item", "regression",
           "DPSGDGameFilter charges a step at the first menu item that dominates it, not the cheapest",
           "reference/bounds/sgm_game.py",
           "if it.dominates(q, sigma, scale) and (best is None or per[k] < per[best]):",
           "if it.dominates(q, sigma, scale) and best is None:",
           ("tests/test_dpsgd_game_filter.py", "-k", "cheapest")),
    Mutant("dpsgd_game_filter_admits_one_unit_short", "off-by-one",
           "DPSGDGameFilter refuses a step that exactly exhausts its budget (>= instead of >)",
           "reference/accountants/dpsgd_game.py",
           "            if self._spent + c > self._cert.budget:",
           "            if self._spent + c >= self._cert.budget:",
           ("tests/test_dpsgd_game_filter.py", "-k", "homogeneous")),
    Mutant("dpsgd_game_filter_load_skips_the_certificate", "dropped term",
           "a saved DP-SGD game filter is loaded without comparing its stored certificate with the recomputed one",
           "reference/accountants/dpsgd_game.py",
           "            if kw[name] != obj._p[name]:",
           "            if False:",
           ("tests/test_dpsgd_game_filter.py", "-k", "save_and_restore")),
    Mutant("dpsgd_charge_rounds_sigma_up", "rounding direction",
           "the DP-SGD game filter charges a step at an item with at least the step's noise (sigma rounded UP to the "
           "menu), an item that does not dominate it: the falsifier's off-grid analyst breaks delta",
           "reference/bounds/sgm_game.py",
           "        if it.dominates(q, sigma, scale) and (best is None or per[k] < per[best]):",
           "        if q <= it.q and it.sigma_eff >= sigma / scale and (best is None or per[k] < per[best]):",
           ("tests/test_dpsgd_probe.py", "-k", "valid_filter_survives")),
    Mutant("dpsgd_parse_step_sigma_upper_end", "rounding direction",
           "the DP-SGD game filter reads a step's sigma at the UPPER end of its enclosure (a noise rounded up), so a "
           "step given as a float just below an item's sigma is charged at it",
           "reference/accountants/dpsgd_game.py",
           'return (check("q", q, _U1, end="upper"), check("sigma", sigma, _P, end="lower"),',
           'return (check("q", q, _U1, end="upper"), check("sigma", sigma, _P, end="upper"),',
           ("tests/test_dpsgd_game_filter.py", "-k", "enclosure")),
    Mutant("sgm_plan_charges_the_cheapest_item", "regression",
           "the plan's DP-SGD game row charges every workload step at the cheapest menu item, dominating or not",
           "reference/profiles/sgm_plan.py",
           "        charges.append(cert.costs[k])",
           "        charges.append(min(cert.costs))",
           ("tests/test_sgm_plan_cli.py", "-k", "between_menu_items")),
    Mutant("sgm_plan_walk_skips_a_refused_step", "regression",
           "the plan's count goes on after the first step of the cycle that no longer fits (the filter stops there)",
           "reference/profiles/sgm_plan.py",
           "        if t < k:\n            break",
           "        if t < k:\n            continue",
           ("tests/test_sgm_plan_cli.py", "-k", "mixed_cycle")),
    Mutant("dpsgd_probe_reads_the_certified_budget", "regression",
           "the falsifier's DP-SGD attack plays from the certified B* instead of the budget the filter object "
           "admits to, so a filter that admits beyond B* is never attacked there",
           "reference/falsify/dpsgd_probe.py",
           "    R = int(f.budget)",
           "    R = int(getattr(f, \"certified_budget\", f.budget))",
           ("tests/test_dpsgd_probe.py", "-k", "refuted")),
    Mutant("sgm_item_dominates_in_floating_point", "rounding direction",
           "a menu item's domination test compares the step's sigma/scale as a double (rounded to nearest, up here), "
           "so a slightly leakier step is charged at a cheaper item",
           "reference/bounds/sgm_game.py",
           "        return q <= self.q and sigma / scale >= self.sigma_eff",
           "        return q <= self.q and float(sigma / scale) >= self.sigma_eff",
           ("tests/test_dpsgd_game_filter.py", "-k", "rounding_direction")),
    Mutant("calibrated_renyi_fast_path_wrong_end", "swapped end",
           "the calibrated Renyi decision's fast path admits when the LOWER end of the charge fits",
           "reference/bounds/calibrated.py",
           "    if hi <= B:\n        return True",
           "    if lo <= B:\n        return True",
           ("proofs/test_feldman2021_calibrated.py",)),
    Mutant("optimal_adversary_forgets_the_reveal", "dropped term",
           "the optimal adversary drops the reveal outcome of (eps, delta) items",
           "reference/verify/game.py",
           "            if pr:\n                cand += pr  # the reveal outcome: payoff 1",
           "            if False:\n                cand += pr  # the reveal outcome: payoff 1",
           ("proofs/test_game.py", "-k", "reveal")),
    Mutant("policy_adversary_ignores_the_delta_spent", "swapped end",
           "the replayed policy looks its action up without the delta spent (stops where it should act)",
           "reference/verify/game.py",
           "        key = (view.j, view.m, view.state.counts if self.counts_mode else None)",
           "        key = (view.j, 0, view.state.counts if self.counts_mode else None)",
           ("proofs/test_game.py", "-k", "reveal or whole_key")),
    Mutant("falsifier_game_violation_with_slack", "rounding direction",
           "the falsifier's optimal adversary reports a violation only above 1.1 x the promise",
           "reference/falsify/game_probes.py",
           "        if lo > allowed and ce is None:",
           "        if lo > allowed * Fraction(11, 10) and ce is None:",
           ("proofs/test_game.py", "-k", "needs_the_optimal")),
    Mutant("falsifier_game_half_horizon", "off-by-one",
           "the probes cut the optimal adversary to one round (the rules wrong only off the menu escape)",
           "reference/falsify/game_probes.py",
           "        rounds = None if pr.rounds is None else pr.rounds * (2 if deep else 1)",
           "        rounds = 1 if pr.rounds is None else pr.rounds // 2",
           ("proofs/test_game_horizon.py",)),
    Mutant("falsifier_random_adversaries_never_stop", "dropped term",
           "the falsifier's seeded random adversaries never stop (fewer stopping rules explored)",
           "reference/falsify/engine.py",
           "        if n > 0 and h[0] % self.p_stop == 0:\n            return None\n",
           "",
           ("tests/test_falsifier_units.py", "-k", "stop_sometimes")),
    Mutant("cycle_optimum_reads_the_lower_end", "swapped end",
           "the mixed-cycle optimum accepts n when the LOWER end of delta_n is below delta",
           "reference/bounds/game.py",
           "        if hi <= delta:\n            last_ok = n",
           "        if lo <= delta:\n            last_ok = n",
           ("proofs/test_game.py", "-k", "cycle_convolution or upper_end")),
    Mutant("cycle_optimum_payoff_one_step_off", "off-by-one",
           "the mixed-cycle optimum reads the payoffs one lattice step off the losses",
           "reference/bounds/game.py",
           "        wh, wl = weights(off, len(vec))",
           "        wh, wl = weights(off + 1, len(vec))",
           ("proofs/test_game.py", "-k", "upper_end")),
    Mutant("game_cli_bad_input_reads_as_a_verdict", "regression",
           "fullyadaptive game exits 1 (a verdict's status elsewhere) on bad input instead of 2",
           "reference/cli/game.py",
           "    except (GameTooLarge, UsageError, ValueError, TypeError) as exc:\n        print(error_line(\"game\", str(exc)), file=sys.stderr)\n        return 2",
           "    except (GameTooLarge, UsageError, ValueError, TypeError) as exc:\n        print(error_line(\"game\", str(exc)), file=sys.stderr)\n        return 1",
           ("tests/test_game_cli.py",)),
    # -- one identifier per result ----------------------------------------------------------------------------
    Mutant("resolver_forgets_former_claim_ids", "regression",
           "the name resolver looks a former falsifier claim id up as it is (describe refuses W22-LEM1-PRINTED)",
           "reference/report/identifiers.py",
           "    cid = former.get(name) or RULE_CLAIMS.get(name) or name",
           "    cid = RULE_CLAIMS.get(name) or name",
           ("tests/test_identifiers.py",)),
    Mutant("verify_target_catalog_id_ignored", "regression",
           "verify --target passes a catalog id through instead of the targets that drive it",
           "reference/cli/verify.py",
           '        chosen = "all" if args.target == "all" else targets_named(args.target)',
           '        chosen = "all" if args.target == "all" else [args.target]',
           ("tests/test_identifiers.py",)),
    # -- printing: bounded texts keep their direction; a probability's upper end is at most 1; counts are named --
    Mutant("bounded_decimal_exponent_rounded_down", "rounding direction",
           "the compact form 10^(F) of a tiny upper end rounds F down: the printed 'upper' end is below the value",
           "reference/precision.py",
           '        F = directed_decimal(E + (m != 1), k, "upper")',
           '        F = directed_decimal(E + (m != 1), k, "lower")',
           ("tests/test_printing_limits.py", "-k", "compact")),
    Mutant("bounded_decimal_mantissa_dropped", "dropped term",
           "the compact form of an upper end m 10^E prints 10^E, dropping the mantissa's factor m > 1 (below the value)",
           "reference/precision.py",
           '        F = directed_decimal(E + (m != 1), k, "upper")',
           '        F = directed_decimal(E, k, "upper")',
           ("tests/test_printing_limits.py", "-k", "compact")),
    Mutant("probability_upper_end_not_clipped", "regression",
           "a delta's certified upper end above 1 is printed as it is (1.00000000001) instead of 1",
           "reference/precision.py",
           '        if direction == "upper" and v > 1:\n            return "1"',
           '        if direction == "upper" and v > 2:\n            return "1"',
           ("tests/test_printing_limits.py", "-k", "above_one or clipped")),
    Mutant("spec_count_read_as_a_parameter", "regression",
           "a malformed count (x-5, x1.5, x) is left in the parameter text, so the refusal blames eps",
           "reference/profiles/check.py",
           '_ITEM = re.compile(r"^\\s*([A-Za-z_-]+)\\s*:\\s*([^xX*×]*?)\\s*(?:([xX*×])\\s*(.*?))?\\s*$", re.DOTALL)',
           '_ITEM = re.compile(r"^\\s*([A-Za-z_-]+)\\s*:\\s*(.*?)\\s*(?:([xX*])\\s*([0-9]+))?\\s*$", re.DOTALL)',
           ("tests/test_printing_limits.py", "-k", "count or multiplication")),
    Mutant("plan_k_hi_one_too_many", "off-by-one",
           "the optimum's upper end is the first k certified over budget instead of that k minus one",
           "reference/profiles/workload.py",
           "    out.k_hi = None if over is None else over - 1",
           "    out.k_hi = None if over is None else over",
           ("tests/test_plan_workload.py",)),
    Mutant("plan_in_budget_from_the_lower_end", "swapped end",
           "a k counts as within budget when the LOWER end of its certified delta bracket is <= delta",
           "reference/profiles/workload.py",
           '        st = "in" if _cmp(b.hi, d) <= 0 else',
           '        st = "in" if _cmp(b.lo, d) <= 0 else',
           ("tests/test_plan_workload.py",)),
    # -- budgets of check, plan and game: refusals before any sweep, deadlines that keep certified brackets ----
    Mutant("game_memory_cap_compares_the_wrong_way", "swapped end",
           "the game engine refuses rows UNDER max_bytes and allocates those over it",
           "reference/bounds/game.py",
           "    if nbytes > max_bytes:",
           "    if nbytes < max_bytes:",
           ("tests/test_budgets.py", "-k", "cap_is_sharp")),
    Mutant("game_memory_cap_off_by_one", "off-by-one",
           "rows of exactly max_bytes are refused",
           "reference/bounds/game.py",
           "    if nbytes > max_bytes:",
           "    if nbytes >= max_bytes:",
           ("tests/test_budgets.py", "-k", "cap_is_sharp")),
    Mutant("game_cli_memory_check_the_wrong_way", "swapped end",
           "game refuses a game whose rows fit --max-memory and runs one that does not",
           "reference/cli/game.py",
           '        if size["bytes"] > memory:',
           '        if size["bytes"] < memory:',
           ("tests/test_budgets.py", "-k", "max_memory")),
    Mutant("game_too_fine_grid_not_refused_up_front", "regression",
           "the certified lower bound of the optimal count is not compared with MAX_BUDGET before the sweeps",
           "reference/bounds/game_filter.py",
           '    if n_lo > MAX_BUDGET:\n        return {"horizon_min"',
           '    if n_lo > MAX_BUDGET ** 3:\n        return {"horizon_min"',
           ("tests/test_budgets.py", "-k", "too_fine")),
    Mutant("hoeffding_floor_above_the_tail", "rounding direction",
           "hoeffding_exit returns its 2^-2000 floor from x >= 1300, where exp(-x) is larger: no longer an upper bound",
           "reference/bounds/game.py",
           "    if x >= 1387:",
           "    if x >= 1300:",
           ("tests/test_budgets.py", "-k", "hoeffding")),
    Mutant("check_deadline_ignored", "regression",
           "check never looks at its deadline: a stopped run keeps computing",
           "reference/profiles/check.py",
           "        if deadline is not None and time.monotonic() > deadline:",
           "        if deadline is not None and time.monotonic() > deadline + 10 ** 9:",
           ("tests/test_budgets.py", "-k", "deadline_in_the_library")),
    Mutant("check_stopped_forgets_the_reported_brackets", "regression",
           "after the worker is killed the verdict starts from nothing instead of the brackets it reported",
           "reference/cli/check.py",
           '    return check(steps, args.eps, args.delta, deadline=0.0, known=(best.get("delta"), best.get("eps")), **kw)',
           '    return check(steps, args.eps, args.delta, deadline=0.0, known=None, **kw)',
           ("tests/test_budgets.py", "-k", "contains_the_truth")),
    # -- other mechanisms composed on the subsampled-Gaussian PLD grid (sgm_pld docstring step 7) ------------------
    Mutant("pld_pair_split_rounds_the_loss_down", "rounding direction",
           "a pair atom between two grid points put wholly on the lower one (the upper end no longer dominates)",
           "reference/profiles/sgm_pld.py",
           "            acc[a + 1] = acc.get(a + 1, 0) + pu * _exp_arb(fl, -t * (a + 1) * h / 2)\n",
           "            acc[a] = acc.get(a, 0) + pu * _exp_arb(fl, -t * a * h / 2)\n",
           ("proofs/test_sgm_pld_mixed.py",)),
    Mutant("pld_pair_deviation_not_counted", "regression",
           "the pair atoms' deviation from the grid left out of the lower end's eps shift",
           "reference/profiles/sgm_pld.py",
           "            dev = max(dev, abs(d))\n",
           "            dev = dev\n",
           ("proofs/test_sgm_pld_mixed.py",)),
    Mutant("pld_pair_delta_atoms_dropped", "regression",
           "the (eps, delta)-DP pair's delta atoms left out of the upper end's unknown-place mass",
           "reference/profiles/sgm_pld.py",
           "        return [(one * ee / (1 + ee), e), (one / (1 + ee), -e)], ph.delta\n",
           "        return [(one * ee / (1 + ee), e), (one / (1 + ee), -e)], Fraction(0)\n",
           ("proofs/test_sgm_pld_mixed.py",)),
    Mutant("pld_pair_atom_not_shrunk", "regression",
           "an atom recorded below its loss keeps its full P-mass (its ratio is then above the grid value)",
           "reference/profiles/sgm_pld.py",
           "            shrink = pm * _exp_arb(fl, -d) if d > 0 else pm  # P min(1, e^(g h - l)), d = l - g h\n",
           "            shrink = pm  # P min(1, e^(g h - l)), d = l - g h\n",
           ("proofs/test_sgm_pld_mixed.py",)),
    Mutant("pld_tiny_q_bulk_rule_off", "regression",
           "the bucket from -infinity of a tiny q stops in the middle of the bulk (the lower end collapses to 0)",
           "reference/profiles/sgm_pld.py",
           "        if -lq < 2.0 ** -bits:\n            cands = [_bulk_offset(qf, sf, bits, cands[0][0])]\n",
           "        if False:\n            cands = [_bulk_offset(qf, sf, bits, cands[0][0])]\n",
           ("proofs/test_sgm_pld_certified.py", "-k", "tiny_q")),
    Mutant("pld_wide_bucket_split_onto_the_neighbour", "regression",
           "a wide tail bucket [a h, b h] split with the weights of [a h, (a + 1) h] (its masses put on a h and b h as if "
           "b were a + 1)",
           "reference/profiles/sgm_pld.py",
           "            em_b = em_a * pw[w][1]\n",
           "            em_b = em_a * (-hh).exp()\n",
           ("proofs/test_sgm_pld_certified.py", "-k", "steps_1_2")),
    Mutant("pld_wide_lower_bucket_never_aims_lower", "regression",
           "a wide optimistic bucket whose grid value lies beyond the tail's ratio ends the bucketing instead of aiming "
           "lower (the tail above it is dropped)",
           "reference/profiles/sgm_pld.py",
           '                    if status == "end" and j > jbase:',
           '                    if False:',
           ("proofs/test_sgm_pld_certified.py", "-k", "step_5_optimistic_buckets")),
    Mutant("pld_offset_pick_keeps_the_least", "regression",
           "the optimistic grid's offset picked by the LEAST divergence the bulk's bucketing keeps",
           "reference/profiles/sgm_pld.py",
           "key=lambda i: (score[i], -i))]",
           "key=lambda i: (-score[i], -i))]",
           ("tests/test_sgm_pld.py", "-k", "offset_is_picked")),
    Mutant("pld_bucket_restarts_off", "regression",
           "no bucket restarts above a stretch whose tail cannot reach the next grid value",
           "reference/profiles/sgm_pld.py",
           "_RESTARTS = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 16))\n",
           "_RESTARTS = ()\n",
           ("proofs/test_sgm_pld_certified.py", "-k", "tiny_q")),
    Mutant("partial_bracket_of_another_question", "regression",
           "a route's bracket of a sub-composition reported as the composition's partial answer",
           "reference/profiles/check.py",
           "    if want is not None and want[0] == _merge(steps) and want[1] == quantity and want[2] == at:\n",
           "    if want is not None and want[1] == quantity:\n",
           ("tests/test_partial_brackets.py",)),
    Mutant("json_depth_limit_off_by_one", "off-by-one",
           "a JSON composition nested exactly MAX_JSON_DEPTH deep is refused",
           "reference/profiles/check.py",
           "            if depth > limit:",
           "            if depth >= limit:",
           ("tests/test_budgets.py", "-k", "json_depth")),
    Mutant("individual_game_scale_rounded_down", "rounding direction",
           "the per-example DP-SGD filter rounds a gradient's scale DOWN to the grid: a step is charged at an item "
           "that does not dominate it (a norm below s_1 C even goes free)",
           "reference/accountants/individual_game.py",
           '    idx = np.searchsorted(ext, norms, side="left")       # #{k: t_k < n}',
           '    idx = np.searchsorted(ext, norms, side="right") - 1  # rounded DOWN',
           ("proofs/test_feldman2021_alg3_game.py", "-k", "dominates")),
    Mutant("individual_game_thresholds_to_nearest", "rounding direction",
           "the thresholds s_k C are rounded to the nearest double (above s_k C at C = 0.1), so a norm a hair above "
           "s_k C is charged at scale s_k",
           "reference/accountants/individual_game.py",
           "    return np.array([_float_down(s * C) for s in _scales(scales)], dtype=np.float64)",
           "    return np.array([float(s * C) for s in _scales(scales)], dtype=np.float64)",
           ("tests/test_individual_game.py", "-k", "thresholds")),
    Mutant("individual_game_admits_one_unit_over", "off-by-one",
           "the per-example filter admits a step that overshoots the budget by one unit",
           "reference/accountants/individual_game.py",
           "            mask = new <= self._B",
           "            mask = new <= self._B + 1",
           ("tests/test_individual_game.py", "-k", "exhausts")),
    Mutant("individual_game_charges_refused_examples", "dropped term",
           "a refused example is charged anyway (Algorithm 3 charges only the active set)",
           "reference/accountants/individual_game.py",
           "                np.multiply(c, mask, out=c)",
           "                pass",
           ("tests/test_individual_game.py", "-k", "come_back")),
    Mutant("individual_game_load_accepts_spent_above_budget", "dropped term",
           "a saved per-example filter whose spent units exceed the budget is loaded",
           "reference/accountants/individual_game.py",
           "        if arr.size and (arr.min() < 0 or arr.max() > obj._B):",
           "        if arr.size and arr.min() < 0:",
           ("tests/test_individual_game.py", "-k", "tampered")),
    Mutant("individual_game_audit_slots_off_by_one", "off-by-one",
           "the audit's charge counts each norm against the thresholds shifted by one scale (the scale rounded down)",
           "reference/accountants/individual_game.py",
           "    lows = np.concatenate(([0.0], thr[:-1]))",
           "    lows = thr",
           ("tests/test_individual_game.py", "-k", "audit_agrees")),
    Mutant("individual_game_rounds_scale_rounded_down", "rounding direction",
           "the catalog entry counts a homogeneous example's steps at its scale rounded DOWN to the grid",
           "reference/bounds/individual_game.py",
           "    k = next(i for i, it in enumerate(items) if it.scale >= s)",
           "    k = max(i for i, it in enumerate(items) if it.scale <= s or i == 0)",
           ("proofs/test_feldman2021_alg3_game.py", "-k", "catalog_entry")),
    Mutant("plan_not_computed_row_sorts_first", "regression",
           "a row that was not computed sorts as if it admitted the most rounds (and is recommended)",
           "reference/bounds/planner.py",
           '    rows.sort(key=lambda r: (r["rounds"] is None, -(r["rounds"] or 0)))',
           '    rows.sort(key=lambda r: (r["rounds"] is not None, -(r["rounds"] or 0)))',
           ("tests/test_budgets.py", "-k", "not_computed_and_keeps")),
    Mutant("report_record_used_when_stale", "regression",
           "the report prints a record made by other code (its fingerprint is not compared)",
           "reference/report/recorded.py",
           '    if rec.get("fingerprint") != (source_fingerprint() if fingerprint is None else fingerprint):',
           '    if False:',
           ("tests/test_report_recorded.py", "-k", "refused or ignores_a_stale")),
    Mutant("report_record_hash_unchecked", "regression",
           "a damaged record (items changed, hash not) is used",
           "reference/report/recorded.py",
           '    if rec.get("items_sha256") != items_sha256(rec["items"]):',
           '    if not rec.get("items_sha256"):',
           ("tests/test_report_recorded.py", "-k", "refused")),
    Mutant("report_record_fingerprint_skips_data", "dropped term",
           "the fingerprint leaves out the data files (an edited ledger keeps a stale record usable)",
           "reference/report/recorded.py",
           '        if p.suffix == ".py" or rel.parts[0] == "data":',
           '        if p.suffix == ".py":',
           ("tests/test_report_recorded.py", "-k", "fingerprint_changes")),
    Mutant("block_law_rounded_down", "rounding direction",
           "an upper block law's exact products are rounded down (masses below the convolution)",
           "reference/bounds/pair_game.py",
           "    c = [-((-x) >> LAW_FIX) for x in c] if up else [x >> LAW_FIX for x in c]",
           "    c = [x >> LAW_FIX for x in c]",
           ("proofs/test_sgm_block_game.py", "-k", "rounded_up")),
    Mutant("block_law_inf_composition_dropped", "dropped term",
           "a block's +inf mass keeps only the second factor's (a step at +inf in the first part is lost)",
           "reference/bounds/pair_game.py",
           "        inf = ia * (tb + ib) + ta * ib",
           "        inf = ta * ib",
           ("proofs/test_sgm_block_game.py", "-k", "rounded_up or random")),
    Mutant("block_law_top_tail_dropped", "dropped term",
           "an upper block law's top tail above the cut is dropped instead of moved to +inf",
           "reference/bounds/pair_game.py",
           "        inf += Fraction(s, 1 << LAW_FIX)\n",
           "        pass\n",
           ("proofs/test_sgm_block_game.py", "-k", "random or tail")),
    Mutant("block_law_low_tail_dropped", "dropped term",
           "an upper block law's bottom tail below the cut is dropped instead of moved up onto the support",
           "reference/bounds/pair_game.py",
           "        c[bot] += s2\n",
           "        pass\n",
           ("proofs/test_sgm_block_game.py", "-k", "random")),
    Mutant("block_filter_switch_keeps_credit", "regression",
           "a step opening a new block keeps the old block's steps left (no forfeit)",
           "reference/accountants/dpsgd_game.py",
           "        return False, (k, self._m[k] - 1)             # opens a block of item k",
           "        return False, (k, self._m[k] - 1 + left)             # opens a block of item k",
           ("tests/test_dpsgd_block_filter.py", "-k", "random or forfeits")),
    Mutant("block_filter_free_without_dominance", "regression",
           "a step inside an open block is free whether or not the block's item dominates it",
           "reference/accountants/dpsgd_game.py",
           "        if left > 0 and dom[j]:\n            return True, (j, left - 1)                # inside",
           "        if left > 0:\n            return True, (j, left - 1)                # inside",
           ("tests/test_dpsgd_block_filter.py", "-k", "random or forfeits")),
    Mutant("block_filter_replay_blocks_floored", "rounding direction",
           "replaying a run of steps opens floor(rest / m) blocks instead of ceil (a saved state reloads underspent)",
           "reference/accountants/dpsgd_game.py",
           "        nb = -(-rest // m)                     # blocks opened: ceil(rest / m)",
           "        nb = rest // m",
           ("tests/test_dpsgd_block_filter.py", "-k", "random")),
    Mutant("block_probe_cycle_ignored", "regression",
           "the block attack treats a state graph with a cycle as finite (a rule admitting free steps forever passes)",
           "reference/falsify/block_probe.py",
           "            return None, -1                      # a cycle: steps admitted without end",
           "            continue",
           ("tests/test_block_probe.py", "-k", "forever")),
    Mutant("refute_above_upper_end", "swapped end",
           "B* + 1 is 'refuted' with the upper end of the homogeneous run's bracket (not the value of an analyst)",
           "reference/profiles/sgm_plan.py",
           "        lo = mpf_to_fraction(sgm_pld_delta_bracket(it.q, it.sigma_eff, n, cert.eps).lo)",
           "        lo = mpf_to_fraction(sgm_pld_delta_bracket(it.q, it.sigma_eff, n, cert.eps).hi)",
           ("tests/test_refute_above.py",)),
    Mutant("exact_correlation_row_rounded_down", "rounding direction",
           "the exact-integer correlation rounds an upper row down to its fixed point",
           "reference/bounds/pair_game.py",
           "    v = np.ceil(v) if up else np.floor(v)          # exact: a double in [0, 1 + tiny] scaled by 2^62 fits an int64",
           "    v = np.floor(v)          # exact: a double in [0, 1 + tiny] scaled by 2^62 fits an int64",
           ("proofs/test_sgm_game.py", "-k", "directed")),
    Mutant("coarsen_upper_rounds_losses_down", "rounding direction",
           "an upper law moved onto the coarse grid puts every atom at the coarse loss below it (not split)",
           "reference/bounds/pair_game.py",
           "            if ri == 0:\n                acc[ai - a0] += v\n                continue\n",
           "            if True:\n                acc[ai - a0] += v\n                continue\n",
           ("proofs/test_sgm_block_game.py", "-k", "coarsened_upper")),
)


def _ignore(_dir, names):
    return [n for n in names if n in (".git", "__pycache__", ".hypothesis", ".pytest_cache", ".benchmarks",
                                       "fullyadaptive-report", "out") or n.endswith(".egg-info")]


def make_copy(dest: str, rev: str | None = None) -> str:
    """A copy of the repository at ``dest/repo``: the working tree (``rev`` None) or the commit ``rev`` (git archive)."""
    copy = os.path.join(dest, "repo")
    if os.path.exists(copy):
        shutil.rmtree(copy)
    if rev is None:
        shutil.copytree(ROOT, copy, ignore=_ignore)
        return copy
    os.makedirs(copy)
    archive = subprocess.run(["git", "-C", ROOT, "archive", "--format=tar", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", copy], input=archive, check=True)
    return copy


@dataclass(frozen=True)
class Run:
    """The outcome of one pytest run: ``verdict`` is killed / survived / broken, ``detail`` says why."""

    verdict: str
    detail: str
    seconds: float = 0.0


def _junit_counts(xml_text: str) -> dict:
    """Counts from a JUnit XML report: passed, failed (failures and setup/teardown errors), collection errors, skipped,
    and the first failing test's id."""
    root = ET.fromstring(xml_text)
    out = {"passed": 0, "failed": 0, "collection": 0, "skipped": 0, "first": ""}
    for case in root.iter("testcase"):
        name = ".".join(x for x in (case.get("classname", ""), case.get("name", "")) if x)
        failure, error, skipped = case.find("failure"), case.find("error"), case.find("skipped")
        if failure is not None or (error is not None and error.get("message", "") != "collection failure"):
            out["failed"] += 1
            out["first"] = out["first"] or name
        elif error is not None:
            out["collection"] += 1
            out["first"] = out["first"] or name
        elif skipped is not None:
            out["skipped"] += 1
        else:
            out["passed"] += 1
    return out


def classify(returncode: int, xml_text: str | None) -> tuple[str, str]:
    """(verdict, detail) of a pytest run from its exit status and its JUnit XML report (module docstring).

    A kill needs a test that ran and failed, read from the report: exit status 1 alone is not
    enough (a failing setup of the whole session also gives 1), and status 2 is also the status of
    a collection error or of an interrupted run, which under ``-x`` (and pytest-xdist) may follow a
    real failure.
    """
    if returncode in (3, 4, 5):
        return "broken", {3: "pytest internal error", 4: "pytest usage error", 5: "no tests collected"}[returncode]
    if not xml_text:
        return "broken", f"exit status {returncode} and no JUnit report"
    try:
        c = _junit_counts(xml_text)
    except ET.ParseError as exc:
        return "broken", f"exit status {returncode}, unreadable JUnit report ({exc})"
    if c["collection"]:
        return "broken", f"collection error in {c['first']}"
    if c["failed"]:
        return "killed", f"{c['failed']} failed, first {c['first']}"
    if not c["passed"]:
        return "broken", f"no test ran ({c['skipped']} skipped)"
    if returncode == 0:
        return "survived", f"{c['passed']} passed"
    return "broken", f"exit status {returncode} without a failing test ({c['passed']} passed)"


def run_pytest(copy: str, args: tuple, timeout: int, workers: int = 0) -> Run:
    """Run ``pytest args`` in the copy (the project's addopts replaced: -x, ``workers`` xdist workers or none)."""
    env = dict(os.environ, PYTHONPATH=copy, HYPOTHESIS_PROFILE="ci", PYTHONDONTWRITEBYTECODE="1")
    fd, xml = tempfile.mkstemp(prefix="junit-", suffix=".xml", dir=os.path.dirname(copy))
    os.close(fd)
    os.unlink(xml)
    opts = ["-o", "addopts=", "-p", "no:cacheprovider"] + (["-n", str(workers), "--dist", "loadfile"] if workers else [])
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", *opts, "-W", "ignore::UserWarning", f"--junitxml={xml}", *args]
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Run("killed", f"timeout after {timeout} s", time.perf_counter() - t)
    finally:
        secs = time.perf_counter() - t
    try:
        with open(xml, encoding="utf-8") as fh:
            text = fh.read()
        os.unlink(xml)
    except OSError:
        text = None
    verdict, detail = classify(p.returncode, text)
    if verdict == "broken" and p.returncode in (3, 4) and p.stderr.strip():
        detail += ": " + p.stderr.strip().splitlines()[-1][:120]
    return Run(verdict, detail, secs)


def _imports_from_copy(copy: str) -> str | None:
    """None when ``reference`` is imported from the copy (not from an installed or editable package), else where from."""
    env = dict(os.environ, PYTHONPATH=copy, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-c", "import reference; print(reference.__file__)"], cwd=copy, env=env,
                       capture_output=True, text=True)
    where = p.stdout.strip()
    return None if where.startswith(os.path.join(copy, "")) else (where or p.stderr.strip()[-200:])


@dataclass
class Result:
    mutant: Mutant
    outcome: str  # killed, survived, broken, stale, equivalent
    detail: str
    seconds: float = 0.0


def run_mutants(todo, copy: str, timeout: int, *, workers: int = 0, baseline: bool = True, out=print) -> list[Result]:
    """Apply each mutant of ``todo`` to the copy in turn, run its selection, restore the file; one :class:`Result` each."""
    failing: dict[tuple, str] = {}
    if baseline:
        for sel in dict.fromkeys(m.tests for m in todo if not m.equivalent):
            r = run_pytest(copy, sel, timeout * 2, workers)
            out(f"baseline  {' '.join(sel)[:70]:70s} {r.verdict if r.verdict != 'survived' else 'pass':8s} {r.seconds:6.1f}s  {r.detail}")
            if r.verdict != "survived":
                failing[sel] = r.detail
    results = []
    for m in todo:
        if m.equivalent:
            res = Result(m, "equivalent", m.equivalent)
        elif m.tests in failing:
            res = Result(m, "broken", f"the unmutated selection fails ({failing[m.tests]})")
        else:
            path = os.path.join(copy, m.file)
            with open(path, encoding="utf-8") as fh:
                original = fh.read()
            n = original.count(m.old)
            if n != 1:
                res = Result(m, "stale", f"old text found {n} times in {m.file}")
            else:
                try:
                    with open(path, "w", encoding="utf-8") as fh:
                        fh.write(original.replace(m.old, m.new))
                    r = run_pytest(copy, m.tests, timeout, workers)
                finally:
                    with open(path, "w", encoding="utf-8") as fh:  # restore
                        fh.write(original)
                res = Result(m, r.verdict, r.detail, r.seconds)
        results.append(res)
        out(f"{res.outcome.upper() if res.outcome in ('survived', 'broken', 'stale') else res.outcome:10s} "
            f"{m.name:42s} {res.seconds:6.1f}s  [{m.kind}] {res.detail}")
    return results


OUTCOMES = ("killed", "survived", "broken", "stale", "equivalent")


def table(results: list[Result]) -> str:
    """Outcomes per module (rows in the order of the list) and in total."""
    per: dict[str, dict[str, int]] = {}
    for r in results:
        row = per.setdefault(r.mutant.file, dict.fromkeys(OUTCOMES, 0))
        row[r.outcome] += 1
    w = max([len("module")] + [len(f) for f in per])
    head = f"{'module':{w}s}  mutants  " + "  ".join(f"{o:>10s}" for o in OUTCOMES)
    lines = [head, "-" * len(head)]
    tot = dict.fromkeys(OUTCOMES, 0)
    for f, row in per.items():
        lines.append(f"{f:{w}s}  {sum(row.values()):7d}  " + "  ".join(f"{row[o]:10d}" for o in OUTCOMES))
        for o in OUTCOMES:
            tot[o] += row[o]
    lines.append("-" * len(head))
    lines.append(f"{'total':{w}s}  {sum(tot.values()):7d}  " + "  ".join(f"{tot[o]:10d}" for o in OUTCOMES))
    return "\n".join(lines)


def select(pattern: str) -> list[Mutant]:
    """The mutants whose name or file matches the regular expression ``pattern`` (re.search)."""
    return [m for m in MUTANTS if re.search(pattern, m.name) or re.search(pattern, m.file)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-k", default="", help="only mutants whose name or file matches this regular expression (re.search)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per test run (default 300; twice that for a baseline)")
    ap.add_argument("--workdir", default=None, help="where the copy is made (default: a fresh temporary directory, removed after)")
    ap.add_argument("--rev", default=None, help="copy this commit (git archive) instead of the working tree")
    ap.add_argument("--workers", type=int, default=0, help="pytest-xdist workers per run (default 0: none, the selections are small)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the unmutated runs of the selections")
    ap.add_argument("--list", action="store_true", help="list the selected mutants and exit")
    args = ap.parse_args(argv)
    todo = select(args.k)
    if not todo:
        print(f"no mutant name or file matches {args.k!r}", file=sys.stderr)
        return 2
    if args.list:
        for m in todo:
            print(f"{m.name:42s} {m.kind:18s} {m.file:40s} {' '.join(m.tests)}" + ("  (equivalent)" if m.equivalent else ""))
        return 0
    holder = None
    if args.workdir:
        os.makedirs(args.workdir, exist_ok=True)
        dest = args.workdir
    else:
        holder = tempfile.TemporaryDirectory(prefix="fa-mutation-")
        dest = holder.name
    try:
        copy = make_copy(dest, args.rev)
        where = _imports_from_copy(copy)
        if where is not None:
            print(f"the copy does not import its own package (reference comes from {where})", file=sys.stderr)
            return 2
        print(f"copy of {ROOT if args.rev is None else ROOT + ' at ' + args.rev} in {copy}; {len(todo)} mutants", flush=True)
        results = run_mutants(todo, copy, args.timeout, workers=args.workers, baseline=not args.no_baseline,
                              out=lambda s: print(s, flush=True))
    finally:
        if holder is not None:
            holder.cleanup()
    print()
    print(table(results))
    bad = [r for r in results if r.outcome in ("survived", "broken", "stale")]
    counted = [r for r in results if r.outcome != "equivalent"]
    killed = sum(r.outcome == "killed" for r in results)
    print(f"kill rate: {killed}/{len(counted)} = {100.0 * killed / max(len(counted), 1):.1f}%"
          + (f"  (not killed: {', '.join(r.mutant.name for r in bad)})" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
