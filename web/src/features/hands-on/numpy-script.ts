// "Reproduce in NumPy": a short, self-contained Python script, our own, with this page's matrices
// written out at full float32 precision, which prints the weights and outputs the page shows. Its one
// function, attention_heads(), takes the mask and the scaling as arguments, so every setting of the page
// runs through the same lines; steps 6, 7 and 8 show those lines (ATTENTION_FUNCTION, CAUSAL_MASK_LINE).
import { f32 } from '../../ui/export-text';
import { describeMask, isCustomMask } from './hands-on-settings';
import type { Matrix } from '../../engine/types';
import { whoIsIt, type Snapshot } from '../../snapshot';

/**
 * Attention with any number of heads, a mask and optional scaling: the engine's pipeline in NumPy. W_q,
 * W_k and W_v are (d_model, heads · dₖ), so one head of the article's shape, (8, 4), runs as it is.
 */
export const ATTENTION_FUNCTION = `def attention_heads(X, W_q, W_k, W_v, W_o, heads, mask=None, scale=True):
    n = X.shape[0]
    Q, K, V = X @ W_q, X @ W_k, X @ W_v                 # (n, heads * d_k) each
    d_k = Q.shape[1] // heads

    def split(M):                                       # (n, heads * d_k) -> (heads, n, d_k)
        return M.reshape(n, heads, d_k).swapaxes(0, 1)

    scores = split(Q) @ split(K).swapaxes(1, 2)         # (heads, n, n): q_i . k_j
    if scale:
        scores = scores / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)        # a blocked pair gets weight 0
    top = scores.max(axis=-1, keepdims=True)
    top[np.isinf(top)] = 0.0                            # a row with every key blocked
    e = np.exp(scores - top)                            # subtracting the row's max keeps exp finite
    totals = e.sum(axis=-1, keepdims=True)
    weights = np.divide(e, totals, out=np.zeros_like(e), where=totals > 0)
    outputs = weights @ split(V)                        # (heads, n, d_k)
    merged = outputs.swapaxes(0, 1).reshape(n, heads * d_k)
    return merged @ W_o, weights, outputs`;

/** Lines of ATTENTION_FUNCTION that split the projections into heads and glue the heads back (step 8). */
export const HEAD_LINES: readonly number[] = [4, 6, 7, 9, 19, 20];

/** The causal mask as the script writes it (step 7): query i may read keys 1 to i. */
export const CAUSAL_MASK_LINE = 'mask = np.arange(n)[None, :] <= np.arange(n)[:, None]   # True on and below the diagonal';

/** The script is offered up to this d_model (4 · 64² numbers, a couple of hundred kilobytes). */
export const SCRIPT_MAX_DMODEL = 64;

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

export function numpyScript(snapshot: Snapshot): string {
  const { pipeline: p, settings, tokens } = snapshot;
  const custom = isCustomMask(settings.mask);
  const head = settings.head + 1;
  const example = settings.weights === 'example';
  const source = example
    ? 'the article’s four-token example (inputs chosen so that its printed numbers come out)'
    : whoIsIt(snapshot.trained)
      ? `the trained model's layer ${whoIsIt(snapshot.trained)!.resolving.layer + 1} (its input and weights)`
      : `seed ${settings.seed}`;
  const lines: string[] = [
    "# The attention mechanism, worked out by hand: this page's numbers in NumPy.",
    `# ${p.n} tokens, d_model = ${p.dModel}, ${p.heads} head${p.heads === 1 ? '' : 's'} of d_k = ${p.dK}, ${source}; ` +
      `${settings.scale ? 'scores divided by sqrt(d_k)' : 'no scaling'}; ${describeMask(settings.mask, settings.causal)}` +
      `${settings.edits ? '; with your edited numbers' : ''}.`,
    "# Every matrix below is the page's float32 value, written out in full. Run: python3 this_file.py",
    'import numpy as np',
    '',
    'np.set_printoptions(precision=2, suppress=True, linewidth=150)',
    '',
    '',
    ATTENTION_FUNCTION,
    '',
    '',
    `tokens = [${tokens.map((t) => pyString(t.toLowerCase())).join(', ')}]`,
    'n = len(tokens)',
    `heads = ${p.heads}`,
    `head = ${head}      # the head the page's single-head figures show, counting from 1`,
    '',
    literal('X', p.X, `(n, d_model) = (${p.n}, ${p.dModel}): one row per token`),
    literal('W_q', p.W_q, `(d_model, heads * d_k) = (${p.W_q.rows}, ${p.W_q.cols})`),
    literal('W_k', p.W_k, `(${p.W_k.rows}, ${p.W_k.cols})`),
    literal('W_v', p.W_v, `(${p.W_v.rows}, ${p.W_v.cols})`),
    literal(
      'W_o',
      p.W_o,
      p.heads === 1 && p.W_o.rows === p.dK ? 'one head: nothing to mix, the identity' : `(${p.W_o.rows}, ${p.W_o.cols})`,
    ),
  ];
  if (custom) {
    const n = p.n;
    const rows = Array.from({ length: n }, (_, r) => `    [${Array.from(p.mask.data.subarray(r * n, (r + 1) * n)).join(', ')}],`);
    lines.push(
      `mask = np.array([   # True = query row may look at key column: ${describeMask(settings.mask, settings.causal)}`,
      ...rows,
      '], dtype=bool)',
    );
  } else if (settings.causal) lines.push(CAUSAL_MASK_LINE);
  const mask = custom || settings.causal ? 'mask' : 'None';
  lines.push(
    '',
    `out, weights, outputs = attention_heads(X, W_q, W_k, W_v, W_o, heads, mask=${mask}, scale=${settings.scale ? 'True' : 'False'})`,
    '',
    `print('${SCRIPT_MARKERS.weights}', head, '(steps 5 and 6):')`,
    'print(weights[head - 1])',
    `print('${SCRIPT_MARKERS.headOutput}', head, '(step 6):')`,
    'print(outputs[head - 1])',
    `print('${SCRIPT_MARKERS.output} (step 8):')`,
    'print(out)',
    '',
  );
  return lines.join('\n');
}
