"""A small torchtitan-like trainer package: `train.py` drives, `checkpoint.py` writes."""
