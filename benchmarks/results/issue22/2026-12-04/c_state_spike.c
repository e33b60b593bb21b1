/* SPIKE: the play phase's hot state held in C (partnership Spades, must_beat off).
   Not for the product: a measurement of what C-held state would give through the public loop. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef struct { getter get; setter set; void *closure; } Attr;
static Attr A_phase, A_on_turn, A_masks, A_trump, A_trick, A_led, A_must_beat, A_broken, A_actions,
    A_win_card, A_n, A_tricks, A_tricks_taken;
static PyObject *PLAY_STR, *ACTION_T, *SEAT_PLAY, *SEAT_CARD, *SEATS, *SUIT_PLAYS;
static PyObject *ORIG_APPLY, *ORIG_LEGAL, *ORIG_START, *END_TRICK;

/* the core: valid for `state` only */
static PyObject *st;      /* borrowed identity of the state the core holds */
static int valid;
static uint64_t M[4];
static int led, win_card, broken, trump, n_seats, on, tricks_done;
static uint64_t not_suit[4];

#define GET(a, self) ((a).get((self), (a).closure))
#define SET(a, self, v) ((a).set((self), (v), (a).closure))

static int attr_of(PyObject *cls, const char *name, Attr *a) {
    PyObject *d = PyObject_GetAttrString(cls, name);
    if (!d) return -1;
    if (Py_TYPE(d) != &PyGetSetDescr_Type) { PyErr_Format(PyExc_TypeError, "%s is not a getset", name); Py_DECREF(d); return -1; }
    PyGetSetDef *g = ((PyGetSetDescrObject *)d)->d_getset;
    a->get = g->get; a->set = g->set; a->closure = g->closure;
    Py_DECREF(d);
    return 0;
}

static inline int is_play(PyObject *ph) {
    return ph == PLAY_STR || (PyUnicode_Check(ph) && PyUnicode_Compare(ph, PLAY_STR) == 0);
}

static long get_long(Attr a, PyObject *self) {
    PyObject *o = GET(a, self);
    long v = PyLong_AsLong(o);
    Py_DECREF(o);
    return v;
}

/* load the core from the Python state; 0 if not in the fast case */
static int load(PyObject *self) {
    valid = 0;
    PyObject *ph = GET(A_phase, self);
    int play = is_play(ph);
    Py_DECREF(ph);
    if (!play) return 0;
    PyObject *mb = GET(A_must_beat, self);
    int must = mb == Py_True;
    Py_DECREF(mb);
    if (must) return 0;
    n_seats = (int)get_long(A_n, self);
    if (n_seats != 4) return 0;
    PyObject *ms = GET(A_masks, self);
    for (int i = 0; i < 4; i++) M[i] = (uint64_t)PyLong_AsUnsignedLongLong(PyList_GET_ITEM(ms, i));
    Py_DECREF(ms);
    PyObject *ot = GET(A_on_turn, self);
    if (PyTuple_GET_SIZE(ot) != 1) { Py_DECREF(ot); return 0; }
    on = (int)PyLong_AsLong(PyTuple_GET_ITEM(ot, 0));
    Py_DECREF(ot);
    led = (int)get_long(A_led, self);
    win_card = (int)get_long(A_win_card, self);
    trump = (int)get_long(A_trump, self);
    PyObject *br = GET(A_broken, self);
    broken = br == Py_True;
    Py_DECREF(br);
    PyObject *tk = GET(A_tricks, self);
    tricks_done = (int)PyList_GET_SIZE(tk);
    Py_DECREF(tk);
    for (int s = 0; s < 4; s++) not_suit[s] = ((1ULL << 52) - 1) & ~(0x1FFFULL << (13 * s));
    st = self;
    valid = 1;
    return 1;
}

/* write the core back to the Python state (before any slow path reads it) */
static int store(PyObject *self) {
    if (!valid || st != self) return 0;
    PyObject *ms = GET(A_masks, self);
    for (int i = 0; i < 4; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(M[i]);
        PyList_SetItem(ms, i, v);
    }
    Py_DECREF(ms);
    PyObject *v = PyLong_FromLong(led); SET(A_led, self, v); Py_DECREF(v);
    v = PyLong_FromLong(win_card); SET(A_win_card, self, v); Py_DECREF(v);
    SET(A_broken, self, broken ? Py_True : Py_False);
    valid = 0;
    return 0;
}

