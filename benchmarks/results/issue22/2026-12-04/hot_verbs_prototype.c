/* prototype: Spades play phase legal_actions/apply in C over a mypyc native class */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct { getter get; setter set; void *closure; } Attr;

static Attr A_phase, A_on_turn, A_masks, A_trump, A_trick, A_led, A_must_beat, A_broken, A_actions, A_win_card, A_n;
static PyObject *PLAY_STR, *ACTION_T, *SEAT_PLAY, *BIT, *SEAT_CARD, *SEATS, *SUIT_PLAYS, *NOT_SUIT;
static PyObject *ORIG_APPLY, *ORIG_LEGAL, *END_TRICK;

static int attr_of(PyObject *cls, const char *name, Attr *a) {
    PyObject *d = PyObject_GetAttrString(cls, name);
    if (!d) return -1;
    if (Py_TYPE(d) != &PyGetSetDescr_Type) { PyErr_Format(PyExc_TypeError, "%s is not a getset", name); Py_DECREF(d); return -1; }
    PyGetSetDef *g = ((PyGetSetDescrObject *)d)->d_getset;
    a->get = g->get; a->set = g->set; a->closure = g->closure;
    Py_DECREF(d);
    return 0;
}

#define GET(a, self) ((a).get((self), (a).closure))
#define SET(a, self, v) ((a).set((self), (v), (a).closure))

static inline long long as_ll(PyObject *o) { return PyLong_AsLongLong(o); }

static PyObject *plays_of(long long m) {
    int count = __builtin_popcountll((unsigned long long)m);
    PyObject *out = PyList_New(count);
    if (!out) return NULL;
    Py_ssize_t k = 0;
    for (int s = 0; s < 4; s++) {
        long long bits = (m >> (13 * s)) & 0x1FFF;
        if (!bits) continue;
        PyObject *t = PyTuple_GET_ITEM(PyTuple_GET_ITEM(SUIT_PLAYS, s), bits);
        Py_ssize_t n = PyTuple_GET_SIZE(t);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = PyTuple_GET_ITEM(t, i);
            Py_INCREF(x);
            PyList_SET_ITEM(out, k++, x);
        }
    }
    return out;
}

static inline int is_play(PyObject *ph) {
    if (ph == PLAY_STR) return 1;
    return PyUnicode_Check(ph) && PyUnicode_Compare(ph, PLAY_STR) == 0;
}

/* seat argument: returns the seat on turn index if the call may take the fast path, else -1 */
static PyObject *spades_legal(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *seat = Py_None;
    if (kwnames || nargs > 1) goto slow;
    if (nargs == 1) seat = args[0];
    PyObject *ph = GET(A_phase, self);
    if (!ph) return NULL;
    int play = is_play(ph);
    Py_DECREF(ph);
    if (!play) goto slow;
    PyObject *ot = GET(A_on_turn, self);
    if (!ot) return NULL;
    if (PyTuple_GET_SIZE(ot) < 1) { Py_DECREF(ot); goto slow; }
    long on = PyLong_AsLong(PyTuple_GET_ITEM(ot, 0));
    Py_DECREF(ot);
    if (seat != Py_None) {
        if (!PyLong_CheckExact(seat) || PyLong_AsLong(seat) != on) { PyErr_Clear(); goto slow; }
    }
    PyObject *mb = GET(A_must_beat, self);
    if (!mb) return NULL;
    int must = mb == Py_True;
    Py_DECREF(mb);
    if (must) goto slow;
    PyObject *masks = GET(A_masks, self);
    if (!masks) return NULL;
    long long m = as_ll(PyList_GET_ITEM(masks, on));
    Py_DECREF(masks);
    PyObject *trick = GET(A_trick, self);
    if (!trick) return NULL;
    Py_ssize_t tl = PyList_GET_SIZE(trick);
    Py_DECREF(trick);
    if (tl) {
        PyObject *lo = GET(A_led, self);
        if (!lo) return NULL;
        long led = PyLong_AsLong(lo);
        Py_DECREF(lo);
        long long bits = (m >> (led * 13)) & 0x1FFF;
        if (bits) {
            PyObject *r = PyTuple_GET_ITEM(PyTuple_GET_ITEM(SUIT_PLAYS, led), bits);
            Py_INCREF(r);
            return r;
        }
        return plays_of(m);
    }
    PyObject *br = GET(A_broken, self);
    if (!br) return NULL;
    int broken = br == Py_True;
    Py_DECREF(br);
    if (!broken) {
        PyObject *tr = GET(A_trump, self);
        if (!tr) return NULL;
        long trump = PyLong_AsLong(tr);
        Py_DECREF(tr);
        long long rest = m & as_ll(PyTuple_GET_ITEM(NOT_SUIT, trump));
        if (rest) return plays_of(rest);
    }
    return plays_of(m);
slow:
    {
        PyObject *stack[3];
        stack[0] = self;
        for (Py_ssize_t i = 0; i < nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0); i++) stack[1 + i] = args[i];
        return PyObject_Vectorcall(ORIG_LEGAL, stack, 1 + nargs, kwnames);
    }
}

