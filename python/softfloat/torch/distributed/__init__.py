"""Gradients on the wire in any format, on torch.distributed (gloo on CPU, or any backend
that sends uint8 tensors): a DDP communication hook and a collective.

    import softfloat.torch.distributed as sfd
    ddp.register_comm_hook(None, sfd.compress_hook("e4m3"))          # codes + a scale
    ddp.register_comm_hook(None, sfd.compress_hook("mxfp4_e2m1", algorithm="ring"))
    sent = sfd.all_reduce(tensor, "nvfp4")                            # in place; bytes sent

Formats are any spec ("e4m3", "bf16", "e2m1", "e3m4:bias=5", ...), an MX element
("mxfp8_e4m3", "mxfp6_e2m3", "mxfp4_e2m1", ...) or "nvfp4"; MX and NVFP4 always travel
with their block scales (NVFP4 with its tensor amax too), whatever `scaling` says.
Codes travel as uint8 bytes (gloo in torch 1.13 sends neither int16 nor bfloat16 and has
no reduce_scatter); the payload sizes and the three algorithms are described in
_codec.py and _algorithms.py, and in docs/reference/torch.md ("Gradients on the wire").
"""
import torch
import torch.distributed as dist

from softfloat.torch import _tensors
from softfloat.torch.distributed import _algorithms
from softfloat.torch.distributed._agreement import check_agreement
from softfloat.torch.distributed._codec import Codec
from softfloat.torch.distributed._launch import launch
from softfloat.torch.distributed._seeds import bucket_seeds

__all__ = ["compress_hook", "all_reduce", "CompressHook", "launch", "OPS"]
OPS = ("avg", "sum")


def _check_algorithm(algorithm, function):
    if algorithm not in _algorithms.ALGORITHMS:
        raise ValueError(f"softfloat.torch.distributed.{function}: unknown algorithm {algorithm!r} (accepted: "
                         f"{', '.join(_algorithms.ALGORITHMS)})")


def _reduce(values, codec, algorithm, group, seeds, average, function, feedback=False, out=None):
    """(result, bytes sent, residual or None) of one flat float32 array; gather writes
    its result into `out` when given (the caller's memory: one pass fewer)."""
    if algorithm == "allreduce":
        return _algorithms.engine_all_reduce(values, codec, group, seeds, average, feedback, function)
    if algorithm == "gather":
        return _algorithms.gather(values, codec, group, seeds, average, feedback, out)
    return _algorithms.ring(values, codec, group, seeds, average, feedback)


def _flat_float32_view(tensor):
    """tensor as a flat float32 view of its own memory, or None if it has none."""
    return tensor.view(-1) if tensor.dtype == torch.float32 and tensor.is_contiguous() else None


class CompressHook:
    """A DDP communication hook (see compress_hook). Keeps the step count, the bytes
    sent (bytes_sent: total; last_step_bytes: the last finished step's) and, with error
    feedback, each bucket's residual."""

    def __init__(self, fmt, rounding, seed, scaling, algorithm, error_feedback, block_size, group):
        _check_algorithm(algorithm, "compress_hook")
        self.codec = Codec(fmt, rounding, scaling, block_size, "compress_hook")
        if not isinstance(seed, int):
            raise TypeError(f"softfloat.torch.distributed.compress_hook: seed must be an int, not "
                            f"{type(seed).__name__}")
        self.seed, self.algorithm, self.error_feedback, self.group = seed, algorithm, bool(error_feedback), group
        self.settings = f"{self.codec.describe()} algorithm={algorithm} error_feedback={self.error_feedback}"
        self.step, self.bytes_sent, self.last_step_bytes, self._step_bytes = 0, 0, 0, 0
        self.residuals = {}
        self.__name__ = self.__qualname__ = "softfloat_compress_hook"  # DDP logs (and vets) hooks by name

    def __call__(self, state, bucket):
        group = self.group if self.group is not None else state if isinstance(state, dist.ProcessGroup) else None
        buffer = bucket.buffer()
        if buffer.dtype not in _tensors.FLOAT_TYPES:
            raise TypeError(f"softfloat.torch.distributed.compress_hook: the bucket holds {buffer.dtype}; a float "
                            f"bucket ({_tensors.ACCEPTED_FLOATS}) is needed")
        index = bucket.index()
        if self.step == 0:  # DDP keeps the buckets' layout: the first step's check covers the run
            check_agreement(self.settings, buffer.numel(), group, "compress_hook")
        values = buffer.to(torch.float32).reshape(-1)
        if self.error_feedback and index in self.residuals:
            values = values + self.residuals[index]
        seeds = bucket_seeds(self.seed, self.step, index)
        result, sent, residual = _reduce(values.contiguous(), self.codec, self.algorithm, group, seeds, True,
                                         "compress_hook", self.error_feedback, _flat_float32_view(buffer))
        if self.error_feedback:
            self.residuals[index] = residual
        if result.data_ptr() != buffer.data_ptr():
            buffer.copy_(result.reshape(buffer.shape))
        self._step_bytes += sent
        self.bytes_sent += sent
        if bucket.is_last():
            self.step += 1
            self.last_step_bytes, self._step_bytes = self._step_bytes, 0
        future = torch.futures.Future()
        future.set_result(buffer)
        return future


