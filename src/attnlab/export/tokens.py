"""FIG 7 (§6, §5 "compute and memory") for slides: from camera pixels to tokens, and the n² wall.

Two panels from `figures.tokens` data: the synthetic camera image with its patch grid, and one
layer's FLOPs (linear parts 24nd², attention 4n²d) against n on log-log axes with the crossover
and the current token count. With latents set, a Perceiver-style layer's curves are drawn dashed;
with shared KV heads (gqa, mqa), the subtitle gives the cache beside full multi-head attention's.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import matplotlib.image
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from attnlab.export import style


def draw(fig: Figure, data: dict[str, Any]) -> None:
    """Camera image with patches | FLOPs vs n."""
    ax_img, ax_flops = fig.subplots(1, 2, width_ratios=[1, 1.35])
    _camera(ax_img, data)
    _flops(ax_flops, data)
    t = data["tokens"]
    style.title(fig, "From camera pixels to tokens, and the n² cost of attention",
                f"n = {t['image']} image + {t['proprio']} proprio + {t['actions']} action "
                f"= {t['total']} tokens; attention is {data['attention_share']:.0%} of a "
                f"layer's FLOPs")  # fmt: skip


def _beyond(data: dict[str, Any]) -> list[str]:
    """Lines for the options beyond the spec, when set: shared KV heads, latents."""
    kv, lat, out = data["kv"], data["latent"], []
    if kv["sharing"] != "mha":
        gb, mha = data["kv_cache_bytes"]["total"] / 1e9, kv["bytes_mha"] / 1e9
        out.append(f"{kv['sharing'].upper()}: {kv['kv_heads']} of {kv['n_heads']} KV heads, "
                   f"cache {gb:.2f} GB (MHA {mha:.2f} GB, ×{kv['fraction']:g})")  # fmt: skip
    if lat:
        share = lat["attention_share"]
        cross = lat["crossover_n"]
        where = f"dominates past n = {cross}" if cross else "never reaches half"
        out.append(f"{lat['m']} latents: attention {share:.0%} of the layer, {where}")
    return out


def decode_png(url: str) -> np.ndarray:
    """The pixels of a `data:image/png;base64,…` URL, (H, W, 3 or 4) floats in [0, 1]."""
    payload = url.split(",", 1)[1]
    return matplotlib.image.imread(io.BytesIO(base64.b64decode(payload)), format="png")


def _camera(ax: Axes, data: dict[str, Any]) -> None:
    pixels = decode_png(data["image"]["png"])
    size = data["image"]["size"]
    patch = data["patches"]["size"]
    ax.imshow(pixels, extent=(0, size, size, 0), interpolation="nearest")
    edges = np.arange(0, size + 1, patch)  # one patch per cell of this grid
    ax.hlines(edges, 0, size, color="white", lw=0.7, alpha=0.9)
    ax.vlines(edges, 0, size, color="white", lw=0.7, alpha=0.9)
    ax.set_xlim(0, size)
    ax.set_ylim(size, 0)
    p = data["patches"]
    ax.set_title(f"Camera frame: {p['rows']} × {p['cols']} = {p['count']} patches "
                 f"of {patch} px")  # fmt: skip
    ax.set_xlabel(f"pixels (each patch: {p['numbers_per_patch']} numbers → one token)")


def _flops(ax: Axes, data: dict[str, Any]) -> None:
    c, pt = data["curve"], data["point"]
    d = data["model_size"]["d"]
    ax.plot(c["n"], c["linear"], color=style.PURPLE, lw=3, label="linear parts 24nd²")
    ax.plot(c["n"], c["attention"], color=style.AMBER, lw=3, label="attention 4n²d")
    if data["latent"]:
        lc, m = data["latent"]["curve"], data["latent"]["m"]
        ax.plot(c["n"], lc["linear"], color=style.PURPLE, lw=2, ls="--",
                label=f"{m} latents: linear parts")  # fmt: skip
        ax.plot(c["n"], lc["attention"], color=style.AMBER, lw=2, ls="--",
                label=f"{m} latents: attention 4nmd")  # fmt: skip
    ax.axvline(data["crossover_n"], color=style.MUTED, ls="--", lw=1.5,
               label=f"crossover n = 6d = {data['crossover_n']}")  # fmt: skip
    ax.axvline(pt["n"], color=style.BLUE, ls=":", lw=2, label=f"this setting: n = {pt['n']}")
    ax.scatter([pt["n"]] * 2, [pt["linear"], pt["attention"]], s=120, zorder=3,
               color=[style.PURPLE, style.AMBER], edgecolor=style.INK)  # fmt: skip
    style.log_scale(ax, "x", c["n"])
    style.log_scale(ax, "y", c["attention"] + c["linear"])
    style.grid(ax)
    ax.legend(loc="upper left")
    m = data["model_size"]
    ax.set_title(f"FLOPs per layer, model {m['name']} (d = {d}, {m['n_layers']} layers)")
    notes = _beyond(data)
    if notes:
        ax.text(0.98, 0.03, "\n".join(notes), transform=ax.transAxes, ha="right", va="bottom",
                color=style.INK, bbox={"facecolor": "white", "edgecolor": style.MUTED})  # fmt: skip
    ax.set_xlabel("tokens n (log)")
    ax.set_ylabel("FLOPs per layer (log)")