static PyObject *spades_apply(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (kwnames || nargs < 1 || nargs > 2) goto slow;
    PyObject *action = args[0];
    PyObject *seat = nargs == 2 ? args[1] : Py_None;
    if ((PyObject *)Py_TYPE(action) != ACTION_T) goto slow;
    PyObject *kind = PyTuple_GET_ITEM(action, 0);
    if (!is_play(kind)) goto slow;
    PyObject *ph = GET(A_phase, self);
    if (!ph) return NULL;
    int play = is_play(ph);
    Py_DECREF(ph);
    if (!play) goto slow;
    PyObject *ot = GET(A_on_turn, self);
    if (!ot) return NULL;
    if (PyTuple_GET_SIZE(ot) < 1) { Py_DECREF(ot); goto slow; }
    long on = PyLong_AsLong(PyTuple_GET_ITEM(ot, 0));
    Py_DECREF(ot);
    if (seat != Py_None && (!PyLong_CheckExact(seat) || PyLong_AsLong(seat) != on)) { PyErr_Clear(); goto slow; }
    PyObject *value = PyTuple_GET_ITEM(action, 1);
    if (!PyLong_CheckExact(value)) goto slow;
    long card = PyLong_AsLong(value);
    if (card < 0 || card >= 52) { PyErr_Clear(); goto slow; }
    PyObject *masks = GET(A_masks, self);
    if (!masks) return NULL;
    long long m = as_ll(PyList_GET_ITEM(masks, on));
    if (!((m >> card) & 1)) { Py_DECREF(masks); goto slow; }
    long s = card / 13;
    PyObject *tr = GET(A_trump, self);
    long trump = PyLong_AsLong(tr);
    Py_DECREF(tr);
    PyObject *trick = GET(A_trick, self);
    Py_ssize_t tl = PyList_GET_SIZE(trick);
    int ok;
    int broken;
    {
        PyObject *br = GET(A_broken, self);
        broken = br == Py_True;
        Py_DECREF(br);
    }
    long led = -1;
    if (tl) {
        PyObject *lo = GET(A_led, self);
        led = PyLong_AsLong(lo);
        Py_DECREF(lo);
        ok = s == led || !((m >> (led * 13)) & 0x1FFF);
        if (ok) {
            PyObject *mb = GET(A_must_beat, self);
            int must = mb == Py_True;
            Py_DECREF(mb);
            if (must) { Py_DECREF(masks); Py_DECREF(trick); goto slow; }
        }
    } else {
        ok = s != trump || broken || !(m & as_ll(PyTuple_GET_ITEM(NOT_SUIT, trump)));
    }
    if (!ok) { Py_DECREF(masks); Py_DECREF(trick); goto slow; }
    PyObject *acts = GET(A_actions, self);
    if (PyList_Append(acts, PyTuple_GET_ITEM(PyTuple_GET_ITEM(SEAT_PLAY, on), card)) < 0) { Py_DECREF(acts); Py_DECREF(masks); Py_DECREF(trick); return NULL; }
    Py_DECREF(acts);
    PyObject *nm = PyNumber_Xor(PyList_GET_ITEM(masks, on), PyTuple_GET_ITEM(BIT, card));
    if (!nm) { Py_DECREF(masks); Py_DECREF(trick); return NULL; }
    PyList_SetItem(masks, on, nm);
    Py_DECREF(masks);
    if (!tl) {
        { PyObject *lv = PyLong_FromLong(s); SET(A_led, self, lv); Py_DECREF(lv); }
        SET(A_win_card, self, value);
        if (s == trump) SET(A_broken, self, Py_True);
    } else {
        PyObject *wo = GET(A_win_card, self);
        long w = PyLong_AsLong(wo);
        Py_DECREF(wo);
        if (s == trump) {
            SET(A_broken, self, Py_True);
            if (w / 13 != s || card > w) SET(A_win_card, self, value);
        } else if (card > w && s == w / 13) {
            SET(A_win_card, self, value);
        }
    }
    if (PyList_Append(trick, PyTuple_GET_ITEM(PyTuple_GET_ITEM(SEAT_CARD, on), card)) < 0) { Py_DECREF(trick); return NULL; }
    PyObject *no = GET(A_n, self);
    long n = PyLong_AsLong(no);
    Py_DECREF(no);
    if (PyList_GET_SIZE(trick) < n) {
        Py_DECREF(trick);
        PyObject *t = PyTuple_GET_ITEM(SEATS, on + 1 < n ? on + 1 : 0);
        SET(A_on_turn, self, t);
        Py_INCREF(t);
        return t;
    }
    PyObject *stack[2] = {self, trick};
    PyObject *r = PyObject_Vectorcall(END_TRICK, stack, 2, NULL);
    Py_DECREF(trick);
    if (!r) return NULL;
    Py_DECREF(r);
    return GET(A_on_turn, self);
slow:
    {
        PyObject *stack[4];
        stack[0] = self;
        Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
        for (Py_ssize_t i = 0; i < total && i < 3; i++) stack[1 + i] = args[i];
        return PyObject_Vectorcall(ORIG_APPLY, stack, 1 + nargs, kwnames);
    }
}

