"""The distributed search: a hash-partitioned breadth-first search over the ranks of an MPI
run (`fito check --distributed`, docs/distributed.md)."""
