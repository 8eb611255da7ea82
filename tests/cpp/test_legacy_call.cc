// Calling legacy targets: every API version, Host and CUDA conventions, tuple
// flattening, tokens, failures and unknown targets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "xffi/custom_call_status.h"
#include "xffi/runtime/legacy.h"

namespace {

using ::testing::HasSubstr;
using ::xffi::CallLegacyTarget;
using ::xffi::LegacyApiVersion;
using ::xffi::LegacyCallFrame;
using ::xffi::LegacyShape;
using ::xffi::LegacyTargetRecord;
using ::xffi::Platform;

// What the last target call saw.
struct Seen {
  void* out = nullptr;
  const void** in = nullptr;
  void* stream = nullptr;
  void** buffers = nullptr;
  std::string opaque;
  bool had_status = false;
} seen;

void HostV1(void* out, const void** in) {
  seen.out = out;
  seen.in = in;
  const float* a = static_cast<const float*>(in[0]);
  const float* b = static_cast<const float*>(in[1]);
  *static_cast<float*>(out) = *a - *b;
}

void HostV2(void* out, const void** in, XlaCustomCallStatus* status) {
  seen.had_status = status != nullptr;
  float x = *static_cast<const float*>(in[0]);
  if (x < 0) {
    const char* message = "negative input";
    XlaCustomCallStatusSetFailure(status, message, strlen(message));
    return;
  }
  *static_cast<float*>(out) = x * 2;
}

void HostV3(void* out, const void** in, const char* opaque, size_t opaque_len,
            XlaCustomCallStatus* status) {
  seen.opaque.assign(opaque, opaque_len);
  if (seen.opaque == "fail") {
    XlaCustomCallStatusSetFailure(status, "opaque said fail", 100);
    return;
  }
  *static_cast<float*>(out) = *static_cast<const float*>(in[0]) + 1;
}

void CudaV1(void* stream, void** buffers, const char* opaque,
            size_t opaque_len) {
  seen.stream = stream;
  seen.buffers = buffers;
  seen.opaque.assign(opaque, opaque_len);
}

void CudaV23(void* stream, void** buffers, const char* opaque,
             size_t opaque_len, XlaCustomCallStatus* status) {
  CudaV1(stream, buffers, opaque, opaque_len);
  if (seen.opaque == "fail") XlaCustomCallStatusSetFailure(status, "gpu", 3);
}

template <typename Fn>
LegacyTargetRecord Target(const char* name, Fn* fn, Platform platform,
                          LegacyApiVersion version) {
  LegacyTargetRecord record;
  record.name = name;
  record.function = reinterpret_cast<void*>(fn);
  record.platform = platform;
  record.api_version = version;
  return record;
}

LegacyCallFrame ScalarFrame(Platform platform, size_t num_operands) {
  return LegacyCallFrame::Create(
      platform, std::vector<LegacyShape>(num_operands, LegacyShape::Array()),
      LegacyShape::Array());
}

TEST(LegacyCall, HostVersion1) {
  float a = 1.25f, b = 0.5f, out = 0;
  LegacyCallFrame frame = ScalarFrame(Platform::kHost, 2);
  ASSERT_TRUE(frame.SetOperandLeaf(0, &a).ok());
  ASSERT_TRUE(frame.SetOperandLeaf(1, &b).ok());
  ASSERT_TRUE(frame.SetResultLeaf(0, &out).ok());
  auto target =
      Target("sub", &HostV1, Platform::kHost, LegacyApiVersion::kOriginal);
  ASSERT_TRUE(
      CallLegacyTarget(target, LegacyApiVersion::kOriginal, frame).ok());
  EXPECT_EQ(out, 0.75f);
  EXPECT_EQ(seen.out, &out);
  EXPECT_EQ(seen.in[0], &a);
  EXPECT_EQ(seen.in[1], &b);
}

TEST(LegacyCall, UnspecifiedCallSiteUsesTheRegisteredVersion) {
  float a = 3, b = 1, out = 0;
  LegacyCallFrame frame = ScalarFrame(Platform::kHost, 2);
  ASSERT_TRUE(frame.SetOperandLeaf(0, &a).ok());
  ASSERT_TRUE(frame.SetOperandLeaf(1, &b).ok());
  ASSERT_TRUE(frame.SetResultLeaf(0, &out).ok());
  auto target =
      Target("sub", &HostV1, Platform::kHost, LegacyApiVersion::kOriginal);
  ASSERT_TRUE(
      CallLegacyTarget(target, LegacyApiVersion::kUnspecified, frame).ok());
  EXPECT_EQ(out, 2.0f);
}

TEST(LegacyCall, UnspecifiedEverywhereIsAnError) {
  LegacyCallFrame frame = ScalarFrame(Platform::kHost, 2);
  auto target =
      Target("vague", &HostV1, Platform::kHost, LegacyApiVersion::kUnspecified);
  xffi::Status status =
      CallLegacyTarget(target, LegacyApiVersion::kUnspecified, frame);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_THAT(status.message(), HasSubstr("'vague'"));
}

TEST(LegacyCall, HostVersion2SuccessAndFailure) {
  float x = 4, out = 0;
  LegacyCallFrame frame = ScalarFrame(Platform::kHost, 1);
  ASSERT_TRUE(frame.SetOperandLeaf(0, &x).ok());
  ASSERT_TRUE(frame.SetResultLeaf(0, &out).ok());
  auto target = Target("twice", &HostV2, Platform::kHost,
                       LegacyApiVersion::kStatusReturning);
  ASSERT_TRUE(
      CallLegacyTarget(target, LegacyApiVersion::kStatusReturning, frame).ok());
  EXPECT_EQ(out, 8.0f);
  EXPECT_TRUE(seen.had_status);

  x = -1;
  xffi::Status status =
      CallLegacyTarget(target, LegacyApiVersion::kStatusReturning, frame);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_THAT(status.message(), HasSubstr("'twice'"));
  EXPECT_THAT(status.message(), HasSubstr("Host, API version 2"));
  EXPECT_THAT(status.message(), HasSubstr("negative input"));
}

TEST(LegacyCall, HostVersion3PassesOpaqueAndReportsFailure) {
  float x = 1, out = 0;
  LegacyCallFrame frame = ScalarFrame(Platform::kHost, 1);
  ASSERT_TRUE(frame.SetOperandLeaf(0, &x).ok());
  ASSERT_TRUE(frame.SetResultLeaf(0, &out).ok());
  frame.set_opaque(std::string("bytes\0with nul", 14));
  auto target = Target("plus_one", &HostV3, Platform::kHost,
                       LegacyApiVersion::kStatusReturningUnified);
  ASSERT_TRUE(
      CallLegacyTarget(target, LegacyApiVersion::kStatusReturningUnified, frame)
          .ok());
  EXPECT_EQ(out, 2.0f);
  EXPECT_EQ(seen.opaque, std::string("bytes\0with nul", 14));

  frame.set_opaque("fail");
  xffi::Status status = CallLegacyTarget(
      target, LegacyApiVersion::kStatusReturningUnified, frame);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_THAT(status.message(), HasSubstr("'plus_one'"));
  EXPECT_THAT(status.message(), HasSubstr("opaque said fail"));
}

TEST(LegacyCall, MismatchedVersionIsRefusedBeforeCalling) {
  LegacyCallFrame frame = ScalarFrame(Platform::kHost, 2);
  auto target =
      Target("sub", &HostV1, Platform::kHost, LegacyApiVersion::kOriginal);
  seen = {};
  xffi::Status status = CallLegacyTarget(
      target, LegacyApiVersion::kStatusReturningUnified, frame);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_THAT(status.message(), HasSubstr("'sub'"));
  EXPECT_THAT(status.message(),
              HasSubstr("registered as API version 1 (void(void* out, const "
                        "void** in))"));
  EXPECT_THAT(status.message(), HasSubstr("call site uses API version 3"));
  EXPECT_EQ(seen.out, nullptr);
}

TEST(LegacyCall, NonLegacyVersionIsRefused) {
  LegacyCallFrame frame = ScalarFrame(Platform::kHost, 2);
  auto target =
      Target("sub", &HostV1, Platform::kHost, LegacyApiVersion::kUnspecified);
  xffi::Status status =
      CallLegacyTarget(target, static_cast<LegacyApiVersion>(4), frame);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("API version 4"));
}

