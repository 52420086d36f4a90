"""A DeepSpeed-like engine checkpoint: each data-parallel rank writes its ZeRO optimizer
partition, rank 0 the module states, and rank 0 writes the `latest` tag file as soon as its
own files are written, before the other ranks have finished theirs."""

import os

import deepspeed
import torch
import torch.distributed as dist


class Engine:
    def __init__(self, module, optimizer):
        self.module = module
        self.optimizer = optimizer
        self.global_steps = 0

    def _zero_ckpt_name(self, save_dir, tag):
        dp_rank = dist.get_rank()
        return os.path.join(save_dir, tag, f"zero_pp_rank_{dp_rank}_mp_rank_00_optim_states.pt")

    def save_checkpoint(self, save_dir, tag=None):
        tag = tag or f"global_step{self.global_steps}"
        os.makedirs(os.path.join(save_dir, tag), exist_ok=True)
        zero_sd = {"optimizer_state_dict": self.optimizer.state_dict()}
        torch.save(zero_sd, self._zero_ckpt_name(save_dir, tag))
        if dist.get_rank() == 0:
            module_sd = {"module": self.module.state_dict(), "global_steps": self.global_steps}
            torch.save(module_sd, os.path.join(save_dir, tag, "mp_rank_00_model_states.pt"))
            with open(os.path.join(save_dir, "latest"), "w") as fd:  # expect: FITOL006
                fd.write(tag)
        dist.barrier()
        return True
