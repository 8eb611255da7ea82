// xffi: fft on the device backend: FFT, IFFT, RFFT and IRFFT over the last
// 1-3 dimensions of c64/c128 (f32/f64 on the real side).
//
// The way is chosen when the program compiles, from the device
// (DeviceFeatures::fft_library), and so is the scratch it reserves.
//
// On a device with an FFT library (CUDA: cuFFT, Stream::Fourier) the whole
// transform is one library call, then XLA's 1/N scale for the inverse
// kinds. The library's plans bring their own work areas, so the op
// reserves no workspace: only IRFFT reserves a copy of its operand, since
// cuFFT's complex-to-real transforms overwrite their input.
//
// Elsewhere (SimDevice) it runs one O(L log L) pass per transformed axis
// (fft_kernel.h). Passes between the first and the last go through
// scratch. IRFFT does its complex inverse passes first and the Hermitian
// complex-to-real pass on the last axis at the end; RFFT the
// real-to-complex pass first. The passes' shared workspace is sized for
// this transform: its workers (one per 8 lines, at most 256) times one
// line's work area, within a 16 MiB budget that only long lines (thousands
// of points) in large batches reach.
#ifndef XFFI_SRC_DEVICE_BACKEND_FFT_H_
#define XFFI_SRC_DEVICE_BACKEND_FFT_H_

#include <vector>

#include "device_backend/op_kernels.h"

namespace xffi::device_backend {

StatusOr<Launcher> FftLauncher(const Instruction& op,
                               const std::vector<compiler::BufferId>& operands,
                               compiler::BufferId result,
                               const ReserveScratch& scratch,
                               const DeviceFeatures& features = {});

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_FFT_H_
