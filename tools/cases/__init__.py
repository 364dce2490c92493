"""Renderers of the generated case files (``typecheck_cases/generated``,
``functions``, ``contexts``) from ``tools/data`` and written-out tables."""
