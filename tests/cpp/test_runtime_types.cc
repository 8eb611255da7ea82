// The type registry and Type_Register.
#include "xffi/runtime/types.h"

#include <cstring>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xffi/runtime/api.h"

namespace {

using ::testing::HasSubstr;

std::string TakeMessage(XLA_FFI_Error* error, XLA_FFI_Error_Code* code) {
  XLA_FFI_Error_GetDetails_Args args{};
  args.struct_size = XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
  args.error = error;
  xffi::GetApi()->XLA_FFI_Error_GetDetails(&args);
  std::string message = args.message;
  if (code) *code = args.errc;
  XLA_FFI_Error_Destroy_Args destroy{};
  destroy.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
  destroy.error = error;
  xffi::GetApi()->XLA_FFI_Error_Destroy(&destroy);
  return message;
}

void NoopDeleter(void*) {}

TEST(RuntimeTypes, AssignsPositiveIdsAndRemembersNames) {
  auto a = xffi::RegisterType("types.A", XLA_FFI_TypeId{0}, nullptr);
  auto b = xffi::RegisterType("types.B", XLA_FFI_TypeId{0}, nullptr);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_GT(a->type_id, 0);
  EXPECT_GT(b->type_id, 0);
  EXPECT_NE(a->type_id, b->type_id);
  EXPECT_EQ(xffi::TypeName(*a), "types.A");
  EXPECT_EQ(xffi::DescribeType(*a),
            "'types.A' (id " + std::to_string(a->type_id) + ")");
  EXPECT_EQ(xffi::TypeName(XLA_FFI_TypeId{987654}), "");
  EXPECT_EQ(xffi::DescribeType(XLA_FFI_TypeId{987654}),
            "id 987654 (unregistered)");

  auto again = xffi::RegisterType("types.A", XLA_FFI_TypeId{0}, nullptr);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->type_id, a->type_id);
  auto same_id = xffi::RegisterType("types.A", *a, nullptr);
  ASSERT_TRUE(same_id.ok());
  EXPECT_EQ(same_id->type_id, a->type_id);
}

