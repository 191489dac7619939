"""Runs the article's own NumPy functions on a batch of configurations written by numpy-parity.test.ts.

Usage: /usr/bin/python3 numpy_driver.py WORK_DIR

WORK_DIR/manifest.json: {"configs": [{"n", "dModel", "heads", "causal", "offset"}, ...]}
WORK_DIR/inputs.bin:    float32, per config X (n, d_model) then W_q, W_k, W_v, W_o (d_model, d_model),
                        starting at element `offset`.
Writes WORK_DIR/outputs.bin: float64, per config output (n, d_model) then weights (h, n, n), in order.
Writes WORK_DIR/result.json: {"count", "numpy"}.

softmax, attention and multi_head_attention below are copied verbatim from the article (the test
checks that they still match the article text character for character). The only addition is
causal_multi_head_attention, marked as such.
"""
import json
import sys

try:
    import numpy as np
except ImportError as error:  # the test turns this into a failure with this message
    print(f"numpy is not importable by {sys.executable}: {error}", file=sys.stderr)
    sys.exit(3)


# ---- verbatim from the article ------------------------------------------------------------------

def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)     # numerical stability
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def multi_head_attention(X, W_q, W_k, W_v, W_o, h=8):
    n, d_model = X.shape
    d_k = d_model // h

    Q = (X @ W_q).reshape(n, h, d_k).transpose(1, 0, 2)   # (h, n, d_k)
    K = (X @ W_k).reshape(n, h, d_k).transpose(1, 0, 2)
    V = (X @ W_v).reshape(n, h, d_k).transpose(1, 0, 2)

    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_k)      # (h, n, n)
    weights = softmax(scores, axis=-1)
    heads = weights @ V                                    # (h, n, d_k)

    merged = heads.transpose(1, 0, 2).reshape(n, d_model)  # concat heads
    return merged @ W_o, weights

# ---- end of the verbatim article code -----------------------------------------------------------


# ADDITION (not in the article): the causal variant of multi_head_attention. Same projections and
# head split as the article's function, but each head goes through the article's attention() with
# the article's mask = np.tril(np.ones((n, n), dtype=bool)), i.e. -inf before the softmax.
def causal_multi_head_attention(X, W_q, W_k, W_v, W_o, h=8):
    n, d_model = X.shape
    d_k = d_model // h
    Q = (X @ W_q).reshape(n, h, d_k).transpose(1, 0, 2)
    K = (X @ W_k).reshape(n, h, d_k).transpose(1, 0, 2)
    V = (X @ W_v).reshape(n, h, d_k).transpose(1, 0, 2)
    mask = np.tril(np.ones((n, n), dtype=bool))
    outs, weights = zip(*(attention(Q[i], K[i], V[i], mask=mask) for i in range(h)))
    heads = np.stack(outs)                                   # (h, n, d_k)
    merged = heads.transpose(1, 0, 2).reshape(n, d_model)
    return merged @ W_o, np.stack(weights)


def main():
    work = sys.argv[1]
    with open(f"{work}/manifest.json") as f:
        configs = json.load(f)["configs"]
    inputs = np.fromfile(f"{work}/inputs.bin", dtype="<f4")
    results = []
    for c in configs:
        n, d, h = c["n"], c["dModel"], c["heads"]
        at = c["offset"]

        def take(rows, cols):
            nonlocal at
            block = inputs[at:at + rows * cols].astype(np.float64).reshape(rows, cols)
            at += rows * cols
            return block

        X = take(n, d)
        W_q, W_k, W_v, W_o = (take(d, d) for _ in range(4))
        fn = causal_multi_head_attention if c["causal"] else multi_head_attention
        output, weights = fn(X, W_q, W_k, W_v, W_o, h=h)
        assert output.shape == (n, d) and weights.shape == (h, n, n), (output.shape, weights.shape)
        results.append(output.astype("<f8").ravel())
        results.append(weights.astype("<f8").ravel())
    np.concatenate(results).tofile(f"{work}/outputs.bin")
    with open(f"{work}/result.json", "w") as f:
        json.dump({"count": len(configs), "numpy": np.__version__}, f)


if __name__ == "__main__":
    main()
