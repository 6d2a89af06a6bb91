"""The engine: attention and its neighbours in NumPy, each forward beside its backward.

Pure computation, no I/O. Every backward pass is checked against central finite differences
in float64 (tests/nn, with `gradcheck`, the package's one gradient check). The function a learner
reaches for first is `attention`.

One convention for the whole package (tabletop's fused FIG 2 kernels follow it too):
- Row vectors: a token is a row and a weight maps d_in → d_out as `x @ W`, so a batch of tokens
  is an (n, d) matrix and attention reads softmax(Q Kᵀ/√d_k) V exactly as the lesson writes it.
- Boolean masks, True where a query may attend: the softmax applies −∞ inside, so a masked weight
  is exactly 0 and a fully masked row gives zeros, not NaN; a caller never adds −∞ itself and
  cannot get the sign or the broadcast of an additive mask wrong.
"""

from attnlab.nn.attention import (
    attention,
    attention_backward,
    attention_forward,
    causal_mask,
    multi_head_backward,
    multi_head_forward,
    prefix_causal_mask,
)
from attnlab.nn.gradcheck import numerical_gradient, rel_error
from attnlab.nn.ops import (
    layer_norm_backward,
    layer_norm_forward,
    linear_backward,
    linear_forward,
    relu_backward,
    relu_forward,
    softmax,
    softmax_backward,
    softmax_jacobian,
    softmax_jacobian_norm,
)
from attnlab.nn.optim import Adam

__all__ = [
    "Adam",
    "attention",
    "attention_backward",
    "attention_forward",
    "causal_mask",
    "layer_norm_backward",
    "layer_norm_forward",
    "linear_backward",
    "linear_forward",
    "multi_head_backward",
    "multi_head_forward",
    "numerical_gradient",
    "prefix_causal_mask",
    "rel_error",
    "relu_backward",
    "relu_forward",
    "softmax",
    "softmax_backward",
    "softmax_jacobian",
    "softmax_jacobian_norm",
]
