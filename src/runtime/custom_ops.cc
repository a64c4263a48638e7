#include "runtime/custom_ops.h"

#include <memory>
#include <string>
#include <vector>

#include "runtime/block_offsets.h"
#include "runtime/ort_bridge.h"
#include "runtime/paged_attention.h"

namespace hone::runtime {
namespace {

OrtStatusPtr Error(const std::string& message) {
  return Ort::GetApi().CreateStatus(ORT_INVALID_ARGUMENT, message.c_str());
}

struct PagedAttentionKernel {
  int64_t layer = 0;
  float scale = 1.0f;
  float rotary_theta = 10000.0f;

  OrtStatusPtr ComputeV2(OrtKernelContext* raw) const {
    try {
      Ort::KernelContext context(raw);
      auto qkv = context.GetInput(0), positions = context.GetInput(1), cache = context.GetInput(2),
           table = context.GetInput(3), past = context.GetInput(4);
      const std::vector<int64_t> x = qkv.GetTensorTypeAndShapeInfo().GetShape();
      const std::vector<int64_t> pos = positions.GetTensorTypeAndShapeInfo().GetShape();
      const std::vector<int64_t> c = cache.GetTensorTypeAndShapeInfo().GetShape();
      const std::vector<int64_t> t = table.GetTensorTypeAndShapeInfo().GetShape();
      const std::vector<int64_t> p = past.GetTensorTypeAndShapeInfo().GetShape();
      if (c.size() != 6 || c[2] != 2 || c[3] <= 0 || c[5] <= 0)
        return Error("PagedAttention: kv_cache must be [blocks, layers, 2, kv_heads, block_tokens, head_size]");
      if (x.size() != 3 || x[2] % c[5] != 0 || x[2] / c[5] <= 2 * c[3])
        return Error("PagedAttention: qkv must be [batch, sequence, (heads + 2 kv_heads) * head_size] for the "
                     "kv_cache's kv_heads and head_size");
      if (pos != std::vector<int64_t>{x[0], x[1]})
        return Error("PagedAttention: position_ids must be [batch, sequence], as qkv");
      if (t.size() != 2 || t[0] != x[0] || p.size() != 1 || p[0] != x[0])
        return Error("PagedAttention: block_table must be [batch, width] and past_lengths [batch]");
      PagedAttentionArgs a;
      a.batch = x[0];
      a.sequence = x[1];
      a.kv_heads = c[3];
      a.head_size = c[5];
      a.heads = x[2] / c[5] - 2 * c[3];
      a.blocks = c[0];
      a.layers = c[1];
      a.block_tokens = c[4];
      a.table_width = t[1];
      a.layer = layer;
      a.scale = scale;
      // Written in place: kv_cache (and kv_scales) are graph inputs backed by the caller's buffers (custom_ops.h).
      a.cache = const_cast<void*>(cache.GetTensorRawData());
      const ONNXTensorElementDataType element = cache.GetTensorTypeAndShapeInfo().GetElementType();
      if (element == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8) {
        a.element = KvElement::kInt8;
        auto scales = context.GetInputCount() > 5 ? context.GetInput(5) : Ort::ConstValue(nullptr);
        std::vector<int64_t> want = c;
        want[5] = c[5] / kKvGroup;
        if (!scales || scales.GetTensorTypeAndShapeInfo().GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 ||
            scales.GetTensorTypeAndShapeInfo().GetShape() != want)
          return Error("PagedAttention: an INT8 kv_cache needs kv_scales FP16 [blocks, layers, 2, kv_heads, "
                       "block_tokens, head_size / 32]");
        a.scales = const_cast<uint16_t*>(reinterpret_cast<const uint16_t*>(scales.GetTensorRawData()));
      } else if (element != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) {
        return Error("PagedAttention: kv_cache must be FP16 or INT8");
      }
      a.block_table = table.GetTensorData<int32_t>();
      a.past = past.GetTensorData<int32_t>();
      if (Status st = CheckPagedAttention(a); !st.ok()) return Error(st.message());
      // The rotated queries and keys go to a scratch copy: qkv is the projection's output, not ours to change.
      const float* in = qkv.GetTensorData<float>();
      thread_local std::vector<float> rotated;
      rotated.assign(in, in + a.batch * a.sequence * a.qkv_width());
      ApplyRotary(a, rotary_theta, positions.GetTensorData<int64_t>(), rotated.data());
      a.qkv = rotated.data();
      a.out = context.GetOutput(0, {a.batch, a.sequence, a.heads * a.head_size}).GetTensorMutableData<float>();
      WritePagedKv(a);
      // ONNX Runtime's intra-op pool (num_batch 0: its own split of the units over the threads).
      context.ParallelFor(
          [](void* args, size_t unit) { PagedAttentionUnit(*static_cast<PagedAttentionArgs*>(args), unit); },
          PagedAttentionUnits(a), 0, &a);
      return nullptr;
    } catch (const Ort::Exception& e) {
      return Ort::GetApi().CreateStatus(e.GetOrtErrorCode(), e.what());
    }
  }
};

struct PagedAttentionOp : Ort::CustomOpBase<PagedAttentionOp, PagedAttentionKernel, /*WithStatus=*/true> {
  OrtStatusPtr CreateKernelV2(const OrtApi&, const OrtKernelInfo* info, void** kernel) const {
    try {
      Ort::ConstKernelInfo ki(info);
      auto k = std::make_unique<PagedAttentionKernel>();
      k->layer = ki.GetAttribute<int64_t>("layer");
      k->scale = ki.GetAttribute<float>("scale");
      k->rotary_theta = ki.GetAttribute<float>("rotary_theta");
      *kernel = k.release();
      return nullptr;
    } catch (const Ort::Exception& e) {
      return Ort::GetApi().CreateStatus(
          e.GetOrtErrorCode(), (std::string("PagedAttention: attributes layer, scale, rotary_theta: ") + e.what()).c_str());
    }
  }
  const char* GetName() const { return "PagedAttention"; }
  const char* GetExecutionProviderType() const { return "CPUExecutionProvider"; }
  // qkv, position_ids, kv_cache (FP16 or INT8: checked when run), block_table, past_lengths, and kv_scales for an
  // INT8 cache.
  size_t GetInputTypeCount() const { return 6; }
  ONNXTensorElementDataType GetInputType(size_t index) const {
    switch (index) {
      case 0: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
      case 1: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
      case 2: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
      case 5: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
      default: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
    }
  }
  OrtCustomOpInputOutputCharacteristic GetInputCharacteristic(size_t index) const {
    return index == 5 ? INPUT_OUTPUT_OPTIONAL : INPUT_OUTPUT_REQUIRED;
  }
  size_t GetOutputTypeCount() const { return 1; }
  ONNXTensorElementDataType GetOutputType(size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; }
};

struct AddBlockOffsetsKernel {
  int64_t block_size = 32;

