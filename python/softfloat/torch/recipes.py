"""The training recipes of real systems, GEMM by GEMM: softfloat.torch.recipes.

A recipe says, for each of a linear layer's three GEMMs, how each operand is rounded:

    forward   y  = x W^T     reduces over K (in_features)
    dgrad     dx = dy W      reduces over N (out_features)
    wgrad     dW = dy^T x    reduces over M (tokens)

Blocks and per-row scales always run along the reduction axis of the GEMM that consumes
the operand. Each constructor, called with no arguments, gives the system's documented
defaults, read from TransformerEngine's main branch at 2.20.0.dev0 (commit d0067d0da,
whose recipe code equals release 2.19's) and torchao 0.18.0; docs/design/training-recipes.md
states every formula with its source.

    te_delayed()      TransformerEngine DelayedScaling (HYBRID: E4M3 forward, E5M2 gradients)
    te_current()      TransformerEngine Float8CurrentScaling
    te_mxfp8()        TransformerEngine MXFP8BlockScaling (E4M3 everywhere, 1x32 RCEIL blocks)
    te_nvfp4()        TransformerEngine NVFP4BlockScaling (1x16 blocks, 16x16 weight tiles,
                      the random Hadamard transform on the wgrad operands, stochastic
                      rounding of the gradients)
    torchao_float8("tensorwise" | "rowwise" | "rowwise_with_gw_hp")
    torchao_mxfp8("mxfp8_rceil" | "mxfp8_rceil_wgrad_with_hp")

softfloat.torch.Linear(..., recipe=...) and convert(model, recipe=...) run them; the
functions below are the recipe's arithmetic, one per kind of scaling.
"""
import functools
from dataclasses import dataclass, field, replace
from typing import Optional

import torch

from softfloat.torch import _tensors
from softfloat.torch.blocks import mx_quantize
from softfloat.torch.fake_quantize import quantize
from softfloat.torch.scaling import max_over_ranks

__all__ = ["Operand", "Gemm", "Recipe", "RecipeState", "te_delayed", "te_current", "te_mxfp8", "te_nvfp4",
           "torchao_float8", "torchao_mxfp8", "operand_values", "te_nvfp4_values", "te_hadamard",
           "WGRAD_SIGNS", "SCALINGS", "HIGH_PRECISION", "TORCHAO_FLOAT8", "TORCHAO_MXFP8", "REDUCTION_AXES", "check_recipe",
           "padded_rows"]

SCALINGS = ("high_precision", "tensor", "axis", "delayed", "mx", "nvfp4")
_FLT_MAX = torch.finfo(torch.float32).max
# TransformerEngine's fixed sign vector of the wgrad Hadamard transform
# (pytorch/tensor/nvfp4_tensor.py: get_wgrad_sign_vector; bit mask 0xD7E8).
WGRAD_SIGNS = (1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1)


@dataclass(frozen=True)
class Operand:
    """How one operand of one GEMM is rounded.

    scaling      "high_precision" (left as it is), "tensor" (one scale from the tensor's
                 amax), "axis" (one scale per row across the reduction axis), "delayed"
                 (TransformerEngine's amax history), "mx" (fmt an MX element; blocks of
                 `block` along the reduction axis, `scale_rule`), "nvfp4" (E2M1 in blocks
                 of 16 along the reduction axis, or 16 x 16 tiles with tile=True).
    arithmetic   "torchao": scale = fl32(max / max(amax, epsilon)) in float64, values
                 q / scale; "te": scale = fl32(max / amax) (1 where amax is 0, inf or
                 NaN; FLT_MAX where it overflows), values q * fl32(1 / scale).
    hadamard     TransformerEngine's 16-point random Hadamard transform along the
                 reduction axis first (its wgrad operands under NVFP4).
    """
    fmt: Optional[str] = None
    scaling: str = "tensor"
    arithmetic: str = "torchao"
    epsilon: float = 0.0
    power_of_two: bool = False
    block: int = 32
    scale_rule: str = "rceil"
    rounding: str = "nearest_even"
    tile: bool = False
    hadamard: bool = False

    def __post_init__(self):
        if self.scaling not in SCALINGS:
            raise ValueError(f"softfloat.torch.recipes.Operand: scaling must be one of {', '.join(SCALINGS)}, not "
                             f"{self.scaling!r}")
        if (self.fmt is None) != (self.scaling == "high_precision"):
            raise ValueError("softfloat.torch.recipes.Operand: a format goes with every scaling but "
                             "'high_precision', which takes none")
        if self.arithmetic not in ("torchao", "te"):
            raise ValueError(f"softfloat.torch.recipes.Operand: arithmetic must be 'torchao' or 'te', not "
                             f"{self.arithmetic!r}")


