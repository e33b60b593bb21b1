"""The table: one host whose worker owns the referee (host), the dealer ports it drives
(dealers), and open_table wiring hardware, simulated and instant modes (open). In simulated
mode a ``World`` handed to open_table stands for the hardware and the people; nothing here
knows what it is."""
