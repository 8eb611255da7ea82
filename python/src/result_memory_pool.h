// Memory for the result arrays of xffi.Program calls, kept for reuse.
//
// A program called in a loop returns arrays of the same sizes every call;
// the caller drops the previous results before (or soon after) the next
// call. Taken fresh from malloc, large results come from mmap or from the
// top of the heap, which glibc hands back to the kernel once more than its
// trim threshold (at most 64 MB) lies free there: three 16 MB results do.
// Every call then page-faults its results in again, and the kernel zeroes
// each page before the program overwrites it (about 4 ms of system time per
// call for 48 MB on the machine bench/workloads ran on). This pool keeps
// freed blocks and hands a block of the same rounded size back, already
// resident.
//
// Blocks carry a header in front of their data with their size, so any
// block can be freed or resized without the caller knowing its size. The
// pool is process-wide and never destroyed: an array may outlive the
// Program that made it and even the interpreter's module teardown.
// Thread-safe (one mutex; the work under it is a short scan).
#ifndef XFFI_PYTHON_RESULT_MEMORY_POOL_H_
#define XFFI_PYTHON_RESULT_MEMORY_POOL_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace xffi::python {

class ResultMemoryPool {
 public:
  // Blocks below this size are not kept: malloc reuses small blocks well
  // by itself.
  static constexpr size_t kMinPooledBytes = size_t{1} << 20;
  // Data starts this far into a block (and so keeps malloc's 64-byte
  // alignment for vector loads).
  static constexpr size_t kHeaderBytes = 64;

  explicit ResultMemoryPool(size_t cache_limit_bytes);
  ~ResultMemoryPool();
  ResultMemoryPool(const ResultMemoryPool&) = delete;
  ResultMemoryPool& operator=(const ResultMemoryPool&) = delete;

  // The pool the Python module's arrays use (created on first use, never
  // destroyed).
  static ResultMemoryPool& Global();

  // `bytes` of 64-byte-aligned memory (a block of at least 1 byte for 0);
  // null when the system has none.
  void* Allocate(size_t bytes);
  // Frees what Allocate or Reallocate returned (null: nothing).
  void Free(void* data);
  // Like realloc: the first min(old, new) bytes are kept; null (and `data`
  // untouched) when the system has no memory.
  void* Reallocate(void* data, size_t bytes);

  struct Stats {
    size_t cache_limit_bytes = 0;
    size_t cached_bytes = 0;  // freed blocks kept for reuse
    size_t cached_blocks = 0;
    uint64_t reused = 0;     // allocations served from the cache
    uint64_t allocated = 0;  // pooled-size allocations taken from malloc
  };
  Stats stats() const;
  // Sets the limit and frees the oldest cached blocks until the cache fits
  // it (0: keep nothing). Returns the previous limit.
  size_t SetCacheLimit(size_t bytes);

 private:
  struct Cached {
    size_t capacity;
    void* base;
  };
  static size_t Capacity(size_t bytes);
  void EvictLocked(size_t limit, std::vector<void*>& to_free);

  mutable std::mutex mutex_;
  size_t cache_limit_bytes_;
  size_t cached_bytes_ = 0;
  std::vector<Cached> cached_;  // oldest first
  uint64_t reused_ = 0;
  uint64_t allocated_ = 0;
};

}  // namespace xffi::python

#endif  // XFFI_PYTHON_RESULT_MEMORY_POOL_H_
