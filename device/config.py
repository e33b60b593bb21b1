"""The appliance's configuration: one TOML file, read into a typed, frozen ``Config``.

Why a file and not command-line flags: the table boots into the kiosk with nobody at a
keyboard, and the settings screen must be able to change things (sound, the admin PIN) and
keep them. ``default_config.toml`` next to this module is the commented reference of every
setting; a missing file means those defaults.

Where the file is: ``$TRICKREF_CONFIG``; else ``$TRICKREF_HOME/config.toml`` when
``$TRICKREF_HOME`` is set; else ``~/.config/trickref/config.toml`` (``$XDG_CONFIG_HOME``
honoured). See ``config_path``.

Errors name the file, the setting and the problem, e.g.
``config.toml: panels.seat3.ok: GPIO 99 does not exist (the Pi's header has GPIO 0 to 27)``.
``load`` collects every problem. Most settings fall back to their default with the problem
reported (a wrong screen width must not stop a game); the pin map, the expanders and the storage
folders do not, because guessing there drives the wrong pins or resumes from the wrong journal:
those raise ``ConfigError`` (as does everything with ``strict=True``). A file that is not TOML at
all gives the defaults and one problem. An unreadable admin PIN locks the settings screen rather
than falling back to the public default PIN.

Reading fails closed for the admin PIN: a file that cannot be read or is not TOML, an
``[admin]`` that is not a table, a pin that is not a hash written by the settings screen, or a
hash with fewer than ``PBKDF2_MIN_ITERATIONS`` iterations (cheap to brute-force from a copy of the
file) all lock the settings screen, with the problem saying which file and why.

Writing: ``save`` updates the file in place with tomlkit, so a hand-edited file keeps its
comments, order and layout and only the changed values are rewritten; a new file starts from the
commented ``default_config.toml``. The file is written atomically and private (0600): it holds
the PIN hash.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from .journal import write_atomically

MODES = ("auto", "simulated", "hardware")
BUTTONS = ("minus", "plus", "ok")
ROLES = (*BUTTONS, "led")
MAX_SEATS = 11
LANGUAGES = ("en", "fr", "ht", "tr")  # English, French, Haitian Creole, Turkish (ui/locale)
DEFAULT_PIN = "0000"
LOCKED = "locked"  # admin.pin value when the stored hash was unreadable: no PIN opens settings
PBKDF2_ITERATIONS = 100_000  # what the settings screen writes
PBKDF2_MIN_ITERATIONS = 100_000  # fewer in the file: refused (the settings screen stays locked)
PBKDF2_MAX_ITERATIONS = 10_000_000  # more: refused too (one check would freeze the kiosk)
GPIO_COUNT = 28  # BCM GPIO 0..27 on the 40-pin header
_RESERVED_GPIO = {0: "the HAT ID EEPROM (ID_SD)", 1: "the HAT ID EEPROM (ID_SC)"}
_I2C_GPIO = {2: "I2C SDA", 3: "I2C SCL"}
_EXPANDER_NAME = re.compile(r"^mcp(\d+)\Z")
_EXPANDER_PIN = re.compile(r"^(mcp\d+):([AB])([0-7])\Z", re.IGNORECASE)
_GPIO_TEXT = re.compile(r"^(?:GPIO|BCM)?(\d+)\Z", re.IGNORECASE)
_PIN_HASH = re.compile(r"^pbkdf2_sha256\$(\d{1,12})\$([0-9a-f]{32})\$([0-9a-f]{64})\Z")


# ---------------------------------------------------------------------------- pins


@dataclass(frozen=True, order=True)
class PinRef:
    """One pin of the pin map: a Pi GPIO (``chip`` None, BCM number) or an expander pin.

    Expander pins are numbered 0..15: GPA0..GPA7 are 0..7, GPB0..GPB7 are 8..15 (the bit in the
    16-bit port value, A in the low byte).
    """

    chip: str | None
    number: int

    @property
    def on_expander(self) -> bool:
        return self.chip is not None

    def __str__(self) -> str:
        if self.chip is None:
            return f"GPIO{self.number}"
        return f"{self.chip}:{'AB'[self.number // 8]}{self.number % 8}"

    @classmethod
    def parse(cls, value: object) -> PinRef:
        """17, "GPIO17", "BCM17" or "mcp0:A3"; ValueError saying what is wrong."""
        if isinstance(value, bool):
            raise ValueError(f"a pin is a GPIO number or \"mcpN:A0\"..\"mcpN:B7\", not {value!r}")
        if isinstance(value, int):
            number = value
        elif isinstance(value, str):
            text = value.strip()
            m = _EXPANDER_PIN.match(text)
            if m:
                return cls(m[1].lower(), (8 if m[2].upper() == "B" else 0) + int(m[3]))
            g = _GPIO_TEXT.match(text)
            if not g:
                raise ValueError(
                    f"{value!r} is not a pin: write a GPIO number (17 or \"GPIO17\") or an "
                    f"expander pin \"mcpN:A0\"..\"mcpN:B7\""
                )
            number = int(g[1])
        else:
            raise ValueError(f"a pin is a GPIO number or \"mcpN:A0\"..\"mcpN:B7\", not {value!r}")
        if not 0 <= number < GPIO_COUNT:
            raise ValueError(f"GPIO {number} does not exist (the Pi's header has GPIO 0 to {GPIO_COUNT - 1})")
        return cls(None, number)


@dataclass(frozen=True)
class SeatPins:
    """A seat panel's wiring: three buttons to GND and the "your turn" LED."""

    minus: PinRef
    plus: PinRef
    ok: PinRef
    led: PinRef

    def pins(self) -> tuple[tuple[str, PinRef], ...]:
        return (("minus", self.minus), ("plus", self.plus), ("ok", self.ok), ("led", self.led))


