// The long-context graphs onnxruntime-web runs in tests/bench/long-context.ts, built in the process
// like onnx-model.ts's attention graph (nothing downloaded).
//
// GroupQueryAttention (com.microsoft contrib op, ONNX Runtime's docs/ContribOperators.md), one batch:
//   query (1, S, heads d)   key, value (1, S, kvHeads d)     BSNH, each head's columns side by side
//   past_key, past_value    (1, kvHeads, P, d)               BNSH; absent for a prompt (P = 0)
//   seqlens_k               int32 (1): P + S - 1, the 0-based position of the last token
//   total_sequence_length   int32 scalar: P + S
//   attributes num_heads, kv_num_heads, local_window_size (-1: none; W: query i sees keys i - W + 1 .. i)
//   output (1, S, heads d); present_key/value (1, kvHeads, P + S, d), not read here
// It is causal: query i of the S new tokens sits at position P + i and sees keys up to it. Its CPU
// kernel wants head_size a multiple of 8 (d = 64 here).
//
// Linear attention as a plain graph (elu + 1 features; one head, (1, n, d)):
//   φQ = Elu(Q) + 1, φK = Elu(K) + 1
//   O  = (φQ (φKᵀ V)) / (φQ (Σ_j φK_j)ᵀ)        O(n d²), no (n, n) tensor
import { ATTR_INT, ATTR_INTS, encodeModel, FLOAT, INT32, INT64, SCALED_SCORE_NODES, tensorInfo, type GraphNode } from './onnx-model';

export interface GqaShape {
  heads: number;
  kvHeads: number;
  d: number;
  /** New tokens in this call. */
  sequence: number;
  /** Tokens already in the cache (0: a prompt, no past inputs). */
  past: number;
  /** Keys each query sees, its own included: GQA's local_window_size; -1 for no window. */
  localWindow: number;
}

export function buildGqaModel(s: GqaShape): Uint8Array {
  const past = s.past > 0;
  const node: GraphNode = {
    opType: 'GroupQueryAttention',
    domain: 'com.microsoft',
    name: 'gqa',
    input: ['query', 'key', 'value', past ? 'past_key' : '', past ? 'past_value' : '', 'seqlens_k', 'total_sequence_length'],
    output: ['output', 'present_key', 'present_value'],
    attribute: [
      { name: 'num_heads', type: ATTR_INT, i: s.heads },
      { name: 'kv_num_heads', type: ATTR_INT, i: s.kvHeads },
      { name: 'local_window_size', type: ATTR_INT, i: s.localWindow },
    ],
  };
  const inputs = [
    tensorInfo('query', [1, s.sequence, s.heads * s.d]),
    tensorInfo('key', [1, s.sequence, s.kvHeads * s.d]),
    tensorInfo('value', [1, s.sequence, s.kvHeads * s.d]),
  ];
  if (past) inputs.push(tensorInfo('past_key', [1, s.kvHeads, s.past, s.d]), tensorInfo('past_value', [1, s.kvHeads, s.past, s.d]));
  inputs.push(tensorInfo('seqlens_k', [1], INT32), tensorInfo('total_sequence_length', [], INT32));
  return encodeModel({
    name: 'group_query_attention',
    nodes: [node],
    inputs,
    outputs: [tensorInfo('output', [1, s.sequence, s.heads * s.d])],
    opsets: [{ domain: 'com.microsoft', version: 1 }],
  });
}

/** Attention of `queries` rows per head against `keys` rows, no mask: (heads, queries, d) x (heads, keys, d). */
export function buildDecodeAttentionModel(heads: number, queries: number, keys: number, d: number): Uint8Array {
  return encodeModel({
    name: 'decode_attention',
    nodes: [
      ...SCALED_SCORE_NODES,
      { opType: 'Softmax', input: ['S_scaled'], output: ['P'], name: 'softmax', attribute: [{ name: 'axis', type: ATTR_INT, i: -1 }] },
      { opType: 'MatMul', input: ['P', 'V'], output: ['O'], name: 'weighted_sum' },
    ],
    initializers: [{ name: 'scale', dataType: FLOAT, dims: [], floatData: [1 / Math.sqrt(d)] }],
    inputs: [tensorInfo('Q', [heads, queries, d]), tensorInfo('K', [heads, keys, d]), tensorInfo('V', [heads, keys, d])],
    outputs: [tensorInfo('O', [heads, queries, d])],
  });
}

/** Non-causal linear attention with φ = elu + 1 over (1, n, d) Q, K, V. */
export function buildLinearAttentionModel(n: number, d: number): Uint8Array {
  return encodeModel({
    name: 'linear_attention',
    nodes: [
      { opType: 'Elu', input: ['Q'], output: ['Q_elu'], name: 'elu_q' },
      { opType: 'Add', input: ['Q_elu', 'one'], output: ['Qf'], name: 'phi_q' },
      { opType: 'Elu', input: ['K'], output: ['K_elu'], name: 'elu_k' },
      { opType: 'Add', input: ['K_elu', 'one'], output: ['Kf'], name: 'phi_k' },
      {
        opType: 'Transpose',
        input: ['Kf'],
        output: ['Kft'],
        name: 'transpose_k',
        attribute: [{ name: 'perm', type: ATTR_INTS, ints: [0, 2, 1] }],
      },
      { opType: 'MatMul', input: ['Kft', 'V'], output: ['KV'], name: 'summary' }, // (1, d, d)
      { opType: 'MatMul', input: ['Qf', 'KV'], output: ['numerator'], name: 'numerator' }, // (1, n, d)
      { opType: 'ReduceSum', input: ['Kft', 'last_axis'], output: ['Ksum'], name: 'normaliser' }, // (1, d, 1)
      { opType: 'MatMul', input: ['Qf', 'Ksum'], output: ['denominator'], name: 'denominator' }, // (1, n, 1)
      { opType: 'Div', input: ['numerator', 'denominator'], output: ['O'], name: 'normalise' },
    ],
    initializers: [
      { name: 'one', dataType: FLOAT, dims: [], floatData: [1] },
      { name: 'last_axis', dataType: INT64, dims: [1], int64Data: [-1] },
    ],
    inputs: [tensorInfo('Q', [1, n, d]), tensorInfo('K', [1, n, d]), tensorInfo('V', [1, n, d])],
    outputs: [tensorInfo('O', [1, n, d])],
  });
}
