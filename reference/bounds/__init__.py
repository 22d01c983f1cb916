"""Closed forms, one module per paper: every bound, conversion and stopping rule as a pure function.

* :mod:`.whitehouse2023`: Whitehouse, Ramdas, Rogers, Wu (both versions, ``whitehouse2022`` and
  ``whitehouse2023`` ids);
* :mod:`.rogers2016`: Rogers, Roth, Ullman, Vadhan;
* :mod:`.feldman2021`: Feldman, Zrnic (Renyi divergence, individual RDP, the Renyi filter's rule);
* :mod:`.balle2020`: Balle, Kairouz, McMahan, Thakkar, Thakurta (random check-ins);
* :mod:`.classical`: the yardsticks (optimal composition, Renyi/zCDP curves, conversions);
* :mod:`.baselines`: rounds admitted by every rule on a homogeneous workload.

Nothing here keeps state or imports a layer above it (accountants, verify, report, cli).
"""
