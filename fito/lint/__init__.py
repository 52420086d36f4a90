"""`fito lint`: the FITO mistakes of paper A found in PyTorch training scripts."""
