"""Stub generation (private to jaxtypes; its API is the command line and
``tools/generate.py``).

* ``package_stubs``: jaxtypes' own stubs (``Array``'s operators and methods,
  the markers), from the lattice: ``jaxtypes/*.pyi`` in the repository.
* ``jax_stubs``: ``jaxtypes jax-stubs``, the installed JAX's stubs made
  dtype-generic: ``basearray_stub`` (``jax.Array``), ``function_overloads`` (JAX's
  functions, from ``jaxtypes.function_rules``), ``jax_transforms`` (``jit``,
  ``grad``, ...), ``install`` and ``record`` (installing them, and what an
  install wrote).
* ``syntax``: the syntax-tree helpers they share.
"""
