"""Short sound cues, synthesised (no sound files): your turn, a trick taken, a refused tap,
a dealer alarm. Off when the settings say so; silent (and harmless) without an audio device.

The mixer opens on the first cue, not at start-up, so a kiosk with sound off never opens the
audio device. Every cue asked for is kept in ``log`` (tests read it).
"""

from __future__ import annotations

import array
import math
from typing import Any

RATE = 22050

# cue -> [(frequency Hz, milliseconds)], 0 Hz is a pause
CUES: dict[str, list[tuple[int, int]]] = {
    "turn": [(660, 70), (0, 30), (880, 90)],
    "trick": [(520, 45)],
    "error": [(196, 160)],
    "alarm": [(880, 120), (0, 60), (880, 120), (0, 60), (880, 120)],
}


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
        self.log.append(cue)
        if not getattr(self.settings, "sound", False) or cue not in CUES or not self._init():
            return
        import pygame

        snd = self._sounds.get(cue)
        if snd is None:
            snd = self._sounds[cue] = pygame.mixer.Sound(buffer=tone(CUES[cue]))
        snd.play()