  OrtStatusPtr ComputeV2(OrtKernelContext* raw) const {
    try {
      Ort::KernelContext context(raw);
      auto y = context.GetInput(0), x = context.GetInput(1), offsets = context.GetInput(2);
      const std::vector<int64_t> ys = y.GetTensorTypeAndShapeInfo().GetShape();
      const std::vector<int64_t> xs = x.GetTensorTypeAndShapeInfo().GetShape();
      const std::vector<int64_t> os = offsets.GetTensorTypeAndShapeInfo().GetShape();
      if (ys.empty() || xs.empty() || os.size() != 2 || ys.back() != os[1] || block_size <= 0)
        return Error("AddBlockOffsets: y must be [..., N], x [..., K] and offsets [blocks, N]");
      const int64_t n = ys.back(), k = xs.back();
      const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(y.GetTensorTypeAndShapeInfo().GetElementCount()) / n;
      if (static_cast<int64_t>(x.GetTensorTypeAndShapeInfo().GetElementCount()) != rows * k ||
          os[0] != (k + block_size - 1) / block_size)
        return Error("AddBlockOffsets: x's rows or offsets' blocks do not match y's rows and x's K / block_size");
      struct Args {
        const float *y, *x, *offsets;
        int64_t k, n, block;
        float* out;
      } a{y.GetTensorData<float>(), x.GetTensorData<float>(), offsets.GetTensorData<float>(), k, n, block_size,
          context.GetOutput(0, ys).GetTensorMutableData<float>()};
      if (rows <= 1) {
        AddBlockOffsets(a.y, a.x, a.offsets, rows, k, n, block_size, a.out);
        return nullptr;
      }
      context.ParallelFor(
          [](void* p, size_t r) {
            const Args& a = *static_cast<const Args*>(p);
            const int64_t row = static_cast<int64_t>(r);
            AddBlockOffsets(a.y + row * a.n, a.x + row * a.k, a.offsets, 1, a.k, a.n, a.block, a.out + row * a.n);
          },
          static_cast<size_t>(rows), 0, &a);
      return nullptr;
    } catch (const Ort::Exception& e) {
      return Ort::GetApi().CreateStatus(e.GetOrtErrorCode(), e.what());
    }
  }
};

struct AddBlockOffsetsOp : Ort::CustomOpBase<AddBlockOffsetsOp, AddBlockOffsetsKernel, /*WithStatus=*/true> {
  OrtStatusPtr CreateKernelV2(const OrtApi&, const OrtKernelInfo* info, void** kernel) const {
    try {
      auto k = std::make_unique<AddBlockOffsetsKernel>();
      k->block_size = Ort::ConstKernelInfo(info).GetAttribute<int64_t>("block_size");
      *kernel = k.release();
      return nullptr;
    } catch (const Ort::Exception& e) {
      return Ort::GetApi().CreateStatus(e.GetOrtErrorCode(),
                                        (std::string("AddBlockOffsets: attribute block_size: ") + e.what()).c_str());
    }
  }
  const char* GetName() const { return "AddBlockOffsets"; }
  const char* GetExecutionProviderType() const { return "CPUExecutionProvider"; }
  size_t GetInputTypeCount() const { return 3; }
  ONNXTensorElementDataType GetInputType(size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; }
  size_t GetOutputTypeCount() const { return 1; }
  ONNXTensorElementDataType GetOutputType(size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; }
};

}  // namespace

OrtCustomOpDomain* HoneOpDomain() {
  // Never destroyed: sessions keep pointers to the domain and its operators until the process ends.
  static Ort::CustomOpDomain* domain = [] {
    static PagedAttentionOp paged_attention;
    static AddBlockOffsetsOp add_block_offsets;
    auto* d = new Ort::CustomOpDomain(kHoneOpDomain);
    d->Add(&paged_attention);
    d->Add(&add_block_offsets);
    return d;
  }();
  return *domain;
}

}  // namespace hone::runtime
