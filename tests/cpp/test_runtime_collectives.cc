// The Collectives extension on xffi's host runtime: handlers (written with
// ffi/collectives.h) request communicators and windows in PREPARE and get
// them later, for cliques of one device; stages, groups and multi-device
// cliques are checked with clear errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "xffi/ffi.h"
#include "xffi/ffi/collectives.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;
using xffi::testing::InvokeOptions;

namespace {

using Groups = std::vector<std::vector<int64_t>>;

// A handler per stage, taking the group mode and groups from the test.
struct Fixture {
  xffi::HostCollectives collectives;
  xffi::ExecutionContext context;
  xffi::CallSiteState site;
  float region[8] = {};

  Fixture(int64_t replicas, int64_t partitions, int32_t device)
      : collectives(replicas, partitions) {
    context.set_collectives(&collectives);
    context.set_device_ordinal(device);
  }

  xffi::testing::InvokeResult Run(XLA_FFI_ExecutionStage stage,
                                  const ffi::Ffi& handler) {
    auto frame = CallFrameBuilder().Build();
    InvokeOptions options;
    options.stage = stage;
    options.context = &context;
    options.state = &site;
    return Invoke(handler, frame, options);
  }
};

TEST(RuntimeCollectives, OneDeviceCliqueFromPrepareToExecute) {
  Fixture f(/*replicas=*/2, /*partitions=*/1, /*device=*/1);
  Groups groups = {{0}, {1}};
  auto prepare =
      ffi::Ffi::BindPrepare()
          .Ctx<ffi::Extension<ffi::CollectivesExtension>>()
          .To([&](ffi::CommunicatorContext comms) -> ffi::Error {
            ffi::Error requested = comms.RequestCommunicator(
                ffi::GroupMode::kCrossReplica, groups, 7);
            if (requested.failure()) return requested;
            return comms.RequestWindow(ffi::GroupMode::kCrossReplica, groups, 7,
                                       {{f.region, sizeof(f.region), 5}});
          });
  auto execute =
      ffi::Ffi::Bind().Ctx<ffi::Extension<ffi::CollectivesExtension>>().To(
          [&](ffi::CommunicatorContext comms) -> ffi::Error {
            auto communicator =
                comms.GetCommunicator(ffi::GroupMode::kCrossReplica, groups, 7);
            if (communicator.has_error()) return communicator.error();
            auto* host =
                reinterpret_cast<XFFI_HostCommunicator*>(*communicator);
            EXPECT_EQ(host->struct_size, XFFI_HostCommunicator_STRUCT_SIZE);
            EXPECT_EQ(host->rank, 0);
            EXPECT_EQ(host->num_ranks, 1);
            EXPECT_EQ(host->device_ids[0], 1);
            auto window = comms.GetWindow(ffi::GroupMode::kCrossReplica, groups,
                                          7, f.region + 2);
            if (window.has_error()) return window.error();
            EXPECT_EQ(window->offset, 2 * sizeof(float));
            auto* host_window =
                reinterpret_cast<XFFI_HostWindow*>(window->window);
            EXPECT_EQ(host_window->base, f.region);
            EXPECT_EQ(host_window->byte_size, sizeof(f.region));
            EXPECT_EQ(host_window->flags, 5u);
            return ffi::Error::Success();
          });
  auto prepared = f.Run(XLA_FFI_ExecutionStage_PREPARE, *prepare);
  ASSERT_TRUE(prepared.ok()) << prepared.message();
  EXPECT_EQ(f.collectives.num_communicators(), 1u);
  EXPECT_EQ(f.collectives.num_windows(), 1u);
  auto executed = f.Run(XLA_FFI_ExecutionStage_EXECUTE, *execute);
  EXPECT_TRUE(executed.ok()) << executed.message();
}

TEST(RuntimeCollectives, StagesAreEnforced) {
  Fixture f(1, 1, 0);
  auto request = [&](ffi::CommunicatorContext comms) {
    return comms.RequestCommunicator(ffi::GroupMode::kCrossReplica, {}, 0);
  };
  auto late =
      ffi::Ffi::Bind().Ctx<ffi::Extension<ffi::CollectivesExtension>>().To(
          request);
  auto result = f.Run(XLA_FFI_ExecutionStage_EXECUTE, *late);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(result.message(),
            "XLA_FFI_Collectives_Extension.request_communicator: available "
            "in the PREPARE stage only, called in EXECUTE");

  auto early =
      ffi::Ffi::BindPrepare()
          .Ctx<ffi::Extension<ffi::CollectivesExtension>>()
          .To([](ffi::CommunicatorContext comms) {
            return comms.GetCommunicator(ffi::GroupMode::kCrossReplica, {}, 0)
                .error();
          });
  result = f.Run(XLA_FFI_ExecutionStage_PREPARE, *early);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_THAT(result.message(),
              HasSubstr("available in the INITIALIZE and EXECUTE stages "
                        "only, called in PREPARE"));
}

TEST(RuntimeCollectives, GetNeedsARequestFirst) {
  Fixture f(1, 1, 0);
  auto get = ffi::Ffi::BindInitialize()
                 .Ctx<ffi::Extension<ffi::CollectivesExtension>>()
                 .To([](ffi::CommunicatorContext comms) -> ffi::Error {
                   auto window = comms.GetWindow(ffi::GroupMode::kCrossReplica,
                                                 {}, 3, nullptr);
                   return window.error();
                 });
  auto result = f.Run(XLA_FFI_ExecutionStage_INITIALIZE, *get);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(result.message(),
            "XLA_FFI_Collectives_Extension.get_window: no communicator for "
            "the clique of devices [0] (communication id 3) was requested in "
            "the PREPARE stage");
}

TEST(RuntimeCollectives, SeveralDevicesNeedAMultiDeviceRuntime) {
  Fixture f(/*replicas=*/2, /*partitions=*/2, /*device=*/3);
  std::vector<std::pair<ffi::GroupMode, Groups>> cases = {
      {ffi::GroupMode::kCrossReplica, {}},          // replicas 0,1 of p 1
      {ffi::GroupMode::kCrossPartition, {{0, 1}}},  // partitions of r 1
      {ffi::GroupMode::kCrossReplicaAndPartition, {{1}}},  // r 1, all p
      {ffi::GroupMode::kFlattenedId, {{0, 3}, {1, 2}}},
  };
  std::vector<std::string> devices = {"[1, 3]", "[2, 3]", "[2, 3]", "[0, 3]"};
  for (size_t i = 0; i < cases.size(); ++i) {
    auto handler = ffi::Ffi::BindPrepare()
                       .Ctx<ffi::Extension<ffi::CollectivesExtension>>()
                       .To([&](ffi::CommunicatorContext comms) {
                         return comms.RequestCommunicator(cases[i].first,
                                                          cases[i].second, 0);
                       });
    auto result = f.Run(XLA_FFI_ExecutionStage_PREPARE, *handler);
    EXPECT_EQ(result.code(), XLA_FFI_Error_Code_UNIMPLEMENTED) << i;
    EXPECT_EQ(result.message(),
              "XLA_FFI_Collectives_Extension.request_communicator: the "
              "clique of devices " +
                  devices[i] +
                  " needs a multi-device runtime: xffi runs each custom call "
                  "on one device at a time and has communicators for cliques "
                  "of one device only")
        << i;
  }
  // The device's own partition alone is a clique of one.
  auto alone = ffi::Ffi::BindPrepare()
                   .Ctx<ffi::Extension<ffi::CollectivesExtension>>()
                   .To([](ffi::CommunicatorContext comms) {
                     return comms.RequestCommunicator(
                         ffi::GroupMode::kCrossPartition, {{1}, {0}}, 0);
                   });
  EXPECT_TRUE(f.Run(XLA_FFI_ExecutionStage_PREPARE, *alone).ok());
}

TEST(RuntimeCollectives, MalformedGroupsAreNamed) {
  Fixture f(2, 1, 0);
  std::vector<std::pair<Groups, std::string>> cases = {
      {{{1}},
       "device 0 (replica 0, partition 0) is in none of the 1 replica "
       "groups"},
      {{{0, 5}},
       "replica group 0 names id 5, outside [0, 2) for "
       "CROSS_REPLICA"},
      {{{0, 0}},
       "the replica group holding device 0 names a device twice: "
       "[0, 0]"},
  };
  for (const auto& [groups, message] : cases) {
    auto handler = ffi::Ffi::BindPrepare()
                       .Ctx<ffi::Extension<ffi::CollectivesExtension>>()
                       .To([&](ffi::CommunicatorContext comms) {
                         return comms.RequestCommunicator(
                             ffi::GroupMode::kCrossReplica, groups, 0);
                       });
    auto result = f.Run(XLA_FFI_ExecutionStage_PREPARE, *handler);
    EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
    EXPECT_THAT(result.message(), HasSubstr(message));
  }
  auto negative = ffi::Ffi::BindPrepare()
                      .Ctx<ffi::Extension<ffi::CollectivesExtension>>()
                      .To([](ffi::CommunicatorContext comms) {
                        return comms.RequestCommunicator(
                            ffi::GroupMode::kFlattenedId, {{0}}, -1);
                      });
  EXPECT_THAT(f.Run(XLA_FFI_ExecutionStage_PREPARE, *negative).message(),
              HasSubstr("communication_id must not be negative, got -1"));
}

TEST(RuntimeCollectives, WindowsNeedTheirCommunicator) {
  Fixture f(1, 1, 0);
  auto handler =
      ffi::Ffi::BindPrepare()
          .Ctx<ffi::Extension<ffi::CollectivesExtension>>()
          .To([&](ffi::CommunicatorContext comms) {
            return comms.RequestWindow(ffi::GroupMode::kCrossReplica, {}, 0,
                                       {{f.region, sizeof(f.region)}});
          });
  auto result = f.Run(XLA_FFI_ExecutionStage_PREPARE, *handler);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_THAT(result.message(), HasSubstr("request_window: no communicator"));
}

TEST(RuntimeCollectives, AbsentWithoutHostCollectives) {
  xffi::ExecutionContext context;
  auto handler = ffi::Ffi::BindPrepare()
                     .Ctx<ffi::Extension<ffi::CollectivesExtension>>()
                     .To([](ffi::CommunicatorContext) { return ffi::Error(); });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.stage = XLA_FFI_ExecutionStage_PREPARE;
  options.context = &context;
  auto result = Invoke(*handler, frame, options);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("CollectivesExtension"));
}

}  // namespace
