// Constant folding: elementwise ops over typed element loops, data movement
// as index maps over raw bytes.
#include "passes/constant_folding.h"
#include "ir/compare_values.h"
#include "ir/row_major_index.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace xffi::passes {
namespace {

using Elements = std::vector<const Literal*>;

template <typename T>
T Load(const Literal& literal, int64_t i) {
  T value;
  std::memcpy(&value, static_cast<const char*>(literal.data()) + i * sizeof(T),
              sizeof(T));
  return value;
}

// Element i of an operand; a one-element operand stands for every element.
template <typename T>
T At(const Literal& literal, int64_t i) {
  return Load<T>(literal, literal.shape().num_elements() == 1 ? 0 : i);
}

template <typename T>
bool Foldable(T value) {
  if constexpr (std::is_floating_point_v<T>)
    return !std::isnan(value) && std::fpclassify(value) != FP_SUBNORMAL;
  return true;
}

// Wrapping arithmetic in the unsigned type of the same width (no signed
// overflow in C++).
template <typename T>
using Unsigned = std::make_unsigned_t<T>;

template <typename T>
std::optional<T> Binary(Opcode opcode, T a, T b) {
  constexpr bool kInt = std::is_integral_v<T>;
  if constexpr (kInt) {
    using U = Unsigned<T>;
    constexpr int kBits = 8 * sizeof(T);
    switch (opcode) {
      case Opcode::kAdd:
        return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case Opcode::kSubtract:
        return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
      case Opcode::kMultiply:
        return static_cast<T>(
            static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
      case Opcode::kDivide:
        if (b == 0) return static_cast<T>(-1);
        if constexpr (std::is_signed_v<T>)
          if (a == std::numeric_limits<T>::min() && b == -1) return a;
        return static_cast<T>(a / b);
      case Opcode::kRemainder:
        if (b == 0) return a;
        if constexpr (std::is_signed_v<T>)
          if (a == std::numeric_limits<T>::min() && b == -1) return T{0};
        return static_cast<T>(a % b);
      case Opcode::kMinimum:
        return a < b ? a : b;
      case Opcode::kMaximum:
        return a > b ? a : b;
      case Opcode::kAnd:
        return static_cast<T>(a & b);
      case Opcode::kOr:
        return static_cast<T>(a | b);
      case Opcode::kXor:
        return static_cast<T>(a ^ b);
      case Opcode::kShiftLeft: {
        const U n = static_cast<U>(b);
        if (n >= static_cast<U>(kBits)) return T{0};
        return static_cast<T>(static_cast<U>(static_cast<U>(a) << n));
      }
      case Opcode::kShiftRightLogical: {
        const U n = static_cast<U>(b);
        if (n >= static_cast<U>(kBits)) return T{0};
        return static_cast<T>(static_cast<U>(a) >> n);
      }
      case Opcode::kShiftRightArithmetic: {
        const U n = static_cast<U>(b);
        using S = std::make_signed_t<T>;
        const S s = static_cast<S>(a);
        if (n >= static_cast<U>(kBits)) return static_cast<T>(s < 0 ? -1 : 0);
        return static_cast<T>(s >> n);
      }
      default:
        return std::nullopt;
    }
  } else {
    switch (opcode) {
      case Opcode::kAdd:
        return a + b;
      case Opcode::kSubtract:
        return a - b;
      case Opcode::kMultiply:
        return a * b;
      case Opcode::kDivide:
        return a / b;
      case Opcode::kMinimum:
      case Opcode::kMaximum:
        // Which zero min(-0, +0) gives differs between instruction sets.
        if (a == 0 && b == 0) return std::nullopt;
        return opcode == Opcode::kMinimum ? (a < b ? a : b) : (a > b ? a : b);
      default:
        return std::nullopt;
    }
  }
}

template <typename T>
std::optional<T> Unary(Opcode opcode, T a) {
  if constexpr (std::is_integral_v<T>) {
    using U = Unsigned<T>;
    switch (opcode) {
      case Opcode::kNegate:
        return static_cast<T>(U{0} - static_cast<U>(a));
      case Opcode::kAbs:
        if constexpr (std::is_signed_v<T>)
          return a < 0 ? static_cast<T>(U{0} - static_cast<U>(a)) : a;
        return a;
      case Opcode::kNot:
        return static_cast<T>(~a);
      case Opcode::kCopy:
        return a;
      default:
        return std::nullopt;
    }
  } else {
    switch (opcode) {
      case Opcode::kNegate:
        return -a;
      case Opcode::kAbs:
        return std::fabs(a);
      case Opcode::kCopy:
        return a;
      default:
        return std::nullopt;
    }
  }
}

// Calls `f(T{})` with the C++ type of `type`; false for types not folded
// (pred is handled by the callers: its bytes are 0 or 1).
template <typename F>
bool WithType(ElementType type, F&& f) {
  switch (type) {
    case ElementType::kS8:
      return f(int8_t{});
    case ElementType::kS16:
      return f(int16_t{});
    case ElementType::kS32:
      return f(int32_t{});
    case ElementType::kS64:
      return f(int64_t{});
    case ElementType::kU8:
      return f(uint8_t{});
    case ElementType::kU16:
      return f(uint16_t{});
    case ElementType::kU32:
      return f(uint32_t{});
    case ElementType::kU64:
      return f(uint64_t{});
    case ElementType::kF32:
      return f(float{});
    case ElementType::kF64:
      return f(double{});
    default:
      return false;
  }
}

template <typename T>
void Store(Literal& literal, int64_t i, T value) {
  std::memcpy(static_cast<char*>(literal.data()) + i * sizeof(T), &value,
              sizeof(T));
}

bool FoldPred(const Instruction& op, const Elements& in, Literal& out,
              int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const bool a = At<uint8_t>(*in[0], i) != 0;
    bool r = false;
    if (op.opcode() == Opcode::kNot || op.opcode() == Opcode::kCopy) {
      r = op.opcode() == Opcode::kNot ? !a : a;
    } else {
      if (in.size() != 2) return false;
      const bool b = At<uint8_t>(*in[1], i) != 0;
      switch (op.opcode()) {
        case Opcode::kAnd:
          r = a && b;
          break;
        case Opcode::kOr:
          r = a || b;
          break;
        case Opcode::kXor:
          r = a != b;
          break;
        case Opcode::kCompare:
          r = CompareValues(op.comparison_direction, static_cast<int>(a),
                            static_cast<int>(b));
          break;
        default:
          return false;
      }
    }
    Store<uint8_t>(out, i, r ? 1 : 0);
  }
  return true;
}

bool FoldElementwise(const Instruction& op, const Elements& in, Literal& out) {
  const int64_t n = out.shape().num_elements();
  const ElementType in_type = in[0]->shape().element_type();
  const ElementType out_type = out.shape().element_type();
  if (op.opcode() == Opcode::kSelect) {
    const size_t size = ElementByteSize(out_type);
    for (int64_t i = 0; i < n; ++i) {
      const Literal& pick = At<uint8_t>(*in[0], i) != 0 ? *in[1] : *in[2];
      const int64_t j = pick.shape().num_elements() == 1 ? 0 : i;
      std::memcpy(static_cast<char*>(out.data()) + i * size,
                  static_cast<const char*>(pick.data()) + j * size, size);
    }
    return true;
  }
  if (op.opcode() == Opcode::kConvert) {
    if (in_type == out_type) {
      std::memcpy(out.data(), in[0]->data(), out.size_bytes());
      return true;
    }
    auto read = [&](auto from) {
      using From = decltype(from);
      return [&](int64_t i) { return At<From>(*in[0], i); };
    };
    // pred -> anything: 0 or 1; anything -> pred: nonzero.
    if (out_type == ElementType::kPred) {
      return WithType(in_type, [&](auto from) {
        using From = decltype(from);
        for (int64_t i = 0; i < n; ++i) {
          From v = read(From{})(i);
          if (!Foldable(v)) return false;
          Store<uint8_t>(out, i, v != From{0} ? 1 : 0);
        }
        return true;
      });
    }
    return WithType(out_type, [&](auto to) {
      using To = decltype(to);
      auto convert_from = [&](auto from) {
        using From = decltype(from);
        // Float to integer saturates in XLA, differently per backend
        // for out-of-range values: not folded.
        if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>)
          return false;
        for (int64_t i = 0; i < n; ++i) {
          From v = in_type == ElementType::kPred
                       ? static_cast<From>(At<uint8_t>(*in[0], i))
                       : read(From{})(i);
          if (!Foldable(v)) return false;
          To r = static_cast<To>(v);
          if (!Foldable(r)) return false;
          Store<To>(out, i, r);
        }
        return true;
      };
      if (in_type == ElementType::kPred) return convert_from(uint8_t{});
      return WithType(in_type, convert_from);
    });
  }
  if (in_type == ElementType::kPred) {
    if (op.opcode() == Opcode::kCompare &&
        op.comparison_type == ComparisonType::kSigned)
      return false;
    return FoldPred(op, in, out, n);
  }
  return WithType(in_type, [&](auto zero) {
    using T = decltype(zero);
    for (int64_t i = 0; i < n; ++i) {
      const T a = At<T>(*in[0], i);
      if (!Foldable(a)) return false;
      if (in.size() == 1) {
        std::optional<T> r = Unary(op.opcode(), a);
        if (!r || !Foldable(*r)) return false;
        Store<T>(out, i, *r);
        continue;
      }
      const T b = At<T>(*in[1], i);
      if (!Foldable(b)) return false;
      if (op.opcode() == Opcode::kCompare) {
        // TOTALORDER and explicit signedness that differs from the type's
        // are left to the backends.
        const ComparisonType kind = op.comparison_type;
        if (kind == ComparisonType::kTotalOrder ||
            (kind == ComparisonType::kSigned && !std::is_signed_v<T>) ||
            (kind == ComparisonType::kUnsigned && !std::is_unsigned_v<T>))
          return false;
        Store<uint8_t>(out, i,
                       CompareValues(op.comparison_direction, a, b) ? 1 : 0);
        continue;
      }
      std::optional<T> r = Binary(op.opcode(), a, b);
      if (!r || !Foldable(*r)) return false;
      Store<T>(out, i, *r);
    }
    return true;
  });
}