static PyObject *plays_of(uint64_t m) {
    int count = __builtin_popcountll(m);
    PyObject *out = PyList_New(count);
    Py_ssize_t k = 0;
    for (int s = 0; s < 4; s++) {
        uint64_t bits = (m >> (13 * s)) & 0x1FFF;
        if (!bits) continue;
        PyObject *t = PyTuple_GET_ITEM(PyTuple_GET_ITEM(SUIT_PLAYS, s), bits);
        Py_ssize_t n = PyTuple_GET_SIZE(t);
        for (Py_ssize_t i = 0; i < n; i++) { PyObject *x = PyTuple_GET_ITEM(t, i); Py_INCREF(x); PyList_SET_ITEM(out, k++, x); }
    }
    return out;
}

static PyObject *slow(PyObject *orig, PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    store(self);
    PyObject *stack[6];
    stack[0] = self;
    Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    for (Py_ssize_t i = 0; i < total && i < 5; i++) stack[1 + i] = args[i];
    PyObject *r = PyObject_Vectorcall(orig, stack, 1 + nargs, kwnames);
    valid = 0;
    return r;
}

static PyObject *c_legal(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (kwnames || nargs > 1) return slow(ORIG_LEGAL, self, args, nargs, kwnames);
    if (!(valid && st == self) && !load(self)) return slow(ORIG_LEGAL, self, args, nargs, kwnames);
    if (nargs == 1 && args[0] != Py_None) {
        PyObject *seat = args[0];
        if (!PyLong_CheckExact(seat) || PyLong_AsLong(seat) != on) { PyErr_Clear(); return slow(ORIG_LEGAL, self, args, nargs, kwnames); }
    }
    uint64_t m = M[on];
    if (led >= 0) {
        uint64_t bits = (m >> (led * 13)) & 0x1FFF;
        if (bits) { PyObject *r = PyTuple_GET_ITEM(PyTuple_GET_ITEM(SUIT_PLAYS, led), bits); Py_INCREF(r); return r; }
        return plays_of(m);
    }
    if (!broken) { uint64_t rest = m & not_suit[trump]; if (rest) return plays_of(rest); }
    return plays_of(m);
}

static PyObject *c_apply(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (kwnames || nargs < 1 || nargs > 2) return slow(ORIG_APPLY, self, args, nargs, kwnames);
    PyObject *action = args[0];
    if ((PyObject *)Py_TYPE(action) != ACTION_T || !is_play(PyTuple_GET_ITEM(action, 0))) return slow(ORIG_APPLY, self, args, nargs, kwnames);
    if (!(valid && st == self) && !load(self)) return slow(ORIG_APPLY, self, args, nargs, kwnames);
    if (nargs == 2 && args[1] != Py_None) {
        PyObject *seat = args[1];
        if (!PyLong_CheckExact(seat) || PyLong_AsLong(seat) != on) { PyErr_Clear(); return slow(ORIG_APPLY, self, args, nargs, kwnames); }
    }
    PyObject *value = PyTuple_GET_ITEM(action, 1);
    if (!PyLong_CheckExact(value)) return slow(ORIG_APPLY, self, args, nargs, kwnames);
    long card = PyLong_AsLong(value);
    if (card < 0 || card >= 52) { PyErr_Clear(); return slow(ORIG_APPLY, self, args, nargs, kwnames); }
    uint64_t m = M[on];
    if (!((m >> card) & 1)) return slow(ORIG_APPLY, self, args, nargs, kwnames);
    int s = (int)(card / 13);
    int ok = led >= 0 ? (s == led || !((m >> (led * 13)) & 0x1FFF)) : (s != trump || broken || !(m & not_suit[trump]));
    if (!ok) return slow(ORIG_APPLY, self, args, nargs, kwnames);
    PyObject *acts = GET(A_actions, self);
    PyList_Append(acts, PyTuple_GET_ITEM(PyTuple_GET_ITEM(SEAT_PLAY, on), card));
    Py_DECREF(acts);
    M[on] = m ^ (1ULL << card);
    if (led < 0) { led = s; win_card = (int)card; if (s == trump) broken = 1; }
    else if (s == trump) { broken = 1; if (win_card / 13 != s || card > win_card) win_card = (int)card; }
    else if (card > win_card && s == win_card / 13) win_card = (int)card;
    PyObject *trick = GET(A_trick, self);
    PyList_Append(trick, PyTuple_GET_ITEM(PyTuple_GET_ITEM(SEAT_CARD, on), card));
    Py_ssize_t tl = PyList_GET_SIZE(trick);
    if (tl < 4) {
        Py_DECREF(trick);
        on = on + 1 < 4 ? on + 1 : 0;
        PyObject *t = PyTuple_GET_ITEM(SEATS, on);
        SET(A_on_turn, self, t);
        Py_INCREF(t);
        return t;
    }
    if (tricks_done + 1 < 13) {  /* the trick's end, in C */
        int winner = -1;
        for (Py_ssize_t i = 0; i < 4; i++) {
            PyObject *pc = PyList_GET_ITEM(trick, i);
            if (PyLong_AsLong(PyTuple_GET_ITEM(pc, 1)) == win_card) { winner = (int)PyLong_AsLong(PyTuple_GET_ITEM(pc, 0)); break; }
        }
        PyObject *tt = GET(A_tricks_taken, self);
        PyObject *old = PyList_GET_ITEM(tt, winner);
        PyObject *nv = PyLong_FromLong(PyLong_AsLong(old) + 1);
        PyList_SetItem(tt, winner, nv);
        Py_DECREF(tt);
        PyObject *tricks = GET(A_tricks, self);
        PyObject *tup = PyList_AsTuple(trick);
        PyList_Append(tricks, tup);
        Py_DECREF(tup);
        Py_DECREF(tricks);
        Py_DECREF(trick);
        PyObject *empty = PyList_New(0);
        SET(A_trick, self, empty);
        Py_DECREF(empty);
        tricks_done++;
        led = -1;
        on = winner;
        PyObject *t = PyTuple_GET_ITEM(SEATS, on);
        SET(A_on_turn, self, t);
        Py_INCREF(t);
        return t;
    }
    /* the hand's last trick: back to Python */
    store(self);
    PyObject *stack[2] = {self, trick};
    PyObject *r = PyObject_Vectorcall(END_TRICK, stack, 2, NULL);
    Py_DECREF(trick);
    if (!r) return NULL;
    Py_DECREF(r);
    return GET(A_on_turn, self);
}

