"""FIG 2's training speed: our fused NumPy trainer against PyTorch eager and JAX jit, same run.

    make bench            # installs torch==2.13.0 into .venv first
    .venv/bin/python benchmarks/train_speed.py [--quick]

One training step of the 1-head attention model (sample 32 fresh scenes, forward, backward,
Adam) is written three times: ours (`attnlab.tabletop`), PyTorch eager (autograd, torch.optim.Adam)
and JAX (`jax.jit` of the whole update, Adam by hand). All three run in float64 on the same scene
stream and are timed in this process, so the ratios compare like with like on this machine.
Then the budgets of the brief: 1500 steps of fetch with both models and both test sets every 25
steps, in-process and as a whole `attnlab train` process; a 100-seed sweep; and whether
OPENBLAS/OMP/MKL_NUM_THREADS=1 (the package default) helps. Not a test: numbers are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

from attnlab.nn import Adam
from attnlab.tabletop import TrainConfig, Trainer, sweep
from attnlab.tabletop.model import CrossAttention
from attnlab.tabletop.scenes import SceneStream
from attnlab.tabletop.seed_batch import BATCH, LR

HEADS = 1


def per_step(step: Callable[[], object], n: int, repeats: int) -> float:
    """Best-of-`repeats` seconds per call of `step` (n calls each, after a warm-up)."""
    for _ in range(50):
        step()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            step()
        times.append((time.perf_counter() - t) / n)
    return min(times)


def ours_step(seed: int) -> Callable[[], None]:
    rng = np.random.default_rng(seed)
    model = CrossAttention(HEADS)
    theta = model.init(rng)[None].copy()
    grad = np.zeros_like(theta)
    params, grads = model.views(theta), model.views(grad)
    adam = Adam({"theta": theta}, lr=LR)
    stream = SceneStream([rng], BATCH, task="fetch")

    def step() -> None:
        sc = stream.next()
        y_hat, cache = model.forward(params, sc.x, sc.c, sc.mask)
        g = y_hat - sc.y
        g *= 1.0 / BATCH
        model.backward(g, cache, params, grads)
        adam.step({"theta": grad})

    return step


def torch_module_step(seed: int) -> Callable[[], None] | None:
    """The model as §3 writes it, the way one writes it in PyTorch: a module, one Linear per
    projection and head, a masked softmax, concatenation, W_O; autograd and torch.optim.Adam."""
    try:
        import torch
    except ImportError:
        return None
    from torch import nn

    torch.set_num_threads(1)  # as fast as 2 on these tiny tensors (measured), and like ours

    def _linear(n_in: int, n_out: int) -> nn.Linear:
        return nn.Linear(n_in, n_out, bias=False, dtype=torch.float64)

    class Heads(nn.Module):
        def __init__(self, p) -> None:
            super().__init__()
            self.W_Q = nn.ModuleList(_linear(12, 8) for _ in range(HEADS))
            self.W_K = nn.ModuleList(_linear(8, 8) for _ in range(HEADS))
            self.W_V = nn.ModuleList(_linear(8, 2) for _ in range(HEADS))
            self.W_O = nn.Linear(2 * HEADS, 2, dtype=torch.float64)
            with torch.no_grad():  # start from our initial weights
                for h in range(HEADS):
                    # a Linear's weight is (out, in): the transpose of our x @ W
                    self.W_Q[h].weight.copy_(torch.from_numpy(p.W_Q[0, h].T))
                    self.W_K[h].weight.copy_(torch.from_numpy(p.W_K[0, h].T))
                    self.W_V[h].weight.copy_(torch.from_numpy(p.W_V[0, h].T))
                self.W_O.weight.copy_(torch.from_numpy(p.W_O[0].T))
                self.W_O.bias.zero_()

        def forward(self, x, c, present):
            z = []
            for W_Q, W_K, W_V in zip(self.W_Q, self.W_K, self.W_V, strict=True):
                q, k, v = W_Q(c), W_K(x), W_V(x)  # (B, 8), (B, N, 8), (B, N, 2)
                s = (k @ q.unsqueeze(-1)).squeeze(-1) / 8**0.5
                alpha = torch.softmax(s.masked_fill(~present, float("-inf")), dim=-1)
                z.append((alpha.unsqueeze(1) @ v).squeeze(1))
            return self.W_O(torch.cat(z, dim=-1))

    rng = np.random.default_rng(seed)
    model = Heads(CrossAttention(HEADS).views(CrossAttention(HEADS).init(rng)[None].copy()))
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    stream = SceneStream([rng], BATCH, task="fetch")

    def step() -> None:
        sc = stream.next()
        x, c = torch.from_numpy(sc.x[0]), torch.from_numpy(sc.c[0])
        present, y = torch.from_numpy(sc.mask[0]), torch.from_numpy(sc.y[0])
        loss = 0.5 * ((model(x, c, present) - y) ** 2).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step


def torch_step(seed: int) -> Callable[[], None] | None:
    """The same model hand-fused into a few einsums: the fastest eager PyTorch we found."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    init = CrossAttention(HEADS).views(CrossAttention(HEADS).init(rng)[None].copy())
    W_Q, W_K, W_V, W_O, b = (torch.tensor(p[0], requires_grad=True) for p in init)
    opt = torch.optim.Adam([W_Q, W_K, W_V, W_O, b], lr=LR)
    stream = SceneStream([rng], BATCH, task="fetch")

    def step() -> None:
        sc = stream.next()
        x, c = torch.from_numpy(sc.x[0]), torch.from_numpy(sc.c[0])  # (B, N, 8), (B, 12)
        present, y = torch.from_numpy(sc.mask[0]), torch.from_numpy(sc.y[0])
        q = torch.einsum("hcd,bc->bhd", W_Q, c)
        k = torch.einsum("hxd,bnx->bhnd", W_K, x)
        v = torch.einsum("hxv,bnx->bhnv", W_V, x)
        s = torch.einsum("bhd,bhnd->bhn", q, k) / 8**0.5
        alpha = torch.softmax(s.masked_fill(~present[:, None, :], float("-inf")), dim=-1)
        z = torch.einsum("bhn,bhnv->bhv", alpha, v).reshape(len(c), -1)
        y_hat = z @ W_O + b
        loss = 0.5 * ((y_hat - y) ** 2).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step


