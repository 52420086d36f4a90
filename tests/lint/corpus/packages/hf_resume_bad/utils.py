"""Helpers of a Hugging Face-like fine-tuning script: find the newest file for a prefix."""

import glob
import os


def newest(folder, prefix):
    files = glob.glob(os.path.join(folder, f"{prefix}-*.bin"))
    if not files:
        return None
    return max(files, key=os.path.getmtime)
