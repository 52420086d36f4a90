import torch

from utils import load_checkpoint, save_checkpoint, scan_checkpoint


def train(a, generator, discriminator, optim_g, optim_d, loader):
    cp_g = scan_checkpoint(a.checkpoint_path, "g_")
    cp_do = scan_checkpoint(a.checkpoint_path, "do_")
    steps = 0
    if cp_g is not None and cp_do is not None:
        state_dict_g = load_checkpoint(cp_g, "cpu")
        state_dict_do = load_checkpoint(cp_do, "cpu")
        generator.load_state_dict(state_dict_g["generator"])
        discriminator.load_state_dict(state_dict_do["discriminator"])
        optim_g.load_state_dict(state_dict_do["optim_g"])  # expect: FITOL002
        optim_d.load_state_dict(state_dict_do["optim_d"])
        steps = state_dict_do["steps"] + 1
    for batch in loader:
        optim_g.step()
        optim_d.step()
        if steps % a.checkpoint_interval == 0:
            path = "{}/g_{:08d}".format(a.checkpoint_path, steps)
            save_checkpoint(path, {"generator": generator.state_dict()})  # expect: FITOL001, FITOL050
            path = "{}/do_{:08d}".format(a.checkpoint_path, steps)
            save_checkpoint(  # expect: FITOL050
                path,
                {
                    "discriminator": discriminator.state_dict(),
                    "optim_g": optim_g.state_dict(),
                    "optim_d": optim_d.state_dict(),
                    "steps": steps,
                },
            )
        steps += 1
