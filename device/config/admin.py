"""The settings screen's admin PIN: its salted PBKDF2 hash and what a stored hash must be,
and ``PinGuard``, which limits wrong tries with a growing lock-out."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..journal import write_atomically

DEFAULT_PIN = "0000"
LOCKED = "locked"  # admin.pin value when the stored hash was unreadable: no PIN opens settings
PBKDF2_ITERATIONS = 100_000  # what the settings screen writes
PBKDF2_MIN_ITERATIONS = 100_000  # fewer in the file: refused (the settings screen stays locked)
PBKDF2_MAX_ITERATIONS = 10_000_000  # more: refused too (one check would freeze the kiosk)
_PIN_HASH = re.compile(r"^pbkdf2_sha256\$(\d{1,12})\$([0-9a-f]{32})\$([0-9a-f]{64})\Z")


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

