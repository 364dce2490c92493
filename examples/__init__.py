"""The README's example (``mixed_precision.py``) and its first run (``python -m examples.show_dtypes``)."""
