"""Scaling recipes: how a tensor is scaled before it is rounded into a narrow format.

A recipe maps a tensor x to (values, scale): the fake-quantized values
quantize(x * scale, fmt) / scale, the product x * scale and the division rounded in
float32, with the scale kept so that a matrix product can multiply codes and divide
once at the end, as FP8 GEMMs do.

    CurrentScaling(fmt)           scale = max_fmt / amax(x) (optionally a power of two)
    DelayedScaling(fmt, ...)      TransformerEngine's DelayedScaling: the scale comes from
                                  a history of earlier amaxes (length, "max" or
                                  "most_recent", margin), updated after each use
    RowScaling(fmt, axis=-1)      one current scale per row (amax along `axis`)
    BlockScaling(fmt, (1, 128))   one current scale per block of a 2-D tensor (1 x 128
                                  tiles for activations, 128 x 128 for weights, as
                                  DeepSeek-V3 and TransformerEngine's blockwise recipe)

A recipe is an nn.Module: its state (the amax history, the current scale) is a buffer
and survives state_dict() / load_state_dict().
"""
import math

import torch

from softfloat.torch import _tensors
from softfloat.torch.fake_quantize import quantize

__all__ = ["CurrentScaling", "DelayedScaling", "RowScaling", "BlockScaling", "max_over_ranks"]


def _max_of(fmt, function):
    return float(_tensors.format_info(fmt, function).max)


def _amax_to_scale(amax, fmt_max, power_of_two, margin):
    """max_fmt / amax / 2^margin, elementwise over an amax tensor (1 where amax is 0 or
    not finite, so such tensors pass unscaled); rounded down to a power of two when asked."""
    amax = amax.to(torch.float64)
    good = torch.isfinite(amax) & (amax > 0)
    scale = torch.where(good, fmt_max / torch.where(good, amax, torch.ones_like(amax)), torch.ones_like(amax))
    scale = scale / (2.0 ** margin)
    if power_of_two:
        scale = torch.exp2(torch.floor(torch.log2(scale)))
    return scale.to(torch.float32)


def max_over_ranks(amax, group=None):
    """amax's maximum over the ranks of `group` (None: the default group), as a float32
    copy, where torch.distributed is initialised; amax itself elsewhere."""
    distributed = torch.distributed
    if not (distributed.is_available() and distributed.is_initialized()):
        return amax
    amax = amax.detach().to(torch.float32).clone()
    distributed.all_reduce(amax, op=distributed.ReduceOp.MAX, group=group)
    return amax


class _Recipe(torch.nn.Module):
    def __init__(self, fmt, rounding="nearest_even", saturate=True):
        super().__init__()
        self.fmt_max = _max_of(fmt, type(self).__name__)
        self.fmt, self.rounding, self.saturate = fmt, rounding, saturate

    def scale_of(self, x):
        raise NotImplementedError

    def forward(self, x):
        """(values, scale): x fake-quantized through the scale, and the scale used."""
        scale = self.scale_of(x.detach())
        scaled = x * scale
        q = quantize(scaled, self.fmt, self.rounding, self.saturate)
        return q / scale, scale

    def extra_repr(self):
        return f"fmt={self.fmt!r}"


class CurrentScaling(_Recipe):
    """scale = max_fmt / amax(x) / 2^margin, from the tensor itself (power_of_two: rounded
    down to a power of two, so that scaling is exact)."""

    def __init__(self, fmt, *, power_of_two=False, margin=0, rounding="nearest_even", saturate=True):
        super().__init__(fmt, rounding, saturate)
        self.power_of_two, self.margin = power_of_two, margin

    def scale_of(self, x):
        return _amax_to_scale(x.abs().max() if x.numel() else torch.tensor(0.0), self.fmt_max, self.power_of_two,
                              self.margin)