HIGH_PRECISION = Operand(None, "high_precision")


@dataclass(frozen=True)
class Gemm:
    """The two operands of one GEMM: a (x or dy) and b (W or x)."""
    a: Operand
    b: Operand


@dataclass(frozen=True)
class Recipe:
    """A system's recipe: each GEMM's operands, and the delayed scaling's history."""
    name: str
    forward: Gemm
    dgrad: Gemm
    wgrad: Gemm
    history_len: int = 1024
    amax_compute: str = "max"
    margin: float = 0.0
    reduce_amax: bool = True
    source: str = field(default="", compare=False)

    def operands(self):
        """(role, GEMM, Operand) for the six operands: roles x, w and dy."""
        return (("x", "forward", self.forward.a), ("w", "forward", self.forward.b), ("dy", "dgrad", self.dgrad.a),
                ("w", "dgrad", self.dgrad.b), ("dy", "wgrad", self.wgrad.a), ("x", "wgrad", self.wgrad.b))

    def uses_delayed_scaling(self):
        return any(operand.scaling == "delayed" for _, _, operand in self.operands())


def check_recipe(recipe, function):
    """recipe, or TypeError naming `function` where it is not a Recipe."""
    if not isinstance(recipe, Recipe):
        raise TypeError(f"softfloat.torch.{function}: recipe must be a softfloat.torch.recipes.Recipe (such as "
                        f"recipes.te_nvfp4()), not {type(recipe).__name__}")
    return recipe


# --- the systems' recipes ----------------------------------------------------------------

_TE_SOURCE = "TransformerEngine main at 2.20.0.dev0 (d0067d0da), common/recipe/__init__.py"
_TORCHAO_SOURCE = "torchao 0.18.0"
_FP8_FORMATS = {"HYBRID": ("e4m3", "e5m2"), "E4M3": ("e4m3", "e4m3")}


def _fp8_formats(fp8_format, function):
    if fp8_format not in _FP8_FORMATS:
        raise ValueError(f"softfloat.torch.recipes.{function}: fp8_format must be 'HYBRID' or 'E4M3', not "
                         f"{fp8_format!r}")
    return _FP8_FORMATS[fp8_format]


def _per_tensor(name, forward_fmt, backward_fmt, operand, **settings):
    """A per-tensor recipe: x and W in forward_fmt, dy in backward_fmt, each with one
    scale that serves it in every GEMM (the FP8 tensor and its transpose)."""
    x, dy = replace(operand, fmt=forward_fmt), replace(operand, fmt=backward_fmt)
    return Recipe(name, Gemm(x, x), Gemm(dy, x), Gemm(dy, x), **settings)


