// "Reproduce in NumPy": a short, self-contained Python script with the article's own functions (word
// for word) and this page's matrices written out at full float32 precision, which prints the weights
// and outputs the page shows. When the page masks or skips the scaling, a clearly marked variant of
// multi_head_attention() (not in the article) takes the mask and the scaling as arguments.
import { f32 } from './export-text';
import { describeMask, isCustomMask } from '../hands-on-settings';
import type { Matrix } from '../engine/types';
import type { Snapshot } from '../snapshot';

/** The article's softmax(), exactly as printed there. */
export const SOFTMAX_SOURCE = `def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)     # numerical stability
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)`;

/** Not in the article: multi_head_attention() with a mask and optional scaling. */
export const MASKED_SOURCE = `# ---------------------------------------------------------------------------
# NOT IN THE ARTICLE: multi_head_attention() with a mask and optional scaling,
# so that the script can follow the page's mask and scaling settings. The same
# steps as the article's function; the lines marked "# changed" are the difference.
def multi_head_attention_masked(X, W_q, W_k, W_v, W_o, h, mask=None, scale=True):
    n, d_model = X.shape
    d_k = d_model // h

    Q = (X @ W_q).reshape(n, h, d_k).transpose(1, 0, 2)   # (h, n, d_k)
    K = (X @ W_k).reshape(n, h, d_k).transpose(1, 0, 2)
    V = (X @ W_v).reshape(n, h, d_k).transpose(1, 0, 2)

    scores = Q @ K.transpose(0, 2, 1)                      # (h, n, n)
    if scale:                                              # changed
        scores = scores / np.sqrt(d_k)
    if mask is not None:                                   # changed: blocked -> -inf
        scores = np.where(mask, scores, -np.inf)
    with np.errstate(invalid='ignore'):                    # changed
        weights = softmax(scores, axis=-1)
    # changed: a row with every key blocked is 0 / 0 = nan in NumPy; the page's
    # engine gives that row all-zero weights instead.
    weights = np.nan_to_num(weights, nan=0.0)
    heads = weights @ V                                    # (h, n, d_k)

    merged = heads.transpose(1, 0, 2).reshape(n, d_model)  # concat heads
    return merged @ W_o, weights
# ---------------------------------------------------------------------------`;

/** The script is offered up to this d_model (4 · 64² numbers, a couple of hundred kilobytes). */
export const SCRIPT_MAX_DMODEL = 64;

export interface ArticleSources {
  attention: string;
  multiHead: string;
}

function literal(name: string, m: Matrix, comment: string): string {
  const rows = Array.from(
    { length: m.rows },
    (_, r) => `    [${Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols), f32).join(', ')}],`,
  );
  return [`${name} = np.array([   # ${comment}`, ...rows, '])'].join('\n');
}

function pyString(text: string): string {
  return `'${text
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '')}'`;
}

/** Markers the script prints before each array (tests/browser/hands-on.test.ts reads them). */
export const SCRIPT_MARKERS = {
  weights: 'weights of head',
  headOutput: 'weights @ V of head',
  output: 'output = concat(heads) @ W_o',
} as const;

export function numpyScript(snapshot: Snapshot, sources: ArticleSources): string {
  const { pipeline: p, settings, tokens } = snapshot;
  const custom = isCustomMask(settings.mask);
  const masked = settings.causal || custom;
  const variant = masked || !settings.scale;
  const head = settings.head + 1;
  const lines: string[] = [];
  lines.push(
    "# The attention mechanism, worked out by hand: this page's numbers in NumPy.",
    `# ${p.n} tokens, d_model = ${p.dModel}, h = ${p.heads} heads of d_k = ${p.dK}, ` +
      `${snapshot.trained ? `the trained model's layer ${snapshot.trained.resolving.layer + 1} (its input and weights)` : `seed ${settings.seed}`}; ` +
      `${settings.scale ? 'scores divided by sqrt(d_k)' : 'no scaling'}; ${describeMask(settings.mask, settings.causal)}` +
      `${settings.edits ? '; with your edited numbers' : ''}.`,
    "# Every matrix below is the page's float32 value, written out in full. Run: python3 this_file.py",
    'import numpy as np',
    '',
    'np.set_printoptions(precision=2, suppress=True, linewidth=150)',
    '',
    "# The article's functions, exactly as printed there.",
    SOFTMAX_SOURCE,
    '',
    '',
    sources.attention,
    '',
    '',
    sources.multiHead,
    '',
    '',
  );
  if (variant) lines.push(MASKED_SOURCE, '', '');
  lines.push(
    `tokens = [${tokens.map((t) => pyString(t.toLowerCase())).join(', ')}]`,
    `h = ${p.heads}         # heads: d_k = d_model / h = ${p.dK}`,
    `head = ${head}      # the head the page's single-head figures show, counting from 1`,
    '',
    literal('X', p.X, `(n, d_model) = (${p.n}, ${p.dModel}): one row per token`),
    literal('W_q', p.W_q, '(d_model, d_model)'),
    literal('W_k', p.W_k, '(d_model, d_model)'),
    literal('W_v', p.W_v, '(d_model, d_model)'),
    literal('W_o', p.W_o, '(d_model, d_model)'),
  );
  if (masked) {
    const n = p.n;
    const rows = Array.from({ length: n }, (_, r) => `    [${Array.from(p.mask.data.subarray(r * n, (r + 1) * n)).join(', ')}],`);
    lines.push(
      `mask = np.array([   # 1 = query row may look at key column: ${describeMask(settings.mask, settings.causal)}`,
      ...rows,
      '], dtype=bool)',
    );
  }
  lines.push(
    '',
    variant
      ? `out, weights = multi_head_attention_masked(X, W_q, W_k, W_v, W_o, h, mask=${masked ? 'mask' : 'None'}, scale=${settings.scale ? 'True' : 'False'})`
      : 'out, weights = multi_head_attention(X, W_q, W_k, W_v, W_o, h=h)',
    'd_k = X.shape[1] // h',
    "cols = slice((head - 1) * d_k, head * d_k)            # this head's columns of V",
    'head_out = weights[head - 1] @ (X @ W_v)[:, cols]     # step 6: weights @ V for this head',
    '',
    `print('${SCRIPT_MARKERS.weights}', head, '(steps 5 and 6):')`,
    'print(weights[head - 1])',
    `print('${SCRIPT_MARKERS.headOutput}', head, '(step 6):')`,
    'print(head_out)',
    `print('${SCRIPT_MARKERS.output} (step 8):')`,
    'print(out)',
    '',
  );
  return lines.join('\n');
}
