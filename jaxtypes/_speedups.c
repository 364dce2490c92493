/* The cache-hit paths of promote_types and result_type, in C.
 *
 * jaxtypes.promotion answers every question in Python and caches the answer
 * per configuration.  A call that hits those caches still pays for a Python
 * function call and a dozen bytecodes; these callables do the same look-ups in
 * C and hand every other call (a miss, keywords, anything unusual) to the
 * Python function unchanged.  They compute nothing themselves: an answer they
 * give is one the Python code computed and stored, so the two cannot disagree.
 * A miss they can key (the configuration found, the key built) goes straight
 * to the Python slow path, promotion._promote_types_slow(a, b, resolved) or
 * promotion._result_type_slow(args, resolved, key), which computes the answer
 * in that configuration and caches it there: the same call the Python function
 * would make, without its finding the configuration and the key again.  The
 * slow path is looked up in the module's namespace at each miss, so that it
 * may be wrapped (the tests count its calls).
 * The key of result_type's cache is built exactly as promotion.result_type
 * builds it; the tests check that the second call of a question is served
 * here without reaching the Python slow path, with JAX's answer.
 *
 * The configuration is found as jaxtypes.config.current_resolved() finds it:
 * this thread's State (the values of the scopes in force in this thread,
 * jaxtypes' and JAX's, interned by jaxtypes.config) lives in C thread-local
 * storage, set through set_thread_state, as JAX keeps its scopes per thread;
 * without one, the default State.  A State holds a memo (process layer,
 * Resolved); when the memo's process layer is the one in force (compared by
 * identity: layers are interned), its Resolved holds this configuration's
 * caches.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#ifndef Py_T_OBJECT_EX  /* Python < 3.12 */
#include <structmember.h>
#define Py_T_OBJECT_EX T_OBJECT_EX
#endif

#if defined(_MSC_VER)
#define THREAD_LOCAL __declspec(thread)
#else
#define THREAD_LOCAL _Thread_local
#endif

/* This thread's State (a strong reference), or NULL for none (the default
 * State).  A thread's last value is never released: States are interned by
 * jaxtypes.config and live as long as the process anyway. */
static THREAD_LOCAL PyObject *thread_state_value = NULL;
/* Whether any thread has ever had a State: until then the fast paths skip the
 * thread-local read (scopes are rarer than calls). */
static int any_thread_state = 0;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;           /* __doc__, __wrapped__, ... (functools.update_wrapper) */
    PyObject *fallback;       /* the Python function: it answers what is not cached */
    PyObject *namespace;      /* the namespace of the Python slow path (a dict) */
    PyObject *slow_name;      /* its name there */
    PyObject *default_state;  /* the State of a thread without one */
    PyTypeObject *state_type; /* jaxtypes.config.State */
    Py_ssize_t memo_offset;   /* State.memo: (process layer, Resolved) */
    PyObject *process;        /* jaxtypes.config._Process: its slot holds the process layer */
    Py_ssize_t process_offset;
    PyTypeObject *resolved_type; /* jaxtypes.config.Resolved */
    Py_ssize_t cache_offset;  /* where a Resolved keeps this function's cache (a slot) */
    /* result_type only */
    PyObject *type_tokens;    /* dict: type -> its token, a dict: argument -> token,
                                 numpy_tokens or jax_tokens */
    PyObject *numpy_tokens;   /* dict: numpy dtype -> key token (numpy arrays) */
    PyObject *jax_tokens;     /* dict: dtype -> (strong token, weak token) (JAX arrays) */
    long long key_base;       /* tokens + 1 are the digits of an int key in this base ... */
    Py_ssize_t int_key_args;  /* ... for at most this many arguments; else a tuple key */
} FastPath;

static PyObject *str_aval, *str_dtype, *str_weak_type, *str_return_weak_type_flag;

/* The cache dict of the State in force (new reference), or NULL without an
 * exception set when there is none to use; *resolved is then its Resolved
 * (new reference).  The cache is read from its slot directly: an attribute
 * look-up would cost a fifth of a promote_types call. */
