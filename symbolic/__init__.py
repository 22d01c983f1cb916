"""SymPy derivations of the closed forms implemented in :mod:`reference`."""