@dataclass(frozen=True)
class Expander:
    """One MCP23017 on the I2C bus: its name in the pin map, address and interrupt GPIO."""

    name: str
    address: int
    interrupt: int | None = None


def default_seats() -> tuple[SeatPins, ...]:
    """hardware/PANELS.md: seat s on expander s // 4, nibble s % 4 as -, +, OK, LED."""
    seats = []
    for s in range(MAX_SEATS):
        chip, base = f"mcp{s // 4}", (s % 4) * 4
        seats.append(SeatPins(*(PinRef(chip, base + i) for i in range(4))))
    return tuple(seats)


DEFAULT_EXPANDERS = (Expander("mcp0", 0x20, 17), Expander("mcp1", 0x21, 27), Expander("mcp2", 0x22, 22))


# ---------------------------------------------------------------------------- sections


@dataclass(frozen=True)
class DealerConfig:
    port: str = "/dev/trickref-dealer"  # a device, a pyserial URL, or "sim"
    baud: int = 115200


@dataclass(frozen=True)
class StorageConfig:
    """Folders; empty strings mean the defaults, resolved when asked (so $TRICKREF_HOME works)."""

    home: str = ""
    journal: str = ""
    games: str = ""

    def home_dir(self, env: Mapping[str, str] | None = None) -> Path:
        env = os.environ if env is None else env
        if self.home:
            return Path(self.home).expanduser()
        if env.get("TRICKREF_HOME"):
            return Path(env["TRICKREF_HOME"]).expanduser()
        data = env.get("XDG_DATA_HOME") or str(Path("~/.local/share").expanduser())
        return Path(data) / "trickref"

    def journal_dir(self, env: Mapping[str, str] | None = None) -> Path:
        return self._under_home(self.journal, "journal", env)

    def games_dir(self, env: Mapping[str, str] | None = None) -> Path:
        return self._under_home(self.games, "games", env)

    def _under_home(self, value: str, default: str, env: Mapping[str, str] | None) -> Path:
        home = self.home_dir(env)
        return home / default if not value else home / Path(value).expanduser()


