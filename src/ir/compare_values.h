// xffi: a compare op's direction applied to two values of one C++ type, for
// code that evaluates compares one element at a time (constant folding,
// the scalar-region interpreter). Ordered compares are false against a NaN,
// as C++'s are; total-order compares pass total-order keys.
#ifndef XFFI_SRC_IR_COMPARE_VALUES_H_
#define XFFI_SRC_IR_COMPARE_VALUES_H_

#include "xffi/program/ir.h"

namespace xffi {

template <typename T>
bool CompareValues(ComparisonDirection direction, T a, T b) {
  switch (direction) {
    case ComparisonDirection::kEq:
      return a == b;
    case ComparisonDirection::kNe:
      return a != b;
    case ComparisonDirection::kLt:
      return a < b;
    case ComparisonDirection::kLe:
      return a <= b;
    case ComparisonDirection::kGt:
      return a > b;
    case ComparisonDirection::kGe:
      return a >= b;
  }
  return false;
}

}  // namespace xffi

#endif  // XFFI_SRC_IR_COMPARE_VALUES_H_
