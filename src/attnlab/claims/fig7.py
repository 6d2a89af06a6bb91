"""FIG 7's claims (F7.1–F7.5) and exercise 5 (E5): tokens from cameras and what they cost.

The numbers go through `attnlab.figures.compute_figure("tokens", …)`, the same path as the page.
The token count is checked against the patch grid cut from the figure's actual image, so the
formula and the picture cannot drift apart.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from attnlab.claims.base import ClaimCheck, ClaimResult, result
from attnlab.figures import compute_figure
from attnlab.figures.tokens import PATCHES, camera_image, patch_grid
from attnlab.nn.cost import IMAGE_SIZE, MODEL_PRESETS, attention_share, layer_flops, patch_numbers

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