def te_delayed(*, margin=0, fp8_format="HYBRID", amax_history_len=1024, amax_compute_algo="max", reduce_amax=True):
    """TransformerEngine's DelayedScaling: per-tensor scales from an amax history
    (forward tensors E4M3, gradients E5M2 under HYBRID), each use recording its amax and
    the scale used being the one computed after the previous use."""
    if amax_compute_algo not in ("max", "most_recent"):
        raise ValueError(f"softfloat.torch.recipes.te_delayed: amax_compute_algo must be 'max' or 'most_recent', "
                         f"not {amax_compute_algo!r}")
    if int(amax_history_len) < 1:
        raise ValueError(f"softfloat.torch.recipes.te_delayed: amax_history_len must be at least 1, not "
                         f"{amax_history_len}")
    forward, backward = _fp8_formats(fp8_format, "te_delayed")
    return _per_tensor("te_delayed", forward, backward, Operand("e4m3", "delayed", "te"),
                       history_len=int(amax_history_len), amax_compute=amax_compute_algo, margin=margin,
                       reduce_amax=reduce_amax, source=_TE_SOURCE + ": DelayedScaling")


def te_current(*, fp8_format="HYBRID", use_power_2_scales=False, amax_epsilon=0.0):
    """TransformerEngine's Float8CurrentScaling: one scale per tensor from its own amax."""
    forward, backward = _fp8_formats(fp8_format, "te_current")
    operand = Operand("e4m3", "tensor", "te", epsilon=amax_epsilon, power_of_two=use_power_2_scales)
    return _per_tensor("te_current", forward, backward, operand, source=_TE_SOURCE + ": Float8CurrentScaling")


def _blocks_everywhere(name, fmt, source, wgrad=None):
    """Every operand in blocks along its GEMM's reduction axis (wgrad may differ)."""
    gemm = Gemm(fmt, fmt)
    return Recipe(name, gemm, gemm, wgrad or gemm, source=source)


def te_mxfp8(*, fp8_format="E4M3"):
    """TransformerEngine's MXFP8BlockScaling: E4M3 elements (gradients E5M2 under HYBRID)
    in 1 x 32 blocks along each GEMM's reduction axis, E8M0 scales by the RCEIL rule
    (2^ceil(log2(amax / max_elem))), nearest-even rounding."""
    forward, backward = _fp8_formats(fp8_format, "te_mxfp8")
    x = Operand(f"mxfp8_{forward}", "mx", block=32, scale_rule="rceil")
    dy = replace(x, fmt=f"mxfp8_{backward}")
    return Recipe("te_mxfp8", Gemm(x, x), Gemm(dy, x), Gemm(dy, x), source=_TE_SOURCE + ": MXFP8BlockScaling")


def te_nvfp4(*, disable_rht=False, disable_stochastic_rounding=False, disable_2d_quantization=False):
    """TransformerEngine's NVFP4BlockScaling: E2M1 elements with E4M3 block scales and an
    fp32 tensor amax; activations and gradients in 1 x 16 blocks along the reduction
    axis, weights in 16 x 16 tiles (the same tiles serve both of its GEMMs), gradients
    rounded stochastically, and the wgrad operands (x and dy along the tokens) through
    the 16-point random Hadamard transform with TransformerEngine's fixed signs."""
    activation = Operand("e2m1", "nvfp4", "te")
    gradient = replace(activation, rounding="nearest_even" if disable_stochastic_rounding else "stochastic")
    weight = replace(activation, tile=not disable_2d_quantization)
    return Recipe("te_nvfp4", Gemm(activation, weight), Gemm(gradient, weight),
                  Gemm(replace(gradient, hadamard=not disable_rht), replace(activation, hadamard=not disable_rht)),
                  source=_TE_SOURCE + ": NVFP4BlockScaling")


TORCHAO_FLOAT8 = ("tensorwise", "rowwise", "rowwise_with_gw_hp")


