// A handler library for `xffi inspect --platform cuda`: targets registered
// for CUDA only, as a GPU library registers them. They are never run (the
// tests only ask what serves each call site), so their bodies do nothing.
//   cli_gpu_ffi     a typed FFI handler taking the platform stream
//   cli_gpu_legacy  a legacy target with the CUDA calling convention of
//                   API versions 2 and 3 (stream, buffers, opaque, status)
#include <cstddef>

#include "xffi/custom_call_target.h"
#include "xffi/ffi.h"

namespace ffi = xffi::ffi;

namespace {

ffi::Error GpuImpl(void*, ffi::Buffer<ffi::F32>, ffi::ResultBuffer<ffi::F32>) {
  return ffi::Error::Success();
}

XFFI_DEFINE_HANDLER(kGpu, GpuImpl,
                    ffi::Ffi::Bind()
                        .Ctx<ffi::PlatformStream<void*>>()
                        .Arg<ffi::Buffer<ffi::F32>>()
                        .Ret<ffi::Buffer<ffi::F32>>());

XFFI_REGISTER_HANDLER_WITH_RUNTIME("cli_gpu_ffi", "CUDA", kGpu);

void GpuLegacy(void*, void**, const char*, size_t, XlaCustomCallStatus*) {}

XFFI_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM("cli_gpu_legacy", GpuLegacy, "CUDA");

}  // namespace