TEST(LegacyCall, HostTupleOperandIsATableOfPointers) {
  // The layout XLA documents: p0 = (f32[32], (f32[64], f32[128]), f32[256]).
  LegacyShape p0 = LegacyShape::Tuple(
      {LegacyShape::Array(),
       LegacyShape::Tuple({LegacyShape::Array(), LegacyShape::Array()}),
       LegacyShape::Array()});
  LegacyShape out_shape =
      LegacyShape::Tuple({LegacyShape::Array(), LegacyShape::Array()});
  LegacyCallFrame frame =
      LegacyCallFrame::Create(Platform::kHost, {p0}, out_shape);
  ASSERT_EQ(frame.num_operand_leaves(), 4u);
  ASSERT_EQ(frame.num_result_leaves(), 2u);
  float sub0[32], sub1[64], sub2[128], sub3[256], out0[512], out1[1024];
  float* operand_leaves[] = {sub0, sub1, sub2, sub3};
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(frame.SetOperandLeaf(i, operand_leaves[i]).ok());
  }
  ASSERT_TRUE(frame.SetResultLeaf(0, out0).ok());
  ASSERT_TRUE(frame.SetResultLeaf(1, out1).ok());

  const void** in = frame.host_in();
  void* const* tuple = static_cast<void* const*>(in[0]);
  EXPECT_EQ(tuple[0], sub0);
  void* const* subtuple = static_cast<void* const*>(tuple[1]);
  EXPECT_EQ(subtuple[0], sub1);
  EXPECT_EQ(subtuple[1], sub2);
  EXPECT_EQ(tuple[2], sub3);
  void* const* out = static_cast<void* const*>(frame.host_out());
  EXPECT_EQ(out[0], out0);
  EXPECT_EQ(out[1], out1);
}

