"""The kiosk's main loop: events in, scenes updated, a frame drawn only when something changed.

Idle costs next to nothing: the loop waits for an event (``next_event``) and only ticks
when a scene asks for it (``tick_ms``: animations, paced bots, the pretend dealer).
Touch policy (ui.touch): a touch arrives as FINGER* events and, from SDL, as mouse events
copying them; ``Pointer`` makes one stream of mouse events of them, so a tap acts exactly once
whichever way it came. Scenes get input through ``Scene.receive``. The queue carries no table
input: seat panel and button presses (gpiozero's thread) and card reads (the dealer's serial
reader) go to the table host, whose worker only wakes the loop when the table changed
(ui.wake: ``TABLE_EVENT``); the loop then redraws from the table.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import theme as T
from . import wake

if TYPE_CHECKING:  # the command line imports this module for every subcommand: keep it light
    from .scene import Scene
    from .settings import Settings

# scenes the game's state chooses (Session.route); others (score sheet...) pause the game
ROUTED = ("dealing", "handoff", "bidding", "play", "summary", "gameover", "fault")


def init_pygame() -> None:
    """Initialise only what the kiosk uses (no audio device is opened)."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    pygame.display.init()
    pygame.font.init()
    wake.init()


class App:
    def __init__(self, size: tuple[int, int] = (800, 480), *, fullscreen: bool = False,
                 kiosk: bool = False, settings: Settings | None = None, surface: Any = None) -> None:
        init_pygame()
        import pygame

        from .scene import SceneStack
        from .settings import load_settings

        self.settings = settings or load_settings()
        self.theme = T.Theme(size[0], size[1], large_text=self.settings.large_text,
                             four_colour=self.settings.four_colour)
        if surface is not None:
            self.screen = surface
        else:
            flags = pygame.FULLSCREEN if fullscreen else 0
            self.screen = pygame.display.set_mode(size, flags)
            pygame.display.set_caption("trickref")
        if kiosk or fullscreen:
            hide_cursor()
        pygame.event.set_allowed([pygame.FINGERDOWN, pygame.FINGERUP, pygame.FINGERMOTION])
        from .touch import Pointer

        self.pointer = Pointer()  # one pointer from mouse and touch events (ui.touch)
        from .sound import Sounds

        self.sounds = Sounds(self.settings)
        self.scenes = SceneStack()
        self._session: Any = None  # ui.session.Session while a game is on
        self.running = True
        self.frames = 0
        self.on_frame: Callable[[], None] | None = None
        from .setup import Setup

        self.setup = Setup()
        self.setup.bot_levels = self.settings.bot_levels  # remembered per seat
        from .memory import restore_setup

        restore_setup(self)  # each game's last setup, the last game chosen (ui.memory)
        self.session_args: dict[str, Any] = {}  # Session keywords (tests: no bot delay)
        self.seed: int | None = None  # the table's shuffle seed (None: random)
        self.table_args: dict[str, Any] = {}  # start_table keywords (tests: a faster simulated dealer)

    @property
    def session(self) -> Any:
        return self._session

    @session.setter
    def session(self, session: Any) -> None:
        """A game on the kiosk: its table host's sounds come out of this kiosk's speaker."""
        self._session = session
        host = getattr(getattr(session, "table", None), "host", None)
        if host is not None:
            host.speaker = self.sounds

    def end_session(self) -> None:
        """Leave the game on screen: its table stops (the journal keeps an unfinished game)."""
        s, self.session = self.session, None
        close = getattr(getattr(s, "table", None), "close", None)
        if close is not None:
            close()

    # ------------------------------------------------------------------ scenes
    @property
    def scene(self) -> Scene | None:
        return self.scenes.top

    def switch(self, scene: Scene) -> None:
        self.scenes.switch(scene)

    def push(self, scene: Scene) -> None:
        self.scenes.push(scene)

    def pop(self) -> None:
        self.scenes.pop()

    def go(self, name: str, **kw: Any) -> Scene:
        """Switch to the scene called ``name`` (see ui.scenes.make)."""
        from .scenes import make

        scene = make(name, self, **kw)
        self.switch(scene)
        return scene

    def push_scene(self, name: str, **kw: Any) -> Scene:
        """Switch to scene ``name`` (kept simple: scenes that return say where to)."""
        return self.go(name, **kw)

    def route(self) -> None:
        """Show the scene the game's state calls for, if it is not already showing."""
        if self.session is None:
            return
        want = self.session.route()
        base = self.scenes.stack[0] if self.scenes.stack else None
        self.sounds.flush()  # the referee's sounds, carried out by the table host
        for cue in self.session.take_cues():
            self.sounds.play(cue)
        if base is None or base.name != want:
            if want == "handoff":
                self.sounds.play("turn")
            self.go(want)
        else:
            for s in self.scenes.stack:
                s.needs_redraw = True

    def apply_settings(self) -> None:
        from . import card_art

        self.theme.large_text = self.settings.large_text
        if self.theme.four_colour != self.settings.four_colour:
            self.theme.four_colour = self.settings.four_colour
            card_art.clear_cache()
        self.theme._fonts.clear()
        for s in self.scenes.stack:
            s.relayout()

    # ------------------------------------------------------------------ the loop
    def dispatch(self, event: Any) -> None:
        import pygame

        if event.type == pygame.QUIT:
            self.running = False
            return
        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE and len(self.scenes.stack) > 1:
            self.pop()
            return
        if event.type == wake.TABLE_EVENT:
            self.table_changed()
            return
        if event.type in (pygame.WINDOWEXPOSED, pygame.VIDEOEXPOSE):
            for s in self.scenes.stack:
                s.needs_redraw = True
            return
        for e in self.pointer.translate(event, self.screen.get_size()):
            if self.scene is not None:
                self.scene.receive(e)

    def table_changed(self) -> None:
        """The table host's worker changed the table (a press it took, a card read, the dealer's
        status): what the session shows next, and a redraw."""
        if self.session is None:
            return
        self.session.after_action()
        if self.game_paused():
            # a detour (score sheet, rules) or a confirmation shows: the change is drawn there, and
            # the scene it calls for comes when the player leaves it (tick routes again), never
            # under their finger
            for s in self.scenes.stack:
                s.needs_redraw = True
            return
        self.route()

    def tick(self, dt: float) -> None:
        if self.session is not None and not self.game_paused():
            changed = self.session.update(dt)
            base = self.scenes.stack[0] if self.scenes.stack else None
            if changed or base is None or base.name != self.session.route():
                self.route()
        elif self.session is not None:
            self.session.hold_bots()  # the game waits: a bot's entry too, until it goes on
        if self.scene is not None:
            for s in list(self.scenes.stack):
                s._ensure_layout()  # a scene switched to by a tap updates before its first frame
                s.update(dt)

    def game_paused(self) -> bool:
        """The game waits while a modal (a confirmation) or a detour (score sheet, rules) shows."""
        top = self.scene
        base = self.scenes.stack[0] if self.scenes.stack else None
        return (top is not None and top.modal) or (base is not None and getattr(base, "pauses_game", False)) or (
            base is not None and base.name not in ROUTED)

    def wait_ms(self) -> int:
        ticks = [s.tick_ms for s in self.scenes.stack if s.tick_ms is not None]
        if self.session is not None and not self.game_paused() and self.session.busy:
            ticks.append(33)
        return min(ticks) if ticks else 0

    def render(self, force: bool = False) -> bool:
        """Draw the scene stack if anything asked for it; True when a frame was drawn."""
        import pygame

        if not (force or self.scenes.needs_redraw):
            return False
        self.scenes.draw(self.screen)
        if pygame.display.get_surface() is self.screen:
            pygame.display.flip()
        self.frames += 1
        if self.on_frame is not None:
            self.on_frame()
        return True

    IDLE_POLL_S = 0.01  # how often an idle kiosk looks for input: 100 Hz, a tap waits <= 10 ms

    def next_event(self, wait_ms: int) -> Any:
        """The next event, or NOEVENT after ``wait_ms`` (0: no time limit).

        Short waits (animations, paced bots) use ``pygame.event.wait(timeout)``. pygame-ce
        implements that wait by polling SDL every millisecond, which alone costs 1-2% of a
        core, so long idle waits poll at IDLE_POLL_S instead and sleep in between."""
        import pygame

        if 0 < wait_ms <= 50:
            return pygame.event.wait(wait_ms)
        deadline = time.monotonic() + wait_ms / 1000 if wait_ms else None
        while True:
            ev = pygame.event.poll()
            if ev.type != pygame.NOEVENT:
                return ev
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return ev
            time.sleep(self.IDLE_POLL_S if deadline is None else min(self.IDLE_POLL_S, deadline - now))

    def run(self, max_seconds: float | None = None) -> None:
        last = time.monotonic()
        start = last
        self.render(force=True)
        while self.running:
            wait = self.wait_ms()
            # a timeout of 0 blocks until an event arrives: nothing to animate, nothing to do
            if max_seconds is not None:
                left = int((start + max_seconds - time.monotonic()) * 1000)
                if left <= 0:
                    break
                wait = min(wait, left) if wait else left
            now = self.step(wait, last)
            last = now

    def step(self, wait_ms: int, last: float, now: Callable[[], float] = time.monotonic) -> float:
        """One turn of the loop: wait up to ``wait_ms`` for an event (0: until one comes), hand
        every queued event to the scenes, tick by the time since ``last``, draw if anything
        changed; returns the time it ticked to (``now``: tests pass a clock of their own)."""
        import pygame

        ev = self.next_event(wait_ms)
        events = [ev] if ev.type != pygame.NOEVENT else []
        events.extend(pygame.event.get())
        for e in events:
            self.dispatch(e)
        t = now()
        self.tick(t - last)
        self.render()
        return t


