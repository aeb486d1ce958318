"""The three ways a flat float32 gradient is averaged across the ranks of a group.

    gather     every rank all-gathers every rank's payload and decodes and sums them in
               float32 in rank order: one rounding per value and rank; each rank sends
               (N - 1) payloads of the whole array (gloo's all-gather is a ring, each
               rank forwarding N - 1 payloads), so the bytes grow with N.
    ring       the ring all-reduce of softfloat/cost/all_reduce.hpp on isend / irecv:
               N chunks cut on the codec's unit (chunk c = units [c U / N, (c + 1) U / N)),
               a reduce-scatter in which each hop re-encodes the partial sum it forwards
               (N - 1 roundings of every value), then an all-gather in which each chunk's
               owner encodes the finished average once and that payload travels unchanged.
               Each rank sends 2 (N - 1) chunk payloads, 2 (N - 1) / N of the array.
    allreduce  the engine's own all-reduce on a torch dtype it can sum (float32, float16;
               bfloat16 where the backend sums it), the values rounded into it first; the
               engine rounds every partial sum in that dtype.

Every rank decodes the same bytes in the same order, so every rank ends with the same
bits. Each also returns, when asked (for error feedback), what its own roundings
removed from the sum: gather, its values minus their decoding; ring, at each chunk it
encoded, the partial sum minus its decoding (for the finished average, N times that);
allreduce, its values minus their rounding into the dtype (N times, for the average).
"""
import torch
import torch.distributed as dist

from softfloat.torch import _tensors
from softfloat.torch.distributed._seeds import message_seed

__all__ = ["ALGORITHMS", "ENGINE_DTYPES", "chunk_bounds", "peer", "sum_payloads", "gather", "ring", "engine_dtype",
           "engine_all_reduce", "ring_values_sent"]