TEST(LegacyCall, CudaBuffersAreFlattenedLeavesOperandsFirst) {
  LegacyShape p0 = LegacyShape::Tuple(
      {LegacyShape::Array(),
       LegacyShape::Tuple({LegacyShape::Array(), LegacyShape::Array()}),
       LegacyShape::Array()});
  LegacyShape out_shape =
      LegacyShape::Tuple({LegacyShape::Array(), LegacyShape::Array()});
  LegacyCallFrame frame =
      LegacyCallFrame::Create(Platform::kCuda, {p0}, out_shape);
  ASSERT_EQ(frame.num_operand_leaves(), 4u);
  ASSERT_EQ(frame.num_result_leaves(), 2u);
  int storage[6];
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(frame.SetOperandLeaf(i, &storage[i]).ok());
  }
  ASSERT_TRUE(frame.SetResultLeaf(0, &storage[4]).ok());
  ASSERT_TRUE(frame.SetResultLeaf(1, &storage[5]).ok());
  int fake_stream;
  frame.set_stream(&fake_stream);
  frame.set_opaque("cfg");

  auto target =
      Target("gpu_v1", &CudaV1, Platform::kCuda, LegacyApiVersion::kOriginal);
  ASSERT_TRUE(
      CallLegacyTarget(target, LegacyApiVersion::kOriginal, frame).ok());
  EXPECT_EQ(seen.stream, &fake_stream);
  EXPECT_EQ(seen.opaque, "cfg");
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(seen.buffers[i], &storage[i]);
}

TEST(LegacyCall, CudaVersions2And3ReportFailure) {
  LegacyCallFrame frame = LegacyCallFrame::Create(
      Platform::kCuda, {LegacyShape::Array()}, LegacyShape::Array());
  auto target = Target("gpu_v2", &CudaV23, Platform::kCuda,
                       LegacyApiVersion::kStatusReturning);
  frame.set_opaque("ok");
  ASSERT_TRUE(
      CallLegacyTarget(target, LegacyApiVersion::kStatusReturningUnified, frame)
          .ok());
  frame.set_opaque("fail");
  for (auto version : {LegacyApiVersion::kStatusReturning,
                       LegacyApiVersion::kStatusReturningUnified}) {
    xffi::Status status = CallLegacyTarget(target, version, frame);
    EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INTERNAL);
    EXPECT_THAT(status.message(), HasSubstr("'gpu_v2' (CUDA"));
    EXPECT_THAT(status.message(), HasSubstr("gpu"));
  }
  EXPECT_FALSE(
      CallLegacyTarget(target, LegacyApiVersion::kOriginal, frame).ok());
}

// As XLA passes them: null on CUDA, one non-null address on Host.
TEST(LegacyCall, TokensAreNullOnCudaAndOneAddressOnHost) {
  for (Platform platform : {Platform::kHost, Platform::kCuda}) {
    LegacyCallFrame frame = LegacyCallFrame::Create(
        platform, {LegacyShape::Token(), LegacyShape::Array()},
        LegacyShape::Tuple({LegacyShape::Array(), LegacyShape::Token()}));
    ASSERT_EQ(frame.num_operand_leaves(), 2u);
    ASSERT_EQ(frame.num_result_leaves(), 2u);
    int x, y;
    EXPECT_TRUE(frame.SetOperandLeaf(0, nullptr).ok());
    xffi::Status status = frame.SetOperandLeaf(0, &x);
    EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
    EXPECT_THAT(status.message(), HasSubstr("operand leaf 0 is a token"));
    ASSERT_TRUE(frame.SetOperandLeaf(1, &x).ok());
    ASSERT_TRUE(frame.SetResultLeaf(0, &y).ok());
    EXPECT_FALSE(frame.SetResultLeaf(1, &y).ok());
    if (platform == Platform::kHost) {
      EXPECT_NE(frame.host_in()[0], nullptr);
      EXPECT_EQ(frame.host_in()[1], &x);
      void* const* out = static_cast<void* const*>(frame.host_out());
      EXPECT_EQ(out[0], &y);
      EXPECT_EQ(out[1], frame.host_in()[0]);
    } else {
      void** buffers = frame.cuda_buffers();
      EXPECT_EQ(buffers[0], nullptr);
      EXPECT_EQ(buffers[1], &x);
      EXPECT_EQ(buffers[2], &y);
      EXPECT_EQ(buffers[3], nullptr);
    }
  }
}