def torchao_float8(recipe_name="tensorwise"):
    """torchao's Float8LinearConfig.from_recipe_name: "tensorwise" (E4M3 x and W, E5M2
    dy, one scale each), "rowwise" (E4M3 everywhere, one power-of-two scale per row
    across each GEMM's reduction axis), "rowwise_with_gw_hp" (rowwise, but the dgrad
    weight tensorwise and the wgrad GEMM in high precision). Scales are
    fl32(max / max(amax, 1e-12)) and values q / scale, as float8_utils.py computes them."""
    if recipe_name not in TORCHAO_FLOAT8:
        raise ValueError(f"softfloat.torch.recipes.torchao_float8: recipe_name must be one of "
                         f"{', '.join(TORCHAO_FLOAT8)}, not {recipe_name!r}")
    source = _TORCHAO_SOURCE + f": torchao/float8/config.py, Float8LinearConfig.from_recipe_name({recipe_name!r})"
    tensor = Operand("e4m3", "tensor", "torchao", epsilon=1e-12)
    if recipe_name == "tensorwise":
        return _per_tensor("torchao_float8_tensorwise", "e4m3", "e5m2", tensor, source=source)
    rows = Operand("e4m3", "axis", "torchao", epsilon=1e-12, power_of_two=True)
    if recipe_name == "rowwise":
        return _blocks_everywhere("torchao_float8_rowwise", rows, source)
    return Recipe("torchao_float8_rowwise_with_gw_hp", Gemm(rows, rows),
                  Gemm(rows, replace(tensor, power_of_two=True)), Gemm(HIGH_PRECISION, HIGH_PRECISION), source=source)


TORCHAO_MXFP8 = ("mxfp8_rceil", "mxfp8_rceil_wgrad_with_hp")


def torchao_mxfp8(recipe_name="mxfp8_rceil"):
    """torchao's MXFP8 training (prototype/moe_training/config.py, MXFP8TrainingRecipe):
    E4M3 elements for x, W and dy in blocks of 32 along each GEMM's reduction axis, RCEIL
    scales; "mxfp8_rceil_wgrad_with_hp" computes the wgrad GEMM in high precision."""
    if recipe_name not in TORCHAO_MXFP8:
        raise ValueError(f"softfloat.torch.recipes.torchao_mxfp8: recipe_name must be one of "
                         f"{', '.join(TORCHAO_MXFP8)}, not {recipe_name!r}")
    blocks = Operand("mxfp8_e4m3", "mx", block=32, scale_rule="rceil")
    wgrad = Gemm(HIGH_PRECISION, HIGH_PRECISION) if recipe_name.endswith("with_hp") else None
    return _blocks_everywhere(f"torchao_{recipe_name}", blocks,
                              _TORCHAO_SOURCE + f": prototype/moe_training/config.py ({recipe_name})", wgrad)


# --- the arithmetic of each kind of scaling ------------------------------------------------

def _fl32(value):
    return torch.as_tensor(value, dtype=torch.float64).to(torch.float32)


def _scale_from_amax(amax, fmt_max, operand):
    """The scale of each amax (float32), by the operand's arithmetic."""
    if operand.arithmetic == "torchao":
        # float8_utils.py amax_to_scale: float32(max / max(float64(amax), EPS)).
        scale = (fmt_max / torch.clamp(amax.to(torch.float64), min=operand.epsilon)).to(torch.float32)
        return torch.exp2(torch.floor(torch.log2(scale))) if operand.power_of_two else scale
    # TransformerEngine, recipe_common.cuh compute_scale_from_amax.
    amax = torch.clamp(amax.to(torch.float32), min=operand.epsilon)
    scale = torch.where(torch.isfinite(amax) & (amax != 0), _fl32(fmt_max) / amax, torch.ones_like(amax))
    scale = torch.clamp(scale, max=_FLT_MAX)
    if operand.power_of_two:  # the mantissa masked off: 2^floor(log2 scale), exactly
        scale = (scale.view(torch.int32) & -0x800000).view(torch.float32)
    return scale


def _scaled_values(t, scale, operand):
    """q / scale (torchao) or q * fl32(1 / scale) (TransformerEngine), q the saturating
    nearest-even (or the operand's) rounding of t * scale."""
    q = quantize(t * scale, operand.fmt, operand.rounding, saturate=True)
    return q / scale if operand.arithmetic == "torchao" else q * (1.0 / scale)