ALGORITHMS = ("gather", "ring", "allreduce")
# The dtypes the engine's all-reduce can carry, by format name.
ENGINE_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def chunk_bounds(n, unit, parts):
    """[begin, end) of each of `parts` chunks of n values, cut on multiples of `unit`:
    cost::detail::chunk_begin on the units, so unit 1 gives the cost model's chunks."""
    units = -(-n // unit)
    begin = lambda c: c * (units // parts) + c * (units % parts) // parts  # noqa: E731
    return [(min(n, begin(c) * unit), min(n, begin(c + 1) * unit)) for c in range(parts)]


def peer(group, group_rank):
    """The global rank of a rank of `group` (isend / irecv address global ranks)."""
    if group is None or group is dist.group.WORLD:
        return group_rank
    return dist.distributed_c10d._get_global_rank(group, group_rank)


def _exchange(send, send_to, receive, receive_from, group):
    """One ring step: receive while sending (irecv first, so neither side waits)."""
    incoming = dist.irecv(receive, src=receive_from, group=group)
    outgoing = dist.isend(send, dst=send_to, group=group)
    outgoing.wait()
    incoming.wait()


def sum_payloads(codec, payloads, n, total):
    """total = the sum of the ranks' payloads in rank order (the same bits on every rank)."""
    codec.decode_into(payloads[0], n, total)
    for payload in payloads[1:]:
        codec.add_decoded(payload, n, total)
    return total


def gather(values, codec, group, seeds, average, feedback, out=None):
    """`out` (n float32, may be `values` itself) receives the result when given."""
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    n = values.numel()
    payload = codec.encode(values, message_seed(seeds, rank, 0, 0))
    residual = values - codec.decode(payload, n) if feedback else None
    total = out if out is not None else _tensors.new_tensor((n,), torch.float32)
    if size == 1:
        return codec.decode_into(payload, n, total), 0, residual
    payloads = [torch.empty_like(payload) for _ in range(size)]
    dist.all_gather(payloads, payload, group=group)
    sum_payloads(codec, payloads, n, total)
    if average:
        total /= size
    return total, (size - 1) * payload.numel(), residual


def ring(values, codec, group, seeds, average, feedback):
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    n = values.numel()
    bounds = chunk_bounds(n, codec.unit, size)
    sums = values.clone()
    residual = torch.zeros_like(values) if feedback else None
    result = torch.empty_like(values)
    send_to, receive_from = peer(group, (rank + 1) % size), peer(group, (rank - 1) % size)
    sent = 0
    # Reduce-scatter: at step s send chunk (rank - s), add chunk (rank - 1 - s) in.
    for step in range(size - 1):
        out_chunk, in_chunk = (rank - step) % size, (rank - 1 - step) % size
        begin, end = bounds[out_chunk]
        payload = codec.encode(sums[begin:end].contiguous(), message_seed(seeds, rank, 1, step))
        if feedback:
            residual[begin:end] += sums[begin:end] - codec.decode(payload, end - begin)
        in_begin, in_end = bounds[in_chunk]
        incoming = torch.empty(codec.payload_bytes(in_end - in_begin), dtype=torch.uint8)
        _exchange(payload, send_to, incoming, receive_from, group)
        codec.add_decoded(incoming, in_end - in_begin, sums[in_begin:in_end])
        sent += payload.numel()
    # The chunk finished here, averaged and encoded once: every rank decodes these bytes.
    owned = (rank + 1) % size
    begin, end = bounds[owned]
    finished = sums[begin:end] / size if average else sums[begin:end]
    payload = codec.encode(finished.contiguous(), message_seed(seeds, rank, 2, 0))
    codec.decode_into(payload, end - begin, result[begin:end])
    if feedback:
        residual[begin:end] += (finished - result[begin:end]) * (size if average else 1)
    # All-gather: forward at step s the payload of chunk (rank + 1 - s), unchanged.
    for step in range(size - 1):
        in_chunk = (rank - step) % size
        in_begin, in_end = bounds[in_chunk]
        incoming = torch.empty(codec.payload_bytes(in_end - in_begin), dtype=torch.uint8)
        _exchange(payload, send_to, incoming, receive_from, group)
        codec.decode_into(incoming, in_end - in_begin, result[in_begin:in_end])
        sent += payload.numel()
        payload = incoming
    return result, sent, residual


def engine_dtype(codec, group, function):
    """The torch dtype the engine's all-reduce carries for this codec, or ValueError."""
    name = getattr(getattr(codec, "info", None), "name", None)
    dtype = ENGINE_DTYPES.get(name) if codec.kind == "plain" else None
    if dtype is None:
        raise ValueError(f"softfloat.torch.distributed.{function}: algorithm='allreduce' sums in a torch dtype "
                         f"(fp32, fp16, bf16); {codec.fmt} has none: use algorithm='gather' or 'ring', which send "
                         f"its codes as bytes")
    if dtype == torch.bfloat16 and dist.get_backend(group) == "gloo":
        raise ValueError(f"softfloat.torch.distributed.{function}: gloo cannot all-reduce bfloat16 tensors; send "
                         f"bf16 codes with algorithm='gather' or 'ring' (they travel as bytes)")
    return dtype


def engine_all_reduce(values, codec, group, seeds, average, feedback, function):
    """The engine's all-reduce. For float32 without scaling this is DDP's default
    communication: values * (1 / N) (a multiplication, as DDP's reducer does), then a
    summing all-reduce; other dtypes round values / N into the dtype first (with the
    codec's rounding) and the engine sums in it."""
    dtype = engine_dtype(codec, group, function)
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    if dtype == torch.float32 and codec.scaling == "none":
        wire = values * (1.0 / size) if average else values.clone()
        if size > 1:
            dist.all_reduce(wire, group=group)
        return wire, ring_values_sent(values.numel(), size, rank) * 4, torch.zeros_like(values) if feedback else None
    scaled = values / size if average else values
    scale = 1.0
    if codec.scaling == "tensor":
        # One scale for all ranks, from the largest amax of any, with room for the sum of
        # N such values: no partial sum of the engine can overflow.
        low, high = torch.aminmax(scaled) if scaled.numel() else (torch.zeros(()), torch.zeros(()))
        amax = torch.maximum(-low, high).reshape(1)
        if size > 1:
            dist.all_reduce(amax, op=dist.ReduceOp.MAX, group=group)
        scale = codec.scale_for_amax(amax[0] * size)
    codes = _tensors.encode(scaled * scale if scale != 1.0 else scaled, codec.fmt, codec.rounding,
                            codec.scaling == "tensor", message_seed(seeds, rank, 0, 0))
    wire = codes.view(dtype)
    residual = (scaled - wire.to(torch.float32) / scale) * (size if average else 1) if feedback else None
    if size > 1:
        dist.all_reduce(wire, group=group)
    result = wire.to(torch.float32) / scale
    return result, ring_values_sent(values.numel(), size, rank) * wire.element_size(), residual


def ring_values_sent(n, size, rank):
    """Values rank sends in a ring all-reduce of n (the engine does not say what it sent,
    so its all-reduce is reported as the ring would send): every chunk but (rank + 1)
    in the reduce-scatter and every chunk but (rank + 2) in the all-gather."""
    if size == 1:
        return 0
    bounds = chunk_bounds(n, 1, size)
    length = lambda c: bounds[c % size][1] - bounds[c % size][0]  # noqa: E731
    return 2 * n - length(rank + 1) - length(rank + 2)