TEST(LegacyCall, TokenResultOnHostIsTheTokenAddress) {
  LegacyCallFrame frame = LegacyCallFrame::Create(
      Platform::kHost, {LegacyShape::Token()}, LegacyShape::Token());
  EXPECT_NE(frame.host_out(), nullptr);
  EXPECT_EQ(frame.host_out(), frame.host_in()[0]);
  EXPECT_TRUE(frame.SetResultLeaf(0, nullptr).ok());
  EXPECT_NE(frame.host_out(), nullptr);
}

TEST(LegacyCall, LeafIndicesAreChecked) {
  LegacyCallFrame frame = ScalarFrame(Platform::kHost, 2);
  int x;
  xffi::Status status = frame.SetOperandLeaf(2, &x);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_OUT_OF_RANGE);
  EXPECT_THAT(status.message(), HasSubstr("operand leaf 2"));
  EXPECT_THAT(status.message(), HasSubstr("2 leaves"));
  status = frame.SetResultLeaf(1, &x);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_OUT_OF_RANGE);
  EXPECT_THAT(status.message(), HasSubstr("result leaf 1"));
}

TEST(LegacyCall, FrameSurvivesAMove) {
  LegacyShape tuple =
      LegacyShape::Tuple({LegacyShape::Array(), LegacyShape::Array()});
  LegacyCallFrame original =
      LegacyCallFrame::Create(Platform::kHost, {tuple}, LegacyShape::Array());
  int a, b;
  ASSERT_TRUE(original.SetOperandLeaf(0, &a).ok());
  ASSERT_TRUE(original.SetOperandLeaf(1, &b).ok());
  LegacyCallFrame moved = std::move(original);
  void* const* table = static_cast<void* const*>(moved.host_in()[0]);
  EXPECT_EQ(table[0], &a);
  EXPECT_EQ(table[1], &b);
}

TEST(LegacyCall, PlatformMismatchIsRefused) {
  LegacyCallFrame frame = ScalarFrame(Platform::kCuda, 2);
  auto target =
      Target("sub", &HostV1, Platform::kHost, LegacyApiVersion::kOriginal);
  xffi::Status status =
      CallLegacyTarget(target, LegacyApiVersion::kOriginal, frame);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("registered for Host"));
  EXPECT_THAT(status.message(), HasSubstr("laid out for CUDA"));
}

TEST(LegacyCall, NullFunctionIsRefused) {
  LegacyCallFrame frame = ScalarFrame(Platform::kHost, 2);
  LegacyTargetRecord target;
  target.name = "empty";
  xffi::Status status =
      CallLegacyTarget(target, LegacyApiVersion::kOriginal, frame);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("'empty' has a null function"));
}

TEST(LegacyCall, ByNameThroughTheRegistry) {
  ASSERT_TRUE(xffi::RegisterLegacyTarget("call_by_name",
                                         reinterpret_cast<void*>(&HostV1),
                                         "Host", LegacyApiVersion::kOriginal)
                  .ok());
  float a = 5, b = 2, out = 0;
  LegacyCallFrame frame = ScalarFrame(Platform::kHost, 2);
  ASSERT_TRUE(frame.SetOperandLeaf(0, &a).ok());
  ASSERT_TRUE(frame.SetOperandLeaf(1, &b).ok());
  ASSERT_TRUE(frame.SetResultLeaf(0, &out).ok());
  ASSERT_TRUE(
      CallLegacyTarget("call_by_name", LegacyApiVersion::kOriginal, frame)
          .ok());
  EXPECT_EQ(out, 3.0f);

  xffi::Status status =
      CallLegacyTarget("no_such_target", LegacyApiVersion::kOriginal, frame);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(status.message(), HasSubstr("'no_such_target'"));
  EXPECT_THAT(status.message(), HasSubstr("Host"));
}

}  // namespace