static PyObject *
current_cache(FastPath *self, PyObject **resolved_out)
{
    PyObject *state, *memo, *resolved, *cache = NULL;
    state = any_thread_state && thread_state_value != NULL ? thread_state_value
                                                           : self->default_state;
    if (Py_TYPE(state) == self->state_type) {
        memo = *(PyObject **)((char *)state + self->memo_offset);
        /* The memo is a tuple, never mutated: reading its items is safe while
         * the State holds it (no Python code runs until they are held), and
         * the State, interned, lives as long as the process. */
        if (memo != NULL && PyTuple_CheckExact(memo) && PyTuple_GET_SIZE(memo) == 2
                && PyTuple_GET_ITEM(memo, 0)
                   == *(PyObject **)((char *)self->process + self->process_offset)) {
            resolved = PyTuple_GET_ITEM(memo, 1);
            if (Py_TYPE(resolved) == self->resolved_type) {
                cache = *(PyObject **)((char *)resolved + self->cache_offset);
                if (cache != NULL && PyDict_CheckExact(cache)) {
                    Py_INCREF(cache);
                    *resolved_out = Py_NewRef(resolved);
                }
                else
                    cache = NULL;
            }
        }
    }
    return cache;
}

static PyObject *
fall_back(FastPath *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PyErr_Clear();
    return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

/* Calls the Python slow path with three arguments (steals none), or returns
 * NULL without an exception set when the namespace has none. */
static PyObject *
call_slow(FastPath *self, PyObject *first, PyObject *second, PyObject *third)
{
    PyObject *slow, *result, *call_args[3] = {first, second, third};
    slow = PyDict_GetItemWithError(self->namespace, self->slow_name);
    if (slow == NULL)
        return NULL;
    Py_INCREF(slow);
    result = PyObject_Vectorcall(slow, call_args, 3, NULL);
    Py_DECREF(slow);
    return result;
}

/* promote_types(a, b): promote_cache[a][b]. */
static PyObject *
promote_types_call(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FastPath *self = (FastPath *)op;
    PyObject *cache, *resolved = NULL, *inner, *result = NULL;
    if (PyVectorcall_NARGS(nargsf) != 2 || kwnames != NULL)
        return fall_back(self, args, nargsf, kwnames);
    cache = current_cache(self, &resolved);
    if (cache == NULL)
        return fall_back(self, args, nargsf, kwnames);
    inner = PyDict_GetItemWithError(cache, args[0]);
    if (inner != NULL && PyDict_CheckExact(inner)) {
        Py_INCREF(inner);  /* comparing keys may run Python code */
        result = PyDict_GetItemWithError(inner, args[1]);
        Py_XINCREF(result);
        Py_DECREF(inner);
    }
    Py_DECREF(cache);
    if (result == NULL) {  /* a miss (or an unhashable argument): the slow path */
        PyErr_Clear();
        result = call_slow(self, args[0], args[1], resolved);
        if (result == NULL && !PyErr_Occurred())
            result = fall_back(self, args, nargsf, kwnames);
    }
    Py_DECREF(resolved);
    return result;
}

/* The key token of one result_type argument (new reference), or NULL when the
 * argument is not keyed (then the Python function decides).  The same steps as
 * promotion._result_type_key: type_tokens[type(arg)] is the token, a dict of
 * the argument's values, numpy_tokens (a numpy array: by its dtype) or
 * jax_tokens (a JAX array or tracer: by its aval's dtype and weak_type). */
static PyObject *
argument_token(FastPath *self, PyObject *arg)
{
    PyObject *entry, *token = NULL;
    entry = PyDict_GetItemWithError(self->type_tokens, (PyObject *)Py_TYPE(arg));
    if (entry == NULL)
        return NULL;
    if (entry == self->numpy_tokens) {
        PyObject *dtype = PyObject_GetAttr(arg, str_dtype);
        if (dtype == NULL)
            return NULL;
        token = PyDict_GetItemWithError(self->numpy_tokens, dtype);
        Py_XINCREF(token);
        Py_DECREF(dtype);
        return token;
    }
    if (entry == self->jax_tokens) {
        PyObject *aval, *weak, *dtype = NULL, *pair;
        aval = PyObject_GetAttr(arg, str_aval);
        if (aval == NULL)
            return NULL;
        weak = PyObject_GetAttr(aval, str_weak_type);
        if (weak == Py_True || weak == Py_False)
            dtype = PyObject_GetAttr(aval, str_dtype);
        Py_DECREF(aval);
        if (dtype != NULL) {
            pair = PyDict_GetItemWithError(self->jax_tokens, dtype);
            if (pair != NULL && PyTuple_CheckExact(pair) && PyTuple_GET_SIZE(pair) == 2)
                token = Py_NewRef(PyTuple_GET_ITEM(pair, weak == Py_True));
            Py_DECREF(dtype);
        }
        Py_XDECREF(weak);
        return token;
    }
    if (PyDict_CheckExact(entry)) {
        Py_INCREF(entry);  /* hashing or comparing the argument may run Python code */
        token = PyDict_GetItemWithError(entry, arg);
        Py_XINCREF(token);
        Py_DECREF(entry);
        return token;
    }
    return Py_NewRef(entry);
}

/* result_type(*args, return_weak_type_flag=False): result_cache[key]. */
static PyObject *
result_type_call(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FastPath *self = (FastPath *)op;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf), i;
    int with_flag = 0;
    PyObject *key = NULL, *cache, *resolved = NULL, *answer;
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        PyObject *flag = args[n];
        int is_flag_name = PyTuple_GET_SIZE(kwnames) == 1 && PyUnicode_Compare(
            PyTuple_GET_ITEM(kwnames, 0), str_return_weak_type_flag) == 0;
        if (!is_flag_name || (flag != Py_True && flag != Py_False))
            return fall_back(self, args, nargsf, kwnames);
        with_flag = flag == Py_True;
    }
    if (n == 0)
        return fall_back(self, args, nargsf, kwnames);
    if (n <= self->int_key_args) {  /* as promotion._key_of_tokens */
        unsigned long long sum = 0, digit = 1;
        for (i = 0; i < n; i++) {
            PyObject *token = argument_token(self, args[i]);
            long t = token != NULL ? PyLong_AsLong(token) : -1;
            Py_XDECREF(token);
            if (t < 0 || t + 1 >= self->key_base)
                return fall_back(self, args, nargsf, kwnames);
            sum += (unsigned long long)(t + 1) * digit;
            digit *= (unsigned long long)self->key_base;
        }
        key = PyLong_FromUnsignedLongLong(sum);
    }
    else if ((key = PyTuple_New(n)) != NULL) {
        for (i = 0; i < n; i++) {
            PyObject *token = argument_token(self, args[i]);
            if (token == NULL) {
                Py_DECREF(key);
                return fall_back(self, args, nargsf, kwnames);
            }
            PyTuple_SET_ITEM(key, i, token);
        }
    }
    if (key == NULL)
        return fall_back(self, args, nargsf, kwnames);
    cache = current_cache(self, &resolved);
    if (cache == NULL) {
        Py_DECREF(key);
        return fall_back(self, args, nargsf, kwnames);
    }
    answer = PyDict_GetItemWithError(cache, key);  /* (dtype, weak) */
    Py_XINCREF(answer);
    Py_DECREF(cache);
    if (answer == NULL && !PyErr_Occurred()) {  /* a miss: the slow path */
        PyObject *arg_tuple = PyTuple_New(n);
        if (arg_tuple != NULL) {
            for (i = 0; i < n; i++)
                PyTuple_SET_ITEM(arg_tuple, i, Py_NewRef(args[i]));
            answer = call_slow(self, arg_tuple, resolved, key);
            Py_DECREF(arg_tuple);
        }
        if (answer == NULL && PyErr_Occurred()) {  /* JAX's error, raised afresh */
            Py_DECREF(resolved);
            Py_DECREF(key);
            return NULL;
        }
    }
    Py_DECREF(resolved);
    Py_DECREF(key);
    if (answer == NULL || !PyTuple_CheckExact(answer) || PyTuple_GET_SIZE(answer) != 2) {
        Py_XDECREF(answer);
        return fall_back(self, args, nargsf, kwnames);
    }
    if (!with_flag) {
        PyObject *dtype = PyTuple_GET_ITEM(answer, 0);
        Py_INCREF(dtype);
        Py_DECREF(answer);
        return dtype;
    }
    return answer;
}

