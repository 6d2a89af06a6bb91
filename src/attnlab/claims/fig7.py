"""FIG 7's claims (F7.1–F7.5) and exercise 5 (E5): tokens from cameras and what they cost; and
beyond the spec (F7.6–F7.9): shared KV heads, latents, a timed layer, the reader's own frame.

The numbers go through `attnlab.figures.compute_figure("tokens", …)`, the same path as the page.
The token count is checked against the patch grid cut from the figure's actual image, so the
formula and the picture cannot drift apart.
"""

from __future__ import annotations

import base64
import io
from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np
from PIL import Image

from attnlab.claims.base import ClaimCheck, ClaimResult, result
from attnlab.figures import compute_figure
from attnlab.figures.tokens import (
    GQA_HEADS,
    LATENTS,
    PATCHES,
    camera_image,
    frame_patches,
    patch_grid,
)
from attnlab.nn.attention import attention
from attnlab.nn.cost import (
    IMAGE_SIZE,
    KV_SHARING,
    MODEL_PRESETS,
    attention_share,
    latent_layer_flops,
    layer_flops,
    patch_numbers,
)
from attnlab.nn.timing import time_attention

REL = 1e-12  # floats that must equal an integer formula
# The try-it's setting: the figure as it opens, then 4 cameras and 8-pixel patches (frames and
# action tokens stay at the figure's defaults), so the text quotes what the reader then sees.
TRIED = {"cameras": 4, "patch": 8}
HALF = 0.5  # F7.3: attention's share of the layer above this
# F7.5, E5: what the lesson says of ViT (16-pixel patches against 8-pixel ones)
LESSON_CROSSOVER = {"small": 3072, "7b": 24576}  # F7.2: n = 6d, as the lesson states them
VIT = {"patches_16": 196, "numbers_per_patch_16": 768, "tokens_8": 784}
VIT_RATIOS = {"token_ratio": 4, "matrix_ratio": 16, "attention_ratio": 16, "linear_ratio": 4}


def _tokens(**settings: Any) -> dict[str, Any]:
    return compute_figure("tokens", settings)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= REL * max(abs(a), abs(b), 1.0)


