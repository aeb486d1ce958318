"""Layers beyond Linear under a recipe: batched matmul, Conv1d / Conv2d and Embedding.

No real system quantizes convolutions or embeddings, so these follow our own rule,
stated here once:

- A convolution is the GEMM of its im2col matrix: torch.nn.functional.unfold lays each
  output position's receptive field out as a row of k = C_in * kh * kw values, channel
  first, then kernel row, then kernel column (Conv1d: C_in * kw), and the weight as
  (C_out, k) in the same order. The recipe's forward, dgrad and wgrad GEMMs then run on
  x = those rows (M = batch x positions), W = the reshaped weight, exactly as for Linear:
  blocks and row scales along k in the forward GEMM. A block that k does not fill is
  completed by zeros that take no part in its scale (MX blocks end short; NVFP4 pads).
- An embedding has no GEMM: its weight is rounded as the recipe's forward weight operand,
  blocks along the embedding dimension, and the rows looked up from it; the weight's
  gradient passes straight through (the rows' gradients, summed).
- A batched matmul a @ b (attention's q k^T and p v) runs, for each batch index, the
  recipe's GEMMs with x = a[i] and W = b[i]^T: a's blocks along k, b's along k too.
"""
import torch

from softfloat.torch import recipes as _recipes
from softfloat.torch import _tensors
from softfloat.torch.recipe_linear import recipe_linear

__all__ = ["Conv1d", "Conv2d", "Embedding", "BatchedMatmul", "replacement"]

_F = torch.nn.functional


class _RecipeModule:
    """A layer run by a recipe: the keyword argument recipe= beside the torch module's own
    arguments, and the recipe's delayed-scaling state (in the state_dict)."""

    def __init__(self, *args, recipe, **kwargs):
        super().__init__(*args, **kwargs)
        self.recipe = _recipes.check_recipe(recipe, type(self).__name__)
        self.recipe_state = _recipes.RecipeState(recipe)

    def extra_repr(self):
        base = super().extra_repr()
        return f"{base}, recipe={self.recipe.name!r}" if base else f"recipe={self.recipe.name!r}"


def _conv_as_gemm(layer, x, spatial):
    """The convolution of x by layer's weight as the recipe's GEMM of x's im2col rows."""
    _tensors.check_float_tensor(x, type(layer).__name__)
    if layer.groups != 1 or layer.padding_mode != "zeros" or isinstance(layer.padding, str):
        raise ValueError(f"softfloat.torch.{type(layer).__name__}: groups=1, numeric padding and "
                         f"padding_mode='zeros' only (the im2col GEMM of the module docstring)")
    batched = x.dim() == spatial + 2
    if not batched:
        x = x.unsqueeze(0)
    if spatial == 1:  # Conv1d as a Conv2d of height 1
        x4, kernel = x.unsqueeze(2), (1, layer.kernel_size[0])
        stride, padding, dilation = (1, layer.stride[0]), (0, layer.padding[0]), (1, layer.dilation[0])
    else:
        x4, kernel, stride, padding, dilation = x, layer.kernel_size, layer.stride, layer.padding, layer.dilation
    columns = _F.unfold(x4, kernel, dilation=dilation, padding=padding, stride=stride)  # (B, k, L)
    out_size = [(x4.shape[2 + d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1
                for d in range(2)]
    rows = columns.transpose(1, 2)  # (B, L, k): one receptive field a row
    weight = layer.weight.reshape(layer.out_channels, -1)
    y = recipe_linear(rows, weight, layer.bias, layer.recipe, layer.recipe_state)  # (B, L, C_out)
    y = y.transpose(1, 2).reshape(x.shape[0], layer.out_channels, *out_size)
    if spatial == 1:
        y = y.squeeze(2)
    return y if batched else y.squeeze(0)


class _Convolution(_RecipeModule):
    spatial = None  # 1 or 2

    def forward(self, x):
        return _conv_as_gemm(self, x, self.spatial)


class Conv1d(_Convolution, torch.nn.Conv1d):
    """nn.Conv1d whose GEMM (im2col, module docstring) follows `recipe`."""
    spatial = 1


class Conv2d(_Convolution, torch.nn.Conv2d):
    """nn.Conv2d whose GEMM (im2col, module docstring) follows `recipe`."""
    spatial = 2


class _RoundedWeight(torch.autograd.Function):
    @staticmethod
    def forward(ctx, weight, operand, state):
        return _recipes.operand_values(weight, operand, axis=1, state=state, role="w").to(weight.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad, None, None


class Embedding(_RecipeModule, torch.nn.Embedding):
    """nn.Embedding whose weight is rounded as the recipe's forward weight operand
    (blocks along the embedding dimension), the gradient straight through."""

    def forward(self, indices):
        weight = _RoundedWeight.apply(self.weight, self.recipe.forward.b, self.recipe_state)
        return _F.embedding(indices, weight, self.padding_idx, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                           self.sparse)


class BatchedMatmul(_RecipeModule, torch.nn.Module):
    """a @ b for a (..., m, k) and b (..., k, n), each batch index's GEMMs following the
    recipe (x = a[i], W = b[i]^T), differentiable in both."""

    def __init__(self, recipe):
        super().__init__(recipe=recipe)

    def forward(self, a, b):
        for name, t in (("a", a), ("b", b)):
            _tensors.check_float_tensor(t, "BatchedMatmul", name)
            if t.dim() < 2:
                raise ValueError(f"softfloat.torch.BatchedMatmul: {name} must have at least 2 dimensions")
        batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        if a.shape[-1] != b.shape[-2]:
            raise ValueError(f"softfloat.torch.BatchedMatmul: a of shape {tuple(a.shape)} and b of shape "
                             f"{tuple(b.shape)} do not fit")
        a3 = a.expand(*batch, *a.shape[-2:]).reshape(-1, *a.shape[-2:])
        b3 = b.expand(*batch, *b.shape[-2:]).reshape(-1, *b.shape[-2:])
        products = [recipe_linear(a3[i], b3[i].transpose(0, 1), None, self.recipe, self.recipe_state)
                    for i in range(a3.shape[0])]
        return torch.stack(products).reshape(*batch, a.shape[-2], b.shape[-1])


def replacement(module, recipe):
    """The recipe layer standing in for a plain nn.Conv1d, nn.Conv2d or nn.Embedding
    (same settings and parameters), or None for any other module."""
    if type(module) in (torch.nn.Conv1d, torch.nn.Conv2d):
        layer_type = Conv1d if type(module) is torch.nn.Conv1d else Conv2d
        layer = layer_type(module.in_channels, module.out_channels, module.kernel_size, stride=module.stride,
                           padding=module.padding, dilation=module.dilation, groups=module.groups,
                           bias=module.bias is not None, padding_mode=module.padding_mode, recipe=recipe,
                           dtype=module.weight.dtype)
    elif type(module) is torch.nn.Embedding:
        layer = Embedding(module.num_embeddings, module.embedding_dim, padding_idx=module.padding_idx,
                          max_norm=module.max_norm, norm_type=module.norm_type,
                          scale_grad_by_freq=module.scale_grad_by_freq, sparse=module.sparse, recipe=recipe,
                          dtype=module.weight.dtype)
    else:
        return None
    layer.load_state_dict(module.state_dict(), strict=False)  # the parameters; the recipe state starts fresh
    return layer
