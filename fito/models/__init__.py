"""Mathematical models of the papers: epoch lattice, optimizer algebra, fleets of
checkpointing jobs."""
