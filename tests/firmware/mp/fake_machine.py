"""A fake ``machine`` module that mirrors the rp2 port, for firmware/board.py on the VM.

Installed as ``machine`` by run.mjs. As on the rp2 port: PWRON_RESET (1) and WDT_RESET (3)
are the only reset causes (there is no SOFT_RESET), machine.reset() is a watchdog reboot
(reset_cause() reads WDT_RESET afterwards) and memory through ``mem32`` keeps the watchdog
scratch registers across it. Pins, PWM, UART and I2C keep what was written; the I2C bus
answers as a TCA9555 at 0x20 and a PCA9685 at 0x40 with every pocket mouth clear.
"""

PWRON_RESET = 1
WDT_RESET = 3

_state = {"cause": PWRON_RESET}


class _Mem32:
    def __init__(self):
        self.words = {}

    def __getitem__(self, addr):
        return _read_word(addr)

    def __setitem__(self, addr, value):
        self.words[addr] = value & 0xFFFFFFFF


mem32 = _Mem32()


def reset_cause():
    return _state["cause"]


def reset():
    """rp2: watchdog_reboot(0, SRAM_END, 0). The fake returns; the next boot reads WDT_RESET."""
    _state["cause"] = WDT_RESET


def power_cycle():
    _state["cause"] = PWRON_RESET
    mem32.words = {}


class Pin:
    IN, OUT, OPEN_DRAIN, PULL_UP, PULL_DOWN = 0, 1, 2, 1, 2
    IRQ_FALLING, IRQ_RISING = 4, 8
    pins = {}
    wired = {}  # inputs held at a level by the outside world (a jumper, a sensor)

    def __init__(self, n, mode=-1, pull=-1, value=None):
        self.n = n
        if value is not None:
            self.v = value
        elif n in Pin.wired:
            self.v = Pin.wired[n]
        else:
            self.v = 1 if pull == Pin.PULL_UP else 0
        Pin.pins[n] = self

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = 1 if v else 0
        return None

    def toggle(self):
        self.v ^= 1

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler
        self.trigger = trigger


class ADC:
    def __init__(self, pin):
        self.pin = pin
        self.level = 20000

    def read_u16(self):
        return self.level


PIO_FDEBUG = 0x50200008


def _read_word(addr):
    if addr == PIO_FDEBUG:
        return 0x0F << 24  # every state machine stalled on an empty TX FIFO: moves are instant
    return mem32.words.get(addr, 0)


class PWM:
    def __init__(self, pin, freq=0, duty_u16=0):
        self.pin = pin
        self.hz = freq
        self.duty = duty_u16

    def freq(self, hz=None):
        if hz is None:
            return self.hz
        self.hz = hz
        return None

    def duty_u16(self, d=None):
        if d is None:
            return self.duty
        self.duty = d
        return None


def _crc(data):
    crc = 0
    for byte in data:
        for _ in range(8):
            if ((crc >> 7) ^ (byte & 1)) & 1:
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
            byte >>= 1
    return crc


class TMCBus:
    """Three TMC2209s on one single-wire UART (nodes 0..2): registers, IFCNT, echo."""

    present = [0, 1, 2]

    def __init__(self):
        self.regs = {}
        self.ifcnt = {}

    def take(self, data):
        out = bytes(data)  # single wire: the master's bytes come back as an echo
        if len(data) == 8 and data[0] == 0x05 and data[2] & 0x80 and _crc(data[:7]) == data[7]:
            node = data[1]
            if node in self.present:
                self.regs[(node, data[2] & 0x7F)] = (data[3] << 24) | (data[4] << 16) | (data[5] << 8) | data[6]
                self.ifcnt[node] = (self.ifcnt.get(node, 0) + 1) & 0xFF
        elif len(data) == 4 and data[0] == 0x05 and _crc(data[:3]) == data[3] and data[1] in self.present:
            node, reg = data[1], data[2]
            value = self.ifcnt.get(node, 0) if reg == 0x02 else self.regs.get((node, reg), 0)
            reply = bytearray((0x05, 0xFF, reg, (value >> 24) & 0xFF, (value >> 16) & 0xFF,
                               (value >> 8) & 0xFF, value & 0xFF))
            reply.append(_crc(reply))
            out += bytes(reply)
        return out


tmc_bus = TMCBus()


class UART:
    def __init__(self, n, baudrate=9600, tx=None, rx=None, timeout=0):
        self.n = n
        self.incoming = b""
        self.sent = b""

    def write(self, data):
        self.sent += bytes(data)
        if self.n == 1:
            self.incoming += tmc_bus.take(bytes(data))
        return len(data)

    def any(self):
        return len(self.incoming)

    def read(self, n=-1):
        data = self.incoming
        self.incoming = b""
        return data


class I2C:
    """I2C1 with a TCA9555 at 0x20 (input ports 0/1 read high: every pocket mouth clear) and a
    PCA9685 at 0x40, as register files; ``present`` lists the chips that answer."""

    present = [0x20, 0x40]
    bus = None

    def __init__(self, n, sda=None, scl=None, freq=400000):
        self.regs = {0x20: {0: 0xFF, 1: 0xFF}, 0x40: {}}
        I2C.bus = self

    def writeto_mem(self, addr, mem, data):
        if addr not in I2C.present:
            raise OSError(19)
        regs = self.regs.setdefault(addr, {})  # (a chip a test adds to ``present``: 0x41, the splitter's)
        for i in range(len(data)):
            regs[mem + i] = data[i]

    def readfrom_mem(self, addr, mem, n):
        if addr not in I2C.present:
            raise OSError(19)
        return bytes([self.regs[addr].get(mem + i, 0) for i in range(n)])

    def set_pocket(self, k, card):
        """The mouth opto of pocket k sees a card (low) or not."""
        port, bit = (0, k) if k < 8 else (1, k - 8)
        v = self.regs[0x20][port]
        self.regs[0x20][port] = (v & ~(1 << bit)) if card else (v | (1 << bit))

    def servo_us(self, channel):
        r = self.regs[0x40]
        base = 0x06 + 4 * channel
        return ((r.get(base + 3, 0) << 8) | r.get(base + 2, 0)) * 20000 // 4096


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0

    def feed(self):
        self.feeds += 1
