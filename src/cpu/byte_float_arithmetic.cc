#include "cpu/byte_float_arithmetic.h"

#include <cmath>

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

void ApplyXlaUnaryExceptions(Opcode opcode, const ByteFloatFormat& format,
                             ByteFloatUnaryTable& table) {
  if (format.type == ElementType::kF8E8M0FNU) {
    constexpr uint8_t kOne = 127, kTiny = 0, kNaN = 255;
    switch (opcode) {
      case Opcode::kSign:
      case Opcode::kCeil:
        table[kTiny] = kOne;
        return;
      case Opcode::kTanh:
      case Opcode::kExpm1:
        table[kTiny] = kTiny;
        return;
      case Opcode::kLog1p:
        table[kTiny] = kNaN;
        return;
      default:
        return;
    }
  }
  if (opcode != Opcode::kExpm1) return;
  using Half = ElementTraits<ElementType::kF16>;
  auto to_half = [](float v) { return Half::Load(Half::Store(v)); };
  for (int byte = 0; byte < 256; ++byte) {
    const float x = format.Load(static_cast<uint8_t>(byte));
    if (std::isfinite(x) && std::fabs(x) > 0.5f)
      table[byte] = StoreByteFloatResult(format, to_half(std::exp(x)) - 1.0f);
  }
}

bool IsByteFloatType(ElementType type) {
  bool byte_float = false;
  (void)VisitElementType(type, [&](auto traits) {
    byte_float = kIsByteFloat<decltype(traits)>;
    return Status::Ok();
  });
  return byte_float;
}

void StoreByteFloatProducts(ElementType type, const float* values,
                            int64_t count, uint8_t* out) {
  (void)VisitElementType(type, [&](auto traits) {
    using Tr = decltype(traits);
    if constexpr (kIsByteFloat<Tr>) {
      const ByteFloatFormat format = ByteFloatFormat::Of<Tr>();
      for (int64_t i = 0; i < count; ++i)
        out[i] = StoreByteFloatResult(format, values[i]);
    }
    return Status::Ok();
  });
}

}  // namespace xffi::cpu
