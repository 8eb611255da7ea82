// Shared by the fusion pass and fused-evaluator tests: running a program
// with and without loop fusion, and deterministic inputs.
#ifndef XFFI_TESTS_CPP_FUSION_TEST_UTIL_H_
#define XFFI_TESTS_CPP_FUSION_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/program/executable.h"
#include "xffi/program/text.h"

namespace xffi::fusion_test {

// Values in [-2, 2) from a fixed linear congruential sequence.
inline Literal RandomF32(std::vector<int64_t> dims, uint32_t seed) {
  Literal literal(Shape::Array(ElementType::kF32, std::move(dims)));
  float* data = literal.data<float>();
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t i = 0; i < literal.shape().num_elements(); ++i) {
    state = state * 1664525u + 1013904223u;
    data[i] = static_cast<float>(state >> 8) / 16777216.0f * 4.0f - 2.0f;
  }
  return literal;
}

inline StatusOr<std::vector<Literal>> RunText(
    std::string_view text, const std::vector<Literal>& arguments, bool fuse,
    int threads = 1) {
  StatusOr<Module> module = ParseProgram(text, "test");
  if (!module.ok()) return module.status();
  CompileOptions options;
  options.fuse_loops = fuse;
  options.intra_op_threads = threads;
  options.verify_after_each_pass = true;
  StatusOr<std::unique_ptr<Executable>> exe =
      Compile(std::move(*module), options);
  if (!exe.ok()) return exe.status();
  return (*exe)->Execute(arguments);
}

// "" when the literals hold the same bytes, else where they first differ.
inline std::string FirstDifference(const Literal& a, const Literal& b) {
  if (a.shape() != b.shape())
    return "shapes " + a.shape().ToString() + " and " + b.shape().ToString();
  const auto* x = static_cast<const unsigned char*>(a.data());
  const auto* y = static_cast<const unsigned char*>(b.data());
  size_t bytes = a.shape().byte_size();
  for (size_t i = 0; i < bytes; ++i)
    if (x[i] != y[i]) return "byte " + std::to_string(i);
  return "";
}

}  // namespace xffi::fusion_test

#endif  // XFFI_TESTS_CPP_FUSION_TEST_UTIL_H_
