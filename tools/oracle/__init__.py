"""The oracle: scripts that run JAX and record its answers in ``tools/data``
(run by hand, as ``python -m tools.oracle.NAME``).  They import JAX and the
facts of JAX's documentation (``lattice_facts``), never jaxtypes: the data
must come from JAX alone."""
