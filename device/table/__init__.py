"""The table: one host whose worker owns the referee (host), the dealer ports it drives
(dealers), and open_table wiring hardware, simulated and instant modes (open). What stands
in for the hardware and the people in simulated mode lives in ``device.simulated``."""
