"""Generated code: Python per state and numpy per block of states, for each group of transitions."""