def _token_formula() -> ClaimResult:
    img, _ = camera_image()
    grid = [(c, p, f, a) for c, p, f, a in product((1, 4, 16), PATCHES, (1, 3, 16), (0, 8, 256))]
    bad = []
    for cameras, patch, frames, actions in grid:
        n = _tokens(cameras=cameras, patch=patch, frames=frames, actions=actions)["n"]
        cut = patch_grid(img, patch)["count"]  # patches actually cut from the 224 × 224 frame
        if n != cameras * cut * frames + frames + actions:
            bad.append((cameras, patch, frames, actions, n))
    example = _tokens(**TRIED, frames=1, actions=0)["n"]
    return result(
        "F7.1",
        "Tokens = cameras × (224 / patch)² × frames + one proprioception token per frame "
        "+ action tokens.",
        "tokens = cameras × (224 / patch)² × frames + frames + actions",
        measured=f"{len(grid) - len(bad)} of {len(grid)} settings match the patches cut from the "
        f"image; {TRIED['cameras']} cameras, {TRIED['patch']}-pixel patches, 1 frame, no actions: "
        f"{example} tokens",
        ok=not bad and example == TRIED["cameras"] * (IMAGE_SIZE // TRIED["patch"]) ** 2 + 1,
        values={"settings_checked": len(grid), "mismatches": len(bad), "n_4cam_patch8": example},
    )


def _crossover() -> ClaimResult:
    found: dict[str, Any] = {}
    ok = True
    for name, size in MODEL_PRESETS.items():
        data = _tokens(model=name)
        n_x = data["crossover_n"]
        parts = layer_flops(n_x, size.d)
        linear = parts["projections"] + parts["mlp"]
        lf, n = data["layer_flops"], data["n"]
        ok = ok and n_x == 6 * size.d and linear == parts["attention"]  # equal at n = 6d
        ok = (
            ok
            and _close(lf["linear"], 24 * n * size.d**2)
            and _close(lf["attention"], 4 * n * n * size.d)
        )
        ok = ok and _close(lf["attention"] / lf["total"], attention_share(n, size.d))
        ok = ok and _close(lf["projections"] + lf["mlp"] + lf["attention"], lf["total"])
        found[f"crossover_{name}"] = n_x
    return result(
        "F7.2",
        "One layer's forward pass costs 24·n·d² FLOPs in projections and MLP and "
        "4·n²·d in attention; attention's share is n / (n + 6d), half at n = 6d.",
        "linear $24nd^2$, attention $4n^2d$, share $n/(n + 6d)$; crossover 3072 "
        "(small, $d = 512$) and 24576 (7B-class, $d = 4096$)",
        measured=f"crossover {found['crossover_small']} (small), {found['crossover_7b']} (7b); "
        "parts add up to the total and match the closed forms",
        ok=ok and all(found[f"crossover_{k}"] == n for k, n in LESSON_CROSSOVER.items()),
        values=found | {"rel_tol": REL} | {f"lesson_{k}": n for k, n in LESSON_CROSSOVER.items()},
    )


def _four_cameras() -> ClaimResult:
    bare = _tokens(**TRIED, frames=1, actions=0, model="small")
    tried = _tokens(**TRIED, model="small")
    share, n = bare["attention_share"], bare["n"]
    return result(
        "F7.3",
        "Small model, 4 cameras, 8-pixel patches: n passes 6d = 3072, so attention is "
        "more than half of a layer's FLOPs.",
        "attention above half of the layer's FLOPs",
        measured=f"n = {n} (1 frame, no action tokens): attention {share:.1%}; at the figure's "
        f"other defaults ({tried['tokens']['actions']} action tokens) n = {tried['n']}, "
        f"{tried['attention_share']:.1%}",
        ok=share > HALF and tried["attention_share"] > HALF,
        values={
            "n": tried["n"],
            "attention_share": tried["attention_share"],
            "n_no_actions": n,
            "attention_share_no_actions": share,
        }
        | {"share_min": HALF, **TRIED},
    )


def _kv_bytes() -> ClaimResult:
    checked, ok = [], True
    for name, cameras in product(MODEL_PRESETS, (1, 4, 16)):
        size = MODEL_PRESETS[name]
        data = _tokens(model=name, cameras=cameras, patch=16, frames=2)
        expected = 2 * size.n_layers * data["n"] * size.d * data["bytes_per_number"]
        ok = ok and data["kv_cache_bytes"]["total"] == expected and data["bytes_per_number"] == 2
        checked.append(expected)
    example = _tokens(model="small", **TRIED, frames=1, actions=0)
    # The lesson's FIG 7 try-it quotes the 7B-class cache at its setting (§6).
    seven = _tokens(**TRIED, model="7b")
    return result(
        "F7.4",
        "The KV cache holds one key and one value of width d per token and layer: "
        "2 · L · n · d · b bytes, b = 2 in fp16.",
        r"KV cache = $2\cdot L\cdot n\cdot d\cdot b$ bytes (fp16: $b = 2$)",
        measured=f"the figure equals the formula on {len(checked)} settings; small model, "
        f"n = {example['n']}: {example['kv_cache_bytes']['total'] / 2**20:.1f} MiB",
        ok=ok,
        values={
            "settings_checked": len(checked),
            "bytes_small_4cam": example["kv_cache_bytes"]["total"],
            "cache_gb_7b": seven["kv_cache_bytes"]["total"] / 1e9,
            "n_models": len(MODEL_PRESETS),
        },
    )


def _vit_numbers() -> dict[str, Any]:
    """ViT on one 224 × 224 image (no proprio or action tokens): patch 16 against patch 8."""
    img, _ = camera_image()
    g16, g8 = patch_grid(img, 16), patch_grid(img, 8)
    d = 768  # ViT-Base width; the ratios below do not depend on it
    f16, f8 = layer_flops(g16["count"], d), layer_flops(g8["count"], d)
    return {
        "patches_16": g16["count"],
        "numbers_per_patch_16": g16["numbers_per_patch"],
        "tokens_8": g8["count"],
        "token_ratio": g8["count"] / g16["count"],
        "matrix_16": g16["count"] ** 2,
        "matrix_8": g8["count"] ** 2,
        "attention_ratio": f8["attention"] / f16["attention"],
        "linear_ratio": (f8["projections"] + f8["mlp"]) / (f16["projections"] + f16["mlp"]),
    }


def _vit() -> ClaimResult:
    v = _vit_numbers()
    ok = all(v[k] == n for k, n in VIT.items()) and v["numbers_per_patch_16"] == patch_numbers(16)
    ok = ok and all(v[k] == VIT_RATIOS[k] for k in ("attention_ratio", "linear_ratio"))
    return result(
        "F7.5",
        "ViT cuts a 224 × 224 image into 16-pixel patches: 196 tokens of 16·16·3 = 768 "
        "numbers. 8-pixel patches give 784 tokens: attention costs 16×, the linear parts 4×.",
        "196 patches of 768 numbers; patch 8: 784 tokens, 16× the attention matrix, 4× the "
        "linear cost",
        measured=f"{v['patches_16']} patches of {v['numbers_per_patch_16']} numbers; patch 8: "
        f"{v['tokens_8']} tokens, attention ×{v['attention_ratio']:g}, "
        f"linear ×{v['linear_ratio']:g}",
        ok=ok,
        values=v | {f"lesson_{k}": n for k, n in (VIT | VIT_RATIOS).items()},
    )


def _exercise_5() -> ClaimResult:
    v = _vit_numbers()
    ratios = {"token_ratio": v["token_ratio"], "matrix_ratio": v["matrix_8"] / v["matrix_16"]}
    ratios["linear_ratio"] = v["linear_ratio"]
    ok = all(x == VIT_RATIOS[k] for k, x in ratios.items())
    return result(
        "E5",
        "Halving the patch side doubles the patches per direction: 4× the tokens, 16× "
        "the entries of each attention matrix, 4× the projections and MLP.",
        r"14 × 14 = 196 → 28 × 28 = 784 tokens (4×); $196^2 \approx 3.8\times10^4$ → "
        r"$784^2 \approx 61\times10^4$ entries (16×); linear parts 4×",
        measured=f"{v['patches_16']} → {v['tokens_8']} tokens (×{v['token_ratio']:g}); "
        f"{v['matrix_16']} → {v['matrix_8']} entries (×{ratios['matrix_ratio']:g}); "
        f"linear ×{v['linear_ratio']:g}",
        ok=ok,
        values=v | {f"lesson_{k}": VIT_RATIOS[k] for k in ratios},
    )


CHECKS: tuple[ClaimCheck, ...] = (
    ClaimCheck("F7.1", _token_formula),
    ClaimCheck("F7.2", _crossover),
    ClaimCheck("F7.3", _four_cameras),
    ClaimCheck("F7.4", _kv_bytes),
    ClaimCheck("F7.5", _vit),
    ClaimCheck("E5", _exercise_5),
)


# --- beyond the spec (shared/CLAIMS-beyond.md): what real models do about the wall ------------

GQA_7B = 8  # F7.6: Llama-2-70B's and Llama 3's choice, 8 KV heads
LATENT_M = 256  # F7.7's try-it: 256 latents, as in Perceiver IO
LATENT_MANY = 4096  # F7.7: more latents than d, so that attention can dominate again
TIMED_N = 256  # F7.8: a layer small enough to time in a fraction of a second
SAME_TOL = 1e-12  # F7.8: tiled and plain outputs agree to this
SOURCE_WH = (672, 448)  # F7.9: a 3:2 photo; its centre square is 448 px, twice 224
PIXEL_TOL = 1.0  # F7.9: a frame pixel against its source pixels' mean (Pillow's 8-bit box filter)
MEAN_TOL = 1.5  # F7.9: a patch's colour, that error plus the rounding to a whole colour value


def _kv_heads() -> ClaimResult:
    checked, ok = 0, True
    for name, sharing, heads, cameras in product(MODEL_PRESETS, KV_SHARING, GQA_HEADS, (1, 4)):
        size = MODEL_PRESETS[name]
        data = _tokens(model=name, kv=sharing, kv_heads=heads, cameras=cameras)
        h_kv = {"mha": size.n_heads, "gqa": heads, "mqa": 1}[sharing]
        b, n = data["bytes_per_number"], data["n"]
        expected = Fraction(2 * size.n_layers * n * size.d * h_kv * b, size.n_heads)
        ok = ok and data["kv_cache_bytes"]["total"] == expected == int(expected)
        ok = ok and data["kv"]["fraction"] == h_kv / size.n_heads
        checked += 1
    mha, gqa = (_tokens(**TRIED, model="7b", kv=kv, kv_heads=GQA_7B) for kv in ("mha", "gqa"))
    mqa = _tokens(**TRIED, model="7b", kv="mqa")
    quarter = gqa["kv_cache_bytes"]["total"] / mha["kv_cache_bytes"]["total"]
    n_heads = mha["model_size"]["n_heads"]
    return result(
        "F7.6",
        "With H_kv key/value heads shared by H query heads (GQA; MQA is H_kv = 1) the KV "
        "cache is H_kv / H of full multi-head attention's: 2 · L · n · d · (H_kv / H) · b bytes.",
        "7B class, 32 heads, 8 KV heads: a quarter of the cache",
        measured=f"the figure equals the formula on {checked} settings; 7B class, {n_heads} "
        f"heads, {GQA_7B} KV heads: {gqa['kv_cache_bytes']['total'] / 1e9:.2f} GB instead of "
        f"{mha['kv_cache_bytes']['total'] / 1e9:.2f} GB (×{quarter:g}); "
        f"MQA ×{mqa['kv']['fraction']:g}",
        ok=ok and quarter == 0.25 and n_heads == 32,
        values={
            "settings_checked": checked,
            "n_heads": n_heads,
            "kv_heads": GQA_7B,
            "fraction": quarter,
            "fraction_mqa": mqa["kv"]["fraction"],
            "queries_per_kv_head": gqa["kv"]["queries_per_kv_head"],
            "cache_gb_mha": mha["kv_cache_bytes"]["total"] / 1e9,
            "cache_gb_gqa": gqa["kv_cache_bytes"]["total"] / 1e9,
        },
    )


def _cross_attention_macs(n: int, m: int, d: int) -> int:
    """Multiply-adds of a real cross-attention, read off the arrays it makes: every score is
    a d-long dot product, and every output entry sums n weighted values."""
    rng = np.random.default_rng(7)
    q, kv = rng.standard_normal((m, d)), rng.standard_normal((n, d))
    out, weights = attention(q, kv, kv)  # weights (m, n), out (m, d)
    return weights.size * q.shape[1] + out.size * weights.shape[1]


def _latents() -> ClaimResult:
    ok, checked = True, 0
    for name, m, cameras in product(MODEL_PRESETS, LATENTS[1:], (1, 4, 16)):
        d = MODEL_PRESETS[name].d
        data = _tokens(model=name, latents=m, cameras=cameras)
        n, lat = data["n"], data["latent"]
        ok = ok and lat["layer_flops"]["attention"] == 4 * n * m * d
        ok = ok and lat["attention_vs_full"] == (4 * n * m * d) / (4 * n * n * d)
        checked += 1
    same = latent_layer_flops(300, 300, 64) == layer_flops(300, 64)  # m = n: a plain layer
    ok = ok and same and 2 * _cross_attention_macs(5, 3, 4) == 4 * 5 * 3 * 4
    full, lat = _tokens(**TRIED), _tokens(**TRIED, latents=LATENT_M)
    many = _tokens(**TRIED, latents=LATENT_MANY)["latent"]["crossover_n"]
    d = full["model_size"]["d"]
    ok = ok and lat["latent"]["crossover_n"] is None and many is not None and many < 6 * d
    shares = {"share_full": full["attention_share"], "share": lat["latent"]["attention_share"]}
    return result(
        "F7.7",
        "m latent tokens cross-attending to n inputs (Perceiver) cost 4·n·m·d attention "
        "FLOPs per layer instead of 4·n²·d; with m ≤ d attention never reaches half the layer.",
        "attention $4nmd$ instead of $4n^2d$",
        measured=f"the figure equals 4nmd on {checked} settings, and a real cross-attention's "
        f"arrays count the same; small model, n = {full['n']}: {LATENT_M} latents take attention "
        f"from {shares['share_full']:.1%} to {shares['share']:.1%} of the layer; crossover "
        f"{6 * d} → none ({LATENT_MANY} latents: {many})",
        ok=ok,
        values={
            "settings_checked": checked,
            "m": LATENT_M,
            "n": full["n"],
            **shares,
            "ratio": lat["latent"]["attention_vs_full"],
            "m_many": LATENT_MANY,
            "crossover_many": many,
            "crossover_full": 6 * d,
        },
    )


def _timed() -> ClaimResult:
    t = time_attention(TIMED_N, "small")
    plain, tiled = t["plain"], t["tiled"]
    consistent = abs(plain["gflops"] * 1e9 * plain["seconds"] - t["flops"]) <= 1e-6 * t["flops"]
    ok = t["flops"] == layer_flops(t["n_timed"], t["d"])["attention"] and consistent
    ok = ok and plain["seconds"] > 0 and t["matmul"]["gflops"] > 0 and bool(t["machine"]["cpu"])
    ok = ok and tiled["max_abs_diff"] < SAME_TOL  # nn.timing always times the tiled version
    diff = tiled["max_abs_diff"]
    tiled_text = f"tiled {tiled['gflops']:.1f} GFLOP/s, outputs differ by {diff:.1e}"
    m = t["machine"]
    return result(
        "F7.8",
        "One attention layer at the current n, timed on the serving machine (plain and "
        "tiled), is shown beside its FLOP count as achieved GFLOP/s; the two versions give the "
        "same output.",
        "achieved GFLOP/s beside the FLOP count, on this machine",
        measured=f"n = {t['n_timed']}, {t['flops'] / 1e9:.2f} GFLOP: plain {plain['gflops']:.1f} "
        f"GFLOP/s ({plain['of_matmul']:.0%} of this machine's {t['matmul']['gflops']:.1f} "
        f"GFLOP/s matrix product); {tiled_text}; {m['cpu']}, {m['cores']} cores, {m['blas']}",
        ok=ok,
        values={
            "n": t["n_timed"],
            "gflops": plain["gflops"],
            "of_matmul": plain["of_matmul"],
            "matmul_gflops": t["matmul"]["gflops"],
            "tiled_connected": tiled is not None,
            "same_tol": SAME_TOL,
            "cores": m["cores"],
        },
    )


def _known_frame() -> tuple[bytes, np.ndarray]:
    """A 672 × 448 PNG of noise, and its centre 448 × 448 square (what the frame must show)."""
    w, h = SOURCE_WH
    pixels = np.random.default_rng(9).integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    left = (w - h) // 2
    return buf.getvalue(), pixels[:, left : left + h].astype(float)


def _own_frame() -> ClaimResult:
    data, square = _known_frame()
    answer = frame_patches(data)
    png = base64.b64decode(answer["image"]["png"].split(",", 1)[1])
    frame = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)  # (224, 224, 3)
    k = square.shape[0] // IMAGE_SIZE  # source pixels per frame pixel along a side (2)
    means = square.reshape(IMAGE_SIZE, k, IMAGE_SIZE, k, 3).mean(axis=(1, 3))  # by hand
    pixel_diff = float(np.abs(frame - means).max())
    mean_diff, counts = 0.0, []
    for grid in answer["grids"]:
        p, side = grid["size"], IMAGE_SIZE // grid["size"]
        known = square.reshape(side, k * p, side, k * p, 3).mean(axis=(1, 3))
        mean_diff = max(mean_diff, float(np.abs(np.array(grid["mean_rgb"]) - known).max()))
        counts.append(grid["count"] == side * side and grid["numbers_per_patch"] == 3 * p * p)
    ok = frame.shape == (IMAGE_SIZE, IMAGE_SIZE, 3) and all(counts) and len(counts) == len(PATCHES)
    ok = ok and pixel_diff <= PIXEL_TOL and mean_diff <= MEAN_TOL
    w, h = SOURCE_WH
    return result(
        "F7.9",
        "A reader's own frame is cut to its centre square, resized to 224 × 224, and "
        "each patch token holds that patch's pixels.",
        "your frame → 224 × 224 → one token per patch",
        measured=f"a {w} × {h} PNG of noise: every frame pixel within {pixel_diff:g} of the mean "
        f"of its {k} × {k} source pixels, every patch's colour within {mean_diff:g} of the "
        f"source block's mean, at all {len(counts)} patch sizes",
        ok=ok,
        values={
            "width": w,
            "height": h,
            "pixel_diff": pixel_diff,
            "mean_diff": mean_diff,
            "pixel_tol": PIXEL_TOL,
            "mean_tol": MEAN_TOL,
            "patch_sizes": len(counts),
        },
    )


CHECKS += (
    ClaimCheck("F7.6", _kv_heads),
    ClaimCheck("F7.7", _latents),
    ClaimCheck("F7.8", _timed),
    ClaimCheck("F7.9", _own_frame),
)
