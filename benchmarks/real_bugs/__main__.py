"""``python -m benchmarks.real_bugs``: the type-checking benchmark (``check``)."""

from benchmarks.real_bugs.check import main

raise SystemExit(main())