def hide_cursor() -> None:
    """A fully transparent cursor image (some SDL video drivers ignore mouse.set_visible)."""
    import pygame

    try:
        surf = pygame.Surface((8, 8), pygame.SRCALPHA)
        pygame.mouse.set_cursor(pygame.cursors.Cursor((0, 0), surf))
    except pygame.error:
        pygame.mouse.set_visible(False)


def start_home(app: App) -> None:
    """The home screen, or what the table was working on, resumed where it stopped: the
    keep-score sheet when it was in use (ui.memory), else the refereed game in the journal."""
    app.go("home")
    from .memory import in_use, say_notice
    from .resume import resume_saved_game
    from .scenes.scorekeeper_entry import resume_scorekeeping

    if in_use(app) == "scorekeep" and resume_scorekeeping(app):
        pass  # the sheet in use; a refereed game left in its journal waits on the home screen
    elif not resume_saved_game(app) and len(app.scenes.stack) == 1:  # else a refereed game, or a message
        resume_scorekeeping(app)  # an unfinished keep-score sheet, said so
    say_notice(app)  # the table's memory was damaged (kept aside) or cannot be written


class NoDisplay(RuntimeError):
    """The kiosk has no screen to show itself on: what was tried, and what to do."""


HEADLESS_DRIVERS = ("offscreen", "dummy")


