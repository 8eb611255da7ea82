#include "result_memory_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace xffi::python {
namespace {

// What a block's header records (the rest of the header is padding).
struct Header {
  size_t capacity;  // data bytes the block has room for
};

constexpr size_t kAlignment = 64;
constexpr size_t kPage = 4096;
// NumPy asks the kernel for transparent huge pages on arrays from 4 MB up
// (fewer page faults and TLB misses); pooled blocks ask the same.
constexpr size_t kHugePageAdviceBytes = size_t{4} << 20;
// Enough for a few calls' worth of large results; what lies above it is
// handed back to malloc, oldest first.
constexpr size_t kDefaultCacheLimitBytes = size_t{256} << 20;

Header* HeaderOf(void* data) {
  return reinterpret_cast<Header*>(static_cast<char*>(data) -
                                   ResultMemoryPool::kHeaderBytes);
}

void* DataOf(void* base) {
  return static_cast<char*>(base) + ResultMemoryPool::kHeaderBytes;
}

void* NewBlock(size_t capacity) {
  const size_t total = ResultMemoryPool::kHeaderBytes + capacity;
  void* base = std::aligned_alloc(
      kAlignment, (total + kAlignment - 1) / kAlignment * kAlignment);
  if (base == nullptr) return nullptr;
  reinterpret_cast<Header*>(base)->capacity = capacity;
#ifdef MADV_HUGEPAGE
  if (capacity >= kHugePageAdviceBytes) {
    const uintptr_t begin =
        (reinterpret_cast<uintptr_t>(base) + kPage - 1) / kPage * kPage;
    const uintptr_t end =
        (reinterpret_cast<uintptr_t>(base) + total) / kPage * kPage;
    // Advice only: a kernel without huge pages refuses it, which is fine.
    if (end > begin)
      madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
#endif
  return base;
}

}  // namespace

ResultMemoryPool::ResultMemoryPool(size_t cache_limit_bytes)
    : cache_limit_bytes_(cache_limit_bytes) {}

ResultMemoryPool::~ResultMemoryPool() {
  for (const Cached& block : cached_) std::free(block.base);
}

ResultMemoryPool& ResultMemoryPool::Global() {
  // Never destroyed: arrays freed during interpreter teardown, after static
  // destructors may have run, still return their blocks here.
  static ResultMemoryPool* pool = new ResultMemoryPool(kDefaultCacheLimitBytes);
  return *pool;
}

size_t ResultMemoryPool::Capacity(size_t bytes) {
  if (bytes == 0) return 1;
  // Pooled sizes are rounded to whole pages so that results whose sizes
  // differ by a few bytes share blocks.
  if (bytes >= kMinPooledBytes) return (bytes + kPage - 1) / kPage * kPage;
  return bytes;
}

void* ResultMemoryPool::Allocate(size_t bytes) {
  const size_t capacity = Capacity(bytes);
  if (capacity >= kMinPooledBytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    // The most recently freed block first: its pages are the likeliest to
    // be in cache.
    for (size_t i = cached_.size(); i-- > 0;) {
      if (cached_[i].capacity != capacity) continue;
      void* base = cached_[i].base;
      cached_.erase(cached_.begin() + static_cast<std::ptrdiff_t>(i));
      cached_bytes_ -= capacity;
      ++reused_;
      return DataOf(base);
    }
    ++allocated_;
  }
  void* base = NewBlock(capacity);
  return base == nullptr ? nullptr : DataOf(base);
}

void ResultMemoryPool::Free(void* data) {
  if (data == nullptr) return;
  void* base = HeaderOf(data);
  const size_t capacity = HeaderOf(data)->capacity;
  if (capacity < kMinPooledBytes) {
    std::free(base);
    return;
  }
  std::vector<void*> to_free;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capacity > cache_limit_bytes_) {
      to_free.push_back(base);
    } else {
      EvictLocked(cache_limit_bytes_ - capacity, to_free);
      cached_.push_back({capacity, base});
      cached_bytes_ += capacity;
    }
  }
  // Outside the lock: handing memory back to the system can take a while.
  for (void* block : to_free) std::free(block);
}

void* ResultMemoryPool::Reallocate(void* data, size_t bytes) {
  if (data == nullptr) return Allocate(bytes);
  const size_t capacity = HeaderOf(data)->capacity;
  if (Capacity(bytes) == capacity) return data;
  void* moved = Allocate(bytes);
  if (moved == nullptr) return nullptr;
  std::memcpy(moved, data, std::min(capacity, bytes));
  Free(data);
  return moved;
}

ResultMemoryPool::Stats ResultMemoryPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats stats;
  stats.cache_limit_bytes = cache_limit_bytes_;
  stats.cached_bytes = cached_bytes_;
  stats.cached_blocks = cached_.size();
  stats.reused = reused_;
  stats.allocated = allocated_;
  return stats;
}

size_t ResultMemoryPool::SetCacheLimit(size_t bytes) {
  std::vector<void*> to_free;
  size_t previous;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    previous = cache_limit_bytes_;
    cache_limit_bytes_ = bytes;
    EvictLocked(bytes, to_free);
  }
  for (void* block : to_free) std::free(block);
  return previous;
}

void ResultMemoryPool::EvictLocked(size_t limit, std::vector<void*>& to_free) {
  size_t evicted = 0;
  while (evicted < cached_.size() && cached_bytes_ > limit) {
    cached_bytes_ -= cached_[evicted].capacity;
    to_free.push_back(cached_[evicted].base);
    ++evicted;
  }
  cached_.erase(cached_.begin(),
                cached_.begin() + static_cast<std::ptrdiff_t>(evicted));
}

}  // namespace xffi::python
