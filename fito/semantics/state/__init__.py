"""The state vector: the store's layout and packed states."""
