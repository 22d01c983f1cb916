"""Mutation benchmark: re-plant known mutants and check that the test suite kills every one.

Each mutant is a (file, exact old text, new text) patch.  The repository is copied once into a
temporary directory (``shutil.copytree``, without ``.git`` and caches); for each mutant the copy's
file is patched, the relevant test modules run there with a timeout, and the file is restored.
The working tree is never modified.  A mutant is *killed* when the tests fail (or time out: a
planted deadlock), *survived* when they pass, *stale* when its old text is no longer found
exactly once (the code moved: update the list).  The unmutated copy must pass first.

Run (slow: about a minute per mutant on one core; not part of the test suite)::

    python benchmarks/mutation.py            # all mutants
    python benchmarks/mutation.py -k renyi   # only mutants whose name matches the regular expression "renyi"

Prints one line per mutant and the kill rate; exits 1 if a mutant survived or was stale.
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
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Mutant:
    name: str
    why: str
    file: str
    old: str
    new: str
    tests: tuple  # pytest arguments (paths and -k expressions), run from the copy's root


MUTANTS = (
    # -- the mutants named in the issue ---------------------------------------------------------
    Mutant("certified_lower_from_upper_end",
           "(a) precision.certified 'lower' takes the floor of the enclosure's UPPER end",
           "reference/precision.py",
           'raw = libmp.mpf_pos(enc.lo._mpf_, bits, "f")',
           'raw = libmp.mpf_pos(enc.hi._mpf_, bits, "f")',
           ("tests/test_precision.py", "-k", "certified")),
    Mutant("renyi_odometer_no_union_bound",
           "(b) feldman2021 renyi_odometer_zcdp drops log|A| (Ville at delta, not delta/|A|)",
           "reference/bounds/feldman2021.py",
           "a * r + (c.log(k) - c.log(d)) / (a - 1)",
           "a * r + (- c.log(d)) / (a - 1)",
           ("tests/test_reliability_mutants.py", "-k", "renyi")),
    Mutant("enclosure_half_bits",
           "(c) precision.enclosure accepts an enclosure half as tight as promised",
           "reference/precision.py",
           "    bits = _target_bits(dps)\n    prec = bits + GUARD_BITS\n",
           "    bits = _target_bits(dps) // 2\n    prec = bits + GUARD_BITS\n",
           ("tests/test_precision.py", "-k", "enclosure")),
    Mutant("rounds_homogeneous_round_not_floor",
           "(d) whitehouse2023 filter_rounds_homogeneous counts the delta'' budget with round()",
           "reference/bounds/whitehouse2023.py",
           "k = min(k, int(d2 / d0))",
           "k = min(k, round(d2 / d0))",
           ("tests/test_reliability_mutants.py", "-k", "homogeneous")),
    Mutant("verifier_upper_weight_rounded_down",
           "(e) verify/engine.py: the upper weight rounded down to a double (1 ulp below the enclosure)",
           "reference/verify/engine.py",
           'hi[i] = _to_float(b, "c")',
           'hi[i] = _to_float(b, "f")',
           ("tests/test_reliability_mutants.py", "-k", "verifier")),
    Mutant("mc_check_rejects_above_1_01",
           "(f) martingales one-step Monte Carlo check rejects only a lower bound above 1.01",
           "reference/martingales/processes.py",
           "rejected = [o for o in out if o[3] > 1.0]",
           "rejected = [o for o in out if o[3] > 1.01]",
           ("tests/test_reliability_mutants.py", "-k", "monte_carlo")),
    # -- classics ------------------------------------------------------------------------------
    Mutant("factor_2_in_a_log",
           "classic: a factor 2 on log(1/delta) in the Renyi odometer",
           "reference/bounds/feldman2021.py",
           "a * r + (c.log(k) - c.log(d)) / (a - 1)",
           "a * r + (c.log(k) - 2 * c.log(d)) / (a - 1)",
           ("tests/test_reliability_mutants.py", "-k", "renyi")),
    Mutant("dropped_union_bound_grid_size",
           "classic: dropped union bound, |A| counted as 1",
           "reference/bounds/feldman2021.py",
           "k = Fraction(len(set(grid)))",
           "k = Fraction(1)",
           ("tests/test_reliability_mutants.py", "-k", "renyi")),
    Mutant("lt_for_le_in_zcdp_filter",
           "classic: '>=' for '>' in the ZCDP filter (a step that exactly fills rho is refused)",
           "reference/accountants/whitehouse2023.py",
           'if self._rho_spent + r > self._p["rho"]:',
           'if self._rho_spent + r >= self._p["rho"]:',
           ("tests/test_reliability.py", "-k", "ten_thousand")),
    Mutant("directed_decimal_never_rounds_up",
           "classic: directed_decimal drops the 'round up' step (upper bounds print below the value)",
           "reference/precision.py",
           "    n = fl + 1 if up else fl\n",
           "    n = fl\n",
           ("tests/test_precision.py", "-k", "directed_decimal")),
    Mutant("state_json_decimal_only",
           "regression: to_json writes str(q) for every value (the 4300-digit int/str limit again)",
           "reference/accountants/base.py",
           "    if max(abs(num).bit_length(), den.bit_length()) <= _HEX_ABOVE_BITS:\n",
           "    if True:\n",
           ("tests/test_reliability.py", "-k", "ten_thousand or tiny_step or hex")),
    Mutant("plain_lock",
           "regression: threading.Lock instead of RLock (a rule reading its own filter deadlocks)",
           "reference/accountants/base.py",
           "self._lock = threading.RLock()  # re-entrant",
           "self._lock = threading.Lock()  # re-entrant",
           ("tests/test_reliability.py", "-k", "reentrant")),
    Mutant("hmac_not_checked",
           "regression: from_dict accepts a keyed state without checking its HMAC",
           "reference/accountants/base.py",
           "            if not isinstance(d[\"hmac\"], str) or not hmac.compare_digest(d[\"hmac\"], _mac(key, body)):\n",
           "            if not isinstance(d[\"hmac\"], str):\n",
           ("tests/test_reliability.py", "-k", "hmac or raising_eps or truncated or wrong_key")),
    Mutant("filter_charges_rounded_value",
           "regression: a filter charges a value rounded to nearest instead of its enclosure's upper end",
           "reference/precision.py",
           "    if end is not None and isinstance(value, Certified) and value.exact is None:\n",
           "    if False:\n",
           ("tests/test_exact_outputs.py",)),
    Mutant("rational_forgets_exact",
           "regression: a rational result (rho = 1/200) is parsed at its rounded binary value",
           "reference/precision.py",
           "    return Certified._make(v._mpf_, v.lower._mpf_, v.upper._mpf_, q)\n",
           "    return Certified._make(v._mpf_, v.lower._mpf_, v.upper._mpf_, None)\n",
           ("tests/test_exact_outputs.py",)),
    Mutant("pld_product_rounded_down",
           "the PLD engine's exact products truncated instead of rounded up (the composed vector is no longer an upper bound)",
           "reference/profiles/sgm_pld.py",
           "    carry = rem\n",
           "    carry = np.zeros(n, dtype=bool)\n",
           ("proofs/test_sgm_pld_certified.py",)),
    Mutant("pld_lower_forgets_eta",
           "the PLD lower end drops the Azuma-Hoeffding failure probability exp(-2 t^2/(K h^2))",
           "reference/profiles/sgm_pld.py",
           "            best = max(best, Sv - eta_hi)\n",
           "            best = max(best, Sv)\n",
           ("proofs/test_sgm_pld_certified.py", "tests/test_sgm_pld.py")),
)


def _ignore(_dir, names):
    return [n for n in names if n in (".git", "__pycache__", ".hypothesis", ".pytest_cache", ".benchmarks",
                                       "fullyadaptive-report", "out") or n.endswith(".egg-info")]


def _pytest(copy: str, args: tuple, timeout: int) -> tuple[str, float, str]:
    env = dict(os.environ, PYTHONPATH=copy, HYPOTHESIS_PROFILE="ci", PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-W", "ignore::UserWarning", *args]
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t, ""
    tail = (p.stdout.strip().splitlines() or [""])[-1]
    return ("pass" if p.returncode == 0 else f"fail(rc={p.returncode})"), time.perf_counter() - t, tail


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-k", default="", help="only mutants whose name matches this regular expression (re.search)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per test run (default 300)")
    args = ap.parse_args(argv)
    todo = [m for m in MUTANTS if re.search(args.k, m.name)]
    if not todo:
        print(f"no mutant name matches {args.k!r}; names: {', '.join(m.name for m in MUTANTS)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="fa-mutation-") as tmp:
        copy = os.path.join(tmp, "repo")
        shutil.copytree(ROOT, copy, ignore=_ignore)
        print(f"copy of {ROOT} in {copy}; {len(todo)} mutants")
        baseline = sorted({a for m in todo for a in m.tests if a.endswith(".py")})
        status, secs, tail = _pytest(copy, tuple(baseline), args.timeout * 2)
        print(f"baseline (unmutated) {' '.join(baseline)}: {status} in {secs:.1f}s  {tail}")
        if status != "pass":
            print("the unmutated tests must pass first")
            return 2
        killed = survived = stale = 0
        for m in todo:
            path = os.path.join(copy, m.file)
            with open(path, encoding="utf-8") as fh:
                original = fh.read()
            if original.count(m.old) != 1:
                stale += 1
                print(f"STALE     {m.name:40s} old text found {original.count(m.old)} times in {m.file}")
                continue
            try:
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(original.replace(m.old, m.new))
                status, secs, tail = _pytest(copy, m.tests, args.timeout)
            finally:
                with open(path, "w", encoding="utf-8") as fh:  # restore
                    fh.write(original)
            if status == "pass":
                survived += 1
                verdict = "SURVIVED"
            else:
                killed += 1
                verdict = "killed"
            print(f"{verdict:9s} {m.name:40s} {status:12s} {secs:6.1f}s  {m.why}")
        total = killed + survived + stale
        print(f"kill rate: {killed}/{total} = {100.0 * killed / max(total, 1):.1f}%  (survived {survived}, stale {stale})")
        return 0 if killed == total else 1


if __name__ == "__main__":
    sys.exit(main())