TEST(RuntimeTypes, RequestedIdsAreChecked) {
  auto fixed = xffi::RegisterType("types.Fixed", XLA_FFI_TypeId{5000}, nullptr);
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->type_id, 5000);

  auto other_name =
      xffi::RegisterType("types.Other", XLA_FFI_TypeId{5000}, nullptr);
  ASSERT_FALSE(other_name.ok());
  EXPECT_EQ(other_name.status().code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
  EXPECT_EQ(other_name.status().message(),
            "type id 5000 requested for type 'types.Other' already belongs to "
            "type 'types.Fixed'");

  auto other_id =
      xffi::RegisterType("types.Fixed", XLA_FFI_TypeId{5001}, nullptr);
  ASSERT_FALSE(other_id.ok());
  EXPECT_EQ(other_id.status().message(),
            "type 'types.Fixed' is registered with id 5000, not the requested "
            "5001");

  auto negative = xffi::RegisterType("types.Neg", XLA_FFI_TypeId{-3}, nullptr);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(negative.status().message(), HasSubstr("-3 is negative"));

  auto unnamed = xffi::RegisterType("", XLA_FFI_TypeId{0}, nullptr);
  ASSERT_FALSE(unnamed.ok());
  EXPECT_EQ(unnamed.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
}

TEST(RuntimeTypes, KeepsTheDeleter) {
  XLA_FFI_TypeInfo info{XLA_FFI_TypeInfo_STRUCT_SIZE, nullptr, NoopDeleter};
  auto id = xffi::RegisterType("types.WithDeleter", XLA_FFI_TypeId{0}, &info);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(xffi::TypeDeleterOf(*id), &NoopDeleter);
  auto plain =
      xffi::RegisterType("types.NoDeleter", XLA_FFI_TypeId{0}, nullptr);
  EXPECT_EQ(xffi::TypeDeleterOf(*plain), nullptr);
  // A later registration may supply the missing deleter.
  ASSERT_TRUE(
      xffi::RegisterType("types.NoDeleter", XLA_FFI_TypeId{0}, &info).ok());
  EXPECT_EQ(xffi::TypeDeleterOf(*plain), &NoopDeleter);
}

TEST(RuntimeTypesCApi, RegistersThroughTheTable) {
  XLA_FFI_TypeInfo info{XLA_FFI_TypeInfo_STRUCT_SIZE, nullptr, NoopDeleter};
  XLA_FFI_TypeId id{0};
  XLA_FFI_Type_Register_Args args{};
  args.struct_size = XLA_FFI_Type_Register_Args_STRUCT_SIZE;  // 40
  args.name = {"types.C", 7};
  args.type_id = &id;
  args.type_info = &info;
  ASSERT_EQ(xffi::GetApi()->XLA_FFI_Type_Register(&args), nullptr);
  EXPECT_GT(id.type_id, 0);
  EXPECT_EQ(xffi::TypeName(id), "types.C");
  EXPECT_EQ(xffi::TypeDeleterOf(id), &NoopDeleter);

  // The same name with id 0 again: the same id.
  XLA_FFI_TypeId again{0};
  args.type_id = &again;
  args.type_info = nullptr;
  ASSERT_EQ(xffi::GetApi()->XLA_FFI_Type_Register(&args), nullptr);
  EXPECT_EQ(again.type_id, id.type_id);

  // The 0.1 spelling of the slot.
  XLA_FFI_TypeId old{0};
  XLA_FFI_TypeId_Register_Args old_args{};
  old_args.struct_size = XLA_FFI_Type_Register_Args_STRUCT_SIZE;
  old_args.name = {"types.C.old", 11};
  old_args.type_id = &old;
  ASSERT_EQ(xffi::GetApi()->XLA_FFI_TypeId_Register(&old_args), nullptr);
  EXPECT_GT(old.type_id, 0);
}

TEST(RuntimeTypesCApi, RejectsBadArgs) {
  XLA_FFI_Error_Code code;
  EXPECT_EQ(TakeMessage(xffi::GetApi()->XLA_FFI_Type_Register(nullptr), &code),
            "XLA_FFI_Type_Register: the XLA_FFI_Type_Register_Args pointer is "
            "null");
  EXPECT_EQ(code, XLA_FFI_Error_Code_INVALID_ARGUMENT);

  XLA_FFI_TypeId id{0};
  XLA_FFI_Type_Register_Args args{};
  args.struct_size = 32;
  args.name = {"types.Bad", 9};
  args.type_id = &id;
  EXPECT_EQ(TakeMessage(xffi::GetApi()->XLA_FFI_Type_Register(&args), &code),
            "XLA_FFI_Type_Register: XLA_FFI_Type_Register_Args.struct_size is "
            "32 but must be at least 40");

  args.struct_size = XLA_FFI_Type_Register_Args_STRUCT_SIZE;
  args.type_id = nullptr;
  EXPECT_EQ(TakeMessage(xffi::GetApi()->XLA_FFI_Type_Register(&args), &code),
            "XLA_FFI_Type_Register: type_id is null (type 'types.Bad')");

  XLA_FFI_TypeInfo small_info{8, nullptr, nullptr};
  args.type_id = &id;
  args.type_info = &small_info;
  EXPECT_EQ(TakeMessage(xffi::GetApi()->XLA_FFI_Type_Register(&args), &code),
            "XLA_FFI_Type_Register: XLA_FFI_TypeInfo.struct_size is 8 but "
            "must be at least 24");

  args.type_info = nullptr;
  args.name = {nullptr, 4};
  EXPECT_THAT(TakeMessage(xffi::GetApi()->XLA_FFI_Type_Register(&args), &code),
              HasSubstr("name.ptr is null"));

  XLA_FFI_TypeId taken{0};
  args.name = {"types.Taken", 11};
  args.type_id = &taken;
  ASSERT_EQ(xffi::GetApi()->XLA_FFI_Type_Register(&args), nullptr);
  XLA_FFI_TypeId wrong{taken.type_id + 100000};
  args.type_id = &wrong;
  EXPECT_THAT(TakeMessage(xffi::GetApi()->XLA_FFI_Type_Register(&args), &code),
              HasSubstr("XLA_FFI_Type_Register: type 'types.Taken' is "
                        "registered with id"));
  EXPECT_EQ(code, XLA_FFI_Error_Code_ALREADY_EXISTS);
}

}  // namespace
