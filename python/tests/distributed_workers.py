"""What each rank runs in the distributed tests (module-level functions, so that the
processes softfloat.torch.distributed.launch starts can import them). Each returns plain
data to the test, which compares the ranks' answers."""
import hashlib

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

import softfloat
import softfloat.torch.distributed as sfd

STEPS = 4


def rank_data(rank, n, seed=0, scale=1.0):
    """Rank r's gradient-like values, reproducible in the test process too."""
    g = torch.Generator().manual_seed(1000 * seed + rank)
    return torch.randn(n, generator=g) * scale * torch.exp2(torch.randint(-6, 3, (n,), generator=g).float())


def parameter_hash(model):
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().contiguous().numpy().tobytes())
    return h.hexdigest()


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 48), torch.nn.ReLU(), torch.nn.Linear(48, 10))


def train(rank, size, hook_options, steps=STEPS, bucket_cap_mb=None):
    """Hashes of the parameters after each step of DDP training (hook_options None: no
    hook), the final parameters, and the hook's byte counts."""
    model = _model()
    kwargs = {} if bucket_cap_mb is None else {"bucket_cap_mb": bucket_cap_mb}
    ddp = DistributedDataParallel(model, **kwargs)
    hook = None
    if hook_options is not None:
        hook = sfd.compress_hook(**hook_options)
        ddp.register_comm_hook(None, hook)
    sgd = torch.optim.SGD(ddp.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(rank)
    hashes = []
    for _ in range(steps):
        x, y = torch.randn(32, 64, generator=g), torch.randint(0, 10, (32,), generator=g)
        sgd.zero_grad()
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        sgd.step()
        hashes.append(parameter_hash(model))
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    return dict(hashes=hashes, parameters=flat.numpy(), bytes=None if hook is None else hook.bytes_sent,
                last_step_bytes=None if hook is None else hook.last_step_bytes)


def train_each(rank, size, settings, bucket_cap_mb=None):
    return [train(rank, size, options, bucket_cap_mb=bucket_cap_mb) for options in settings]


def reduce(rank, size, n, fmt, options, seed=0, scale=1.0):
    """(result, bytes sent) of softfloat.torch.distributed.all_reduce of rank_data."""
    x = rank_data(rank, n, seed, scale)
    sent = sfd.all_reduce(x, fmt, **options)
    return x.numpy(), sent


def reduce_each(rank, size, cases):
    return [reduce(rank, size, *case) for case in cases]


def reduce_values(rank, size, values, fmt, options):
    """all_reduce of the given per-rank values (values[rank])."""
    x = torch.tensor(values[rank], dtype=torch.float32)
    sent = sfd.all_reduce(x, fmt, **options)
    return x.numpy(), sent


def summed_magnitudes(rank, size, n, seed=0):
    """sum over ranks of |x_r| in float64 (for the summation-order bound)."""
    x = rank_data(rank, n, seed).double().abs()
    dist.all_reduce(x)
    return x.numpy()


def reduce_or_error(rank, size, fmt_of_rank, options):
    """The message of the error all_reduce raises (None if it returns)."""
    try:
        sfd.all_reduce(rank_data(rank, 100), fmt_of_rank[rank], **options)
    except (ValueError, TypeError) as error:
        return f"{type(error).__name__}: {error}"
    return None


def hook_or_error(rank, size, fmt_of_rank):
    """The error DDP training with per-rank hook formats raises on this rank."""
    try:
        train(rank, size, dict(fmt=fmt_of_rank[rank]), steps=1)
    except (ValueError, TypeError, RuntimeError) as error:
        return f"{type(error).__name__}: {error}"
    return None


class FakeBucket:
    """The GradBucket interface the hook reads: buffer(), index(), is_last()."""

    def __init__(self, buffer, index=0, last=True):
        self._buffer, self._index, self._last = buffer, index, last

    def buffer(self):
        return self._buffer

    def index(self):
        return self._index

    def is_last(self):
        return self._last


def error_feedback_sums(rank, size, fmt, algorithm, steps):
    """Sum over `steps` hook calls on the same gradient, with and without error feedback,
    and the exact sum (steps times the exact average)."""
    gradient = rank_data(rank, 256)
    exact = gradient.double().clone()
    dist.all_reduce(exact)
    exact = exact / size * steps
    sums = {}
    for feedback in (False, True):
        hook = sfd.compress_hook(fmt, algorithm=algorithm, error_feedback=feedback)
        total = torch.zeros(256, dtype=torch.float64)
        for _ in range(steps):
            total += hook(None, FakeBucket(gradient.clone())).wait().double()
        sums[feedback] = total.numpy()
    return sums[False], sums[True], exact.numpy()


def hang_on_rank_one(rank, size):
    if rank == 1:
        import time
        time.sleep(120)
    return rank


def fail_on_rank_one(rank, size):
    if rank == 1:
        raise ArithmeticError("rank one fails on purpose")
    dist.barrier()
    return rank


def non_float_bucket(rank, size):
    hook = sfd.compress_hook("e4m3")
    try:
        hook(None, FakeBucket(torch.zeros(8, dtype=torch.int32)))
    except TypeError as error:
        return str(error)
    return None


def fake_quantize_alone(rank, size, n, fmt, algorithm):
    """World size 1: the all_reduce result and bytes, and softfloat's own round trip."""
    x = rank_data(rank, n)
    source = x.numpy().copy()
    sent = sfd.all_reduce(x, fmt, algorithm=algorithm, scaling="none")
    return x.numpy(), sent, softfloat.round_trip(source, fmt)


def float_sizes(rank, size):
    return np.array([dist.get_rank(), dist.get_world_size()])


def delayed_scaling_steps(rank, size, steps, reduce_amax):
    """A DelayedScaling recipe used `steps` times on this rank's data, whose amax at step s
    is rank_amax(rank, size, s): (amax history, the scales used, the values)."""
    import softfloat.torch as sft
    recipe = sft.DelayedScaling("e4m3", history_len=4, reduce_amax=reduce_amax)
    scales, values = [], []
    for step in range(steps):
        x = torch.linspace(-1.0, 1.0, 33) * rank_amax(rank, size, step)
        q, scale = recipe(x)
        scales.append(scale.item())
        values.append(q)
    return recipe.amax_history.tolist(), scales, torch.stack(values).tolist()  # plain data across processes


def rank_amax(rank, size, step):
    """A different rank holds the largest amax at each step: (1 + (rank + step) mod size) * 2^step / 3."""
    return (1 + (rank + step) % size) * 2.0**step / 3


def recipe_delayed_scales(rank, size, steps):
    """A te_delayed Linear trained `steps` steps on this rank's inputs (amax rank_amax):
    the x, w and dy histories and scales after the last step."""
    import softfloat.torch as sft
    from softfloat.torch import recipes
    torch.manual_seed(0)  # the same weights on every rank
    layer = sft.Linear(33, 4, recipe=recipes.te_delayed(amax_history_len=4))
    for step in range(steps):
        x = torch.linspace(-1.0, 1.0, 33).repeat(2, 1) * rank_amax(rank, size, step)
        layer(x).sum().backward()
    state = layer.recipe_state
    return {name: getattr(state, name).tolist() for name in ("x_history", "x_scale", "w_history", "dy_history")}
