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


# The package holds one module per concern; every public name is here too, so
# ``from trickref.device.config import X`` and ``config.X`` keep working.
from .admin import (
    DEFAULT_PIN,
    LOCKED,
    PBKDF2_ITERATIONS,
    PBKDF2_MAX_ITERATIONS,
    PBKDF2_MIN_ITERATIONS,
    AdminConfig,
    PinGuard,
    check_pin_format,
    hash_pin,
    pin_hash_problem,
)
from .pins import (
    BUTTONS,
    DEFAULT_EXPANDERS,
    GPIO_COUNT,
    MAX_SEATS,
    ROLES,
    Expander,
    PinRef,
    SeatPins,
    default_seats,
)
from .reading import (
    ConfigError,
    ConfigProblem,
    Loaded,
    config_path,
    default_toml,
    from_dict,
    load,
    loads,
)
from .sections import (
    LANGUAGES,
    MODES,
    PICO_USB,
    STABLE_PORT,
    Config,
    DealerConfig,
    DisplayConfig,
    PanelsConfig,
    StorageConfig,
    VerifyConfig,
    usb_serial_ports,
)
from .writing import Hex, dumps, save, to_dict

__all__ = [
    "BUTTONS",
    "ROLES",
    "MAX_SEATS",
    "GPIO_COUNT",
    "PinRef",
    "SeatPins",
    "Expander",
    "default_seats",
    "DEFAULT_EXPANDERS",
    "DEFAULT_PIN",
    "LOCKED",
    "PBKDF2_ITERATIONS",
    "PBKDF2_MIN_ITERATIONS",
    "PBKDF2_MAX_ITERATIONS",
    "AdminConfig",
    "pin_hash_problem",
    "PinGuard",
    "check_pin_format",
    "hash_pin",
    "MODES",
    "LANGUAGES",
    "DealerConfig",
    "PICO_USB",
    "STABLE_PORT",
    "usb_serial_ports",
    "StorageConfig",
    "VerifyConfig",
    "DisplayConfig",
    "PanelsConfig",
    "Config",
    "ConfigProblem",
    "ConfigError",
    "Loaded",
    "config_path",
    "default_toml",
    "load",
    "loads",
    "from_dict",
    "Hex",
    "to_dict",
    "dumps",
    "save",
]
