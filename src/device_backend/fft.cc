#include "device_backend/fft.h"

#include <string>

#include "device_backend/fft_kernel.h"
#include "runtime/status_macros.h"

namespace xffi::device_backend {
namespace {

// Lines one worker of a pass takes at least, so that its twiddles and chirp
// (about one line's work) stay a small part of its time; and the workspace
// all workers of a pass may share (beyond it, fewer workers take more lines).
constexpr int64_t kLinesPerWorker = 8;
constexpr int64_t kMaxWorkers = 256;
constexpr int64_t kWorkspaceBudgetBytes = int64_t{16} << 20;

// One pass along `axis` of an array of `dims` (the pass's input).
FftLinesKernel MakePass(const std::vector<int64_t>& in_dims, size_t axis,
                        int64_t length, DftMode mode, bool inverse,
                        DType in_type, DType out_type) {
  FftLinesKernel pass;
  pass.mode = mode;
  pass.inverse = inverse;
  pass.in_type = in_type;
  pass.out_type = out_type;
  pass.length = length;
  pass.in_axis = in_dims[axis];
  pass.out_axis = mode == DftMode::kRealToComplex ? length / 2 + 1 : length;
  int64_t outer = 1;
  for (size_t d = 0; d < axis; ++d) outer *= in_dims[d];
  for (size_t d = axis + 1; d < in_dims.size(); ++d) pass.inner *= in_dims[d];
  pass.lines = outer * pass.inner;
  const int64_t worker_bytes =
      FftWorkspaceDoubles(length) * static_cast<int64_t>(sizeof(double));
  int64_t workers = pass.lines / kLinesPerWorker;
  if (workers > kMaxWorkers) workers = kMaxWorkers;
  if (workers > kWorkspaceBudgetBytes / worker_bytes)
    workers = kWorkspaceBudgetBytes / worker_bytes;
  pass.workers = workers < 1 ? 1 : workers;
  return pass;
}

}  // namespace

StatusOr<Launcher> FftLauncher(const Instruction& op,
                               const std::vector<compiler::BufferId>& operands,
                               compiler::BufferId result,
                               const ReserveScratch& scratch,
                               const DeviceFeatures& features) {
  const Shape& in = op.operand(0)->shape();
  const Shape& out = op.shape();
  StatusOr<DType> in_type = TypeOf(op, in);
  if (!in_type.ok()) return in_type.status();
  StatusOr<DType> out_type = TypeOf(op, out);
  if (!out_type.ok()) return out_type.status();
  const FftType type = op.fft_type;
  const bool real_in = type == FftType::kRfft;
  const bool real_out = type == FftType::kIrfft;
  const bool types_ok =
      (real_in ? (*in_type == DType::kF32 && *out_type == DType::kC64) ||
                     (*in_type == DType::kF64 && *out_type == DType::kC128)
       : real_out ? (*in_type == DType::kC64 && *out_type == DType::kF32) ||
                        (*in_type == DType::kC128 && *out_type == DType::kF64)
                  : *in_type == *out_type &&
                        ClassOf(*in_type) == ValueClass::kComplex);
  if (!types_ok)
    return Unsupported(op, std::string(FftTypeName(type)) + " of " +
                               in.ToString(false) + " into " +
                               out.ToString(false));
  const size_t rank = static_cast<size_t>(in.rank());
  const size_t count = op.fft_length.size();
  if (count < 1 || count > 3 || count > rank || out.rank() != in.rank())
    return Unsupported(op, "fft_length of 1-3 dimensions within the rank");
  const std::vector<int64_t>& in_dims = in.dims();
  const std::vector<int64_t>& out_dims = out.dims();
  for (size_t t = 0; t < count; ++t) {
    const size_t axis = rank - count + t;
    const int64_t length = op.fft_length[t];
    const bool last = t + 1 == count;
    const int64_t want_in = real_out && last ? length / 2 + 1 : length;
    const int64_t want_out = real_in && last ? length / 2 + 1 : length;
    if (in_dims[axis] != want_in || out_dims[axis] != want_out)
      return Unsupported(op, "fft_length that does not match the shapes");
  }
  if (out.num_elements() == 0)
    return Launcher([](device::Stream&, void* const*) { return Status::Ok(); });
  if (!scratch) return Unsupported(op, "an fft without scratch");

  // Intermediates are complex in the shape of the complex side.
  const DType complex_type = real_in ? *out_type : *in_type;
  const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
  const compiler::BufferId source = operands[0];

  if (features.fft_library) {
    // The whole transform in one library call, then XLA's 1/N for the
    // inverse kinds, which cuFFT leaves out.
    device::Fft library_fft;
    library_fft.kind = real_in    ? device::FftKind::kRealToComplex
                       : real_out ? device::FftKind::kComplexToReal
                       : inverse  ? device::FftKind::kInverse
                                  : device::FftKind::kForward;
    library_fft.double_precision = complex_type == DType::kC128;
    library_fft.rank = static_cast<int32_t>(count);
    int64_t points = 1;
    for (size_t t = 0; t < count; ++t) {
      library_fft.lengths[t] = op.fft_length[t];
      points *= op.fft_length[t];
    }
    library_fft.batch = 1;
    for (size_t d = 0; d + count < rank; ++d) library_fft.batch *= in_dims[d];
    FftScaleKernel scale;
    scale.wide = library_fft.double_precision;
    scale.n = out.num_elements() * (real_out ? 1 : 2);
    scale.factor = 1.0 / static_cast<double>(points);
    // cuFFT's complex-to-real transforms overwrite their input, which the
    // program may still read: they read a copy. Nothing else is reserved.
    const size_t in_bytes = in.byte_size();
    const compiler::BufferId library_input =
        real_out ? scratch(in_bytes) : source;
    return Launcher(
        [source, result, library_fft, scale, library_input, inverse, in_bytes](
            device::Stream& stream, void* const* addresses) mutable {
          if (library_input != source)
            XFFI_RETURN_IF_ERROR(stream.CopyDeviceToDevice(
                addresses[library_input], addresses[source], in_bytes));
          library_fft.in = addresses[library_input];
          library_fft.out = addresses[result];
          XFFI_RETURN_IF_ERROR(stream.Fourier(library_fft));
          if (!inverse) return Status::Ok();
          scale.data = static_cast<uint8_t*>(addresses[result]);
          return LaunchKernel(stream, FftScaleKernel::kName, scale.n, scale);
        });
  }

  // The passes in order.
  std::vector<FftLinesKernel> passes;
  const size_t last_axis = rank - 1;
  if (real_in)
    passes.push_back(MakePass(in_dims, last_axis, op.fft_length.back(),
                              DftMode::kRealToComplex, false, *in_type,
                              complex_type));
  const std::vector<int64_t>& complex_dims = real_in ? out_dims : in_dims;
  const size_t complex_axes = real_in || real_out ? count - 1 : count;
  for (size_t t = 0; t < complex_axes; ++t)
    passes.push_back(MakePass(complex_dims, rank - count + t, op.fft_length[t],
                              DftMode::kComplex, inverse, complex_type,
                              complex_type));
  if (real_out)
    passes.push_back(MakePass(in_dims, last_axis, op.fft_length.back(),
                              DftMode::kComplexToReal, true, complex_type,
                              *out_type));

  // Pass p < last writes scratch[p % 2]: never the buffer it reads. Every
  // pass's workers share one workspace, in turn, sized for the largest.
  size_t workspace_bytes = 0;
  for (const FftLinesKernel& pass : passes) {
    const size_t bytes =
        static_cast<size_t>(pass.workers * FftWorkspaceDoubles(pass.length) *
                            static_cast<int64_t>(sizeof(double)));
    if (bytes > workspace_bytes) workspace_bytes = bytes;
  }
  const compiler::BufferId workspace = scratch(workspace_bytes);
  std::vector<compiler::BufferId> targets;
  if (passes.size() > 1) {
    int64_t elements = 1;
    for (int64_t d : complex_dims) elements *= d;
    const size_t bytes =
        static_cast<size_t>(elements) * (complex_type == DType::kC64 ? 8 : 16);
    targets.push_back(scratch(bytes));
    if (passes.size() > 2) targets.push_back(scratch(bytes));
  }
  return Launcher([passes, targets, source, result, workspace](
                      device::Stream& stream, void* const* addresses) mutable {
    const uint8_t* from = static_cast<const uint8_t*>(addresses[source]);
    for (size_t p = 0; p < passes.size(); ++p) {
      uint8_t* to = static_cast<uint8_t*>(
          addresses[p + 1 == passes.size() ? result : targets[p % 2]]);
      passes[p].in = from;
      passes[p].out = to;
      passes[p].workspace = static_cast<uint8_t*>(addresses[workspace]);
      XFFI_RETURN_IF_ERROR(LaunchKernel(stream, FftLinesKernel::kName,
                                        passes[p].workers, passes[p]));
      from = to;
    }
    return Status::Ok();
  });
}

}  // namespace xffi::device_backend
