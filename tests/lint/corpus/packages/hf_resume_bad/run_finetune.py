"""The script resumes the adapter weights and the optimizer each from the newest file the
helper finds for it: after a crash between the two saves they are of different steps."""

import os

import torch
from transformers import AutoModelForCausalLM

import utils


def resume(model, optimizer, folder):
    adapter = utils.newest(folder, "adapter_model")
    optim = utils.newest(folder, "optimizer")
    if adapter is None or optim is None:
        return
    model.load_state_dict(torch.load(adapter), strict=False)
    optimizer.load_state_dict(torch.load(optim))  # expect: FITOL002


def main(folder):
    model = AutoModelForCausalLM.from_pretrained("base")
    optimizer = torch.optim.AdamW(model.parameters())
    resume(model, optimizer, folder)
