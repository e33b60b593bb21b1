"""The dealer's main loop: poll the link, step the mechanism, feed the watchdog if healthy.

On the Pico, ``main()`` runs forever (MicroPython runs main.py at boot). Keyboard interrupts
are switched off with ``micropython.kbd_intr(-1)`` so a 0x03 byte inside a frame can never
stop the firmware. ``Firmware.step()`` is one loop pass; the dealer simulator calls it on a
simulated board, so the PC runs exactly this loop.

The watchdog is fed only by a healthy pass: one that raised nothing and took at most
LOOP_BUDGET_MS. An unexpected exception stops every motor, is reported as a FAULT event and
then the loop stops feeding the watchdog for good, so the board reboots into a clean state
(the host sees a new boot_id and a BOOT event with reason 2).
"""

from . import commands
from . import protocol as P
from .ticks import ticks_diff


class Firmware:
    def __init__(self, board, cfg=None):
        self.board = board
        self.dealer = commands.Dealer(board, cfg)
        self.cfg = self.dealer.cfg
        self.failed = False
        self.fed = 0

    def step(self):
        """One pass of the loop; True if it fed the watchdog."""
        board = self.board
        start = board.link_ticks_ms()
        try:
            self.dealer.tick()
        except Exception:  # noqa: BLE001 - anything unexpected: stop, report, let the WDT reboot
            self._fail()
        if self.failed:
            return False
        if ticks_diff(board.link_ticks_ms(), start) > self.cfg.LOOP_BUDGET_MS:
            return False
        board.wdt_feed()
        self.fed += 1
        return True

    def _fail(self):
        self.failed = True
        try:
            self.board.stop_all()
        except Exception:  # noqa: BLE001 - the watchdog reboot still follows
            pass
        try:
            self.dealer.emit(P.EV_FAULT, bytes((4, 0)))
            self.dealer.flush_events()
            self.dealer.drain()
        except Exception:  # noqa: BLE001
            pass


def main():
    import micropython  # MicroPython only; the simulator never calls main()

    from . import board as board_module

    if board_module.escape_jumper():  # GP22 to GND: stay at the REPL (recovery, updates)
        print("trickref dealer: boot-escape jumper fitted, main() skipped")
        return
    micropython.kbd_intr(-1)

    board = board_module.Board()
    fw = Firmware(board)
    while True:
        fw.step()
        board.idle()


if __name__ == "__main__":
    main()
