"""What travels on the wire: a run of float32 values as bytes in a format, and back.

A Codec turns a 1-D float32 tensor of n values into a uint8 payload of a size that
depends only on n, so that the receiver of a message knows its length without a header:

    plain format, whole bytes     n * ceil(bits / 8) code bytes (16-bit codes as two
                                  little-endian bytes: gloo cannot send int16)
    plain format, 4 or 6 bits     ceil(n * bits / 8) packed bytes (the library's dense
                                  layout: two E2M1 codes a byte, four 6-bit codes in 3)
    + scaling="tensor"            4 bytes more: the float32 power-of-two scale s, the
                                  codes holding x * s (amax * s <= the format's max)
    MX element                    ceil(n * bits / 8) element bytes + ceil(n / block) E8M0
                                  scales (the block scales always, whatever `scaling`)
    "nvfp4"                       with n16 = n rounded up to 16: n16 / 2 element bytes +
                                  n16 / 16 E4M3 scales + 4 bytes of float32 tensor amax

`unit` is the number of values a message must be a multiple of (except a run's last):
the MX / NVFP4 block, the values of one packed byte group, else 1. Every encode takes a
seed, so that stochastic rounding draws independent noise per message.
"""
import struct

import torch

from softfloat import _core
from softfloat.torch import _tensors
from softfloat.torch.scaling import _amax_to_scale

__all__ = ["Codec", "SCALINGS", "NVFP4_BLOCK", "PACKED_BITS"]

SCALINGS = ("tensor", "block", "none")
NVFP4_BLOCK = 16
PACKED_BITS = (4, 6)