@functools.lru_cache(maxsize=None)
def _hadamard_matrix():
    """diag(WGRAD_SIGNS) H16 / 4 in float32 (every entry +-1/4), made once per process."""
    parity = torch.tensor([bin(i & j).count("1") % 2 for i in range(16) for j in range(16)]).reshape(16, 16)
    hadamard = 1.0 - 2.0 * parity.to(torch.float32)
    return torch.tensor(WGRAD_SIGNS, dtype=torch.float32).unsqueeze(1) * hadamard * 0.25


def te_hadamard(t, axis):
    """TransformerEngine's random Hadamard transform along `axis` (padded with zeros to
    a multiple of 16): each chunk v of 16 becomes u = bf16(bf16(v) @ M), with
    M = diag(WGRAD_SIGNS) H16 / 4 (H16[i][j] = (-1)^popcount(i & j), entries +-1/4,
    exact in bf16) and float32 sums. M is orthogonal, so transforming both operands of
    a GEMM along its reduction axis leaves the exact product unchanged.

    Worked value: v = (1, 0, ..., 0) gives u = M's first row = s_0 * (1/4, ..., 1/4)
    = (0.25, ..., 0.25); v = (0, 0, 0, 2, 0, ...) gives 2 * s_3 * H16[3] / 4 =
    -0.5 * (1, -1, -1, 1, 1, -1, -1, 1, ...)."""
    moved = t.movedim(axis, -1)
    length = moved.shape[-1]
    padded = torch.nn.functional.pad(moved, (0, -length % 16))
    chunks = padded.to(torch.bfloat16).to(torch.float32).reshape(*padded.shape[:-1], -1, 16)
    u = (chunks @ _hadamard_matrix()).to(torch.bfloat16).to(torch.float32).reshape(padded.shape)
    return u.movedim(-1, axis)


