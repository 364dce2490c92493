"""The jaxtypes mypy plugin: exact JAX dtypes from the shared lattice, fast.

Enable it in mypy's configuration::

    [mypy]                      # mypy.ini / setup.cfg
    plugins = jaxtypes.mypy_plugin

    [tool.mypy]                 # pyproject.toml
    plugins = ["jaxtypes.mypy_plugin"]

and set JAX's configuration for the project (both optional; JAX's defaults)::

    [tool.jaxtypes]             # pyproject.toml ([jaxtypes] in mypy.ini / setup.cfg)
    promotion = "standard"      # or "strict": implicit promotions are errors
    x64 = false                 # or true: jax_enable_x64
    explicit_x64_dtypes = "warn"  # or "allow", "error": jax_explicit_x64_dtypes

One module per feature: ``project_settings`` (configuration), ``operator_signatures`` (plain
signatures for Array's operators while mypy analyses the stub),
``emptied_tables`` (the promotion tables and jax.Array's descriptors emptied, as
nothing reads them), ``plugin_stubs`` (JAX's typed modules read without the
typed overloads of the functions the plugin answers),
``operators``, ``methods`` (and ``astype``), ``runtime_api_calls`` (result_type,
promote_types, promote_dtype), ``function_calls`` (JAX's functions under the
settings), ``layer_calls`` (Equinox's and Flax's layers, and Flax's pooling
functions, under the settings), ``flax_modules`` (Linen's ``Module.apply``
and ``init_with_output``: the module's ``__call__``'s result), ``flax_variables``
(``nnx.Variable[...]``, Linen's ``self.param`` and ``self.variable``: the array they hold),
``jaxtyping_annotations`` (``Float32[Array, "b n"]``), ``jax_config_calls``
(a note where the program sets JAX's configuration otherwise), ``control_flow_calls``
(``lax.cond``/``switch`` branches and ``fori_loop`` carries of different dtypes),
``index_updates`` (``x.at[i].set(v)`` of a value JAX casts lossily),
``gradient_calls`` (``jax.grad``/``value_and_grad`` where a type holds ``Any``),
``numpy_dtype_calls`` (``np.dtype("bfloat16")``: the dtype value of that dtype),
``dtype_values`` (what ``DType[bfloat16]`` takes), ``generic_dtype_parameters``
(the project's ``DType[D]`` parameters given a dtype's name),
``tree_maps`` (``jax.tree.map`` of a NamedTuple or dataclass whose leaves the
function keeps), ``type_nodes``
(mypy types <-> lattice nodes), ``errors`` (error codes, messages, the guard
that keeps plugin bugs from crashing mypy); every name the plugin looks for
is in ``names``.  The plugin imports only mypy, ``jaxtypes.lattice``,
``jaxtypes.operation_rules`` and ``jaxtypes.layer_rules`` (no numpy).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Final, TypeVar, final

from mypy.errors import CompileError
from mypy.nodes import MypyFile, SymbolTableNode, TypeInfo
from mypy.options import Options
from mypy.plugin import (
    AnalyzeTypeContext,
    AttributeContext,
    ClassDefContext,
    FunctionContext,
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
    Plugin,
    ReportConfigContext,
)
from mypy.types import FunctionLike, Instance, Type

from jaxtypes._version import __version__ as jaxtypes_version

from . import (
    control_flow_calls,
    dtype_values,
    emptied_tables,
    equalities,
    errors,
    flax_modules,
    flax_variables,
    function_calls,
    generic_dtype_parameters,
    gradient_calls,
    index_updates,
    jax_config_calls,
    jaxtyping_annotations,
    layer_calls,
    methods,
    names,
    numpy_dtype_calls,
    operator_signatures,
    operators,
    plugin_stubs,
    project_settings,
    runtime_api_calls,
    scalar_type_calls,
    tree_maps,
)
from .bound_dtypes import over_bound
from .type_nodes import Builder

__all__ = ["plugin", "JaxtypesPlugin"]

# Set when the plugin is constructed (below): unbound until then.
__version__: str

_H = TypeVar("_H")
_CONFIG_EXIT_STATUS: Final = 2
# Top-level modules that never see a jaxtypes Array: the standard library
# (typeshed) and jaxtypes' dependencies.
_UNAFFECTED: Final = frozenset(sys.stdlib_module_names) | {
    "builtins",
    "_typeshed",
    "typing_extensions",
    "mypy_extensions",
    "numpy",
    "ml_dtypes",
}  # mypy's status for a crash or a bad configuration


@final
class JaxtypesPlugin(Plugin):
    """Hooks by fully qualified name; the answers come from ``jaxtypes.operation_rules``."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self._settings_stamp = project_settings.stamp(options.config_file)
        self._trees: dict[str, MypyFile] = {}
        try:
            self.settings: project_settings.Settings = project_settings.load(options.config_file)
        except Exception as err:  # noqa: BLE001 - a ConfigError, or anything unforeseen
            # A clear message and mypy's configuration-error status, no
            # traceback; whatever the files hold (an unforeseen failure too).
            problem = (
                str(err)
                if isinstance(err, project_settings.ConfigError)
                else (
                    f"cannot read the jaxtypes settings: {type(err).__name__}: {project_settings.shown(str(err), 200)}"
                )
            )
            print(problem, file=sys.stderr)
            print("jaxtypes.mypy_plugin: see the [tool.jaxtypes] settings in jaxtypes' README", file=sys.stderr)
            raise SystemExit(_CONFIG_EXIT_STATUS) from None
        unmodelled = self.settings.unmodelled()
        if unmodelled is not None:
            print(f"jaxtypes.mypy_plugin: warning: {unmodelled}", file=sys.stderr)
        _warn_if_stubs_are_stale(options)
        plugin_stubs.read_plugin_modules(options)
        v = self.settings.variant
        # mypy records each plugin module's __version__ (with a hash of its
        # file) and drops its whole cache when that changes; the mypy daemon
        # restarts.  Putting the settings in it is what keeps the daemon, which
        # holds this instance across runs, from answering with old settings.
        global __version__
        __version__ = (
            f"{jaxtypes_version}+{self.settings.promotion}.{'x64' if self.settings.x64 else 'x32'}"
            f".{self.settings.explicit_x64_dtypes}"
        )
        builder = self._builder = Builder(self._lookup, self._named_type)
        self._class_mro_hooks: dict[str, Callable[[ClassDefContext], None]] = {
            array: errors.guarded(lambda ctx: None)(operator_signatures.replace_members) for array in names.ARRAYS
        }
        self._empty_table = errors.guarded(lambda ctx: None)(emptied_tables.empty_table)
        method_hooks: dict[str, Callable[[MethodContext], Type]] = {}
        # (over_bound: an Array[D], D a TypeVar bound to dtypes, answered from each dtype of D)
        for name, op in names.BINARY_METHODS.items():
            method_hooks[names.member(name)] = over_bound(operators.binary_hook(op, False, v, builder), v, builder)
        for name, op in names.REFLECTED_METHODS.items():
            method_hooks[names.member(name)] = over_bound(operators.binary_hook(op, True, v, builder), v, builder)
        for name, op in names.UNARY_METHODS.items():
            method_hooks[names.member(name)] = over_bound(operators.unary_hook(op, v, builder), v, builder)
        for name in (*names.REDUCTIONS, *names.DTYPE_METHODS, *names.VARIANCES, *names.PLAIN_METHODS):
            method_hooks[names.member(name)] = over_bound(methods.method_hook(name, v, builder), v, builder)
        for name in names.DEFAULT_INT_METHODS:
            method_hooks[names.member(name)] = methods.default_int_hook(v, builder)
        method_hooks[names.member(names.ITEM)] = methods.item_hook(v, builder)
        method_hooks[names.member(names.ASTYPE)] = over_bound(methods.astype_hook(v, builder), v, builder)
        for fullname, op in names.SCALAR_EQUALITIES.items():
            method_hooks[fullname] = equalities.scalar_equality_hook(op, v, builder)
        # jax.Array of the generated stubs: the same hooks under its name.
        for fullname, hook in list(method_hooks.items()):
            if fullname.startswith(names.ARRAY + "."):
                method_hooks[names.JAX_ARRAY + fullname[len(names.ARRAY) :]] = hook
        self._method_hooks = method_hooks
        self._attribute_hooks: dict[str, Callable[[AttributeContext], Type]] = {
            names.member(name, array): methods.property_hook(name, v, builder)
            for name in names.PROPERTIES
            for array in names.ARRAYS
        }
        self._function_hooks: dict[str, Callable[[FunctionContext], Type]] = {
            names.RESULT_TYPE: runtime_api_calls.result_type_hook(v, builder),
            names.PROMOTE_TYPES: runtime_api_calls.promote_types_hook(v, builder),
            names.PROMOTE_DTYPE: runtime_api_calls.promote_dtype_hook(v, builder),
            names.BUILTIN_ABS: over_bound(operators.abs_function_hook(v, builder), v, builder),
            # jnp.float64(1): JAX's scalar types are the markers in the JAX stubs.
            **scalar_type_calls.scalar_type_call_hooks(v, builder),
            # lax.cond/switch branches and fori_loop carries of different dtypes.
            **control_flow_calls.control_flow_hooks(v),
        }
        # JAX's functions (with the stubs of `jaxtypes jax-stubs`): the rule's
        # answer in this configuration; ufunc objects are called as methods.
        for fullname, rule_name in function_calls.typed_functions().items():
            call_hook = over_bound(function_calls.function_hook(rule_name, v, builder), v, builder)
            if fullname.endswith(".__call__"):
                method_hooks[fullname] = call_hook
            else:
                self._function_hooks[fullname] = call_hook
        # Equinox's layers: their output for the configured x64 and promotion.
        for fullname, rule_name in layer_calls.typed_layer_calls().items():
            method_hooks[fullname] = layer_calls.layer_call_hook(rule_name, v, builder)
        # Linen's Module.apply and init_with_output: the module's __call__'s result.
        method_hooks.update(flax_modules.run_hooks())
        # x.at[i].set(v) / .add(v) of a value JAX casts lossily.
        method_hooks.update(index_updates.index_update_hooks(builder))
        # Flax's variables: what nnx.Variable[...], self.param and self.variable hold.
        method_hooks.update(flax_variables.hooks())
        self._function_hooks.update(flax_variables.initializer_hooks(v, builder))
        for fullname, rule_name in layer_calls.typed_layer_functions().items():
            self._function_hooks[fullname] = layer_calls.layer_function_hook(rule_name, v, builder)
        # jax.tree.map(f, state) of a NamedTuple or dataclass whose leaves f keeps.
        self._function_hooks.update(tree_maps.tree_map_hooks())
        self._function_hooks.update(numpy_dtype_calls.numpy_dtype_hooks(builder))
        # jax.grad(f)(...), jax.value_and_grad(f)(...) where a type holds Any.
        transforms, gradient_calls_ = gradient_calls.gradient_hooks(self._named_type)
        self._function_hooks.update(transforms)
        method_hooks.update(gradient_calls_)
        self._member_names = frozenset(name.rpartition(".")[2] for name in (*method_hooks, *self._attribute_hooks))
        # {(class, member): the name of the hooked member it inherits, or None}
        self._inherited: dict[tuple[str, str], str | None] = {}
        self._field_hooks: dict[str, Callable[[AttributeContext], Type] | None] = {}
        self._annotated_hook = jaxtyping_annotations.annotated_hook()
        self._dtype_annotation_hook = dtype_values.dtype_annotation_hook(builder)
        self._signature_hook = generic_dtype_parameters.signature_hook(builder)
        # Where the program sets JAX's configuration itself: a note where it
        # differs from the settings (looked up by exact name, before the rest).
        self._settings_hooks = jax_config_calls.hooks(self.settings)
        # mypy asks for a hook at every call it checks: each name's answer is
        # kept for the build.
        self._method_hook_of: dict[str, Callable[[MethodContext], Type] | None] = {}

    # -- symbol look-ups for the hooks (mypy sets the modules before checking)
    def _lookup(self, fullname: str) -> SymbolTableNode | None:
        try:
            return self.lookup_fully_qualified(fullname)
        except (AssertionError, KeyError):
            return None

    def _named_type(self, fullname: str, args: list[Type]) -> Instance:
        sym = self._lookup(fullname)
        if sym is None or not isinstance(sym.node, TypeInfo):
            raise LookupError(f"jaxtypes.mypy_plugin: {fullname} is not loaded")
        return Instance(sym.node, args)

    def set_modules(self, modules: dict[str, MypyFile]) -> None:
        super().set_modules(modules)
        self._refuse_changed_settings(modules)
        self._inherited.clear()  # a new build: classes may have changed
        self._field_hooks.clear()
        self._method_hook_of.clear()
        self._builder.reset()

    def _refuse_changed_settings(self, modules: dict[str, MypyFile]) -> None:
        """Stop a build, with a blocking error, when the settings files changed
        since this plugin read them.

        Only the mypy daemon lives that long: ``dmypy run`` restarts by itself
        (the settings are in ``__version__``), but ``dmypy check``/``recheck``
        keep this instance, and answers for the modules they do not recheck
        would mix old and new settings.  mypy calls ``set_modules`` whenever it
        loads a changed module, so the error shows on every such run until the
        daemon restarts.  (A run that rechecks no module calls no plugin code.)
        """
        current = project_settings.stamp(self.options.config_file)
        previous_trees, self._trees = self._trees, dict(modules)
        if current == self._settings_stamp:
            return
        try:
            new = project_settings.load(self.options.config_file)
        except project_settings.ConfigError as err:
            problem = f"{err}"
        except Exception as err:  # noqa: BLE001 - never a crash, as at start-up
            problem = (
                f"cannot read the jaxtypes settings: {type(err).__name__}: {project_settings.shown(str(err), 200)}"
            )
        else:
            if new.variant == self.settings.variant:
                self._settings_stamp = current  # an edit that changes nothing here
                return
            changes = [
                f"{key} {old!r} -> {value!r}"
                for key, old, value in (
                    ("promotion", self.settings.promotion, new.promotion),
                    ("x64", self.settings.x64, new.x64),
                )
                if old != value
            ]
            problem = f"the jaxtypes settings changed since the mypy daemon started ({', '.join(changes)})"
        # mypy retries the module named as the blocker on the next run: the one
        # being reloaded now (a new tree), so that the retry reloads it again.
        reloaded = [m for m, tree in modules.items() if previous_trees.get(m) is not tree]
        blocker = reloaded[0] if reloaded else next(iter(modules), "builtins")
        raise CompileError(
            [
                f"jaxtypes.mypy_plugin: error: {problem}; run 'dmypy restart' "
                "(or 'dmypy run', which restarts when the settings change)"
            ],
            module_with_blocker=blocker,
        )

    def _inherited_member(self, fullname: str, hooks: dict[str, _H]) -> _H | None:
        """The hook of a member reached through a subclass: mypy names a call
        by the receiver's class (``pkg.MyArray.__add__``, ``pkg.CNN.apply``
        of a Linen module)."""
        cls, _, member = fullname.rpartition(".")
        if member not in self._member_names or not cls:
            return None
        key = (cls, member)
        if key not in self._inherited:
            sym = self._lookup(cls)
            info = sym.node if sym is not None else None
            owner = info.get_containing_type_info(member) if isinstance(info, TypeInfo) else None
            self._inherited[key] = (
                None
                if owner is None
                else names.member(member)
                if owner.fullname in names.ARRAYS
                else f"{owner.fullname}.{member}"
            )
        inherited = self._inherited[key]
        return hooks.get(inherited) if inherited is not None else None

    # -- hooks: dictionary look-ups
    def get_customize_class_mro_hook(self, fullname: str) -> Callable[[ClassDefContext], None] | None:
        if emptied_tables.is_table(fullname):
            return self._empty_table
        return self._class_mro_hooks.get(fullname)

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        try:
            return self._method_hook_of[fullname]
        except KeyError:
            hook = self._method_hooks.get(fullname) or self._settings_hooks.get(fullname)
            if hook is None:
                hook = self._inherited_member(fullname, self._method_hooks)
            self._method_hook_of[fullname] = hook
            return hook

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        hook = self._attribute_hooks.get(fullname)
        if hook is None:
            hook = self._inherited_member(fullname, self._attribute_hooks)
        return hook if hook is not None else self._module_field(fullname)

    def _module_field(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        """The hook of a field of an Equinox module (``pkg.Block.linear``)."""
        try:
            return self._field_hooks[fullname]
        except KeyError:
            cls, _, attribute = fullname.rpartition(".")
            sym = self._lookup(cls) if cls else None
            info = sym.node if sym is not None else None
            hook = (
                layer_calls.field_hook(cls, attribute, self._builder)
                if isinstance(info, TypeInfo) and layer_calls.is_module_field(info, attribute)
                else None
            )
            self._field_hooks[fullname] = hook
            return hook

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        # jaxtyping's names are typing.Annotated to mypy.
        if fullname == names.DTYPE_ANNOTATION:
            return self._dtype_annotation_hook
        return self._annotated_hook if fullname in jaxtyping_annotations.ANNOTATED else None

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return self._function_hooks.get(fullname)

    def get_function_signature_hook(self, fullname: str) -> Callable[[FunctionSigContext], FunctionLike] | None:
        return self._signature_hook if generic_dtype_parameters.is_hooked(fullname) else None

    def get_method_signature_hook(self, fullname: str) -> Callable[[MethodSigContext], FunctionLike] | None:
        return self._signature_hook if generic_dtype_parameters.is_hooked(fullname) else None

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        """The settings, stored with each module's cache entry: changing them
        invalidates mypy's cache (and the daemon's state) for every module
        that could hold an Array operation.  The standard library and
        jaxtypes' own dependencies cannot (they do not import jaxtypes), so
        their entries stay valid."""
        if ctx.id.partition(".")[0] in _UNAFFECTED:
            return None
        return self.settings.config_data()


def _warn_if_stubs_are_stale(options: Options) -> None:
    """One line on stderr when the jax.Array stubs mypy reads (the installed
    stub package, or a `jaxtypes jax-stubs --out` tree on mypy_path) were made
    for other JAX or jaxtypes versions.  A failure to tell is not reported."""
    from pathlib import Path

    from jaxtypes._stubgen import record as stub_record

    try:
        outs: list[Path | None] = [None]
        outs += [Path(d).parent for d in options.mypy_path if Path(d).name == stub_record.MYPY_DIR]
        for out in outs:
            found = stub_record.staleness(out)
            if found is not None and found.stale:
                print(f"jaxtypes.mypy_plugin: warning: {found.message()}", file=sys.stderr)
    except Exception:  # noqa: BLE001 - a warning must never stop mypy
        pass


def plugin(version: str) -> type[JaxtypesPlugin]:
    """mypy's entry point: ``plugins = jaxtypes.mypy_plugin``."""
    return JaxtypesPlugin
