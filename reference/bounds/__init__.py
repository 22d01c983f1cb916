"""Closed forms, one module per paper: every bound, conversion and stopping rule as a pure function.

* :mod:`.whitehouse2023`: Whitehouse, Ramdas, Rogers, Wu (both versions, ``whitehouse2022`` and
  ``whitehouse2023`` ids);
* :mod:`.rogers2016`: Rogers, Roth, Ullman, Vadhan;
* :mod:`.feldman2021`: Feldman, Zrnic (Renyi divergence, individual RDP, the Renyi filter's rule);
* :mod:`.balle2020`: Balle, Kairouz, McMahan, Thakkar, Thakurta (random check-ins);
* the yardsticks: :mod:`.optimal_composition` (Kairouz-Oh-Viswanath, basic and advanced
  composition), :mod:`.renyi` (Renyi and zCDP curves), :mod:`.rdp_to_dp` (conversions);
  :mod:`.classical` re-exports them under their former module name;
* :mod:`.dong2022`, :mod:`.smith2022`: Gaussian DP and its filters; :mod:`.calibrated`,
  :mod:`.game`, :mod:`.game_filter`, :mod:`.planner`: the calibrated and game-certified
  filters and the planner;
* :mod:`.baselines`: rounds admitted by every rule on a homogeneous workload.

Nothing here keeps state or imports a layer above it (accountants, verify, report, cli).
"""
