"""The simulated world around the table: what stands where the hardware and the people would.

The dealer simulator (``device.dealer.sim``: the real firmware behind a pty) answers on the dealer
port, gpiozero's mock pins stand for the seat panels, and simulated people do by hand only what
the screen tells a person (gather the cards, clear a jam, feed a card from their pocket, take a
card back from the reject pocket). ``device.table`` knows none of it: the host talks to a serial
port, to pins and to its ``People`` port, whoever answers.

- ``world``: the simulated world and the table opened in it (the kiosk's simulated mode);
- ``table``: ``SimTable``, the whole table with a bot in every seat (``trickref sim``);
- ``cli``: ``trickref sim``;
- ``fault_trials``: the dealer-link fault campaign's trials (``benchmarks/faults.py``).
"""
