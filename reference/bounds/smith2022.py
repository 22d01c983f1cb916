"""Smith and Thakurta, *Fully Adaptive Composition for Gaussian Differential Privacy* (paper key ``smith2022``).

The Gaussian-DP filter's rule (work in progress).
"""
from __future__ import annotations
