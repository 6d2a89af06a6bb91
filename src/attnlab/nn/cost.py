"""What a Transformer costs: FLOPs, KV-cache bytes, tokens, dot products (§5 "compute and memory",
§6 FIG 7, FIG 6, M2).

Every counter returns a dict of named parts; the total is `total(parts)`, their sum, so a test
can check that the parts add up and that each part matches the lesson's closed form. A multiply
and an add count as two FLOPs. Python ints throughout, so counts stay exact at any size (figure
data turns them into floats for JSON).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

MaskKind = Literal["causal", "block", "bidirectional"]
MASK_KINDS: tuple[MaskKind, ...] = ("causal", "block", "bidirectional")

__all__ = [
    "IMAGE_SIZE",
    "KV_SHARING",
    "MASK_KINDS",
    "MODEL_PRESETS",
    "ModelSize",
    "attention_share",
    "crossover_tokens",
    "generation_dot_products",
    "kv_cache_bytes",
    "kv_heads_of",
    "latent_crossover_tokens",
    "latent_layer_flops",
    "layer_flops",
    "model_flops",
    "patch_numbers",
    "token_counts",
    "total",
]

IMAGE_SIZE = 224  # pixels on a side of one camera frame, as in ViT


@dataclass(frozen=True)
class ModelSize:
    """A model's depth, width and heads: L layers of width d, H query heads of width d / H."""

    name: str
    n_layers: int
    d: int
    n_heads: int = 1

    @property
    def d_head(self) -> int:
        return self.d // self.n_heads


# FIG 7's two presets: a small policy (8 heads of 64), and Llama 2 7B's shape (32 heads of 128).
MODEL_PRESETS: dict[str, ModelSize] = {
    "small": ModelSize("small", n_layers=6, d=512, n_heads=8),
    "7b": ModelSize("7b", n_layers=32, d=4096, n_heads=32),
}

# How many key/value heads the H query heads share: all their own (multi-head), one per group
# of query heads (grouped-query), or one for all (multi-query).
KV_SHARING = ("mha", "gqa", "mqa")


def total(parts: Mapping[str, int | float]) -> int | float:
    """The sum of a counter's parts."""
    return sum(parts.values())


def layer_flops(n: int, d: int) -> dict[str, int]:
    """Forward FLOPs of one block on n tokens of width d, by part.

    projections: Q, K, V and O, four (n × d)(d × d) products, 4 · 2nd² = 8nd²;
    mlp: d → 4d → d, two products of 4nd² MACs each, 16nd²;
    attention: Q Kᵀ and α V, each n²d MACs, 4n²d.
    The first two grow like n (24nd² together), the last like n².
    """
    return {"projections": 8 * n * d * d, "mlp": 16 * n * d * d, "attention": 4 * n * n * d}


def attention_share(n: int, d: int) -> float:
    """Attention's share of a layer's FLOPs: 4n²d / (24nd² + 4n²d) = n / (n + 6d)."""
    return n / (n + 6 * d)


def crossover_tokens(d: int) -> int:
    """The n at which attention's 4n²d equals the linear 24nd²: n = 6d."""
    return 6 * d


def model_flops(n: int, size: ModelSize) -> dict[str, int]:
    """Forward FLOPs of the whole stack (L identical layers), by part; embeddings and the output
    head are left out, as in the lesson's per-layer account."""
    return {k: size.n_layers * v for k, v in layer_flops(n, size.d).items()}


def kv_heads_of(size: ModelSize, sharing: str, gqa_heads: int) -> int:
    """H_kv, the key/value heads kept per layer: H (mha), gqa_heads (gqa) or 1 (mqa).

    In GQA each KV head serves H / H_kv query heads, so H_kv must divide H.
    """
    if sharing not in KV_SHARING:
        raise ValueError(f"sharing must be one of {KV_SHARING}, got {sharing!r}")
    h_kv = {"mha": size.n_heads, "gqa": gqa_heads, "mqa": 1}[sharing]
    if not 1 <= h_kv <= size.n_heads or size.n_heads % h_kv:
        raise ValueError(f"{h_kv} KV heads cannot be shared by {size.n_heads} query heads")
    return h_kv


