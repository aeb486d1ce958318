"""A linear layer's three GEMMs run by a recipe (softfloat.torch.recipes): each operand
rounded as the recipe says for the GEMM it enters, along that GEMM's reduction axis, and
the product of the rounded values computed in float32 by the library's matmul.

A tensor with one scale (per-tensor current or delayed scaling) is rounded once per step
and serves every GEMM that takes it, as the systems reuse one FP8 tensor and its
transpose: a delayed scale records each tensor's amax once a step. Blocks, row scales and
the Hadamard transform depend on the axis, so those operands are rounded for each GEMM
from the high-precision tensor, as TransformerEngine and torchao do.
"""
import torch

from softfloat.torch import recipes as _recipes
from softfloat.torch.linear import _fp32_operand, _product, as_rows

__all__ = ["recipe_linear"]


def _values(t, operand, gemm, role, state, cache):
    """The operand's values for this GEMM, shared across GEMMs where its rounding has no axis."""
    shared = operand.scaling in ("tensor", "delayed") and not operand.hadamard
    key = (role, operand)
    if shared and key in cache:
        return cache[key]
    values = _recipes.operand_values(t, operand, _recipes.REDUCTION_AXES[(gemm, role)], state, role)
    if shared:
        cache[key] = values
    return values


def _mm(a, b):
    """a @ b in float32 through the library's matmul (an fp32 accumulator)."""
    return _product(_fp32_operand(a), _fp32_operand(b), "fp32", b_transposed=False)


class _RecipeLinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, recipe, state):
        cache = {}
        xa = _values(x, recipe.forward.a, "forward", "x", state, cache)
        wb = _values(weight, recipe.forward.b, "forward", "w", state, cache)
        y = _mm(xa, wb.t())
        if bias is not None:
            y = y + bias.detach().to(torch.float32)
        ctx.recipe, ctx.state, ctx.cache, ctx.has_bias = recipe, state, cache, bias is not None
        ctx.save_for_backward(x, weight)
        return y.to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        recipe, state, cache = ctx.recipe, ctx.state, ctx.cache
        dy = grad.detach().to(torch.float32)
        grad_x = grad_w = grad_b = None
        if ctx.needs_input_grad[0]:
            a = _values(dy, recipe.dgrad.a, "dgrad", "dy", state, cache)
            b = _values(weight, recipe.dgrad.b, "dgrad", "w", state, cache)
            grad_x = _mm(a, b).to(x.dtype)
        if ctx.needs_input_grad[1]:
            dy_m, x_m = dy, x
            if recipe.wgrad.a.hadamard or recipe.wgrad.b.hadamard:
                # The transform works on chunks of 16 tokens: zero tokens complete the last.
                dy_m, x_m = _recipes.padded_rows(dy, 16), _recipes.padded_rows(x.detach().to(torch.float32), 16)
            a = _values(dy_m, recipe.wgrad.a, "wgrad", "dy", state, cache)
            b = _values(x_m, recipe.wgrad.b, "wgrad", "x", state, cache)
            grad_w = _mm(a.t(), b).to(weight.dtype)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            grad_b = dy.sum(0)
        return grad_x, grad_w, grad_b, None, None


def recipe_linear(x, weight, bias, recipe, state):
    """y = x @ weight^T + bias with the GEMMs run by `recipe`; `state` is the layer's
    RecipeState (its delayed scales). x has shape (..., in_features)."""
    rows = as_rows(x)
    y = _RecipeLinearFunction.apply(rows, weight, bias, recipe, state)
    return y.reshape(*x.shape[:-1], weight.shape[0])
