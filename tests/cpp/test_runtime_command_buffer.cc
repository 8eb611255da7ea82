// The Record extension on xffi's host runtime: a RECORD-stage handler
// (written with ffi/record.h) records copies and joins into its call site's
// CommandBuffer, updates them on later recordings, and the buffer replays
// them; kernel launches are refused naming the kernel.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "xffi/ffi.h"
#include "xffi/ffi/record.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;
using xffi::testing::InvokeOptions;

namespace {

// Copies argument i to result i, for every pair; a join depends on all.
ffi::Error RecordCopies(ffi::RecordContext record, ffi::RemainingArgs args,
                        ffi::RemainingRets rets) {
  for (size_t i = 0; i < args.size(); ++i) {
    ffi::AnyBuffer in = *args.get<ffi::AnyBuffer>(i);
    ffi::Result<ffi::AnyBuffer> out = *rets.get<ffi::AnyBuffer>(i);
    if (record.action() == ffi::RecordAction::kCreate) {
      auto copy = record.CreateMemcpyD2D(out->untyped_data(), in.untyped_data(),
                                         in.size_bytes());
      if (copy.has_error()) return copy.error();
    } else {
      ffi::Error updated =
          record.UpdateMemcpyD2D(record.commands()[i], out->untyped_data(),
                                 in.untyped_data(), in.size_bytes());
      if (updated.failure()) return updated;
    }
  }
  if (record.action() == ffi::RecordAction::kCreate) {
    auto join =
        record.CreateEmptyCommand({record.commands()[0], record.commands()[1]});
    if (join.has_error()) return join.error();
  }
  return ffi::Error::Success();
}

auto MakeRecorder() {
  return ffi::Ffi::BindRecord()
      .Ctx<ffi::Extension<ffi::RecordExtension>>()
      .RemainingArgs()
      .RemainingRets()
      .To(RecordCopies);
}

InvokeOptions RecordOptions(xffi::CallSiteState& site) {
  InvokeOptions options;
  options.stage = XLA_FFI_ExecutionStage_RECORD;
  options.state = &site;
  return options;
}

TEST(RuntimeCommandBuffer, RecordsThenReplays) {
  auto handler = MakeRecorder();
  float a[2] = {1, 2}, b[3] = {3, 4, 5}, x[2] = {}, y[3] = {};
  auto frame = CallFrameBuilder()
                   .Arg(a, {2})
                   .Arg(b, {3})
                   .Ret(x, {2})
                   .Ret(y, {3})
                   .Build();
  xffi::CallSiteState site;
  auto result = Invoke(*handler, frame, RecordOptions(site));
  ASSERT_TRUE(result.ok()) << result.message();
  xffi::CommandBuffer& commands = site.command_buffer();
  EXPECT_TRUE(commands.recorded());
  EXPECT_EQ(commands.size(), 3u);
  EXPECT_THAT(x, ElementsAre(0, 0));  // recorded, not run
  commands.Execute();
  EXPECT_THAT(x, ElementsAre(1, 2));
  EXPECT_THAT(y, ElementsAre(3, 4, 5));
}

TEST(RuntimeCommandBuffer, LaterRecordingsUpdate) {
  auto handler = MakeRecorder();
  float a[2] = {1, 2}, b[1] = {3}, x[2] = {}, y[1] = {};
  auto frame = CallFrameBuilder()
                   .Arg(a, {2})
                   .Arg(b, {1})
                   .Ret(x, {2})
                   .Ret(y, {1})
                   .Build();
  xffi::CallSiteState site;
  ASSERT_TRUE(Invoke(*handler, frame, RecordOptions(site)).ok());

  // The executor moved the buffers; the next recording updates the copies.
  float a2[2] = {7, 8}, x2[2] = {};
  frame.SetArgData(0, a2);
  frame.SetRetData(0, x2);
  auto result = Invoke(*handler, frame, RecordOptions(site));
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(site.command_buffer().size(), 3u);
  site.command_buffer().Execute();
  EXPECT_THAT(x2, ElementsAre(7, 8));
  EXPECT_THAT(x, ElementsAre(0, 0));
  EXPECT_THAT(y, ElementsAre(3));

  site.command_buffer().Clear();
  EXPECT_FALSE(site.command_buffer().recorded());
  EXPECT_EQ(site.command_buffer().size(), 0u);
}

TEST(RuntimeCommandBuffer, OnlyTheRecordStageHasTheExtension) {
  auto handler =
      ffi::Ffi::Bind().Ctx<ffi::Extension<ffi::RecordExtension>>().To(
          [](ffi::RecordContext) { return ffi::Error(); });
  auto frame = CallFrameBuilder().Build();
  auto result = Invoke(*handler, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("RecordExtension"));
  EXPECT_THAT(result.message(), HasSubstr("is not in the context"));
}

TEST(RuntimeCommandBuffer, StreamCaptureRequestsAreKept) {
  auto handler =
      ffi::Ffi::BindRecord().Ctx<ffi::Extension<ffi::RecordExtension>>().To(
          [](ffi::RecordContext record) {
            return record.RequestStreamCapture();
          });
  auto frame = CallFrameBuilder().Build();
  xffi::CallSiteState site;
  ASSERT_TRUE(Invoke(*handler, frame, RecordOptions(site)).ok());
  EXPECT_TRUE(site.command_buffer().stream_capture_requested());
  EXPECT_EQ(site.command_buffer().size(), 0u);
}

TEST(RuntimeCommandBuffer, KernelLaunchesNeedAGpu) {
  auto handler =
      ffi::Ffi::BindRecord().Ctx<ffi::Extension<ffi::RecordExtension>>().To(
          [](ffi::RecordContext record) -> ffi::Error {
            const char ptx[] = ".version 8.0";
            void* pointer = nullptr;
            auto launch = record.CreateLaunch(
                "my_kernel", ptx, sizeof(ptx), ffi::SourceFormat::kPtx,
                XLA_FFI_LaunchDims{{1, 1, 1}, {32, 1, 1}, {0, 0, 0}}, 0, false,
                std::vector<void*>{pointer});
            return launch.error();
          });
  auto frame = CallFrameBuilder().Build();
  xffi::CallSiteState site;
  auto result = Invoke(*handler, frame, RecordOptions(site));
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(result.message(),
            "XLA_FFI_RecordApi.create_launch: kernel 'my_kernel' (PTX): "
            "xffi's host command buffer cannot launch kernels; recording one "
            "needs a GPU runtime (the host records copies and joins)");
}

TEST(RuntimeCommandBuffer, BadCommandsAreRefused) {
  const XLA_FFI_Command* foreign = nullptr;
  auto handler =
      ffi::Ffi::BindRecord()
          .Ctx<ffi::Extension<ffi::RecordExtension>>()
          .Attr<int32_t>("case")
          .To([&foreign](ffi::RecordContext record,
                         int32_t which) -> ffi::Error {
            char data[4] = {};
            switch (which) {
              case 0:
                return record.CreateMemcpyD2D(nullptr, data, 4).error();
              case 1:
                return record.CreateEmptyCommand({foreign}).error();
              case 2:
                return record.UpdateMemcpyD2D(foreign, data, data, 4);
              default: {
                auto join = record.CreateEmptyCommand();
                return record.UpdateMemcpyD2D(*join, data, data + 2, 2);
              }
            }
          });
  xffi::CallSiteState site;
  // A handle from another recording is foreign to this one.
  xffi::CallSiteState other_site;
  xffi::CommandBuffer& other = other_site.command_buffer();
  XLA_FFI_RecordFrame* frame = other.BeginRecording();
  ASSERT_EQ(
      frame->api->create_empty_command(frame->record_ctx, nullptr, 0, &foreign),
      nullptr);

  std::vector<std::string> messages;
  for (int32_t which = 0; which < 4; ++which) {
    auto call = CallFrameBuilder().Attr("case", which).Build();
    auto result = Invoke(*handler, call, RecordOptions(site));
    EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
    messages.push_back(result.message());
  }
  EXPECT_EQ(messages[0],
            "XLA_FFI_RecordApi.create_memcpy_d2d: dst is null for a copy of "
            "4 bytes");
  EXPECT_THAT(messages[1], HasSubstr("create_empty_command: dependency 0"));
  EXPECT_THAT(messages[1], HasSubstr("is not a command of this recording"));
  EXPECT_THAT(messages[2], HasSubstr("is not a copy of this recording"));
  EXPECT_THAT(messages[3], HasSubstr("is not a copy of this recording"));
}

TEST(RuntimeCommandBuffer, FrameCapacityIsEnforcedByTheWrapper) {
  xffi::CommandBuffer tiny(/*max_commands=*/1);
  XLA_FFI_RecordFrame* frame = tiny.BeginRecording();
  EXPECT_EQ(frame->action, XLA_FFI_RecordAction_Create);
  EXPECT_EQ(frame->max_commands, 1);
  ffi::RecordContext record(xffi::GetApi(), frame);
  EXPECT_TRUE(record.CreateEmptyCommand().has_value());
  auto second = record.CreateEmptyCommand();
  ASSERT_TRUE(second.has_error());
  EXPECT_EQ(second.error().errc(), ffi::ErrorCode::kResourceExhausted);
  EXPECT_EQ(record.commands().size(), 1);
  EXPECT_EQ(tiny.BeginRecording()->action, XLA_FFI_RecordAction_Update);
}

TEST(RuntimeCommandBuffer, ExtensionHeaderIsXlas) {
  XLA_FFI_RecordFrame frame{};
  XLA_FFI_Record_Extension extension = ffi::BuildRecordCExtension(&frame);
  EXPECT_EQ(extension.extension_base.id.extension_type, 128);
  EXPECT_EQ(extension.extension_base.id.major_version, 0);
  EXPECT_EQ(extension.extension_base.id.minor_version, 2);
  EXPECT_EQ(extension.extension_base.struct_size,
            sizeof(XLA_FFI_Record_Extension));
  EXPECT_EQ(extension.record_frame, &frame);
}

}  // namespace
