// Checks the claim in scheduler_batch.h and scheduler_request.h: in steady state, queueing a request and
// assembling a batch allocate nothing per request. Counts global operator new calls made by this thread while
// `counting` is set (the replacement below is otherwise a plain malloc/free).
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

#include "serve/core/scheduler_batch.h"
#include "serve/core/scheduler_test_util.h"
#include "serve/core/scheduler_validate.h"

namespace {
thread_local bool counting = false;
thread_local size_t allocations = 0;
}  // namespace

// Not inlined: GCC 12 would otherwise see free() meet a pointer from `new` and warn (-Wmismatched-new-delete),
// although the replacement new below is malloc.
__attribute__((noinline)) void* operator new(std::size_t n) {
  if (counting) ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// The nothrow forms too (protobuf uses them): left to the sanitizer's allocator, their memory would reach the
// free() below and AddressSanitizer would report a new/free mismatch.
__attribute__((noinline)) void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (counting) ++allocations;
  return std::malloc(n == 0 ? 1 : n);
}
__attribute__((noinline)) void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace hone::serve {
namespace {

// Allocations made by fn() on this thread.
template <typename F>
size_t AllocationsIn(F&& fn) {
  allocations = 0;
  counting = true;
  fn();
  counting = false;
  return allocations;
}

// `n` validated affine requests of `rows` rows each.
PendingList Batch(const runtime::ModelMetadata& model, int n, int64_t rows) {
  PendingList batch;
  for (int i = 0; i < n; ++i) {
    batch.emplace_back();
    batch.back().request = test::AffineRequest(rows, static_cast<float>(i * 100));
    batch.back().rows = *ValidateRequest(model, 64, batch.back().request);
  }
  return batch;
}

TEST(SchedulerAllocationTest, AssemblyAllocatesPerBatchNotPerRequest) {
  auto session = std::move(test::OpenInstances("affine").front());
  BatchAssembler assembler(session->metadata());
  PendingList small = Batch(session->metadata(), 4, 2), large = Batch(session->metadata(), 32, 2);
  ASSERT_TRUE(assembler.Assemble(large, 64).ok());  // grows the pool to its high-water mark
  const size_t pooled = assembler.pooled_bytes();
  assembler.Release();

  // One allocation per model input per batch (the batch tensor's shape), whatever the number of requests.
  EXPECT_EQ(AllocationsIn([&] { ASSERT_TRUE(assembler.Assemble(small, 8).ok()); }), 1u);
  EXPECT_EQ(AllocationsIn([&] { ASSERT_TRUE(assembler.Assemble(large, 64).ok()); }), 1u);
  EXPECT_EQ(assembler.pooled_bytes(), pooled);  // reused, not reallocated

  auto inputs = assembler.Assemble(large, 64);
  ASSERT_TRUE(inputs.ok());
  EXPECT_EQ((*inputs)[0].values<float>()[8 * 31], 3100.0f);  // request 31's first value, in its rows
  assembler.Release();

  // A lone request runs on its own tensor: nothing copied, nothing allocated.
  PendingList lone = Batch(session->metadata(), 1, 3);
  ASSERT_TRUE(assembler.Assemble(lone, 3).ok());
  assembler.Release();
  EXPECT_EQ(AllocationsIn([&] {
              auto view = assembler.Assemble(lone, 3);
              ASSERT_TRUE(view.ok());
              EXPECT_EQ((*view)[0].data(), lone.front().request.inputs[0].tensor.data());
              assembler.Release();
            }),
            0u);
}

TEST(SchedulerAllocationTest, EnqueueAllocatesNothingOnceThePoolHasGrown) {
  test::Harness h(test::Options("affine", 1), "affine", 1, /*hold=*/1);
  ASSERT_NE(h.scheduler, nullptr);
  // Grows the node pool to five: one held running, four queued behind it.
  for (int i = 0; i < 5; ++i) {
    h.Send(test::AffineRequest(1, 0), test::Key("warm-up-", i));
    if (i == 0) {
      ASSERT_TRUE(h.gate.WaitEntered(1));
    }
  }
  h.gate.Open();
  ASSERT_TRUE(h.out.WaitFor(5));
  for (int i = 1; i <= 20; ++i) {
    InferenceRequest request = test::AffineRequest(1, static_cast<float>(i));
    ResponseCallback done = h.out.Callback(test::Key("r", i));
    EXPECT_EQ(AllocationsIn([&] { h.scheduler->Enqueue(std::move(request), std::move(done)); }), 0u)
        << "request " << i;
    // One in flight at a time; a node or two may still be on their way back to the pool, which holds five.
    ASSERT_TRUE(h.out.WaitFor(static_cast<size_t>(i) + 5));
  }
  EXPECT_TRUE(test::IsAffineAnswer(h.out.Get("r20").result, 1, 20));
}

}  // namespace
}  // namespace hone::serve