def kv_cache_bytes(
    n: int, size: ModelSize, bytes_per_number: int = 2, kv_heads: int | None = None
) -> dict[str, int]:
    """Memory of the KV cache for n tokens: per token and layer, a key and a value of width d_h
    for each of the H_kv KV heads (H_kv = H unless given), so 2 · L · n · d · (H_kv / H) · b bytes
    in all (b = 2 for fp16). With every head its own (H_kv = H) that is 2 · L · n · d · b."""
    h_kv = size.n_heads if kv_heads is None else kv_heads
    per_part = size.n_layers * n * size.d_head * h_kv * bytes_per_number  # d·H_kv/H = d_h·H_kv
    return {"keys": per_part, "values": per_part}


def latent_layer_flops(n: int, m: int, d: int) -> dict[str, int]:
    """Forward FLOPs of one Perceiver-style layer: m latent tokens cross-attend to n inputs.

    projections: K and V of the n inputs, 2 · 2nd² = 4nd²; Q and O of the m latents, 4md²;
    mlp: on the m latents only, 16md²;
    attention: Q Kᵀ is (m × d)(d × n) and α V is (m × n)(n × d), each nmd MACs: 4nmd.
    With m = n this is `layer_flops(n, d)`: 24nd² and 4n²d.
    """
    return {
        "projections": 4 * n * d * d + 4 * m * d * d,
        "mlp": 16 * m * d * d,
        "attention": 4 * n * m * d,
    }


def latent_crossover_tokens(m: int, d: int) -> int | None:
    """The first n at which a latent layer's attention (4nmd) reaches its linear parts
    (4nd² + 20md²): n ≥ 5md / (m − d). None if m ≤ d: attention then stays below half for
    every n, since 4nmd < 4nd² whenever m < d."""
    if m <= d:
        return None
    return -(-5 * m * d // (m - d))  # ceiling, in exact integers


def patch_numbers(patch: int, channels: int = 3) -> int:
    """Numbers in one image patch: patch² pixels × 3 colours (768 for ViT's 16-pixel patches)."""
    return patch * patch * channels


def token_counts(
    *, cameras: int, patch: int, frames: int, actions: int, image_size: int = IMAGE_SIZE
) -> dict[str, int]:
    """Tokens of a robot policy's input, by kind (F7.1).

    image: cameras × (image_size / patch)² × frames; proprio: one per frame; actions: as given.
    """
    if image_size % patch:
        raise ValueError(f"patch {patch} does not tile a {image_size}-pixel image")
    per_frame = (image_size // patch) ** 2
    return {"image": cameras * per_frame * frames, "proprio": frames, "actions": actions}


def _pass_cells(length: int, n_prefix: int, mask: MaskKind) -> int:
    """Unmasked cells of the (length × length) attention matrix: a full recomputation pass."""
    if mask == "bidirectional":
        return length * length
    causal = length * (length + 1) // 2
    # block mask: the prefix also sees its own later tokens, the upper triangle of P × P
    return causal + (n_prefix * (n_prefix - 1) // 2 if mask == "block" else 0)


def generation_dot_products(
    *, n_prefix: int, n_new: int, mask: MaskKind, cached: bool
) -> dict[str, int]:
    """Query–key dot products (per layer, per head) to read a prefix and then generate n_new tokens
    one at a time; masked cells are skipped (F6.1, F6.2, M2).

    Parts: "prefill", one pass over the n_prefix tokens; "steps", the n_new generation passes. A
    pass without the cache recomputes every unmasked cell of the whole matrix; with the cache
    it computes only the new token's row. Bidirectional with the cache is cheap *and wrong*:
    the old rows should change and do not (FIG 6's stale cells).
    """
    if mask not in MASK_KINDS:
        raise ValueError(f"mask must be one of {MASK_KINDS}, got {mask!r}")
    prefill = _pass_cells(n_prefix, n_prefix, mask)
    lengths = range(n_prefix + 1, n_prefix + n_new + 1)
    if cached:  # the new row: every mask lets the newest token see all earlier tokens and itself
        steps = sum(lengths)
    else:
        steps = sum(_pass_cells(length, n_prefix, mask) for length in lengths)
    return {"prefill": prefill, "steps": steps}
