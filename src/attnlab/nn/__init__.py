"""The engine: attention and its neighbours in NumPy, each forward beside its backward.

Pure computation, no I/O. Every backward pass is checked against central finite differences
in float64 (tests/nn). The function a learner reaches for first is `attention`.
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