static PyObject *c_start(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (st == self) valid = 0;
    PyObject *stack[4];
    stack[0] = self;
    Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    for (Py_ssize_t i = 0; i < total && i < 3; i++) stack[1 + i] = args[i];
    return PyObject_Vectorcall(ORIG_START, stack, 1 + nargs, kwnames);
}

static PyMethodDef legal_def = {"legal_actions", (PyCFunction)(void (*)(void))c_legal, METH_FASTCALL | METH_KEYWORDS, NULL};
static PyMethodDef apply_def = {"apply", (PyCFunction)(void (*)(void))c_apply, METH_FASTCALL | METH_KEYWORDS, NULL};
static PyMethodDef start_def = {"start_hand", (PyCFunction)(void (*)(void))c_start, METH_FASTCALL | METH_KEYWORDS, NULL};

static PyObject *install(PyObject *mod, PyObject *args) {
    PyObject *cls, *base;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &cls, &base, &ACTION_T, &SEAT_PLAY, &SEAT_CARD, &SEATS, &SUIT_PLAYS)) return NULL;
    Py_INCREF(ACTION_T); Py_INCREF(SEAT_PLAY); Py_INCREF(SEAT_CARD); Py_INCREF(SEATS); Py_INCREF(SUIT_PLAYS);
    PLAY_STR = PyUnicode_InternFromString("play");
    if (attr_of(cls, "phase", &A_phase) || attr_of(cls, "on_turn", &A_on_turn) || attr_of(cls, "masks", &A_masks) ||
        attr_of(cls, "trump", &A_trump) || attr_of(cls, "trick", &A_trick) || attr_of(cls, "led", &A_led) ||
        attr_of(cls, "must_beat", &A_must_beat) || attr_of(cls, "broken", &A_broken) || attr_of(cls, "actions", &A_actions) ||
        attr_of(cls, "win_card", &A_win_card) || attr_of(cls, "n", &A_n) || attr_of(cls, "tricks", &A_tricks) ||
        attr_of(cls, "tricks_taken", &A_tricks_taken)) return NULL;
    ORIG_APPLY = PyObject_GetAttrString(cls, "apply");
    ORIG_LEGAL = PyObject_GetAttrString(cls, "legal_actions");
    ORIG_START = PyObject_GetAttrString(cls, "start_hand");
    END_TRICK = PyObject_GetAttrString(cls, "_end_played_trick");
    if (!ORIG_APPLY || !ORIG_LEGAL || !END_TRICK || !ORIG_START) return NULL;
    PyObject *a = PyDescr_NewMethod((PyTypeObject *)cls, &apply_def);
    PyObject *l = PyDescr_NewMethod((PyTypeObject *)cls, &legal_def);
    PyObject *s = PyDescr_NewMethod((PyTypeObject *)cls, &start_def);
    if (PyObject_SetAttrString(cls, "apply", a) < 0 || PyObject_SetAttrString(cls, "legal_actions", l) < 0 ||
        PyObject_SetAttrString(cls, "start_hand", s) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {{"install", install, METH_VARARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_core", NULL, -1, methods};
PyMODINIT_FUNC PyInit__core(void) { return PyModule_Create(&moddef); }
