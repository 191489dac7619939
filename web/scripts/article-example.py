"""Reconstructs the article's worked example and writes web/src/article-example.ts.

The article prints numbers from a four-token, one-head example (d_model 8, d_k 4) but its code draws
X and the weights with np.random.randn, so the inputs behind the numbers are not given. This script
chooses inputs that reproduce every printed number:

  1. Q, K, V (4, 4) with one-decimal entries, picked so that the scores, the softmax rows, the
     causal matrix and the weighted sum round to what the article prints (searched on a grid,
     deterministic: fixed seed, fixed number of trials);
  2. X (4, 8) with one-decimal entries (seeded), and W_q, W_k, W_v (8, 4) with two-decimal entries
     such that X W_q = Q, X W_k = K, X W_v = V hold exactly in decimal arithmetic (an integer
     lattice solution: 10 X and 100 W are integer matrices whose product is 1000 Q), so a reader can
     check every product by hand.

Usage: /usr/bin/python3 web/scripts/article-example.py          (rewrites web/src/article-example.ts)
       /usr/bin/python3 web/scripts/article-example.py --check  (exit 1 if the file is out of date)
"""
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
import itertools
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / 'web' / 'src' / 'article-example.ts'

N_TOKENS, D_MODEL, D_K = 4, 8, 4
TOKENS = ['the', 'animal', 'was', 'tired']  # the article never names its four words

# ---- what the article prints ----------------------------------------------------------------------
Q1_PRINTED = (1.0, 0.5)          # q_1 . k_1 = 1.0(1.1) + 0.5(0.4) = 1.30
K1_PRINTED = (1.1, 0.4)
SCORE11_PRINTED = 1.30
WEIGHTS_ROW1_PRINTED = (0.31, 0.26, 0.25, 0.18)
V_COL1_PRINTED = (2.0, 0.5, 1.5, 0.0)
OUTPUT11_PRINTED = 1.13
CAUSAL_PRINTED = ((1.00, 0.00, 0.00, 0.00),
                  (0.51, 0.49, 0.00, 0.00),
                  (0.38, 0.22, 0.40, 0.00),
                  (0.24, 0.33, 0.20, 0.23))
SOFTMAX_SMALL = (1.0, 2.0, 3.0)
SOFTMAX_SMALL_PRINTED = (0.09, 0.24, 0.67)
SOFTMAX_LARGE_PRINTED = (0.00, 0.00, 1.00)  # softmax(8 x [1, 2, 3])
HALF_STEP = 0.005                           # two printed decimals: a value rounds right within +-0.005


def softmax_rows(scores):
    """Row-wise softmax, shifted by the row maximum so exp never overflows."""
    shifted = scores - scores.max(axis=-1, keepdims=True)
    exps = np.exp(shifted)
    return exps / exps.sum(axis=-1, keepdims=True)


def rounding_margin(values, printed):
    """How far (last axis) the values stay inside the intervals that round to `printed`; < 0: outside."""
    return np.min(HALF_STEP - np.abs(np.asarray(values) - np.asarray(printed)), axis=-1)


