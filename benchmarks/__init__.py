"""Benchmarks, run by hand from the checkout's root as modules (``python -m benchmarks.NAME``).

Each prints a ratio against a reference measured in the same run; none is a test.
"""
