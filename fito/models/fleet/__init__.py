"""Paper B: fleets of checkpointing jobs as integrate-and-fire oscillators, simulated and
mapped symbolically."""
