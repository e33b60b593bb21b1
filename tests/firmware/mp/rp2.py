# ruff: noqa: A001 - PIO mnemonics (set, ...) are the names rp2.asm_pio gives them
"""A fake ``rp2`` module for firmware/board.py: the PIO assembler, state machines and DMA.

Installed as ``rp2`` by run.mjs (MicroPython VM) and by tests/firmware/test_fw_board.py
(CPython). ``asm_pio`` does what the real one does to the decorated function (it runs it with
the PIO mnemonics as its globals) and records the instructions, so ``run_program`` can execute
a program cycle by cycle: the checks count the step pulses and PIO cycles of board.py's
``_stepper`` for a segment list and compare them with firmware/motion.py's arithmetic.
A DMA transfer and a state machine's run complete at once (moves take no time here).
"""


class PIO:
    OUT_LOW = 0
    OUT_HIGH = 1
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_TX = 1


def asm_pio(**kw):
    def dec(f):
        prog = []
        labels = {}
        marks = {}

        def emit(op, *args):
            prog.append((op,) + args)

        def _label(name):
            labels[name] = len(prog)

        def _wrap_target():
            marks["wrap_target"] = len(prog)

        def _wrap():
            marks["wrap"] = len(prog)

        names = {
            "wrap_target": _wrap_target, "wrap": _wrap, "label": _label,
            "pull": lambda *a: emit("pull"), "mov": lambda d, s: emit("mov", d, s),
            "set": lambda d, v: emit("set", d, v), "jmp": lambda c, t=None: emit("jmp", c, t),
            "pins": "pins", "x": "x", "y": "y", "isr": "isr", "osr": "osr",
            "x_dec": "x_dec", "y_dec": "y_dec", "block": "block", "noblock": "noblock",
        }
        g = f.__globals__
        saved = {}
        for k in names:
            if k in g:
                saved[k] = g[k]
            g[k] = names[k]
        try:
            f()
        finally:
            for k in names:
                if k in saved:
                    g[k] = saved[k]
                else:
                    del g[k]
        return {"prog": prog, "labels": labels, "wrap_target": marks.get("wrap_target", 0),
                "wrap": marks.get("wrap", len(prog)), "options": kw}

    return dec


def run_program(program, words, max_cycles=10 ** 9):
    """Run a recorded program on a TX FIFO holding ``words`` until it stalls on an empty
    pull. Returns (rising edges of the set pin, cycles until the stall)."""
    prog = program["prog"]
    labels = program["labels"]
    fifo = list(words)
    reg = {"x": 0, "y": 0, "isr": 0, "osr": 0}
    pin = 0
    edges = 0
    cycles = 0
    pc = program["wrap_target"]
    while cycles < max_cycles:
        if pc >= program["wrap"]:
            pc = program["wrap_target"]
        op = prog[pc]
        if op[0] == "pull":
            if not fifo:
                return edges, cycles
            reg["osr"] = fifo.pop(0)
            pc += 1
        elif op[0] == "mov":
            reg[op[1]] = reg[op[2]]
            pc += 1
        elif op[0] == "set":
            if op[2] and not pin:
                edges += 1
            pin = op[2]
            pc += 1
        elif op[0] == "jmp":
            cond = op[1]
            if cond in ("x_dec", "y_dec"):
                r = cond[0]
                take = reg[r] != 0
                reg[r] = (reg[r] - 1) & 0xFFFFFFFF
                pc = labels[op[2]] if take else pc + 1
            else:
                pc = labels[op[1] if op[2] is None else op[2]]
        else:
            raise ValueError("instruction the fake PIO does not run: " + op[0])
        cycles += 1
    raise AssertionError("PIO program ran past max_cycles")


class StateMachine:
    machines = {}

    def __init__(self, sm_id, program, freq=0, set_base=None, **kw):
        self.id = sm_id
        self.program = program
        self.freq = freq
        self.set_base = set_base
        self.running = False
        self.received = []  # every word a DMA or put() delivered
        StateMachine.machines[sm_id] = self

    def active(self, on=None):
        if on is None:
            return self.running
        self.running = bool(on)
        return None

    def restart(self):
        pass

    def tx_fifo(self):
        return 0

    def put(self, word):
        self.received.append(word)


class DMA:
    channels = []

    def __init__(self):
        self.busy = False
        self.transfers = []
        DMA.channels.append(self)

    def pack_ctrl(self, **kw):
        return kw

    def config(self, read=None, write=None, count=0, ctrl=None, trigger=False):
        words = [read[i] for i in range(count)]
        self.transfers.append((write, words, ctrl))
        sm_id = ctrl.get("treq_sel", -1) if ctrl else -1
        if sm_id in StateMachine.machines:
            StateMachine.machines[sm_id].received.extend(words)

    def active(self, on=None):
        if on is None:
            return self.busy
        self.busy = bool(on) and self.busy
        return None
