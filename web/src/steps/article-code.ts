// The article's code listings that the steps show, word for word, in one place: steps 6, 7 and 8 print
// them (figures/code-block.ts) and step 6 hands two of them to the NumPy export (figures/numpy-script.ts),
// which keeps the article's softmax() with the script it writes. Only the text lives here.

/** The article's attention(), exactly as printed there. */
export const ATTENTION_SOURCE = `def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights`;

/** The article's masking snippet, exactly as printed there. */
export const CAUSAL_SOURCE = `n = 4
mask = np.tril(np.ones((n, n), dtype=bool))     # lower triangular
out, w = attention(Q, K, V, mask=mask)

print(w.round(2))`;

/** The article's multi_head_attention(), exactly as printed there. */
export const MULTI_HEAD_SOURCE = `def multi_head_attention(X, W_q, W_k, W_v, W_o, h=8):
    n, d_model = X.shape
    d_k = d_model // h

    Q = (X @ W_q).reshape(n, h, d_k).transpose(1, 0, 2)   # (h, n, d_k)
    K = (X @ W_k).reshape(n, h, d_k).transpose(1, 0, 2)
    V = (X @ W_v).reshape(n, h, d_k).transpose(1, 0, 2)

    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_k)      # (h, n, n)
    weights = softmax(scores, axis=-1)
    heads = weights @ V                                    # (h, n, d_k)

    merged = heads.transpose(1, 0, 2).reshape(n, d_model)  # concat heads
    return merged @ W_o, weights`;
