"""The card dealer from the Pi's side: the serial link and its frames and messages, the
driver (Dealer, DealerAdapter), deal plans, and the simulator that runs the real firmware
logic behind a pseudo-terminal."""