static int
fastpath_traverse(PyObject *op, visitproc visit, void *arg)
{
    FastPath *self = (FastPath *)op;
    Py_VISIT(self->dict);
    Py_VISIT(self->fallback);
    Py_VISIT(self->namespace);
    Py_VISIT(self->slow_name);
    Py_VISIT(self->default_state);
    Py_VISIT(self->state_type);
    Py_VISIT(self->process);
    Py_VISIT(self->resolved_type);
    Py_VISIT(self->type_tokens);
    Py_VISIT(self->numpy_tokens);
    Py_VISIT(self->jax_tokens);
    return 0;
}

static int
fastpath_clear(PyObject *op)
{
    FastPath *self = (FastPath *)op;
    Py_CLEAR(self->dict);
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->namespace);
    Py_CLEAR(self->slow_name);
    Py_CLEAR(self->default_state);
    Py_CLEAR(self->state_type);
    Py_CLEAR(self->process);
    Py_CLEAR(self->resolved_type);
    Py_CLEAR(self->type_tokens);
    Py_CLEAR(self->numpy_tokens);
    Py_CLEAR(self->jax_tokens);
    return 0;
}

static void
fastpath_dealloc(PyObject *op)
{
    PyObject_GC_UnTrack(op);
    fastpath_clear(op);
    Py_TYPE(op)->tp_free(op);
}

