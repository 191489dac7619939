// The attention graph as an ONNX model, built here with protobufjs from a hand-written subset of
// onnx.proto (only the messages and fields this graph uses; field numbers as in onnx/onnx.proto).
// Nothing is downloaded: the bytes are made in the benchmark process and handed to onnxruntime-web.
//
//   inputs  Q, K, V: (h, n, d) float32            [mask: (n, n) float32, 0 or -inf, added to the scores]
//   Kt      = Transpose(K, perm = [0, 2, 1])
//   S       = MatMul(Q, Kt)                         (h, n, n)
//   S_s     = Mul(S, 1/sqrt(d))
//   [S_m    = Add(S_s, mask)]                       causal: the additive mask the plain graph can express
//   P       = Softmax(S_s or S_m, axis = -1)        opset 13: softmax over the last axis only
//   O       = MatMul(P, V)                          (h, n, d)
import protobuf from 'protobufjs';

const SCHEMA = `
syntax = "proto2";
package onnx;
message AttributeProto {
  enum AttributeType { UNDEFINED = 0; FLOAT = 1; INT = 2; STRING = 3; TENSOR = 4; GRAPH = 5; FLOATS = 6; INTS = 7; }
  optional string name = 1;
  optional float f = 2;
  optional int64 i = 3;
  repeated int64 ints = 8;
  optional AttributeType type = 20;
}
message ValueInfoProto {
  optional string name = 1;
  optional TypeProto type = 2;
}
message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  optional string name = 3;
  optional string op_type = 4;
  repeated AttributeProto attribute = 5;
  optional string domain = 7;
}
message ModelProto {
  optional int64 ir_version = 1;
  optional string producer_name = 2;
  optional GraphProto graph = 7;
  repeated OperatorSetIdProto opset_import = 8;
}
message GraphProto {
  repeated NodeProto node = 1;
  optional string name = 2;
  repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
}
message TensorProto {
  repeated int64 dims = 1;
  optional int32 data_type = 2;
  repeated float float_data = 4 [packed = true];
  repeated int32 int32_data = 5 [packed = true];
  repeated int64 int64_data = 7 [packed = true];
  optional string name = 8;
}
message TensorShapeProto {
  message Dimension {
    oneof value {
      int64 dim_value = 1;
      string dim_param = 2;
    }
  }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor {
    optional int32 elem_type = 1;
    optional TensorShapeProto shape = 2;
  }
  oneof value {
    Tensor tensor_type = 1;
  }
}
message OperatorSetIdProto {
  optional string domain = 1;
  optional int64 version = 2;
}
`;

export const FLOAT = 1; // TensorProto.DataType.FLOAT
export const INT32 = 6;
export const INT64 = 7;
export const ATTR_INT = 2;
export const ATTR_INTS = 7;

let modelType: protobuf.Type | null = null;

export function tensorInfo(name: string, dims: number[], elemType = FLOAT) {
  return { name, type: { tensorType: { elemType, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } };
}

/** A node of the graph, as protobufjs's ModelProto.fromObject reads it (camelCase field names). */
export interface GraphNode {
  opType: string;
  input: string[];
  output: string[];
  name: string;
  domain?: string;
  attribute?: { name: string; type: number; i?: number; ints?: number[] }[];
}

export interface GraphSpec {
  name: string;
  nodes: GraphNode[];
  inputs: ReturnType<typeof tensorInfo>[];
  outputs: ReturnType<typeof tensorInfo>[];
  initializers?: { name: string; dataType: number; dims: number[]; floatData?: number[]; int64Data?: number[] }[];
  /** Extra operator sets besides the default domain's opset 13 (e.g. com.microsoft for contrib ops). */
  opsets?: { domain: string; version: number }[];
}

/** Serialized ModelProto of a graph. */
export function encodeModel(spec: GraphSpec): Uint8Array {
  modelType ??= protobuf.parse(SCHEMA, { keepCase: false }).root.lookupType('onnx.ModelProto');
  const model = {
    irVersion: 8,
    producerName: 'attention-by-hand bench',
    opsetImport: [{ domain: '', version: 13 }, ...(spec.opsets ?? [])],
    graph: { name: spec.name, node: spec.nodes, initializer: spec.initializers ?? [], input: spec.inputs, output: spec.outputs },
  };
  return modelType.encode(modelType.fromObject(model)).finish();
}

/** Q K^T times the initializer `scale`, into S_scaled: the start of every attention graph here. */
export const SCALED_SCORE_NODES: readonly GraphNode[] = [
  {
    opType: 'Transpose',
    input: ['K'],
    output: ['Kt'],
    name: 'transpose_k',
    attribute: [{ name: 'perm', type: ATTR_INTS, ints: [0, 2, 1] }],
  },
  { opType: 'MatMul', input: ['Q', 'Kt'], output: ['S'], name: 'scores' },
  { opType: 'Mul', input: ['S', 'scale'], output: ['S_scaled'], name: 'scale' },
];

/** Serialized ModelProto for attention over (heads, n, d) inputs; with `causal`, a fourth input `mask` (n, n). */
export function buildAttentionModel(heads: number, n: number, d: number, causal: boolean): Uint8Array {
  const scaled = 'S_scaled';
  const nodes: GraphNode[] = [
    ...SCALED_SCORE_NODES,
    ...(causal ? [{ opType: 'Add', input: [scaled, 'mask'], output: ['S_masked'], name: 'mask' }] : []),
    {
      opType: 'Softmax',
      input: [causal ? 'S_masked' : scaled],
      output: ['P'],
      name: 'softmax',
      attribute: [{ name: 'axis', type: ATTR_INT, i: -1 }],
    },
    { opType: 'MatMul', input: ['P', 'V'], output: ['O'], name: 'weighted_sum' },
  ];
  const inputs = [tensorInfo('Q', [heads, n, d]), tensorInfo('K', [heads, n, d]), tensorInfo('V', [heads, n, d])];
  if (causal) inputs.push(tensorInfo('mask', [n, n]));
  return encodeModel({
    name: 'attention',
    nodes,
    initializers: [{ name: 'scale', dataType: FLOAT, dims: [], floatData: [1 / Math.sqrt(d)] }],
    inputs,
    outputs: [tensorInfo('O', [heads, n, d])],
  });
}

/** The additive causal mask: 0 where key j <= query i, -inf above the diagonal. */
export function additiveCausalMask(n: number): Float32Array {
  const mask = new Float32Array(n * n);
  for (let i = 0; i < n; ++i) for (let j = i + 1; j < n; ++j) mask[i * n + j] = -Infinity;
  return mask;
}
