"""A Megatron-like save: one rank of each data-parallel group writes its model-parallel shard,
a barrier, then global rank 0 updates the tracker file: every shard is written by then."""

import os

import torch
from megatron.core import mpu


def get_checkpoint_name(save_dir, iteration):
    tp_rank = mpu.get_tensor_model_parallel_rank()
    pp_rank = mpu.get_pipeline_model_parallel_rank()
    return os.path.join(
        save_dir, f"iter_{iteration:07d}", f"mp_rank_{tp_rank:02d}_{pp_rank:03d}", "model_optim_rng.pt"
    )


def save_checkpoint(iteration, model, optimizer, opt_param_scheduler, args):
    checkpoint_name = get_checkpoint_name(args.save, iteration)
    if mpu.get_data_parallel_rank() == 0:
        state_dict = {
            "iteration": iteration,
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "opt_param_scheduler": opt_param_scheduler.state_dict(),
        }
        os.makedirs(os.path.dirname(checkpoint_name), exist_ok=True)
        torch.save(state_dict, checkpoint_name)
    torch.distributed.barrier()
    if torch.distributed.get_rank() == 0:
        tracker = os.path.join(args.save, "latest_checkpointed_iteration.txt")
        with open(tracker, "w") as f:
            f.write(str(iteration))
    torch.distributed.barrier()
