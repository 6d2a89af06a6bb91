"""FIG 5 (§4 part 3) for slides: what residual and LayerNorm do over 24 random blocks.

Three panels from `figures.depth` data: token diversity per layer, the residual stream's RMS per
layer (both log y), and the tokens' cosine-similarity matrix at the chosen layer.
"""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from attnlab.export import style


def draw(fig: Figure, data: dict[str, Any]) -> None:
    """Diversity | RMS | cosine matrix, titled with the switched-on parts."""
    ax_d, ax_r, ax_c = fig.subplots(1, 3, width_ratios=[1, 1, 0.9])
    _per_layer(ax_d, data, "diversity", "‖X − 1x̄ᵀ‖_F / ‖X‖_F", "Token diversity", style.TEAL)
    _per_layer(ax_r, data, "rms", "RMS of the residual stream", "Size of the stream", style.PURPLE)
    _cosine(fig, ax_c, data)
    style.title(fig, "What residual connections and LayerNorm are for",
                f"{data['settings']['depth']} random blocks: {_parts_text(data)}")  # fmt: skip


def _parts_text(data: dict[str, Any]) -> str:
    s = data["settings"]
    norm = {"pre": "Pre-LN", "post": "Post-LN"}.get(s["norm"], "no LayerNorm")
    residual = "residual on" if s["residual"] else "no residual"
    mlp = "MLP on" if s["mlp"] else "no MLP"
    return f"{residual}, {norm}, {mlp}"


def _per_layer(ax: Axes, data: dict[str, Any], key: str, ylabel: str, title: str,
               colour: str) -> None:  # fmt: skip
    layer = data["layer_shown"]
    ax.plot(data["layers"], data[key], "o-", color=colour, lw=2.5, ms=5)
    ax.axvline(layer, color=style.AMBER, ls="--", lw=2, label=f"layer {layer}")
    style.log_y(ax, data[key])
    style.grid(ax)
    ax.legend()
    ax.set_title(f"{title} (layer {layer}: {style.fmt(data[key + '_at_layer'])})")
    ax.set_xlabel("layer (0 = input)")
    ax.set_ylabel(f"{ylabel} (log)")


def _cosine(fig: Figure, ax: Axes, data: dict[str, Any]) -> None:
    image = ax.imshow(data["cosine"], cmap="PuOr_r", vmin=-1, vmax=1)
    n = data["n_tokens"]
    ticks = list(range(n))
    ax.set_xticks(ticks, [str(t + 1) for t in ticks])
    ax.set_yticks(ticks, [str(t + 1) for t in ticks])
    ax.spines[:].set_visible(False)
    fig.colorbar(image, ax=ax, shrink=0.8, label="cosine similarity")
    ax.set_title(f"Cosines at layer {data['layer_shown']} (min {data['min_cosine_at_layer']:.2f})")
    ax.set_xlabel("token")
    ax.set_ylabel("token")