def _nvfp4_padded(n):
    """n rounded up to whole NVFP4 blocks (zeros fill the last one on the wire)."""
    return -(-n // NVFP4_BLOCK) * NVFP4_BLOCK


class Codec:
    """The encoding of runs of float32 values in one format (see the module's text)."""

    def __init__(self, fmt, rounding="nearest_even", scaling="tensor", block_size=32, function="compress_hook"):
        if not isinstance(fmt, str):
            raise TypeError(f"softfloat.torch.distributed.{function}: fmt must be a format spec, an MX element "
                            f"name or 'nvfp4', not {type(fmt).__name__}")
        if scaling not in SCALINGS:
            raise ValueError(f"softfloat.torch.distributed.{function}: unknown scaling {scaling!r} (accepted: "
                             f"{', '.join(SCALINGS)})")
        if rounding not in _core.rounding_modes():
            raise ValueError(f"softfloat.torch.distributed.{function}: unknown rounding {rounding!r} (accepted: "
                             f"{', '.join(_core.rounding_modes())})")
        self.fmt, self.rounding, self.function = fmt, rounding, function
        self.stochastic = _tensors.is_stochastic(rounding)
        if fmt == "nvfp4":
            self.kind, self.bits, self.unit, self.scaling = "nvfp4", 4, NVFP4_BLOCK, "block"
        elif fmt in _core.mx_elements():
            if not isinstance(block_size, int) or block_size < 1:
                raise ValueError(f"softfloat.torch.distributed.{function}: block_size must be a positive int, "
                                 f"not {block_size!r}")
            self.kind, self.scaling = "mx", "block"
            self.bits = {"mxfp8_e4m3": 8, "mxfp8_e5m2": 8, "mxint8": 8, "mxfp6_e3m2": 6, "mxfp6_e2m3": 6,
                         "mxfp4_e2m1": 4}[fmt]
            self.unit = block_size
            self.block_size = block_size
        else:
            info = _tensors.format_info(fmt, f"distributed.{function}")
            if scaling == "block":
                raise ValueError(f"softfloat.torch.distributed.{function}: scaling='block' needs an MX element or "
                                 f"'nvfp4'; {info.name} takes scaling='tensor' or 'none'")
            self.kind, self.bits, self.scaling = "plain", info.bits, scaling
            self.info = info
            self.packed = info.bits in PACKED_BITS
            self.unit = {4: 2, 6: 4}.get(info.bits, 1) if self.packed else 1
            self.code_bytes = 1 if self.packed else max(1, -(-info.bits // 8))
            if self.code_bytes > 8:
                raise ValueError(f"softfloat.torch.distributed.{function}: {info.name} codes are wider than 64 bits")

    def _scratch(self, n):
        """n floats of working memory, reused from call to call: a fresh 64 MiB tensor
        costs its page faults on every step, a reused one once."""
        if getattr(self, "_buffer", None) is None or self._buffer.numel() < n:
            self._buffer = _tensors.new_tensor((n,), torch.float32)
        return self._buffer[:n]

    def describe(self):
        """The settings every rank must share, as text (compared across ranks)."""
        extra = f" block_size={self.block_size}" if self.kind == "mx" else ""
        return f"fmt={self.fmt} scaling={self.scaling} rounding={self.rounding}{extra}"

    # ---- sizes ---------------------------------------------------------------------

    def payload_bytes(self, n):
        """Bytes of the payload of n values (the formula in the module's text)."""
        if self.kind == "nvfp4":
            padded = _nvfp4_padded(n)
            return padded // 2 + padded // NVFP4_BLOCK + 4
        if self.kind == "mx":
            return self._element_bytes(n) + -(-n // self.block_size)
        codes = self._element_bytes(n) if self.packed else n * self.code_bytes
        return codes + self._header_bytes()

    # ---- encode / decode -------------------------------------------------------------

    def encode(self, values, seed):
        """The uint8 payload of a 1-D contiguous float32 tensor."""
        seed = seed if self.stochastic else None
        if self.kind == "nvfp4":
            return self._encode_nvfp4(values, seed)
        if self.kind == "mx":
            n = values.numel()
            payload = torch.empty(self.payload_bytes(n), dtype=torch.uint8)
            if n:
                elements = payload.data_ptr()
                _core._mx_quantize_buffer(values.data_ptr(), elements, elements + self._element_bytes(n), n,
                                          self.fmt, self.block_size, self.rounding, seed)
            return payload
        return self._encode_plain(values, seed)

    def _check_size(self, payload, n):
        if payload.numel() != self.payload_bytes(n):
            raise ValueError(f"softfloat.torch.distributed: a payload of {payload.numel()} bytes for {n} values of "
                             f"{self.describe()}; expected {self.payload_bytes(n)}")

    def decode(self, payload, n):
        """The float32 values of a payload of n values (a new tensor)."""
        return self.decode_into(payload, n, _tensors.new_tensor((n,), torch.float32))

    def decode_into(self, payload, n, out):
        """out = the payload's values (n contiguous float32); returns out."""
        self._check_size(payload, n)
        if self.kind == "nvfp4":
            return self._decode_nvfp4(payload, n, out)
        if self.kind == "mx":
            if n:
                elements = payload.data_ptr()
                _core._mx_dequantize_buffer(elements, elements + self._element_bytes(n), out.data_ptr(), n, self.fmt,
                                            self.block_size)
            return out
        scale = self._header_scale(payload)
        self._decode_codes(payload, n, out)
        # x * (1 / s), not x / s: the same bits for a power of two, and add_decoded's
        # add_(alpha=1 / s) takes the same product.
        return out if scale == 1.0 else out.mul_(1.0 / scale)

    def add_decoded(self, payload, n, total):
        """total += the payload's values (the same bits as total += decode(payload, n))."""
        if self.kind != "plain":
            total += self.decode_into(payload, n, self._scratch(n))
            return
        self._check_size(payload, n)
        scale = self._header_scale(payload)
        codes = self._scratch(n)
        self._decode_codes(payload, n, codes)
        total.add_(codes, alpha=1.0 / scale) if scale != 1.0 else total.add_(codes)

    def scale_for_amax(self, amax):
        """The power of two s with amax * s <= max (the largest such; 1 for amax 0 or
        not finite), as CurrentScaling(power_of_two=True) computes it."""
        return float(_amax_to_scale(torch.as_tensor(amax), float(self.info.max), True, 0))

    def _scale_of(self, values):
        if self.scaling != "tensor" or values.numel() == 0:
            return 1.0
        low, high = torch.aminmax(values)  # one pass, no |x| temporary; NaN propagates
        return self.scale_for_amax(torch.maximum(-low, high))

    def _encode_plain(self, values, seed):
        n = values.numel()
        scale = self._scale_of(values)
        # A power of two: exact in float32's normal range.
        scaled = values if scale == 1.0 else torch.mul(values, scale, out=self._scratch(n))
        header = self._header_bytes()
        payload = torch.empty(self.payload_bytes(n), dtype=torch.uint8)
        if header:
            payload[:4] = torch.frombuffer(bytearray(struct.pack("<f", scale)), dtype=torch.uint8)
        saturate = self.scaling == "tensor"
        if self.packed:
            packed = _core.quantize(scaled.numpy(), self.fmt, self.rounding, saturate, seed, packed=True)
            payload[header:] = torch.from_numpy(packed)
        elif n:
            codes = payload[header:]
            _core._quantize_buffer(scaled.data_ptr(), "float32", codes.data_ptr(), self.code_bytes, n, self.fmt,
                                   self.rounding, saturate, seed, 0)
        return payload

    def _header_bytes(self):
        """The float32 scale in front of a plain format's codes, with scaling="tensor"."""
        return 4 if self.scaling == "tensor" else 0

    def _header_scale(self, payload):
        if not self._header_bytes():
            return 1.0
        return struct.unpack("<f", payload[:4].numpy().tobytes())[0]

    def _decode_codes(self, payload, n, out):
        """The codes' values, unscaled, into the float32 tensor `out`."""
        header = self._header_bytes()
        if self.packed:
            out.copy_(torch.from_numpy(_core.dequantize(payload[header:].numpy(), self.fmt, packed=True, shape=n)))
        elif n:
            # Codes after a 4-byte header are 4-byte aligned at most; a copy aligns 8-byte ones.
            codes = payload[header:] if self.code_bytes <= 4 else payload[header:].clone()
            _core._dequantize_buffer(codes.data_ptr(), self.code_bytes, out.data_ptr(), "float32", n, self.fmt)

    def _element_bytes(self, n):
        """Bytes of n densely packed codes of `bits` bits."""
        return -(-n * self.bits // 8)

    def _encode_nvfp4(self, values, seed):
        n = values.numel()
        padded = _nvfp4_padded(n)
        payload = torch.empty(self.payload_bytes(n), dtype=torch.uint8)
        source = values
        if padded != n:  # zeros fill the last block: they change no amax and decode to zero
            source = self._scratch(padded)
            source[:n] = values
            source[n:] = 0.0
        amax = 0.0
        if padded:
            elements = payload.data_ptr()
            amax = _core._nvfp4_quantize_buffer(source.data_ptr(), elements, elements + padded // 2, padded,
                                                self.rounding, seed)
        payload[-4:] = torch.frombuffer(bytearray(struct.pack("<f", amax)), dtype=torch.uint8)
        return payload

    def _decode_nvfp4(self, payload, n, out):
        padded = _nvfp4_padded(n)
        if padded:
            amax = struct.unpack("<f", payload[-4:].numpy().tobytes())[0]
            target = out if padded == n else self._scratch(padded)
            elements = payload.data_ptr()
            _core._nvfp4_dequantize_buffer(elements, elements + padded // 2, amax, target.data_ptr(), padded)
            if target is not out:
                out.copy_(target[:n])
        return out
