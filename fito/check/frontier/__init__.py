"""The frontier engine: breadth-first search over whole levels of packed states."""
