"""Short sound cues, synthesised (no sound files): your turn, a trick taken, a refused tap,
a dealer alarm, game over. Off when the settings say so; silent (and harmless) without an audio
device.

Two kinds of cue: the referee's sounds ("refused", "alarm", "game_over"), which the table host
carries out on its worker thread through its speaker port (``Sounds`` is that port: a cue
asked for off the main thread waits in a queue the kiosk's loop plays, ``flush``); and the
kiosk's own ("turn" for the player whose hand is shown, "trick", "error" for a tap the screen
itself turns down before anything reaches the table).

The mixer opens on the first cue, not at start-up, so a kiosk with sound off never opens the
audio device. Every cue asked for is kept in ``log`` (tests read it).
"""

from __future__ import annotations

import array
import math
import threading
from collections import deque
from typing import Any

RATE = 22050

# cue -> [(frequency Hz, milliseconds)], 0 Hz is a pause
CUES: dict[str, list[tuple[int, int]]] = {
    "turn": [(660, 70), (0, 30), (880, 90)],
    "trick": [(520, 45)],
    "error": [(196, 160)],
    "alarm": [(880, 120), (0, 60), (880, 120), (0, 60), (880, 120)],
    "game_over": [(523, 90), (0, 20), (659, 90), (0, 20), (784, 160)],
}
CUES["refused"] = CUES["error"]  # the referee's refusal sounds as a tap the screen turns down


def tone(parts: list[tuple[int, int]], volume: float = 0.25) -> bytes:
    """16-bit mono samples of the tones, with 5 ms fades so they do not click."""
    out = array.array("h")
    amp = int(32767 * volume)
    fade = RATE // 200
    for freq, ms in parts:
        n = RATE * ms // 1000
        for i in range(n):
            if freq == 0:
                out.append(0)
                continue
            env = min(1.0, i / fade, (n - i) / fade)
            out.append(int(amp * env * math.sin(2 * math.pi * freq * i / RATE)))
    return out.tobytes()


class Sounds:
    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.log: list[str] = []
        self._sounds: dict[str, Any] = {}
        self._ready: bool | None = None  # None: not tried yet
        self._later: deque[str] = deque()  # asked for by another thread (the table host's worker)

    def _init(self) -> bool:
        if self._ready is None:
            try:
                import pygame

                if not pygame.mixer.get_init():
                    pygame.mixer.init(frequency=RATE, size=-16, channels=1)
                self._ready = True
            except Exception:  # no audio device: stay silent
                self._ready = False
        return self._ready

    def play(self, cue: str) -> None:
        """Play ``cue`` now (the loop's thread), or from any other thread as soon as the loop
        runs ``flush`` (the host's worker wakes it after every change)."""
        if threading.current_thread() is not threading.main_thread():
            self._later.append(cue)
            return
        self._play(cue)

    def flush(self) -> None:
        """Play the cues other threads asked for, in order (the loop's thread)."""
        while self._later:
            self._play(self._later.popleft())

    def _play(self, cue: str) -> None:
        self.log.append(cue)
        if not getattr(self.settings, "sound", False) or cue not in CUES or not self._init():
            return
        import pygame

        snd = self._sounds.get(cue)
        if snd is None:
            snd = self._sounds[cue] = pygame.mixer.Sound(buffer=tone(CUES[cue]))
        snd.play()