static PyMethodDef legal_def = {"legal_actions", (PyCFunction)(void (*)(void))spades_legal, METH_FASTCALL | METH_KEYWORDS, NULL};
static PyMethodDef apply_def = {"apply", (PyCFunction)(void (*)(void))spades_apply, METH_FASTCALL | METH_KEYWORDS, NULL};

static PyObject *install(PyObject *mod, PyObject *args) {
    PyObject *cls;
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &cls, &ACTION_T, &SEAT_PLAY, &BIT, &SEAT_CARD, &SEATS, &SUIT_PLAYS, &NOT_SUIT)) return NULL;
    Py_INCREF(ACTION_T); Py_INCREF(SEAT_PLAY); Py_INCREF(BIT); Py_INCREF(SEAT_CARD); Py_INCREF(SEATS); Py_INCREF(SUIT_PLAYS); Py_INCREF(NOT_SUIT);
    PLAY_STR = PyUnicode_InternFromString("play");
    if (attr_of(cls, "phase", &A_phase) || attr_of(cls, "on_turn", &A_on_turn) || attr_of(cls, "masks", &A_masks) ||
        attr_of(cls, "trump", &A_trump) || attr_of(cls, "trick", &A_trick) || attr_of(cls, "led", &A_led) ||
        attr_of(cls, "must_beat", &A_must_beat) || attr_of(cls, "broken", &A_broken) || attr_of(cls, "actions", &A_actions) ||
        attr_of(cls, "win_card", &A_win_card) || attr_of(cls, "n", &A_n)) return NULL;
    ORIG_APPLY = PyObject_GetAttrString(cls, "apply");
    ORIG_LEGAL = PyObject_GetAttrString(cls, "legal_actions");
    END_TRICK = PyObject_GetAttrString(cls, "_end_played_trick");
    if (!ORIG_APPLY || !ORIG_LEGAL || !END_TRICK) return NULL;
    PyObject *a = PyDescr_NewMethod((PyTypeObject *)cls, &apply_def);
    PyObject *l = PyDescr_NewMethod((PyTypeObject *)cls, &legal_def);
    if (!a || !l) return NULL;
    if (PyObject_SetAttrString(cls, "apply", a) < 0 || PyObject_SetAttrString(cls, "legal_actions", l) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {{"install", install, METH_VARARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_hot", NULL, -1, methods};
PyMODINIT_FUNC PyInit__hot(void) { return PyModule_Create(&moddef); }
