#include "cpu/byte_float_arithmetic.h"

#include "cpu/element_convert.h"

namespace xffi::cpu {

uint8_t StoreByteFloatResult(const ByteFloatFormat& format, float value) {
  // f8e8m0fnu's ops stay in f32 (f16 would lose its range): the conversion
  // from f32 then reads the bits, under which an f32 result flushed to zero
  // by FTZ is NaN.
  if (format.type == ElementType::kF8E8M0FNU) return XlaE8M0FromFloat(value);
  using Half = ElementTraits<ElementType::kF16>;
  const float half = Half::Load(Half::Store(value));
  return ConvertToByteFloat<Half>(half, format);
}

}  // namespace xffi::cpu