def printed_as(x, digits):
    """x as the article prints it: rounded half up (1.125 -> 1.13), not Python's half to even."""
    return str(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


# ---- step 1: row 1 of the scores ------------------------------------------------------------------
# q_1 = (1.0, 0.5, 0, 0): its last two components are zero, so the two printed terms are the whole
# dot product and row 1 of the scores is k_j1 + 0.5 k_j2, a multiple of 0.05 for one-decimal keys.
Q1 = np.array([1.0, 0.5, 0.0, 0.0])


def choose_row1_scores():
    """Scores (1.30, s2, s3, s4) on the 0.05 grid whose softmax(s / 2) and weighted sum with V's first
    column round to the printed row 1 and 1.13, with the widest margin."""
    grid = np.round(np.arange(-40, 41) * 0.05, 2)
    s2, s3, s4 = (a.ravel() for a in np.meshgrid(grid, grid, grid, indexing='ij'))
    scores = np.stack([np.full_like(s2, SCORE11_PRINTED), s2, s3, s4], axis=1)
    weights = softmax_rows(scores / math.sqrt(D_K))
    output = weights @ np.array(V_COL1_PRINTED)
    margin = np.minimum(rounding_margin(weights, WEIGHTS_ROW1_PRINTED), HALF_STEP - np.abs(output - OUTPUT11_PRINTED))
    best = int(np.argmax(margin))
    assert margin[best] > 0, 'no one-decimal keys reproduce row 1'
    return scores[best], float(margin[best])


# ---- step 2: the other keys and queries -----------------------------------------------------------
ONE_DECIMAL = np.round(np.arange(-12, 13) * 0.1, 1)             # entries in [-1.2, 1.2]
QUERY_GRID = np.array(list(itertools.product(ONE_DECIMAL, repeat=D_K)))  # (25^4, 4) candidate rows
ENOUGH_MARGIN = 0.003  # beyond this, a smaller query is preferred to a wider margin
ROW2_GAP = 0.1         # "Row 2 has its largest values in columns 1 and 2": by at least this much


def best_query(keys, row):
    """The query (one-decimal) whose causal softmax row `row` (0-based) rounds to the printed one:
    widest margin up to ENOUGH_MARGIN, then the smallest entries."""
    scores = QUERY_GRID @ keys.T                                   # (candidates, 4)
    visible = row + 1
    weights = softmax_rows(scores[:, :visible] / math.sqrt(D_K))
    margin = rounding_margin(weights, CAUSAL_PRINTED[row][:visible])
    if row == 1:
        gap = np.minimum(scores[:, 0], scores[:, 1]) - np.maximum(scores[:, 2], scores[:, 3])
        margin = np.where(gap >= ROW2_GAP, margin, -1.0)
    size = np.abs(QUERY_GRID).sum(axis=1)
    pick = int(np.argmax(np.minimum(margin, ENOUGH_MARGIN) - 1e-4 * size))
    return QUERY_GRID[pick], float(margin[pick])


def choose_queries_and_keys(row1_scores, trials=24, seed=19):
    """Keys 2-4 take the row-1 scores in their first two columns (k_j1 + 0.5 k_j2 = s_1j); every
    other key entry is drawn from the one-decimal grid; queries 2-4 are searched for each draw."""
    rng = np.random.default_rng(seed)
    firsts = []
    for j in range(1, N_TOKENS):
        target = row1_scores[j]
        firsts.append([(a, round((target - a) * 2, 1)) for a in ONE_DECIMAL if abs((target - a) * 2) <= 1.2 + 1e-9])
    best = None
    for _ in range(trials):
        K = np.zeros((N_TOKENS, D_K))
        K[0, :2] = K1_PRINTED
        for j in range(1, N_TOKENS):
            K[j, :2] = firsts[j - 1][rng.integers(len(firsts[j - 1]))]
        K[:, 2:] = rng.choice(ONE_DECIMAL[2:-2], size=(N_TOKENS, 2))   # [-1.0, 1.0]
        rows = [best_query(K, row) for row in range(1, N_TOKENS)]
        margin = min(m for _, m in rows)
        size = np.abs(K).sum() + sum(np.abs(q).sum() for q, _ in rows)
        rank = min(margin, ENOUGH_MARGIN) - 1e-4 * size
        if best is None or rank > best[0]:
            best = (rank, np.vstack([Q1] + [q for q, _ in rows]), K, margin)
    return best[1], best[2], best[3]


def choose_values(seed=8):
    V = np.zeros((N_TOKENS, D_K))
    V[:, 0] = V_COL1_PRINTED
    V[:, 1:] = np.random.default_rng(seed).choice(ONE_DECIMAL[2:-2], size=(N_TOKENS, D_K - 1))
    return V


# ---- step 3: X and exact two-decimal weights -------------------------------------------------------
def column_hermite(A):
    """Integer column operations: a unimodular U (list of lists of int) with A U = [H | 0], H lower
    triangular (rows of A must be independent)."""
    rows, cols = len(A), len(A[0])
    A = [list(r) for r in A]
    U = [[int(i == j) for j in range(cols)] for i in range(cols)]

    def combine(c1, c2, a, b, c, d):  # (col c1, col c2) <- (a c1 + b c2, c c1 + d c2)
        for M in (A, U):
            for r in M:
                r[c1], r[c2] = a * r[c1] + b * r[c2], c * r[c1] + d * r[c2]

    for r in range(rows):
        for c in range(r + 1, cols):
            x, y = A[r][r], A[r][c]
            if y == 0:
                continue
            g, s, t = extended_gcd(x, y)  # s x + t y = g
            combine(r, c, s, t, -y // g, x // g)  # determinant s x/g + t y/g = 1
        if A[r][r] < 0:
            for M in (A, U):
                for row in M:
                    row[r] = -row[r]
    return A, U


def extended_gcd(a, b):
    if b == 0:
        return (abs(a), 1 if a >= 0 else -1, 0)
    g, s, t = extended_gcd(b, a % b)
    return g, t, s - (a // b) * t


def lll(basis, delta=Fraction(3, 4)):
    """LLL reduction of integer column vectors (list of lists), exact arithmetic."""
    b = [list(v) for v in basis]
    dot = lambda u, v: sum(Fraction(x) * y for x, y in zip(u, v))

    def gram_schmidt():
        ortho, mu = [], [[Fraction(0)] * len(b) for _ in b]
        for i, v in enumerate(b):
            w = [Fraction(x) for x in v]
            for j in range(i):
                mu[i][j] = dot(v, ortho[j]) / dot(ortho[j], ortho[j])
                w = [wi - mu[i][j] * oj for wi, oj in zip(w, ortho[j])]
            ortho.append(w)
        return ortho, mu

    k = 1
    ortho, mu = gram_schmidt()
    while k < len(b):
        for j in range(k - 1, -1, -1):
            q = round(mu[k][j])
            if q:
                b[k] = [x - q * y for x, y in zip(b[k], b[j])]
                ortho, mu = gram_schmidt()
        if dot(ortho[k], ortho[k]) >= (delta - mu[k][k - 1] ** 2) * dot(ortho[k - 1], ortho[k - 1]):
            k += 1
        else:
            b[k], b[k - 1] = b[k - 1], b[k]
            ortho, mu = gram_schmidt()
            k = max(k - 1, 1)
    return b


def exact_weights(X_tenths, target_thousandths):
    """Integer W (hundredths) with X_tenths W = target_thousandths, as close as the lattice allows to
    the minimum-norm real solution. None if the columns of X_tenths do not generate Z^4."""
    H, U = column_hermite(X_tenths)
    if any(abs(H[r][r]) != 1 for r in range(len(H))):
        return None
    rows, cols = len(H), len(U)
    kernel = lll([[U[i][c] for i in range(cols)] for c in range(rows, cols)])  # column vectors
    K = np.array(kernel, dtype=float).T                                          # (8, 4)
    X = np.array(X_tenths, dtype=float)
    W = []
    for t in np.array(target_thousandths).T:
        y = []                                                  # H y = t, H lower triangular, diag +1
        for r in range(rows):
            y.append(int(t[r]) - sum(H[r][c] * y[c] for c in range(r)))
        w0 = np.array([sum(U[i][c] * y[c] for c in range(rows)) for i in range(cols)], dtype=float)
        ideal = np.linalg.pinv(X) @ t
        z0 = np.round(np.linalg.lstsq(K, ideal - w0, rcond=None)[0])
        # Babai's rounding, then the 3^4 neighbours of it: the smallest largest entry wins
        candidates = [w0 + K @ (z0 + np.array(step)) for step in itertools.product((-1, 0, 1), repeat=K.shape[1])]
        w = min(candidates, key=lambda v: (np.abs(v).max(), np.abs(v).sum()))
        assert np.array_equal(X @ w, t)
        W.append(w)
    return np.array(W, dtype=np.int64).T


def choose_embeddings_and_weights(Q, K, V, seed=4):
    """X with one-decimal entries (seeded normal draws, rounded) and W_* in hundredths, exact."""
    targets = np.rint(np.hstack([Q, K, V]) * 1000).astype(np.int64)  # (4, 12) thousandths
    rng = np.random.default_rng(seed)
    while True:
        X_tenths = np.clip(np.rint(rng.normal(0, 6, size=(N_TOKENS, D_MODEL))), -12, 12).astype(np.int64)
        W = exact_weights(X_tenths.tolist(), targets)
        if W is not None and np.abs(W).max() <= 150:
            return X_tenths / 10, W[:, :D_K] / 100, W[:, D_K:2 * D_K] / 100, W[:, 2 * D_K:] / 100


# ---- step 4: run the example (our own float64 reference), check, write --------------------------------
def forward(Q, K, V, causal):
    """One head of attention in float64 from the designed Q, K, V (X W_* equals them exactly: see
    exact_weights), so the values below carry no rounding error of the products."""
    scores = Q @ K.T
    scaled = scores / math.sqrt(D_K)
    if causal:
        scaled = np.where(np.tril(np.ones((N_TOKENS, N_TOKENS), dtype=bool)), scaled, -np.inf)
    weights = softmax_rows(scaled)
    return dict(Q=Q, K=K, V=V, scores=scores, weights=weights, output=weights @ V)


def build():
    row1_scores, row1_margin = choose_row1_scores()
    Q, K, row_margin = choose_queries_and_keys(row1_scores)
    V = choose_values()
    X, W_q, W_k, W_v = choose_embeddings_and_weights(Q, K, V)
    for W, M in ((W_q, Q), (W_k, K), (W_v, V)):  # float64 check of the exact integer identity
        assert np.allclose(X @ W, M, atol=1e-12)
    full, causal = forward(Q, K, V, False), forward(Q, K, V, True)

    small = softmax_rows(np.array(SOFTMAX_SMALL))
    large = softmax_rows(np.array(SOFTMAX_SMALL) * 8)
    numbers = []

    def add(id_, where, digits, value, printed, locate):
        numbers.append(dict(id=id_, where=where, printed=printed, digits=digits, value=round(float(value), 12) + 0.0, locate=locate))

    add('q1-1', 'Step 1, q_1 · k_1 = 1.0(1.1) + 0.5(0.4): the first factor', 1, full['Q'][0, 0], '1.0', dict(tensor='Q_heads', row=0, col=0))
    add('q1-2', 'Step 1, q_1 · k_1 = 1.0(1.1) + 0.5(0.4): the third factor', 1, full['Q'][0, 1], '0.5', dict(tensor='Q_heads', row=0, col=1))
    add('k1-1', 'Step 1, q_1 · k_1 = 1.0(1.1) + 0.5(0.4): the second factor', 1, full['K'][0, 0], '1.1', dict(tensor='K_heads', row=0, col=0))
    add('k1-2', 'Step 1, q_1 · k_1 = 1.0(1.1) + 0.5(0.4): the fourth factor', 1, full['K'][0, 1], '0.4', dict(tensor='K_heads', row=0, col=1))
    add('score-11', 'Step 1, the highlighted cell q_1 · k_1 = 1.30', 2, full['scores'][0, 0], '1.30', dict(tensor='scores', row=0, col=0))
    for j, (printed, word) in enumerate(zip(WEIGHTS_ROW1_PRINTED, ('itself', 'token 2', 'token 3', 'token 4'))):
        add(f'weight-1{j + 1}', f'Steps 3 and 4, row 1 of the attention weights (token 1 draws {round(printed * 100)}% from {word})', 2,
            full['weights'][0, j], f'{printed:.2f}', dict(tensor='weights', row=0, col=j))
    for j, printed in enumerate(V_COL1_PRINTED):
        add(f'v{j + 1}-1', f'Step 4, the value factor ({printed:.1f}) of term {j + 1} of output row 1', 1, full['V'][j, 0], f'{printed:.1f}',
            dict(tensor='V_heads', row=j, col=0))
    add('output-11', 'Step 4, output row 1 = 0.31(2.0) + 0.26(0.5) + 0.25(1.5) + 0.18(0.0) = 1.13', 2, full['output'][0, 0], '1.13',
        dict(tensor='headOutputs', row=0, col=0))
    for i in range(N_TOKENS):
        for j in range(N_TOKENS):
            add(f'causal-{i + 1}{j + 1}', f'Causal masking, print(w.round(2)) row {i + 1}', 2, causal['weights'][i, j], f'{CAUSAL_PRINTED[i][j]:.2f}',
                dict(tensor='weightsCausal', row=i, col=j))
    for j in range(3):
        add(f'softmax-small-{j + 1}', 'Step 2, print(softmax(small)) with small = [1, 2, 3]', 2, small[j], f'{SOFTMAX_SMALL_PRINTED[j]:.2f}',
            dict(softmax=list(SOFTMAX_SMALL), index=j))
    for j in range(3):
        add(f'softmax-large-{j + 1}', 'Step 2, print(softmax(large)) with large = small * 8', 2, large[j], f'{SOFTMAX_LARGE_PRINTED[j]:.2f}',
            dict(softmax=[8 * s for s in SOFTMAX_SMALL], index=j))
    for n in numbers:
        assert printed_as(n['value'], n['digits']) == n['printed'], (n['id'], n['value'], n['printed'])

    # Facts the article states in words, checked here and in the test.
    s = full['scores']
    assert min(s[1, 0], s[1, 1]) - max(s[1, 2], s[1, 3]) >= ROW2_GAP  # "Row 2 ... largest values in columns 1 and 2"
    assert np.allclose(full['weights'][3], causal['weights'][3])       # the last row sees everything

    printed_sum = sum(w * v for w, v in zip(WEIGHTS_ROW1_PRINTED, V_COL1_PRINTED))
    w1 = full['weights'][0]
    deviations = [
        dict(what='The inputs',
             article='X = np.random.randn(4, 8), W_q, W_k, W_v = np.random.randn(8, 4): random, never printed',
             reconstructed='X (one decimal) and W_q, W_k, W_v (two decimals) chosen by web/scripts/article-example.py so that '
                           'the printed numbers come out; Q, K, V have one-decimal entries',
             difference='not the article\'s (unknown) draws: the page should say these inputs were chosen to match the article'),
        dict(what='Output row 1, first entry (step 4)',
             article='0.31(2.0) + 0.26(0.5) + 0.25(1.5) + 0.18(0.0) = 1.13',
             reconstructed=f'{full["output"][0, 0]:.4f} from the unrounded weights ' + ', '.join(f'{w:.4f}' for w in w1),
             difference=f'the printed terms add up to {printed_sum:.3f}, which the article rounds half up to 1.13; the exact sum '
                        f'differs from 1.13 by {abs(full["output"][0, 0] - OUTPUT11_PRINTED):.4f} and from the printed terms\' '
                        f'{printed_sum:.3f} by {abs(full["output"][0, 0] - printed_sum):.4f}'),
        dict(what='Row 1 of the attention weights (steps 3 and 4)',
             article='0.31 / 0.26 / 0.25 / 0.18',
             reconstructed=' / '.join(f'{w:.4f}' for w in w1),
             difference='each within ' + f'{np.max(np.abs(w1 - np.array(WEIGHTS_ROW1_PRINTED))):.4f}' + ' of the printed value (rounding only)'),
        dict(what='The causal weights (masking)',
             article='[[1 0 0 0] [0.51 0.49 0 0] [0.38 0.22 0.40 0] [0.24 0.33 0.20 0.23]]',
             reconstructed='; '.join(' '.join(f'{w:.4f}' for w in row[:i + 1]) for i, row in enumerate(causal['weights'])),
             difference=f'each within {np.max(np.abs(causal["weights"] - np.array(CAUSAL_PRINTED))):.4f} of the printed value (rounding only)'),
        dict(what='q_1 · k_1 has four terms, the article prints two',
             article='1.0(1.1) + 0.5(0.4) = 1.30',
             reconstructed='q_1 = (1.0, 0.5, 0.0, 0.0): the third and fourth terms are zero, so the printed terms are the whole dot product',
             difference='none in value; k_1 = (' + ', '.join(f'{x:.1f}' for x in K[0]) + ') has two components the article does not show'),
        dict(what='The engine has no (d_model, d_k) projection with one head',
             article='one head, W_q of shape (8, 4), d_k = 4',
             reconstructed='engine run with d_model 8 and 2 heads: head 1 is the article\'s head (W_* columns 1-4), head 2 has '
                           'all-zero weights (uniform 0.25 attention, zero output), W_o = identity',
             difference='none in any printed number; the engine\'s output columns 5-8 and its head 2 are padding, not the article\'s'),
        dict(what='The four tokens',
             article='"a four-word sentence" (its words are never named; the masking paragraph speaks of positions 4 and 5)',
             reconstructed=' '.join(TOKENS),
             difference='labels only: X is given, so the words do not change any number'),
    ]
    margins = dict(row1=row1_margin, causalRows=row_margin)
    return dict(X=X, W_q=W_q, W_k=W_k, W_v=W_v, Q=Q, K=K, V=V, full=full, causal=causal,
                numbers=numbers, deviations=deviations, margins=margins)


def ts_matrix(M, digits):
    rows = ',\n'.join('    ' + ', '.join(f'{x:.{digits}f}'.rstrip('0').rstrip('.') if x != 0 else '0' for x in row) for row in M)
    return f'{{\n  rows: {M.shape[0]},\n  cols: {M.shape[1]},\n  data: [\n{rows},\n  ],\n}}'


def ts_object(obj):
    """A flat dict as a TypeScript object literal: { tensor: 'scores', row: 0, col: 0 }."""
    return '{ ' + ', '.join(f'{k}: {json.dumps(v)}' for k, v in obj.items()) + ' }'


def render(r):
    js = lambda x: json.dumps(x, ensure_ascii=False)
    numbers = ',\n'.join(
        f'  {{ id: {js(n["id"])}, where: {js(n["where"])}, printed: {js(n["printed"])}, digits: {n["digits"]}, '
        f'value: {n["value"]!r}, locate: {ts_object(n["locate"])} }}'
        for n in r['numbers'])
    deviations = ',\n'.join(
        '  {\n' + ''.join(f'    {k}: {js(v)},\n' for k, v in d.items()) + '  }' for d in r['deviations'])
    return f'''// GENERATED by web/scripts/article-example.py — edit the script and rerun it, not this file.
//
// The article's worked example, reconstructed: four tokens, d_model 8, one head with d_k 4. The
// article's code draws X and the weights at random and never prints them; these inputs were chosen so
// that every number it does print comes out where it prints it (see ARTICLE_NUMBERS), with what could
// not hold exactly in ARTICLE_DEVIATIONS. X has one-decimal entries and W_q, W_k, W_v two-decimal
// ones, and X W_* = Q, K, V hold exactly in decimal arithmetic, so each product can be checked by hand.
import type {{ PipelineConfig }} from './engine/types';

/** A row-major matrix of plain numbers: data[r * cols + c]. */
export interface ExampleMatrix {{
  readonly rows: number;
  readonly cols: number;
  readonly data: readonly number[];
}}

/** Where a printed number is read from: a (row, col) of head 1 of an engine snapshot's tensor, or one
 * entry of the softmax of a given score vector (the article's step 2 example, not the four tokens). */
export type NumberLocation =
  | {{ readonly tensor: 'Q_heads' | 'K_heads' | 'V_heads' | 'scores' | 'weights' | 'headOutputs' | 'weightsCausal'; readonly row: number; readonly col: number }}
  | {{ readonly softmax: readonly number[]; readonly index: number }};

export interface ArticleNumber {{
  readonly id: string;
  /** Where the article prints it. */
  readonly where: string;
  /** As the article prints it. */
  readonly printed: string;
  /** Decimals the article rounds it to (half up). */
  readonly digits: number;
  /** The exact value for these inputs (float64 reference; the engine's float32 agrees to ~1e-6). */
  readonly value: number;
  readonly locate: NumberLocation;
}}

export interface Deviation {{
  readonly what: string;
  readonly article: string;
  readonly reconstructed: string;
  readonly difference: string;
}}

export const EXAMPLE_TOKENS: readonly string[] = {js(TOKENS)};
export const EXAMPLE_D_MODEL = {D_MODEL};
export const EXAMPLE_D_K = {D_K};

/** (4, 8) token embeddings. */
export const EXAMPLE_X: ExampleMatrix = {ts_matrix(r['X'], 1)};

/** (8, 4) projections, as the article shapes them. */
export const EXAMPLE_W_Q: ExampleMatrix = {ts_matrix(r['W_q'], 2)};
export const EXAMPLE_W_K: ExampleMatrix = {ts_matrix(r['W_k'], 2)};
export const EXAMPLE_W_V: ExampleMatrix = {ts_matrix(r['W_v'], 2)};

/** (4, 4) X W_q, X W_k, X W_v: exact in decimal arithmetic. */
export const EXAMPLE_Q: ExampleMatrix = {ts_matrix(r['Q'], 1)};
export const EXAMPLE_K: ExampleMatrix = {ts_matrix(r['K'], 1)};
export const EXAMPLE_V: ExampleMatrix = {ts_matrix(r['V'], 1)};

/** Every number the article prints for its example, with where it prints it and how to find it. */
export const ARTICLE_NUMBERS: readonly ArticleNumber[] = [
{numbers},
];

/** What differs from the article, and by how much. */
export const ARTICLE_DEVIATIONS: readonly Deviation[] = [
{deviations},
];

/**
 * The engine's pipeline has (d_model, d_model) projections whose columns the heads split, so a single
 * head of d_k 4 on d_model 8 is head 1 of 2: the article's (8, 4) W_* fill columns 1-4, columns 5-8
 * (head 2) are zero and W_o is the identity. Head 1's Q_heads, K_heads, V_heads, scores, weights and
 * headOutputs are then exactly the article's one-head quantities.
 */
export function examplePipelineConfig(options: {{ causal?: boolean }} = {{}}): PipelineConfig {{
  const widen = (W: ExampleMatrix): Float32Array => {{
    const out = new Float32Array(EXAMPLE_D_MODEL * EXAMPLE_D_MODEL);
    for (let r = 0; r < W.rows; r++) for (let c = 0; c < W.cols; c++) out[r * EXAMPLE_D_MODEL + c] = W.data[r * W.cols + c]!;
    return out;
  }};
  const identity = new Float32Array(EXAMPLE_D_MODEL * EXAMPLE_D_MODEL);
  for (let i = 0; i < EXAMPLE_D_MODEL; i++) identity[i * EXAMPLE_D_MODEL + i] = 1;
  return {{
    tokens: [...EXAMPLE_TOKENS],
    dModel: EXAMPLE_D_MODEL,
    heads: EXAMPLE_D_MODEL / EXAMPLE_D_K,
    causal: options.causal ?? false,
    scale: true,
    X: Float32Array.from(EXAMPLE_X.data),
    W_q: widen(EXAMPLE_W_Q),
    W_k: widen(EXAMPLE_W_K),
    W_v: widen(EXAMPLE_W_V),
    W_o: identity,
    comparisonHead: 0,
  }};
}}
'''


def main():
    result = build()
    text = render(result)
    print('row-1 margin', result['margins'], file=sys.stderr)
    if '--check' in sys.argv:
        if OUT.read_text() != text:
            print(f'{OUT} is out of date: rerun {Path(__file__).name}', file=sys.stderr)
            sys.exit(1)
        return
    OUT.write_text(text)
    print(f'wrote {OUT}', file=sys.stderr)


if __name__ == '__main__':
    main()