def jax_step(seed: int, *, staged: bool = False) -> Callable[[], None] | None:
    """`jax.jit` of the whole update (gradient by jax.grad, Adam by hand).

    staged=False: each step's 32 scenes come from our sampler on the host, as in ours and torch.
    staged=True: JAX's best case: 500 steps of scenes sit on the device and the jitted step
    picks its batch by index, so a step is one dispatch with no transfer (scenes reused).
    """
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    rng = np.random.default_rng(seed)
    model = CrossAttention(HEADS)
    params = tuple(jnp.asarray(p[0]) for p in model.views(model.init(rng)[None]))
    stream = SceneStream([rng], BATCH, task="fetch")

    def loss_fn(p, x, c, mask, y):
        W_Q, W_K, W_V, W_O, b = p
        q = jnp.einsum("hcd,bc->bhd", W_Q, c)
        k = jnp.einsum("hxd,bnx->bhnd", W_K, x)
        v = jnp.einsum("hxv,bnx->bhnv", W_V, x)
        s = jnp.einsum("bhd,bhnd->bhn", q, k) / 8**0.5
        s = jnp.where(mask[:, None, :], s, -jnp.inf)  # mask: True where a slot holds an object
        z = jnp.einsum("bhn,bhnv->bhv", jax.nn.softmax(s, axis=-1), v).reshape(len(c), -1)
        return 0.5 * jnp.mean(jnp.sum((z @ W_O + b - y) ** 2, axis=-1))

    def adam(p, m, v, t, g):
        m = tuple(0.9 * mi + 0.1 * gi for mi, gi in zip(m, g, strict=True))
        v = tuple(0.999 * vi + 0.001 * gi * gi for vi, gi in zip(v, g, strict=True))
        lr_t = LR * jnp.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        p = tuple(
            pi - lr_t * mi / (jnp.sqrt(vi) + 1e-8) for pi, mi, vi in zip(p, m, v, strict=True)
        )
        return p, m, v

    @jax.jit
    def update(p, m, v, t, x, c, mask, y):
        return adam(p, m, v, t, jax.grad(loss_fn)(p, x, c, mask, y))

    bank = ()
    if staged:
        scenes = [stream.next() for _ in range(500)]
        fields = ("x", "c", "mask", "y")
        bank = tuple(jnp.asarray(np.stack([getattr(sc, f)[0] for sc in scenes])) for f in fields)

    @jax.jit
    def update_staged(p, m, v, t, bank):
        x, c, mask, y = (a[t % 500] for a in bank)
        return adam(p, m, v, t, jax.grad(loss_fn)(p, x, c, mask, y))

    state = {"p": params, "m": tuple(map(jnp.zeros_like, params)), "t": 0}
    state["v"] = state["m"]

    def step() -> None:
        state["t"] += 1
        if staged:
            p, m, v = update_staged(state["p"], state["m"], state["v"], state["t"], bank)
        else:
            sc = stream.next()
            args = (sc.x[0], sc.c[0], sc.mask[0], sc.y[0])
            p, m, v = update(state["p"], state["m"], state["v"], state["t"], *args)
        state.update(p=p, m=m, v=v)
        jax.block_until_ready(p)

    return step