def compress_hook(fmt, *, rounding="nearest_even", seed=0, scaling="tensor", algorithm="gather",
                  error_feedback=False, block_size=32, group=None):
    """A communication hook for DistributedDataParallel.register_comm_hook(state, hook):
    each bucket is encoded in `fmt`, exchanged as bytes, decoded and averaged in float32,
    and returned in the bucket's dtype.

    fmt             a format spec, an MX element name or "nvfp4"
    rounding        any rounding mode; stochastic ones draw per message from
                    (seed, step, bucket, rank, hop), so runs repeat and ranks differ
    scaling         "tensor" (a power-of-two scale from the amax of what is sent, 4 bytes
                    more), "none" (the format's own range and overflow rule) or "block"
                    (MX / NVFP4, which always use their block scales)
    algorithm       "gather", "ring" or "allreduce" (see _algorithms.py)
    error_feedback  each rank keeps what its roundings removed from the sum and adds it to
                    the next step's gradient of the same bucket
    group           the process group (default: DDP's state if it is one, else WORLD)

    compress_hook("fp32", scaling="none", algorithm="allreduce") is DDP's default
    communication, bit for bit. The returned CompressHook counts the bytes it sent.
    """
    return CompressHook(fmt, rounding, seed, scaling, algorithm, error_feedback, block_size, group)


def all_reduce(tensor, fmt, op="avg", group=None, algorithm="ring", *, rounding="nearest_even", seed=0,
               scaling="tensor", step=0, block_size=32, check=True):
    """Reduces `tensor` across the group in place with its values sent in `fmt` (options
    as compress_hook's; step and seed choose the stochastic rounding's stream) and returns
    the bytes this rank sent. op is "avg" or "sum". check=False skips the agreement check
    (one small all-gather) when the caller knows the ranks agree."""
    _tensors.check_float_tensor(tensor, "distributed.all_reduce", "tensor")
    if op not in OPS:
        raise ValueError(f"softfloat.torch.distributed.all_reduce: unknown op {op!r} (accepted: {', '.join(OPS)})")
    _check_algorithm(algorithm, "all_reduce")
    codec = Codec(fmt, rounding, scaling, block_size, "all_reduce")
    if check:
        check_agreement(f"{codec.describe()} algorithm={algorithm} op={op}", tensor.numel(), group, "all_reduce")
    values = tensor.detach().to(torch.float32).reshape(-1).contiguous()
    result, sent, _ = _reduce(values, codec, algorithm, group, bucket_seeds(seed, step, 0), op == "avg",
                              "all_reduce", out=_flat_float32_view(tensor.detach()))
    if result.data_ptr() != tensor.data_ptr():
        with torch.no_grad():
            tensor.copy_(result.reshape(tensor.shape))
    return sent