class DelayedScaling(_Recipe):
    """TransformerEngine's DelayedScaling: each use records amax(x) in a history of
    `history_len` entries; the scale used is the one computed after the previous use,
    scale = max_fmt / amax_h / 2^margin with amax_h the largest entry of the history
    (amax_compute="max") or the newest (amax_compute="most_recent"). The first use (empty
    history) has scale 1; a zero or non-finite amax_h keeps the previous scale.

    Across ranks: where torch.distributed is initialised and reduce_amax is True (the
    default, as TransformerEngine's reduce_amax), each use's amax is reduced with a max
    all-reduce over `group` (None: the default group) before it enters the history, so
    that every rank holds the same history and scale. Every rank of the group must then
    use the recipe in the same order, as with any collective."""

    def __init__(self, fmt, *, history_len=1024, amax_compute="max", margin=0, power_of_two=False,
                 rounding="nearest_even", saturate=True, reduce_amax=True, group=None):
        super().__init__(fmt, rounding, saturate)
        self.reduce_amax, self.group = bool(reduce_amax), group
        if amax_compute not in ("max", "most_recent"):
            raise ValueError(f"softfloat.torch.DelayedScaling: amax_compute must be 'max' or 'most_recent', not "
                             f"{amax_compute!r}")
        if int(history_len) < 1:
            raise ValueError(f"softfloat.torch.DelayedScaling: history_len must be at least 1, not {history_len}")
        self.amax_compute, self.margin, self.power_of_two = amax_compute, margin, power_of_two
        self.register_buffer("amax_history", torch.zeros(int(history_len)))
        self.register_buffer("scale", torch.ones(()))
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))

    def scale_of(self, x):
        scale = self.scale.clone()
        self._record(x.abs().max() if x.numel() else torch.tensor(0.0))
        return scale

    @torch.no_grad()
    def _record(self, amax):
        if self.reduce_amax:
            amax = max_over_ranks(amax, self.group)
        # Newest entry first (TransformerEngine rolls the history and writes slot 0).
        self.amax_history.copy_(torch.roll(self.amax_history, 1))
        self.amax_history[0] = amax.to(self.amax_history.dtype)
        self.steps += 1
        filled = self.amax_history[: min(int(self.steps), self.amax_history.numel())]
        reference = filled.max() if self.amax_compute == "max" else filled[0]
        if torch.isfinite(reference) and reference > 0:
            self.scale.copy_(_amax_to_scale(reference, self.fmt_max, self.power_of_two, self.margin))


class RowScaling(_Recipe):
    """One current scale per slice along `axis` (per token for activations, per output
    channel for weights): scale_r = max_fmt / amax(row r)."""

    def __init__(self, fmt, *, axis=-1, power_of_two=False, rounding="nearest_even", saturate=True):
        super().__init__(fmt, rounding, saturate)
        self.axis, self.power_of_two = axis, power_of_two

    def scale_of(self, x):
        return _amax_to_scale(x.abs().amax(dim=self.axis, keepdim=True), self.fmt_max, self.power_of_two, 0)


class BlockScaling(_Recipe):
    """One current scale per tile of a 2-D tensor (block=(1, 128) or (128, 128); tiles at
    the edges may be smaller)."""

    def __init__(self, fmt, block=(1, 128), *, power_of_two=False, rounding="nearest_even", saturate=True):
        super().__init__(fmt, rounding, saturate)
        if len(block) != 2 or min(block) < 1:
            raise ValueError(f"softfloat.torch.BlockScaling: block must be two positive sizes, not {block!r}")
        self.block, self.power_of_two = tuple(int(b) for b in block), power_of_two

    def scale_of(self, x):
        if x.dim() != 2:
            raise ValueError(f"softfloat.torch.BlockScaling: expected a 2-D tensor, got {x.dim()} dimensions")
        rows, cols = x.shape
        br, bc = self.block
        padded = torch.zeros(math.ceil(rows / br) * br, math.ceil(cols / bc) * bc, dtype=torch.float32)
        padded[:rows, :cols] = x.abs()
        tiles = padded.reshape(padded.shape[0] // br, br, padded.shape[1] // bc, bc).amax(dim=(1, 3))
        scales = _amax_to_scale(tiles, self.fmt_max, self.power_of_two, 0)
        return scales.repeat_interleave(br, 0).repeat_interleave(bc, 1)[:rows, :cols]

    def extra_repr(self):
        return f"fmt={self.fmt!r}, block={self.block}"