def check_display(env: dict[str, str] | None = None) -> None:
    """Open SDL's video and make sure it reaches a screen; NoDisplay otherwise.

    With no X11/Wayland session and no usable KMS/DRM screen, SDL quietly falls back to its
    offscreen driver: the kiosk would run forever in a window nobody can see. Asking for a
    headless driver on purpose (``SDL_VIDEODRIVER=dummy`` or ``offscreen``: tests, screenshots)
    is fine."""
    env = dict(os.environ) if env is None else env
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    try:
        init_pygame()
        driver = pygame.display.get_driver()
    except pygame.error as e:
        asked = env.get("SDL_VIDEODRIVER")
        raise NoDisplay(f"cannot open the display{f' (SDL_VIDEODRIVER={asked})' if asked else ''}: {e}") from None
    if driver in HEADLESS_DRIVERS and env.get("SDL_VIDEODRIVER", "").lower() not in HEADLESS_DRIVERS:
        session = "DISPLAY and WAYLAND_DISPLAY are not set" if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")) \
            else "the desktop session could not be reached"
        raise NoDisplay(f"no screen to show the kiosk on ({session}, and SDL found no KMS/DRM screen, so it "
                        f"chose its invisible {driver} driver). Run it on the Pi's screen or in a desktop "
                        "session; set SDL_VIDEODRIVER=offscreen to run it without a screen on purpose")


def run_kiosk(size: tuple[int, int] = (800, 480), fullscreen: bool = False, kiosk: bool = False) -> int:
    import sys

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    try:
        check_display()
        app = App(size, fullscreen=fullscreen, kiosk=kiosk)
    except (NoDisplay, pygame.error) as e:
        print(f"trickref kiosk: {e}", file=sys.stderr)
        return 1
    from .fairshow import serve_page

    page = serve_page(app)  # the verify page the QR code after a hand opens
    start_home(app)
    try:
        app.run()
    except KeyboardInterrupt:
        pass  # Ctrl+C in the terminal that started it: a normal way out
    finally:
        app.end_session()
        if page is not None:
            page.stop()
    pygame.quit()
    return 0


def configured_size() -> tuple[int, int]:
    """The window size the configuration's ``[display]`` ``width`` and ``height`` give
    (800x480, the 7-inch Touch Display, by default or when the file cannot be read)."""
    from trickref.device import config as dc

    try:
        d = dc.load().config.display
        return T.parse_size(f"{d.width}x{d.height}")
    except (dc.ConfigError, ValueError, OSError):
        return (800, 480)


def run_default() -> int:
    """``trickref`` with no arguments: the kiosk in simulated mode, windowed on a desktop,
    full screen on the Pi's panel (no desktop session), at the configuration's size."""
    on_panel = not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")
    return run_kiosk(configured_size(), fullscreen=on_panel, kiosk=on_panel)


def _size(text: str) -> tuple[int, int]:
    try:
        return T.parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _cmd_kiosk(args: argparse.Namespace) -> int:
    fullscreen = bool(args.fullscreen) and not args.windowed
    return run_kiosk(args.size or configured_size(), fullscreen=fullscreen, kiosk=fullscreen or args.kiosk)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("kiosk", help="run the touchscreen kiosk (simulated table: bots fill empty seats)")
    p.add_argument("--size", type=_size, default=None,
                   help="window size: 800x480 (the 7-inch Touch Display), 1024x600, 1280x720, or 720x1280 "
                        "(Touch Display 2, portrait); default: the configuration's [display] width and height "
                        "(800x480 unless changed)")
    p.add_argument("--fullscreen", action="store_true", help="full screen, cursor hidden")
    p.add_argument("--windowed", action="store_true", help="a window even where full screen is the default")
    p.add_argument("--kiosk", action="store_true", help="hide the cursor (touch screen)")
    p.set_defaults(func=_cmd_kiosk)
