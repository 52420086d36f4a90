import torch

from utils import load_checkpoint, save_checkpoint, scan_checkpoint


def train(a, generator, discriminator, optim_g, optim_d, loader):
    cp = scan_checkpoint(a.checkpoint_path, "ckpt_")
    steps = 0
    if cp is not None:
        state = load_checkpoint(cp, "cpu")
        generator.load_state_dict(state["generator"])
        discriminator.load_state_dict(state["discriminator"])
        optim_g.load_state_dict(state["optim_g"])
        optim_d.load_state_dict(state["optim_d"])
        steps = state["steps"] + 1
    for batch in loader:
        optim_g.step()
        optim_d.step()
        if steps % a.checkpoint_interval == 0:
            path = "{}/ckpt_{:08d}".format(a.checkpoint_path, steps)
            save_checkpoint(
                path,
                {
                    "generator": generator.state_dict(),
                    "discriminator": discriminator.state_dict(),
                    "optim_g": optim_g.state_dict(),
                    "optim_d": optim_d.state_dict(),
                    "steps": steps,
                },
            )
        steps += 1
