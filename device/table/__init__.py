"""The table: one host whose worker owns the referee (host), the dealer ports it drives
(dealers), open_table wiring hardware, simulated and instant modes (open), and the
simulated table of `trickref sim` (sim, sim_cli)."""
