import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=25, deadline=None)
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

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
    """Tests marked ``slow`` run only when selected (``-m slow``); the default run skips them."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: select with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
