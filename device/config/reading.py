"""Reading the file: where it is, parsing and checking every setting (``load``, ``loads``,
``from_dict``), and the problems found (``ConfigProblem``, ``ConfigError``, ``Loaded``)."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any

from .admin import DEFAULT_PIN, LOCKED, AdminConfig, pin_hash_problem
from .pins import (
    _EXPANDER_NAME,
    _I2C_GPIO,
    _RESERVED_GPIO,
    MAX_SEATS,
    ROLES,
    Expander,
    PinRef,
    SeatPins,
)
from .sections import (
    _UNREADABLE,
    LANGUAGES,
    MODES,
    Config,
    DealerConfig,
    DisplayConfig,
    PanelsConfig,
    StorageConfig,
    VerifyConfig,
)


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
    return resources.files("trickref.device").joinpath("default_config.toml").read_text(encoding="utf-8")


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
        self.unknown(data, {"mode", "dealer", "storage", "admin", "display", "panels", "verify"}, "")
        mode = self.value(data, "mode", "", "auto", _choice(MODES))
        return Config(mode, self.dealer(data), self.storage(data), self.admin(data),
                      self.display(data), self.panels(data), self.verify(data))

    def verify(self, data: Mapping[str, Any]) -> VerifyConfig:
        t = self.table(data, "verify", "verify")
        self.unknown(t, {"port", "address"}, "verify")
        d = VerifyConfig()
        return VerifyConfig(self.value(t, "port", "verify", d.port, _int(0, 65535)),
                            self.value(t, "address", "verify", d.address, _address))

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


def _address(value: object) -> str | None:
    """A verify page's address for the QR code: empty, or an http(s) address without a fragment."""
    if not isinstance(value, str):
        return f"must be text, not {_kind(value)}"
    if value and (not re.match(r"^https?://[^\s#]+$", value)):
        return f"must be empty or an address starting http:// or https:// (no spaces, no #), not {value!r}"
    return None


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


