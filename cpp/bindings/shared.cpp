// What both wasm modules bind (CMakeLists.txt links this file into the core engine and into the
// later one, each a separate instance with its own memory): the boundary shapes every other binding
// file passes (common.h's JsMatrix and JsTensor3), and the memory each instance uses.
//
//   heapStats()  -> { allocatedBytes, memoryBytes }   this instance's, not the other module's
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include "bindings/common.h"

namespace abh::bindings {
namespace {

struct HeapStatsJs {
  double allocatedBytes = 0, memoryBytes = 0;
};

// Bytes that malloc currently has handed out, and the size of the wasm memory: the leak tests
// assert that thousands of calls leave both where they started.
HeapStatsJs heap_stats() {
  const struct mallinfo info = mallinfo();
  return {double(info.uordblks), double(emscripten_get_heap_size())};
}

}  // namespace
}  // namespace abh::bindings

EMSCRIPTEN_BINDINGS(shared_types) {
  using emscripten::value_object;
  using namespace abh::bindings;
  value_object<JsMatrix>("Matrix")
      .field("rows", &JsMatrix::rows)
      .field("cols", &JsMatrix::cols)
      .field("data", &JsMatrix::data);
  value_object<JsTensor3>("Tensor3")
      .field("heads", &JsTensor3::heads)
      .field("rows", &JsTensor3::rows)
      .field("cols", &JsTensor3::cols)
      .field("data", &JsTensor3::data);
  value_object<HeapStatsJs>("HeapStats")
      .field("allocatedBytes", &HeapStatsJs::allocatedBytes)
      .field("memoryBytes", &HeapStatsJs::memoryBytes);
  emscripten::function("heapStats", &heap_stats);
}