static PyObject *
fastpath_repr(PyObject *op)
{
    FastPath *self = (FastPath *)op;
    return PyUnicode_FromFormat("<accelerated %R>", self->fallback);
}

static PyObject *
fastpath_get(PyObject *op, PyObject *obj, PyObject *type)
{
    /* Like a builtin function: not bound when stored on a class. */
    Py_INCREF(op);
    return op;
}

static PyGetSetDef fastpath_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict},
    {NULL}
};

static PyTypeObject FastPathType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "jaxtypes._speedups.FastPath",
    .tp_basicsize = sizeof(FastPath),
    .tp_dealloc = fastpath_dealloc,
    .tp_vectorcall_offset = offsetof(FastPath, vectorcall),
    .tp_repr = fastpath_repr,
    .tp_call = PyVectorcall_Call,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A C fast path over a cached Python function (see jaxtypes.promotion).",
    .tp_traverse = fastpath_traverse,
    .tp_clear = fastpath_clear,
    .tp_getset = fastpath_getset,
    .tp_descr_get = fastpath_get,
    .tp_dictoffset = offsetof(FastPath, dict),
};

/* The offset of the object slot `name` in instances of state_type, or -1
 * with an exception set. */
static Py_ssize_t
slot_offset(PyTypeObject *state_type, const char *name)
{
    PyObject *descr = PyObject_GetAttrString((PyObject *)state_type, name);
    Py_ssize_t offset = -1;
    if (descr == NULL)
        return -1;
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type)
            && ((PyMemberDescrObject *)descr)->d_member->type == Py_T_OBJECT_EX)
        offset = ((PyMemberDescrObject *)descr)->d_member->offset;
    else
        PyErr_Format(PyExc_TypeError, "%s.%s must be a __slots__ entry, not %R",
                     state_type->tp_name, name, descr);
    Py_DECREF(descr);
    return offset;
}

static FastPath *
new_fastpath(vectorcallfunc call, PyObject *fallback, PyObject *namespace,
             PyObject *slow_name, PyObject *default_state, PyTypeObject *state_type,
             PyObject *process, PyTypeObject *resolved_type, const char *cache_slot)
{
    FastPath *self;
    Py_ssize_t memo_offset, process_offset, cache_offset;
    if (!PyCallable_Check(fallback)) {
        PyErr_Format(PyExc_TypeError, "fallback must be callable, not %R", fallback);
        return NULL;
    }
    if ((memo_offset = slot_offset(state_type, "memo")) < 0
            || (process_offset = slot_offset(Py_TYPE(process), "layer")) < 0
            || (cache_offset = slot_offset(resolved_type, cache_slot)) < 0)
        return NULL;
    if (!PyObject_TypeCheck(default_state, state_type)) {
        PyErr_Format(PyExc_TypeError, "default_state must be a %s, not %R",
                     state_type->tp_name, default_state);
        return NULL;
    }
    self = PyObject_GC_New(FastPath, &FastPathType);
    if (self == NULL)
        return NULL;
    self->vectorcall = call;
    self->dict = NULL;
    self->fallback = Py_NewRef(fallback);
    self->namespace = Py_NewRef(namespace);
    self->slow_name = Py_NewRef(slow_name);
    self->default_state = Py_NewRef(default_state);
    self->state_type = (PyTypeObject *)Py_NewRef(state_type);
    self->memo_offset = memo_offset;
    self->process = Py_NewRef(process);
    self->process_offset = process_offset;
    self->resolved_type = (PyTypeObject *)Py_NewRef(resolved_type);
    self->cache_offset = cache_offset;
    self->type_tokens = self->numpy_tokens = self->jax_tokens = NULL;
    self->key_base = 2;
    self->int_key_args = 0;
    PyObject_GC_Track(self);
    return self;
}

PyDoc_STRVAR(promote_types_fast_doc,
"promote_types_fast(fallback, namespace, slow_name, default_state, state_type,\n"
"                   process, resolved_type, /)\n--\n\n"
"A callable answering promote_types from the promote_cache of the Resolved\n"
"configuration in force, calling namespace[slow_name](a, b, resolved) on a\n"
"miss and fallback(a, b) for everything else.");

