// xffi: f32 convolutions through oneDNN's convolution primitive.
//
// oneDNN (Apache-2.0, see dnnl_gemm.h) JITs direct convolutions for the CPU
// it finds (AVX-512 "brgconv" on this project's Zen 4): no im2col matrix,
// which with the GEMM was most of the convolution kernel's time. oneDNN
// reads and writes the operands in any layout described by strides, so
// every dimension-number layout reaches it in place; it picks blocked
// layouts of its own for its kernels, and reorders (oneDNN primitives too)
// move data in and out. What it cannot express — lhs dilation, batch
// groups, window reversal, negative padding, no spatial dimensions — stays
// on the im2col path (convolution.cc).
//
// One primitive computes one batch element; the kernel runs the batch as
// tasks on xffi's intra-op pool, each on one OpenMP thread (dnnl_gemm.h
// says why), so every result is computed the same way on any number of
// threads.
#ifndef XFFI_SRC_CPU_DNNL_CONVOLUTION_H_
#define XFFI_SRC_CPU_DNNL_CONVOLUTION_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace xffi {
class ThreadPool;
}

namespace xffi::cpu {

// A convolution in oneDNN's terms; strides are in elements of the buffers
// the kernel is given.
struct DnnlConvolutionShape {
  // [batch, features, spatial...] and their strides.
  std::vector<int64_t> src_dims, src_strides;
  // [out features, features per group, spatial...]: out features are split
  // into `groups` equal runs, group g reading input features [g * I,
  // (g + 1) * I).
  std::vector<int64_t> weight_dims, weight_strides;
  int64_t groups = 1;
  // [batch, out features, spatial...].
  std::vector<int64_t> dst_dims, dst_strides;
  // Per spatial dimension; dilation as XLA counts it (1: none).
  std::vector<int64_t> window_strides, dilations, padding_low, padding_high;
};

class DnnlConvolution {
 public:
  // The primitives for `shape`, or null when this build has no oneDNN or
  // oneDNN cannot compute it.
  static std::shared_ptr<const DnnlConvolution> Make(
      const DnnlConvolutionShape& shape);

  // dst = conv(src, weights); false when oneDNN failed (nothing usable
  // written; the caller computes it another way).
  bool Run(const float* src, const float* weights, float* dst,
           ThreadPool* pool) const;

  struct Impl;
  explicit DnnlConvolution(std::unique_ptr<Impl> impl);
  ~DnnlConvolution();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_DNNL_CONVOLUTION_H_