def in_process_run(steps: int = 1500, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        Trainer(TrainConfig(task="fetch", heads=1, seed=35)).advance(steps)
        best = min(best, time.perf_counter() - t)
    return best


def whole_process(env: dict[str, str], repeats: int = 3) -> float:
    cmd = [sys.executable, "-m", "attnlab", "train", "--steps", "1500", "--json"]
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        best = min(best, time.perf_counter() - t)
    return best


# `import attnlab` first: its default (one BLAS thread) only counts before NumPy loads OpenBLAS
THREADS_PROBE = (
    "import attnlab, sys, time; sys.path.insert(0, {here!r})\n"
    "from train_speed import in_process_run\n"
    "from attnlab.tabletop import sweep\n"
    "t = time.perf_counter(); sweep('fetch', 1, range(20), 1500, workers=2)\n"
    "print(in_process_run(), time.perf_counter() - t)"
)


def threads_effect(rounds: int = 3) -> dict[str, tuple[float, float]]:
    """Fresh processes with BLAS threads at the package default (1) or at 2, alternated.

    Per setting, the best of `rounds`: (1500 fetch steps in-process, a 20-seed sweep on 2 cores).
    """
    out: dict[str, tuple[float, float]] = {}
    for _ in range(rounds):
        for n in ("default", "2"):
            env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
            if n != "default":
                env.update(OPENBLAS_NUM_THREADS=n, OMP_NUM_THREADS=n, MKL_NUM_THREADS=n)
            probe = THREADS_PROBE.format(here=os.path.dirname(os.path.abspath(__file__)))
            cmd = [sys.executable, "-c", probe]
            res = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
            one, many = (float(v) for v in res.stdout.split())
            old = out.get(n, (float("inf"), float("inf")))
            out[n] = (min(old[0], one), min(old[1], many))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the 100-seed sweep")
    ap.add_argument("--steps", type=int, default=2000, help="steps per timing repeat")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cores")
    print(f"BLAS threads: OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")

    print("\n1-head attention model, one training step (32 fresh scenes, fwd, bwd, Adam), float64")
    ours = per_step(ours_step(0), args.steps, 5)
    print(f"  {'ours (fused NumPy)':24} {ours * 1e6:8.1f} µs/step   {1 / ours:8.0f} steps/s")
    makers = (
        ("PyTorch eager, module", torch_module_step),
        ("PyTorch eager, einsum", torch_step),
        ("JAX jit", jax_step),
        ("JAX jit, staged scenes", lambda seed: jax_step(seed, staged=True)),
    )
    for name, make in makers:
        step = make(0)
        if step is None:
            print(f"  {name:24} not installed")
            continue
        t = per_step(step, max(200, args.steps // 4), 5)
        speed = f"{t * 1e6:8.1f} µs/step   {1 / t:8.0f} steps/s"
        print(f"  {name:24} {speed}   ours: {t / ours:4.1f}× faster")

    full = Trainer(TrainConfig())
    both = per_step(lambda: full.seed_batch.train_step(), args.steps, 5)
    print(f"\nboth models (attention + slot MLP), one step: {both * 1e6:.1f} µs")
    print(
        f"1500 fetch steps, both models, both test sets every 25 steps, in-process: "
        f"{in_process_run():.3f} s (budget 0.6 s)"
    )
    print(
        f"`attnlab train --steps 1500 --json` as a whole process: "
        f"{whole_process(dict(os.environ)):.3f} s (budget 1 s)"
    )
    threads = threads_effect()
    (one_1, sweep_1), (one_2, sweep_2) = threads["default"], threads["2"]
    print(
        f"BLAS threads, package default (1) vs 2: 1500 fetch steps {one_1:.3f} s vs {one_2:.3f} s; "
        f"20-seed sweep on 2 processes {sweep_1:.2f} s vs {sweep_2:.2f} s"
    )
    if not args.quick:
        t = time.perf_counter()
        result = sweep("fetch", 1, range(100), 1500, workers=2)
        seconds = time.perf_counter() - t
        med = statistics.median(s["first_below_2cm"] or 0 for s in result.summaries)
        print(
            f"100-seed fetch sweep, 1500 steps, both models, 2 processes: {seconds:.1f} s "
            f"(budget 60 s; median first step below 2 cm: {med:.0f})"
        )


if __name__ == "__main__":
    main()
