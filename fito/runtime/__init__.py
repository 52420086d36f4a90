"""Epoch-aware checkpoints that refuse a mixed-epoch restore (paper A, claims 3 and 5).

```python
from fito.runtime import CheckpointWriter, NoConsistentEpoch, restore
try:
    r = restore(ckpt_dir)                 # newest committed epoch whose shards all verify
    start = r.epoch
except NoConsistentEpoch:
    start = None                          # nothing usable: start from scratch
with CheckpointWriter(ckpt_dir, keep=2, resume_from=start) as w:
    w.save(epoch, {"model": model.state_dict(), "optimizer": opt.state_dict()})
```
`async_save` does the same on a background thread. Across the ranks of a torch.distributed
job: `fito.runtime.distributed`; for PyTorch DCP users: `fito.runtime.dcp` (both import
torch; this package does not). The layout and the manifest format are documented in
docs/runtime.md; the public names are `__all__` below (docs/api.md), `faults` the numbered
fault points tests and demonstrations kill a writer at.
"""

from __future__ import annotations

from fito.runtime import faults
from fito.runtime.durable import DiskFull
from fito.runtime.layout import CheckpointError, NotACheckpointDir
from fito.runtime.manifest import Manifest, ShardRecord
from fito.runtime.metrics import prometheus_text
from fito.runtime.reader import (
    CheckpointScan,
    EpochVerdict,
    NoConsistentEpoch,
    NothingToRestore,
    Restored,
    restore,
    scan,
)
from fito.runtime.rng import capture_rng, restore_rng
from fito.runtime.verify import REASONS, STATUSES, Skip
from fito.runtime.writer import CheckpointWriter

__all__ = [
    "REASONS",
    "STATUSES",
    "CheckpointError",
    "CheckpointScan",
    "CheckpointWriter",
    "DiskFull",
    "EpochVerdict",
    "Manifest",
    "NoConsistentEpoch",
    "NotACheckpointDir",
    "NothingToRestore",
    "Restored",
    "ShardRecord",
    "Skip",
    "capture_rng",
    "faults",
    "prometheus_text",
    "restore",
    "restore_rng",
    "scan",
]
