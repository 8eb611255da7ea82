// Operators on the C ABI's structs and enums (ffi/c_operators.h), found by
// argument-dependent lookup from any namespace, as XLA's are.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "xffi/ffi.h"

namespace elsewhere {

// Not in xffi::ffi and with no using-declaration: only lookup in the C
// types' own (global) namespace can find these operators.
bool SameId(const XLA_FFI_TypeId& a, const XLA_FFI_TypeId& b) {
  return a == b && !(a != b);
}

std::string Printed(XLA_FFI_DataType dtype, XLA_FFI_AttrType type,
                    XLA_FFI_ExecutionStage stage) {
  std::ostringstream out;
  out << dtype << "/" << type << "/" << stage;
  return out.str();
}

}  // namespace elsewhere

namespace {

XLA_FFI_Error* HandlerA(XLA_FFI_CallFrame*) { return nullptr; }
XLA_FFI_Error* HandlerB(XLA_FFI_CallFrame*) { return nullptr; }

TEST(FfiCOperators, TypeIdsCompareByValue) {
  EXPECT_TRUE(elsewhere::SameId(XLA_FFI_TypeId{7}, XLA_FFI_TypeId{7}));
  EXPECT_FALSE(elsewhere::SameId(XLA_FFI_TypeId{7}, XLA_FFI_TypeId{8}));
  EXPECT_TRUE(XLA_FFI_UNKNOWN_TYPE_ID == XLA_FFI_TypeId{0});
}

TEST(FfiCOperators, VersionsCompareTheirNumbersOnly) {
  XLA_FFI_Api_Version a{XLA_FFI_Api_Version_STRUCT_SIZE, nullptr, 0, 5};
  XLA_FFI_Api_Version b{0, nullptr, 0, 5};  // a caller's size is no version
  XLA_FFI_Api_Version c{XLA_FFI_Api_Version_STRUCT_SIZE, nullptr, 0, 3};
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a != c);
}

TEST(FfiCOperators, MetadataComparesVersionTraitsAndStateType) {
  XLA_FFI_Metadata a{};
  a.api_version = XLA_FFI_Api_Version{0, nullptr, 0, 5};
  a.traits = XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE;
  a.state_type_id = XLA_FFI_TypeId{3};
  XLA_FFI_Metadata b = a;
  b.struct_size = 99;
  EXPECT_TRUE(a == b);
  b.traits = 0;
  EXPECT_TRUE(a != b);
  b = a;
  b.state_type_id = XLA_FFI_TypeId{4};
  EXPECT_TRUE(a != b);
}

TEST(FfiCOperators, BundlesCompareEveryStage) {
  XLA_FFI_Handler_Bundle a{nullptr, HandlerA, nullptr, HandlerB, nullptr};
  XLA_FFI_Handler_Bundle b = a;
  EXPECT_TRUE(a == b);
  b.prepare = HandlerB;
  EXPECT_TRUE(a != b);
  // XLA's operator ignores the record member; xffi's does not.
  b = a;
  b.record = HandlerA;
  EXPECT_TRUE(a != b);
}

TEST(FfiCOperators, EnumsPrintXlaSpellings) {
  EXPECT_EQ(
      elsewhere::Printed(XLA_FFI_DataType_F8E4M3FN, XLA_FFI_AttrType_DICTIONARY,
                         XLA_FFI_ExecutionStage_RECORD),
      "F8E4M3FN/dictionary/record");
  EXPECT_EQ(elsewhere::Printed(XLA_FFI_DataType_PRED, XLA_FFI_AttrType_ARRAY,
                               XLA_FFI_ExecutionStage_INSTANTIATE),
            "PRED/array/instantiate");
  std::ostringstream kinds;
  using xffi::ffi::operator<<;
  kinds << XLA_FFI_ArgType_BUFFER << " " << XLA_FFI_RetType_BUFFER;
  EXPECT_EQ(kinds.str(), "buffer buffer");
}

}  // namespace
