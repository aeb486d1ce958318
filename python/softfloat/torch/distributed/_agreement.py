"""Every rank must encode the same way: a check that fails on every rank at once.

Ranks configured differently would send payloads of different sizes, and a receive of
the wrong size can wait for ever. So before the exchange each rank all-gathers a
fixed-size fingerprint of its settings and the array's length (a collective every rank
calls, whatever its settings); if any differs, every rank sees it in the same gathered
table, gathers the readable settings and raises the same ValueError.
"""
import hashlib

import torch
import torch.distributed as dist

__all__ = ["check_agreement"]


def _fingerprint(text):
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:7], "little")


def check_agreement(settings, n, group, function):
    """ValueError on every rank unless every rank of `group` has these settings and n."""
    size = dist.get_world_size(group)
    if size == 1:
        return
    mine = torch.tensor([_fingerprint(settings), n], dtype=torch.int64)
    table = [torch.empty_like(mine) for _ in range(size)]
    dist.all_gather(table, mine, group=group)
    if all(torch.equal(row, table[0]) for row in table):
        return
    described = [None] * size
    dist.all_gather_object(described, f"{settings}, {n} values", group=group)
    lines = "; ".join(f"rank {r}: {text}" for r, text in enumerate(described))
    raise ValueError(f"softfloat.torch.distributed.{function}: the ranks disagree ({lines}); every rank must use "
                     f"the same format, scaling, rounding and algorithm on arrays of the same length")
