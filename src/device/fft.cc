#include "device/fft.h"

#include "device/device.h"

namespace xffi::device {
namespace {

// Elements of one batch member, with the last dimension `last`.
int64_t MemberElements(const Fft& fft, int64_t last) {
  int64_t elements = last;
  for (int32_t d = 0; d + 1 < fft.rank; ++d) elements *= fft.lengths[d];
  return elements;
}

size_t SideBytes(const Fft& fft, bool complex_side) {
  const int64_t n = fft.lengths[fft.rank - 1];
  const bool halved = complex_side && (fft.kind == FftKind::kRealToComplex ||
                                       fft.kind == FftKind::kComplexToReal);
  const size_t element =
      (fft.double_precision ? 8 : 4) * (complex_side ? 2 : 1);
  return static_cast<size_t>(fft.batch *
                             MemberElements(fft, halved ? n / 2 + 1 : n)) *
         element;
}

}  // namespace

Status ValidateFft(const Fft& fft) {
  const std::string what = "fft: ";
  if (fft.rank < 1 || fft.rank > 3)
    return InvalidArgument(what + "rank " + std::to_string(fft.rank) +
                           " is not 1-3");
  for (int32_t d = 0; d < fft.rank; ++d)
    if (fft.lengths[d] < 1)
      return InvalidArgument(what + "lengths[" + std::to_string(d) + "] is " +
                             std::to_string(fft.lengths[d]));
  if (fft.batch < 0)
    return InvalidArgument(what + "batch is " + std::to_string(fft.batch));
  if (fft.batch > 0 && (fft.in == nullptr || fft.out == nullptr))
    return InvalidArgument(DescribeFft(fft) + ": null " +
                           (fft.in == nullptr ? "input" : "output"));
  return Status::Ok();
}

size_t FftInputBytes(const Fft& fft) {
  return SideBytes(fft, fft.kind != FftKind::kRealToComplex);
}

size_t FftOutputBytes(const Fft& fft) {
  return SideBytes(fft, fft.kind != FftKind::kComplexToReal);
}

std::string DescribeFft(const Fft& fft) {
  static constexpr const char* kKinds[] = {
      "forward", "inverse", "real-to-complex", "complex-to-real"};
  std::string text = fft.double_precision ? "c128 " : "c64 ";
  text += kKinds[static_cast<int>(fft.kind)];
  text += " fft " + std::to_string(fft.batch) + "x[";
  for (int32_t d = 0; d < fft.rank && d < 3; ++d)
    text += (d > 0 ? "x" : "") + std::to_string(fft.lengths[d]);
  return text + "]";
}

Status Stream::Fourier(const Fft& fft) {
  return Unimplemented(std::string(device().name()) +
                       " has no FFT library: cannot run " + DescribeFft(fft));
}

}  // namespace xffi::device
