"""profile_args.py -- the arguments bench/profile.sh gives a peer's profiling
script (profile_triton_attn.py, profile_sdpa.py): fwd|bwd Z H N D [extra].
Imports neither torch nor triton, so each script needs only its own peer."""
import argparse


def size_parser():
    """fwd|bwd, the attention size Z H N D, and one optional word (causal for
    a forward, the warps of Triton's backward)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("which", choices=["fwd", "bwd"])
    for name in ("Z", "H", "N", "D"):
        ap.add_argument(name, type=int)
    ap.add_argument("extra", nargs="?", default="")
    return ap