// Data movement: which element of the operand each result element is.
bool FoldIndexMap(const Instruction& op, const Literal& in, Literal& out) {
  const std::vector<int64_t>& from_dims = in.shape().dims();
  const std::vector<int64_t>& to_dims = out.shape().dims();
  const size_t size = ElementByteSize(out.shape().element_type());
  const int64_t n = out.shape().num_elements();
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> to = UnravelRowMajor(i, to_dims);
    std::vector<int64_t> from(from_dims.size());
    switch (op.opcode()) {
      case Opcode::kBroadcast:
        // StableHLO's broadcast_in_dim also spreads a dimension of size 1.
        for (size_t k = 0; k < from.size(); ++k)
          from[k] =
              from_dims[k] == 1 ? 0 : to[static_cast<size_t>(op.dimensions[k])];
        break;
      case Opcode::kTranspose:
        for (size_t k = 0; k < to.size(); ++k)
          from[static_cast<size_t>(op.dimensions[k])] = to[k];
        break;
      case Opcode::kSlice:
        for (size_t k = 0; k < from.size(); ++k)
          from[k] = op.slice_starts[k] + to[k] * op.slice_strides[k];
        break;
      case Opcode::kReverse:
        from = to;
        for (int64_t d : op.dimensions) {
          const auto k = static_cast<size_t>(d);
          from[k] = from_dims[k] - 1 - to[k];
        }
        break;
      default:
        return false;
    }
    std::memcpy(static_cast<char*>(out.data()) + i * size,
                static_cast<const char*>(in.data()) +
                    RavelRowMajor(from, from_dims) * size,
                size);
  }
  return true;
}

}  // namespace