static PyObject *
promote_types_fast(PyObject *module, PyObject *args)
{
    PyObject *fallback, *namespace, *slow_name, *default_state, *process;
    PyTypeObject *state_type, *resolved_type;
    if (!PyArg_ParseTuple(args, "OO!UOO!OO!:promote_types_fast", &fallback,
                          &PyDict_Type, &namespace, &slow_name,
                          &default_state, &PyType_Type, &state_type,
                          &process, &PyType_Type, &resolved_type))
        return NULL;
    return (PyObject *)new_fastpath(promote_types_call, fallback, namespace, slow_name, default_state,
                                    state_type, process, resolved_type, "promote_cache");
}

PyDoc_STRVAR(result_type_fast_doc,
"result_type_fast(fallback, namespace, slow_name, default_state, state_type,\n"
"                 process, resolved_type, type_tokens, numpy_tokens, jax_tokens,\n"
"                 key_base, /)\n--\n\n"
"A callable answering result_type from Resolved.result_cache, keyed as\n"
"jaxtypes.promotion.result_type keys it, calling\n"
"namespace[slow_name](args, resolved, key) on a miss and fallback otherwise.");

static PyObject *
result_type_fast(PyObject *module, PyObject *args)
{
    PyObject *fallback, *namespace, *slow_name, *default_state, *process;
    PyObject *type_tokens, *numpy_tokens, *jax_tokens;
    PyTypeObject *state_type, *resolved_type;
    FastPath *self;
    long long key_base, power = 1;
    Py_ssize_t int_key_args = 0;
    if (!PyArg_ParseTuple(args, "OO!UOO!OO!O!O!O!L:result_type_fast", &fallback,
                          &PyDict_Type, &namespace, &slow_name,
                          &default_state, &PyType_Type, &state_type,
                          &process, &PyType_Type, &resolved_type,
                          &PyDict_Type, &type_tokens, &PyDict_Type, &numpy_tokens,
                          &PyDict_Type, &jax_tokens, &key_base))
        return NULL;
    if (key_base < 2) {
        PyErr_Format(PyExc_ValueError, "key_base must be at least 2, not %lld", key_base);
        return NULL;
    }
    /* As promotion._INT_KEY_ARGS: the most digits whose every value fits. */
    while (power <= LLONG_MAX / key_base) {
        power *= key_base;
        int_key_args++;
    }
    self = new_fastpath(result_type_call, fallback, namespace, slow_name, default_state, state_type,
                        process, resolved_type, "result_cache");
    if (self == NULL)
        return NULL;
    self->type_tokens = Py_NewRef(type_tokens);
    self->numpy_tokens = Py_NewRef(numpy_tokens);
    self->jax_tokens = Py_NewRef(jax_tokens);
    self->key_base = key_base;
    self->int_key_args = int_key_args;
    return (PyObject *)self;
}

PyDoc_STRVAR(thread_state_doc,
"thread_state()\n--\n\n"
"This thread's State, or None.");

static PyObject *
thread_state(PyObject *module, PyObject *unused)
{
    return Py_NewRef(thread_state_value != NULL ? thread_state_value : Py_None);
}

PyDoc_STRVAR(set_thread_state_doc,
"set_thread_state(state, /)\n--\n\n"
"Set this thread's State (None for none).");

static PyObject *
set_thread_state(PyObject *module, PyObject *state)
{
    PyObject *old = thread_state_value;
    thread_state_value = state == Py_None ? NULL : Py_NewRef(state);
    if (state != Py_None)
        any_thread_state = 1;
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyMethodDef speedups_methods[] = {
    {"thread_state", thread_state, METH_NOARGS, thread_state_doc},
    {"set_thread_state", set_thread_state, METH_O, set_thread_state_doc},
    {"promote_types_fast", promote_types_fast, METH_VARARGS, promote_types_fast_doc},
    {"result_type_fast", result_type_fast, METH_VARARGS, result_type_fast_doc},
    {NULL}
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT, "jaxtypes._speedups",
    "C fast paths for jaxtypes.promotion's cached answers.", -1, speedups_methods,
};

#define INTERN(var, text) \
    if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL

PyMODINIT_FUNC
PyInit__speedups(void)
{
    PyObject *module;
    INTERN(str_aval, "aval");
    INTERN(str_dtype, "dtype");
    INTERN(str_weak_type, "weak_type");
    INTERN(str_return_weak_type_flag, "return_weak_type_flag");
    if (PyType_Ready(&FastPathType) < 0)
        return NULL;
    module = PyModule_Create(&speedups_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&FastPathType);
    if (PyModule_AddObject(module, "FastPath", (PyObject *)&FastPathType) < 0) {
        Py_DECREF(&FastPathType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