def te_nvfp4_values(t, axis, tile=False, rounding="nearest_even"):
    """NVFP4 as TransformerEngine computes it (cast/nvfp4/core_nvfp4.cuh), for a 2-D
    tensor with blocks of 16 along `axis` (tile=True: 16 x 16 tiles), padded with zeros
    (which take no part in any amax) to whole blocks:

        A      = amax of the tensor;  S_enc = fl32(2688 / A) (1 where A is 0; FLT_MAX caps it)
        sdec_b = E4M3(fl32(b * fl32(S_enc * fl32(1/6))))   b the block's amax, saturating
        enc_b  = fl32(1 / fl32(sdec_b * fl32(1 / S_enc)))  (FLT_MAX where sdec_b is 0)
        q      = E2M1(fl32(x * enc_b))                      rounding, saturating at 6
        value  = q * sdec_b * A / 2688                      (as the GEMM applies it)

    Worked value: a block of amax b = 6 in a tensor of amax A = 6: S_enc = 448,
    sdec = E4M3(6 * 448 / 6) = 448, enc = 1 / (448 / 448) = 1, so x = 5 gives
    q = E2M1(5) = 4 (a tie between 4 and 6, to even) and the value 4 * 448 * 6 / 2688 = 4."""
    values = t.detach().to(torch.float32).movedim(axis, -1)
    rows, length = values.shape
    padded = torch.nn.functional.pad(values, (0, -length % 16, 0, (-rows % 16) if tile else 0))
    amax = padded.abs().max() if padded.numel() else torch.tensor(0.0)
    s_enc = torch.clamp(_fl32(2688.0) / amax, max=_FLT_MAX)
    s_enc = torch.where((amax == 0) | (s_enc == 0), torch.ones_like(s_enc), s_enc)
    s_dec = 1.0 / s_enc
    c = s_enc * _fl32(1.0 / 6.0)
    r, n = padded.shape
    if tile:
        b = padded.abs().reshape(r // 16, 16, n // 16, 16).amax(dim=(1, 3))
        b = b.repeat_interleave(16, 0).repeat_interleave(16, 1)
    else:
        b = padded.abs().reshape(r, n // 16, 16).amax(dim=2).repeat_interleave(16, 1)
    sdec = quantize(torch.clamp(b * c, max=_FLT_MAX), "e4m3", saturate=True)
    enc = torch.clamp(1.0 / (sdec * s_dec), max=_FLT_MAX)
    q = quantize(padded * enc, "e2m1", rounding, saturate=True)
    result = ((q * sdec).to(torch.float64) * (amax.to(torch.float64) / 2688.0)).to(torch.float32)
    return result[:rows, :length].movedim(-1, axis)


class RecipeState(torch.nn.Module):
    """A layer's delayed-scaling state: for the tensors x, w and dy, TransformerEngine's
    amax history (slot 0 the newest, as delayed_scaling.cu's kernel_bulk keeps it) and
    the scale computed after the last use (1 at first)."""

    def __init__(self, recipe):
        super().__init__()
        self.recipe = recipe
        for role in ("x", "w", "dy"):
            self.register_buffer(f"{role}_history", torch.zeros(recipe.history_len))
            self.register_buffer(f"{role}_scale", torch.ones(()))

    @torch.no_grad()
    def use(self, role, amax, fmt_max):
        """The scale for this use of `role`; then amax recorded and the scale updated:
        a zero amax neither rolls the history nor changes the scale; otherwise the
        history rolls, and scale = fl32(fl32(max * 2^-margin) / amax_h) where amax_h (the
        largest entry, or the newest with "most_recent") is finite and positive, capped
        at FLT_MAX."""
        history, scale = getattr(self, f"{role}_history"), getattr(self, f"{role}_scale")
        used = scale.clone()
        last = amax.detach().to(torch.float32).reshape(())
        if self.recipe.reduce_amax:
            last = max_over_ranks(last)
        if last != 0:
            history.copy_(torch.roll(history, 1))
            history[0] = last
            reference = history.max() if self.recipe.amax_compute == "max" else last
            if torch.isfinite(reference) and reference > 0:
                scale.copy_(torch.clamp(_fl32(fmt_max * 2.0 ** -self.recipe.margin) / reference, max=_FLT_MAX))
        return used


def operand_values(t, operand, axis, state=None, role=None):
    """t (2-D) rounded as `operand` says, blocks and row scales along `axis` (the
    reduction axis of the GEMM it enters); float32 values."""
    t = t.detach().to(torch.float32)
    if operand.scaling == "high_precision":
        return t
    if operand.hadamard:
        t = te_hadamard(t, axis)
    if operand.scaling == "mx":
        return mx_quantize(t, operand.fmt, operand.block, axis, operand.scale_rule, operand.rounding)
    if operand.scaling == "nvfp4":
        return te_nvfp4_values(t, axis, operand.tile, operand.rounding)
    fmt_max = float(_tensors.format_info(operand.fmt, "recipes").max)
    if operand.scaling == "axis":
        amax = t.abs().amax(dim=axis, keepdim=True)
    else:
        amax = t.abs().max() if t.numel() else torch.tensor(0.0)
    if operand.scaling == "delayed":
        scale = state.use(role, amax, fmt_max)
    else:
        scale = _scale_from_amax(amax, fmt_max, operand)
    return _scaled_values(t, scale, operand)


# The reduction axis of each operand as the layer holds it: x (M x K), w (N x K), dy (M x N).
REDUCTION_AXES = {("forward", "x"): 1, ("forward", "w"): 1, ("dgrad", "dy"): 1, ("dgrad", "w"): 0,
                  ("wgrad", "dy"): 0, ("wgrad", "x"): 0}


def padded_rows(t, multiple):
    """t with zero rows appended to a multiple of `multiple` rows (a GEMM's reduction over
    them is unchanged)."""
    return torch.nn.functional.pad(t, (0, 0, 0, -t.shape[0] % multiple)) if t.shape[0] % multiple else t