std::optional<Literal> FoldConstantOp(const Instruction& op,
                                      const Elements& operands,
                                      const Shape& result_shape) {
  if (!result_shape.IsArray() || operands.empty() ||
      result_shape.num_elements() > kMaxFoldedElements)
    return std::nullopt;
  for (const Literal* operand : operands)
    if (operand == nullptr || !operand->shape().IsArray() ||
        operand->size_bytes() !=
            static_cast<size_t>(operand->shape().num_elements()) *
                ElementByteSize(operand->shape().element_type()))
      return std::nullopt;
  Literal out(result_shape);
  const Opcode opcode = op.opcode();
  bool folded = false;
  if (opcode == Opcode::kReshape || opcode == Opcode::kCopy) {
    if (out.size_bytes() != operands[0]->size_bytes()) return std::nullopt;
    std::memcpy(out.data(), operands[0]->data(), out.size_bytes());
    folded = true;
  } else if (opcode == Opcode::kBroadcast || opcode == Opcode::kTranspose ||
             opcode == Opcode::kSlice || opcode == Opcode::kReverse) {
    folded = FoldIndexMap(op, *operands[0], out);
  } else if (IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) ||
             opcode == Opcode::kSelect || opcode == Opcode::kConvert) {
    folded = FoldElementwise(op, operands, out);
  }
  if (!folded) return std::nullopt;
  return out;
}

}  // namespace xffi::passes
