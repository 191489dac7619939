"""The training peer in PyTorch (optional: tests/bench/training.ts runs it where `import torch` works,
as with Debian's python3-torch): the same model, batch and update as our default Trainer and as
tfjs-training.ts, written the way a PyTorch user would, on one thread.

Model: x = wte[tokens] + wpe[:T]; per layer x = x + W_o(attention(LN1(x) W_q, LN1(x) W_k, LN1(x) W_v))
(no biases, pre-LN, 2 heads, bidirectional with a padding mask); logits = LN_f(x at the target) w_out
(untied); mean cross-entropy over the B targets; clip_grad_norm_(1.0); AdamW(lr 3e-3, weight decay 0,
eps 1e-8, foreach=True: the multi-tensor update, ~15% faster here than the CPU default). Like ours, the last layer computes its query side at the target rows only.

A persistent process, so that its samples interleave with the others' in the same rounds:
    /usr/bin/python3 torch_training.py '{"vocab": 51, "positions": 16, ...}'
prints one JSON line {"ready": true, ...}, then answers each line read from stdin:
    run S      S steps on the next batches of a pool of 16 random ones -> {"cpuMsPerStep", "wallMsPerStep", "loss"}
    sanity S   S steps of a fresh model on a learnable toy target -> {"losses": [...]} (every S/6 steps)
    quit
"""

import json
import math
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

torch.set_num_threads(1)
torch.set_num_interop_threads(1)

WHO_IS_IT_LENGTHS = [9, 12, 11, 9, 11, 13, 11]


class Layer(nn.Module):
    def __init__(self, C):
        super().__init__()
        self.ln1 = nn.LayerNorm(C, eps=1e-5)
        std = 1 / math.sqrt(C)
        self.W_q = nn.Parameter(torch.randn(C, C) * std)
        self.W_k = nn.Parameter(torch.randn(C, C) * std)
        self.W_v = nn.Parameter(torch.randn(C, C) * std)
        self.W_o = nn.Parameter(torch.randn(C, C) * std)


class Model(nn.Module):
    def __init__(self, s):
        super().__init__()
        V, C = s["vocab"], s["dModel"]
        self.heads = s["heads"]
        self.wte = nn.Parameter(torch.randn(V, C))
        self.wpe = nn.Parameter(torch.randn(s["positions"], C))
        self.layers = nn.ModuleList([Layer(C) for _ in range(s["layers"])])
        self.lnf = nn.LayerNorm(C, eps=1e-5)
        self.w_out = nn.Parameter(torch.randn(C, V) / math.sqrt(C))

    def forward(self, tokens, mask, query, targets):
        B, T = tokens.shape
        C = self.wte.shape[1]
        NH = self.heads
        HS = C // NH
        rows = torch.arange(B)
        x = self.wte[tokens] + self.wpe[:T]  # (B, T, C)
        for i, layer in enumerate(self.layers):
            last = i == len(self.layers) - 1
            h = layer.ln1(x)
            hq = h[rows, query].unsqueeze(1) if last else h  # (B, Tq, C)
            residual = x[rows, query].unsqueeze(1) if last else x
            Tq = hq.shape[1]
            q = (hq @ layer.W_q).view(B, Tq, NH, HS).transpose(1, 2)
            k = (h @ layer.W_k).view(B, T, NH, HS).transpose(1, 2)
            v = (h @ layer.W_v).view(B, T, NH, HS).transpose(1, 2)
            att = torch.softmax(q @ k.transpose(-1, -2) * (1 / math.sqrt(HS)) + mask, dim=-1)
            y = (att @ v).transpose(1, 2).reshape(B, Tq, C)
            x = residual + y @ layer.W_o
        logits = self.lnf(x[:, 0]) @ self.w_out  # (B, V)
        return F.cross_entropy(logits, targets)


def make_batch(s, gen, learnable=False):
    B, T, V = s["batch"], s["sequenceLength"], s["vocab"]
    lengths = [n for n in WHO_IS_IT_LENGTHS if n <= T]
    lens = torch.tensor(lengths)[torch.randint(len(lengths), (B,), generator=gen)]
    tokens = torch.randint(2, V, (B, T), generator=gen)
    pad = torch.arange(T).unsqueeze(0) >= lens.unsqueeze(1)  # (B, T)
    tokens[pad] = 0
    mask = torch.zeros(B, 1, 1, T).masked_fill(pad.view(B, 1, 1, T), -1e9)
    u = torch.rand(B, generator=gen)
    if learnable:
        query = 2 + (u * (lens - 2)).long()
        targets = tokens[:, 1].clone()
    else:
        query = (u * lens).long()
        targets = torch.randint(2, V, (B,), generator=gen)
    return tokens, mask, query, targets


class Run:
    def __init__(self, s, seed):
        torch.manual_seed(seed)
        self.s = s
        self.model = Model(s)
        self.params = list(self.model.parameters())
        self.opt = torch.optim.AdamW(self.params, lr=s["learningRate"], betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, foreach=True)

    def step(self, batch):
        self.opt.zero_grad(set_to_none=True)
        loss = self.model(*batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.params, self.s["clip"])
        self.opt.step()
        return loss


def main():
    s = json.loads(sys.argv[1])
    gen = torch.Generator().manual_seed(1)
    pool = [make_batch(s, gen) for _ in range(16)]
    run = Run(s, 1)
    cursor = 0
    count = sum(p.numel() for p in run.params)
    print(json.dumps({"ready": True, "torch": torch.__version__, "threads": torch.get_num_threads(), "parameterCount": count}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            break
        steps = int(words[1])
        if words[0] == "run":
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(steps):
                loss = run.step(pool[cursor % len(pool)])
                cursor += 1
            value = float(loss.item())
            c1, w1 = time.process_time(), time.perf_counter()
            print(json.dumps({"cpuMsPerStep": (c1 - c0) * 1000 / steps, "wallMsPerStep": (w1 - w0) * 1000 / steps, "loss": value}), flush=True)
        elif words[0] == "sanity":
            fresh = Run(s, 7)
            g = torch.Generator().manual_seed(7)
            losses = []
            every = max(1, steps // 6)
            for i in range(steps):
                loss = fresh.step(make_batch(s, g, learnable=True))
                if (i + 1) % every == 0:
                    losses.append(float(loss.item()))
            print(json.dumps({"losses": losses}), flush=True)


if __name__ == "__main__":
    main()
