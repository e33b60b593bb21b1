"""A fake ``machine`` module that mirrors the rp2 port, for firmware/board.py on the VM.

Installed as ``machine`` by run.mjs. As on the rp2 port: PWRON_RESET (1) and WDT_RESET (3)
are the only reset causes (there is no SOFT_RESET), machine.reset() is a watchdog reboot
(reset_cause() reads WDT_RESET afterwards) and memory through ``mem32`` keeps the watchdog
scratch registers across it. Pins, PWM, UART and I2C keep what was written; the I2C bus
answers as an MCP23017 at 0x20 and a PCA9685 at 0x40 with the shutter switch closed.
"""

PWRON_RESET = 1
WDT_RESET = 3

_state = {"cause": PWRON_RESET}


class _Mem32:
    def __init__(self):
        self.words = {}

    def __getitem__(self, addr):
        return self.words.get(addr, 0)

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
    pins = {}

    def __init__(self, n, mode=-1, pull=-1, value=None):
        self.n = n
        if value is not None:
            self.v = value
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


class UART:
    def __init__(self, n, baudrate=9600, tx=None, rx=None, timeout=0):
        self.incoming = b""
        self.sent = b""

    def write(self, data):
        self.sent += bytes(data)
        return len(data)

    def any(self):
        return len(self.incoming)

    def read(self, n=-1):
        data = self.incoming
        self.incoming = b""
        return data


class I2C:
    def __init__(self, n, sda=None, scl=None, freq=400000):
        self.regs = {0x20: {}, 0x40: {}}
        self.gpiob = 0xFF & ~(1 << 3) & ~1  # shutter closed, no stall

    def writeto_mem(self, addr, mem, data):
        if addr not in self.regs:
            raise OSError(19)
        for i in range(len(data)):
            self.regs[addr][mem + i] = data[i]

    def readfrom_mem(self, addr, mem, n):
        if addr not in self.regs:
            raise OSError(19)
        if addr == 0x20 and mem == 0x13:
            return bytes((self.gpiob,))
        return bytes([self.regs[addr].get(mem + i, 0) for i in range(n)])


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0

    def feed(self):
        self.feeds += 1