@dataclass(frozen=True)
class AdminConfig:
    """The settings screen's PIN, as a salted PBKDF2 hash; None is the default PIN 0000."""

    pin: str | None = None

    @property
    def is_default(self) -> bool:
        """The kiosk shows "change the admin PIN (it is 0000)" while this is true."""
        return self.pin is None

    @property
    def locked(self) -> bool:
        return self.pin == LOCKED

    def check(self, pin: str) -> bool:
        if self.pin is None:
            return hmac.compare_digest(pin.encode(), DEFAULT_PIN.encode())
        m = _PIN_HASH.match(self.pin)
        if m is None or pin_hash_problem(self.pin) is not None:
            return False
        iterations, salt = int(m[1]), bytes.fromhex(m[2])
        return hmac.compare_digest(hash_pin(pin, salt, iterations), self.pin)

    def with_pin(self, pin: str) -> AdminConfig:
        """A new PIN (4 to 8 digits); ValueError otherwise."""
        check_pin_format(pin)
        return AdminConfig(None if pin == DEFAULT_PIN else hash_pin(pin))


def pin_hash_problem(value: object) -> str | None:
    """Why ``value`` cannot be the stored PIN hash, or None when it can."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return "is not a PIN hash written by the settings screen"
    m = _PIN_HASH.match(value) if isinstance(value, str) else None
    if m is None:
        if str(value).isdigit():
            return "looks like a PIN in clear; only a salted hash may be stored here"
        return "is not a PIN hash written by the settings screen"
    iterations = int(m[1])
    if iterations < PBKDF2_MIN_ITERATIONS:
        return (f"the hash uses {iterations} PBKDF2 iterations, fewer than the minimum "
                f"{PBKDF2_MIN_ITERATIONS} (too cheap to guess from a copy of the file)")
    if iterations > PBKDF2_MAX_ITERATIONS:
        return (f"the hash uses {iterations} PBKDF2 iterations, more than {PBKDF2_MAX_ITERATIONS} "
                "(checking a PIN would freeze the kiosk)")
    return None


class PinGuard:
    """Wrong admin PINs are limited: ``FREE_TRIES`` wrong tries, then each further wrong try
    locks the PIN pad for a delay that doubles (``FIRST_WAIT_S`` up to ``MAX_WAIT_S``); a right
    PIN resets the count. ``clock`` (wall-clock seconds) is injectable for tests.

    With ``state`` (a file) the count and the lock-out survive a restart, so pulling the plug
    does not buy fresh tries; the file is private (0600). A lock-out that reaches further than
    ``MAX_WAIT_S`` ahead (the clock was set back) is cut to ``MAX_WAIT_S``."""

    FREE_TRIES = 3
    FIRST_WAIT_S = 30.0
    MAX_WAIT_S = 15 * 60.0

    def __init__(self, clock: Callable[[], float] = time.time,
                 state: str | os.PathLike[str] | None = None) -> None:
        self.clock = clock
        self.state = Path(state) if state is not None else None
        self.wrong = 0
        self.until = 0.0
        self._load()

    def _load(self) -> None:
        if self.state is None:
            return
        try:
            data = json.loads(self.state.read_text(encoding="utf-8"))
            wrong, until = data["wrong"], data["until"]
        except FileNotFoundError:
            return
        except (OSError, ValueError, TypeError, KeyError):
            # unreadable: assume the worst (a full lock-out) rather than fresh tries
            wrong, until = self.FREE_TRIES, self.clock() + self.MAX_WAIT_S
        if isinstance(wrong, int) and not isinstance(wrong, bool) and isinstance(until, (int, float)):
            self.wrong = max(0, wrong)
            self.until = min(float(until), self.clock() + self.MAX_WAIT_S)

    def _save(self) -> None:
        if self.state is None:
            return
        try:
            if not self.state.parent.exists():
                self.state.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_atomically(self.state, json.dumps({"wrong": self.wrong, "until": self.until}).encode())
        except OSError:
            pass  # the limit still holds while the kiosk runs; only a restart would forget it

    def wait_left(self) -> float:
        """Seconds before the next try is accepted (0: now)."""
        self.until = min(self.until, self.clock() + self.MAX_WAIT_S)
        return max(0.0, self.until - self.clock())

    def attempt(self, check: Callable[[str], bool], pin: str) -> tuple[bool, str]:
        """(right, what to say). While locked the PIN is not even checked."""
        left = self.wait_left()
        if left > 0:
            return False, f"too many wrong PINs: try again in {_seconds(left)}"
        if check(pin):
            if self.wrong or self.until:
                self.wrong, self.until = 0, 0.0
                self._save()
            return True, ""
        self.wrong += 1
        extra = self.wrong - self.FREE_TRIES
        if extra >= 0:
            wait = min(self.MAX_WAIT_S, self.FIRST_WAIT_S * 2 ** min(extra, 30))
            self.until = self.clock() + wait
        self._save()
        if extra < 0:
            return False, "wrong PIN"
        return False, f"wrong PIN; too many wrong PINs: try again in {_seconds(wait)}"


def _seconds(s: float) -> str:
    whole = int(s + 0.999)
    return f"{whole} s" if whole < 120 else f"{(whole + 59) // 60} min"


def check_pin_format(pin: str) -> None:
    if not (isinstance(pin, str) and pin.isascii() and pin.isdigit() and 4 <= len(pin) <= 8):
        raise ValueError("a PIN is 4 to 8 digits")


def hash_pin(pin: str, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> str:
    """"pbkdf2_sha256$iterations$salt$hash" (hex); a fresh random salt unless one is given."""
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


@dataclass(frozen=True)
class DisplayConfig:
    sound: bool = True
    four_colour_suits: bool = False
    large_text: bool = False
    language: str = "en"  # one of LANGUAGES: the kiosk's words and "How to play" pages
    width: int = 800
    height: int = 480


@dataclass(frozen=True)
class PanelsConfig:
    seats: tuple[SeatPins, ...] = field(default_factory=default_seats)
    expanders: tuple[Expander, ...] = DEFAULT_EXPANDERS
    i2c_bus: int = 1
    reset: int | None = 23  # GPIO that resets the expanders (active low)
    debounce_ms: int = 20
    long_press_ms: int = 1500
    repeat_delay_ms: int = 500
    repeat_interval_ms: int = 150  # 0: no auto-repeat
    blink_ms: int = 250

    def expander(self, name: str) -> Expander:
        for e in self.expanders:
            if e.name == name:
                return e
        raise KeyError(name)


@dataclass(frozen=True)
class Config:
    mode: str = "auto"
    dealer: DealerConfig = DealerConfig()
    storage: StorageConfig = StorageConfig()
    admin: AdminConfig = AdminConfig()
    display: DisplayConfig = DisplayConfig()
    panels: PanelsConfig = PanelsConfig()

    def resolved_mode(self, exists: Callable[[str], bool] = os.path.exists) -> str:
        """"simulated" or "hardware": auto means hardware when the dealer port and GPIO exist."""
        if self.mode != "auto":
            return self.mode
        port = self.dealer.port
        if port != "sim" and exists(port) and exists("/dev/gpiochip0"):
            return "hardware"
        return "simulated"

    def replace(self, **changes: Any) -> Config:
        return replace(self, **changes)


_UNREADABLE = Config(admin=AdminConfig(LOCKED))  # a file we cannot read: defaults, settings locked


# ---------------------------------------------------------------------------- errors


@dataclass(frozen=True)
class ConfigProblem:
    """One problem in the file. ``fatal`` ones cannot fall back to a default safely."""

    field: str
    message: str
    fatal: bool = False

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class ConfigError(ValueError):
    """The configuration cannot be used; every line names file, setting and problem."""

    def __init__(self, source: str, problems: list[ConfigProblem]) -> None:
        self.source = source
        self.problems = problems
        super().__init__("\n".join(f"{source}: {p}" for p in problems))


@dataclass(frozen=True)
class Loaded:
    """What ``load`` found: the configuration, the file it came from and what fell back."""

    config: Config
    path: Path
    exists: bool
    problems: tuple[ConfigProblem, ...] = ()

    def messages(self) -> list[str]:
        return [f"{self.path}: {p}" for p in self.problems]


# ---------------------------------------------------------------------------- reading


def config_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("TRICKREF_CONFIG"):
        return Path(env["TRICKREF_CONFIG"]).expanduser()
    if env.get("TRICKREF_HOME"):
        return Path(env["TRICKREF_HOME"]).expanduser() / "config.toml"
    base = env.get("XDG_CONFIG_HOME") or str(Path("~/.config").expanduser())
    return Path(base) / "trickref" / "config.toml"


def default_toml() -> str:
    """The commented reference file shipped with the package."""
    return resources.files("device").joinpath("default_config.toml").read_text(encoding="utf-8")


def load(path: str | os.PathLike[str] | None = None, *, strict: bool = False,
         env: Mapping[str, str] | None = None) -> Loaded:
    """Read the configuration file (``config_path()`` when no path); a missing file is defaults.

    Raises ConfigError for problems that cannot fall back safely, or for any with ``strict``.
    """
    p = Path(path) if path is not None else config_path(env)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Loaded(Config(), p, False)
    except (OSError, UnicodeDecodeError) as e:
        problem = ConfigProblem("", f"cannot read the file ({e}); using the defaults, and the settings "
                                    "screen stays locked (the admin PIN in the file is unknown)")
        if strict:
            raise ConfigError(str(p), [problem]) from None
        return Loaded(_UNREADABLE, p, True, (problem,))
    config, problems = loads(text, str(p), strict=strict)
    return Loaded(config, p, True, tuple(problems))


def loads(text: str, source: str = "config.toml", *, strict: bool = False) -> tuple[Config, list[ConfigProblem]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        problem = ConfigProblem("", f"not valid TOML ({e}); using the defaults, and the settings screen "
                                    "stays locked (the admin PIN in the file is unknown)")
        if strict:
            raise ConfigError(source, [problem]) from None
        return _UNREADABLE, [problem]
    return from_dict(data, source, strict=strict)


def from_dict(data: Mapping[str, Any], source: str = "config.toml", *,
              strict: bool = False) -> tuple[Config, list[ConfigProblem]]:
    r = _Reader()
    config = r.config(data)
    if r.problems and (strict or any(p.fatal for p in r.problems)):
        shown = r.problems if strict else [p for p in r.problems if p.fatal]
        raise ConfigError(source, shown)
    return config, r.problems


class _Reader:
    """Reads one table at a time, keeping a default and a problem for every bad value."""

    def __init__(self) -> None:
        self.problems: list[ConfigProblem] = []

    def problem(self, where: str, message: str, fatal: bool = False) -> None:
        self.problems.append(ConfigProblem(where, message, fatal))

    def table(self, data: Mapping[str, Any], key: str, where: str, fatal: bool = False) -> Mapping[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, Mapping):
            self.problem(where, f"must be a table ([{where}]), not {_kind(value)}", fatal)
            return {}
        return value

    def unknown(self, table: Mapping[str, Any], known: set[str], where: str) -> None:
        for key in table:
            if key not in known:
                self.problem(f"{where}.{key}" if where else key, "unknown setting (ignored)")

    def value(self, table: Mapping[str, Any], key: str, where: str, default: Any,
              check: Callable[[Any], str | None], fatal: bool = False) -> Any:
        if key not in table:
            return default
        problem = check(table[key])
        if problem is not None:
            self.problem(f"{where}.{key}" if where else key, problem, fatal)
            return default
        return table[key]

    # -- sections

    def config(self, data: Mapping[str, Any]) -> Config:
        self.unknown(data, {"mode", "dealer", "storage", "admin", "display", "panels"}, "")
        mode = self.value(data, "mode", "", "auto", _choice(MODES))
        return Config(mode, self.dealer(data), self.storage(data), self.admin(data),
                      self.display(data), self.panels(data))

    def dealer(self, data: Mapping[str, Any]) -> DealerConfig:
        t = self.table(data, "dealer", "dealer")
        self.unknown(t, {"port", "baud"}, "dealer")
        d = DealerConfig()
        return DealerConfig(self.value(t, "port", "dealer", d.port, _text(nonempty=True)),
                            self.value(t, "baud", "dealer", d.baud, _int(300, 4_000_000)))

    def storage(self, data: Mapping[str, Any]) -> StorageConfig:
        t = self.table(data, "storage", "storage", fatal=True)
        self.unknown(t, {"home", "journal", "games"}, "storage")
        return StorageConfig(*(self.value(t, k, "storage", "", _text(), fatal=True)
                               for k in ("home", "journal", "games")))

    def admin(self, data: Mapping[str, Any]) -> AdminConfig:
        if not isinstance(data.get("admin", {}), Mapping):
            self.problem("admin", f"must be a table ([admin]), not {_kind(data['admin'])}. The settings "
                                  "screen stays locked until it is fixed")
            return AdminConfig(LOCKED)
        t = self.table(data, "admin", "admin")
        self.unknown(t, {"pin"}, "admin")
        if "pin" not in t:
            return AdminConfig()
        pin = t["pin"]
        why = pin_hash_problem(pin)
        if why is None:
            return AdminConfig(pin)
        self.problem("admin.pin", f"{why}. The settings screen stays locked; delete the line "
                                  f"to reset the PIN to {DEFAULT_PIN}")
        return AdminConfig(LOCKED)

    def display(self, data: Mapping[str, Any]) -> DisplayConfig:
        t = self.table(data, "display", "display")
        names = [f.name for f in fields(DisplayConfig)]
        self.unknown(t, set(names), "display")
        d = DisplayConfig()
        def check(n: str) -> Callable[[object], str | None]:
            if n in ("width", "height"):
                return _int(240, 8192)
            return _choice(LANGUAGES) if n == "language" else _bool
        values = {n: self.value(t, n, "display", getattr(d, n), check(n)) for n in names}
        return DisplayConfig(**values)

    def panels(self, data: Mapping[str, Any]) -> PanelsConfig:
        t = self.table(data, "panels", "panels", fatal=True)
        d = PanelsConfig()
        timing = {"debounce_ms": _int(1, 500), "long_press_ms": _int(200, 20_000),
                  "repeat_delay_ms": _int(50, 10_000), "repeat_interval_ms": _int(0, 10_000),
                  "blink_ms": _int(20, 10_000)}
        seat_keys = {k for k in t if k.startswith("seat")}
        self.unknown(t, {*timing, "i2c_bus", "reset", "expanders", *seat_keys}, "panels")
        values = {k: self.value(t, k, "panels", getattr(d, k), check) for k, check in timing.items()}
        if 0 < values["repeat_interval_ms"] < 20:
            self.problem("panels.repeat_interval_ms", "must be 0 (no repeat) or at least 20")
            values["repeat_interval_ms"] = d.repeat_interval_ms
        i2c_bus = self.value(t, "i2c_bus", "panels", d.i2c_bus, _int(0, 255), fatal=True)
        reset = self.value(t, "reset", "panels", d.reset, _gpio_or_none, fatal=True)
        if reset == -1:
            reset = None
        seats = self.seats(t, seat_keys)
        if seats is None:
            seats = d.seats
            expanders_default: tuple[Expander, ...] = d.expanders
        else:
            expanders_default = ()
        expanders = self.expanders(t) if "expanders" in t else expanders_default
        panels = PanelsConfig(seats, expanders, i2c_bus, reset, **values)
        self.check_wiring(panels)
        return panels

    def seats(self, t: Mapping[str, Any], keys: set[str]) -> tuple[SeatPins, ...] | None:
        if not keys:
            return None
        numbers: dict[int, str] = {}
        for key in sorted(keys):
            m = re.fullmatch(r"seat(0|[1-9]\d*)", key)
            if m is None:
                self.problem(f"panels.{key}", "seat tables are named seat0, seat1, ...", True)
            elif int(m[1]) >= MAX_SEATS:
                self.problem(f"panels.{key}", f"at most {MAX_SEATS} seats (seat0 to seat{MAX_SEATS - 1})", True)
            else:
                numbers[int(m[1])] = key
        missing = [f"seat{i}" for i in range(max(numbers, default=-1) + 1) if i not in numbers]
        if missing:
            self.problem("panels", f"seats are numbered from seat0 without gaps: {', '.join(missing)} missing", True)
        seats: list[SeatPins] = []
        for i in sorted(numbers):
            where = f"panels.{numbers[i]}"
            st = self.table(t, numbers[i], where, fatal=True)
            self.unknown(st, set(ROLES), where)
            pins: list[PinRef] = []
            for role in ROLES:
                if role not in st:
                    self.problem(f"{where}.{role}", "missing: every seat needs minus, plus, ok and led", True)
                    pins.append(PinRef(None, -1))
                    continue
                try:
                    pins.append(PinRef.parse(st[role]))
                except ValueError as e:
                    self.problem(f"{where}.{role}", str(e), True)
                    pins.append(PinRef(None, -1))
            seats.append(SeatPins(*pins))
        return tuple(seats)

    def expanders(self, t: Mapping[str, Any]) -> tuple[Expander, ...]:
        table = self.table(t, "expanders", "panels.expanders", fatal=True)
        out: list[Expander] = []
        addresses: dict[int, str] = {}
        for name, spec in table.items():
            where = f"panels.expanders.{name}"
            if not _EXPANDER_NAME.match(name):
                self.problem(where, "expanders are named mcp0, mcp1, ...", True)
                continue
            if not isinstance(spec, Mapping):
                self.problem(where, f"must be a table with address and interrupt, not {_kind(spec)}", True)
                continue
            self.unknown(spec, {"address", "interrupt"}, where)
            if "address" not in spec:
                self.problem(f"{where}.address", "missing (0x20 to 0x27)", True)
                continue
            address = self.value(spec, "address", where, None, _int(0x20, 0x27, hex_=True), True)
            interrupt = self.value(spec, "interrupt", where, None, _gpio_or_none, True)
            if address is None:
                continue
            if address in addresses:
                self.problem(f"{where}.address", f"0x{address:02x} is already {addresses[address]}'s address", True)
            addresses[address] = name
            out.append(Expander(name, address, None if interrupt in (None, -1) else interrupt))
        return tuple(out)

    def check_wiring(self, panels: PanelsConfig) -> None:
        """Every pin used once, expander pins on a defined expander, no clash with I2C."""
        used: dict[PinRef, str] = {}
        names = {e.name for e in panels.expanders}

        def use(pin: PinRef, where: str) -> None:
            if pin.number < 0:
                return  # already reported
            if pin in used:
                self.problem(where, f"{pin} is already used by {used[pin]}", True)
            used.setdefault(pin, where)

        if panels.expanders:
            for gpio, what in _I2C_GPIO.items():
                used[PinRef(None, gpio)] = f"the expanders' I2C bus ({what})"
            for e in panels.expanders:
                if e.interrupt is not None:
                    use(PinRef(None, e.interrupt), f"panels.expanders.{e.name}.interrupt")
            if panels.reset is not None:
                use(PinRef(None, panels.reset), "panels.reset")
        for s, seat in enumerate(panels.seats):
            for role, pin in seat.pins():
                where = f"panels.seat{s}.{role}"
                if pin.chip is not None:
                    if pin.chip not in names:
                        defined = ", ".join(sorted(names)) or "none"
                        self.problem(where, f"no expander {pin.chip} (defined: {defined})", True)
                    elif role != "led" and pin.number % 8 == 7:
                        self.problem(where, f"{pin} is output-only on current MCP23017 silicon "
                                            "(GPA7/GPB7); use it for an LED", True)
                elif pin.number in _RESERVED_GPIO:
                    self.problem(where, f"GPIO {pin.number} is reserved for {_RESERVED_GPIO[pin.number]}", True)
                use(pin, where)


def _kind(value: object) -> str:
    return {bool: "true/false", int: "a number", float: "a number", str: "text",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def _bool(value: object) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false, not {value!r}"


def _int(lo: int, hi: int, hex_: bool = False) -> Callable[[object], str | None]:
    def check(value: object) -> str | None:
        show = (lambda v: f"0x{v:02x}") if hex_ else str
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be a whole number from {show(lo)} to {show(hi)}, not {value!r}"
        if not lo <= value <= hi:
            return f"must be from {show(lo)} to {show(hi)}, not {show(value)}"
        return None
    return check


def _text(nonempty: bool = False) -> Callable[[object], str | None]:
    def check(value: object) -> str | None:
        if not isinstance(value, str):
            return f"must be text, not {_kind(value)}"
        if nonempty and not value.strip():
            return "must not be empty"
        return None
    return check


def _choice(options: tuple[str, ...]) -> Callable[[object], str | None]:
    def check(value: object) -> str | None:
        return None if value in options else f"must be one of {', '.join(options)}, not {value!r}"
    return check


def _gpio_or_none(value: object) -> str | None:
    if value == -1 and not isinstance(value, bool):
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        return f"must be a GPIO number (or -1 for none), not {value!r}"
    try:
        PinRef.parse(value)
    except ValueError as e:
        return str(e)
    return None


# ---------------------------------------------------------------------------- writing


class Hex(int):
    """An int that ``save`` writes in hex (I2C addresses read as 0x20, not 32)."""


def to_dict(config: Config) -> dict[str, Any]:
    """The configuration as the TOML document ``save`` writes (``loads`` reads it back equal)."""
    p = config.panels
    panels: dict[str, Any] = {
        "debounce_ms": p.debounce_ms, "long_press_ms": p.long_press_ms,
        "repeat_delay_ms": p.repeat_delay_ms, "repeat_interval_ms": p.repeat_interval_ms,
        "blink_ms": p.blink_ms, "i2c_bus": p.i2c_bus, "reset": -1 if p.reset is None else p.reset,
        "expanders": {e.name: {"address": Hex(e.address),
                               **({} if e.interrupt is None else {"interrupt": e.interrupt})}
                      for e in p.expanders},
    }
    for s, seat in enumerate(p.seats):
        panels[f"seat{s}"] = {role: (str(pin) if pin.on_expander else pin.number) for role, pin in seat.pins()}
    doc: dict[str, Any] = {
        "mode": config.mode,
        "dealer": {"port": config.dealer.port, "baud": config.dealer.baud},
        "storage": {"home": config.storage.home, "journal": config.storage.journal,
                    "games": config.storage.games},
        "admin": {} if config.admin.pin is None else {"pin": config.admin.pin},
        "display": {f.name: getattr(config.display, f.name) for f in fields(DisplayConfig)},
        "panels": panels,
    }
    return doc


def dumps(config: Config, existing: str | None = None) -> str:
    """The configuration as TOML text, written over ``existing`` (the file as it is now): only
    the settings whose value changed are rewritten, so a hand-edited file keeps its comments,
    order, layout and the settings it leaves to their defaults (tomlkit). Without a file (or
    when it is not TOML) the commented reference ``default_config.toml`` is the starting point."""
    doc: Any = None
    if existing is not None:
        try:
            doc = tomlkit.parse(existing)
            before = to_dict(loads(existing)[0])
        except (tomlkit.exceptions.TOMLKitError, ConfigError):
            doc = None
    if doc is None:
        doc = tomlkit.parse(default_toml())
        before = to_dict(Config())
    _update(doc, before, to_dict(config))
    return tomlkit.dumps(doc)


def save(config: Config, path: str | os.PathLike[str] | None = None,
         env: Mapping[str, str] | None = None) -> Path:
    """Write the configuration atomically and privately (0600; a new folder 0700), keeping the
    comments of the file already there; return the path."""
    p = Path(path) if path is not None else config_path(env)
    if not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        existing: str | None = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = None
    except (OSError, UnicodeDecodeError) as e:
        raise OSError(f"{p}: cannot read the file to update it ({e})") from None
    write_atomically(p, dumps(config, existing).encode("utf-8"))
    return p


def _update(target: Any, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    """Change the tomlkit table ``target`` (which reads as ``before``) so it reads as ``after``,
    touching only what differs."""
    for key in [k for k in before if k not in after]:
        if key in target:
            del target[key]
    for key, value in after.items():
        old = before.get(key)
        if isinstance(value, Mapping):
            if old == value and key in target:
                continue
            made = key not in target or not isinstance(target[key], Mapping)
            if made:
                if key in target:
                    del target[key]
                target[key] = tomlkit.table()
            _update(target[key], old if isinstance(old, Mapping) else {}, value)
            if made and not target[key]:
                del target[key]
        elif not _same(old, value):  # a setting left as it was keeps its spelling (or its absence)
            target[key] = tomlkit.value(f"0x{value:02x}") if isinstance(value, Hex) else value


def _same(old: Any, new: Any) -> bool:
    """Equal values of the same TOML type (true is not 1; 0x20 is 32)."""
    def plain(v: Any) -> Any:
        v = v.unwrap() if hasattr(v, "unwrap") else v
        return int(v) if isinstance(v, int) and not isinstance(v, bool) else v
    a, b = plain(old), plain(new)
    return type(a) is type(b) and a == b
