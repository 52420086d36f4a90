"""The script saves the adapter weights and the optimizer in one file per step and resumes
from the newest such file: one selection, one step."""

import os

import torch
from transformers import AutoModelForCausalLM

import utils


def resume(model, optimizer, folder):
    path = utils.newest(folder, "checkpoint")
    if path is None:
        return
    state = torch.load(path)
    model.load_state_dict(state["adapter"], strict=False)
    optimizer.load_state_dict(state["optimizer"])


def main(folder):
    model = AutoModelForCausalLM.from_pretrained("base")
    optimizer = torch.optim.AdamW(model.parameters())
    resume(model, optimizer, folder)
