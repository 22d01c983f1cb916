import os

from hypothesis import HealthCheck, settings

# One profile for local runs and CI: the same derandomized examples everywhere, so a failure
# seen in CI is seen locally and the suite's time is the same (about 5 minutes with CI=1 on
# 2 cores; CI must stay under 15).  "dev" (fewer, random examples) is there to explore:
# HYPOTHESIS_PROFILE=dev python -m pytest ...
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=25, deadline=None)
# "seeded": the CI-sized run with random examples, the seed given by --hypothesis-seed (tests/test_seeds.py runs
# the suite under several seeds behind -m slow, so a failure that the derandomized examples miss can still show)
settings.register_profile("seeded", max_examples=60, deadline=None, derandomize=False,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

import mpmath
import pytest


@pytest.fixture(autouse=True)
def _high_precision_comparisons():
    """Test-side arithmetic (second routes, tolerances) runs at 110 digits.

    The library never reads global mpmath precision: it evaluates in private
    interval contexts, so this only affects the tests' own comparisons.
    """
    with mpmath.workdps(110):
        yield


def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` run only when selected (``-m slow``); the default run deselects them.

    They are reported as "deselected" (the summary's count), not as skipped: a skip means a test
    that should have run could not (a missing GPU, seed texts not beside the repository).
    """
    if "slow" in (config.getoption("markexpr") or ""):
        return
    slow = [item for item in items if "slow" in item.keywords]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if "slow" not in item.keywords]
