// Per-call-site state across stages, in all three State_* layouts.
#include <cstring>
#include <functional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xffi/runtime/api.h"
#include "xffi/runtime/call.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/types.h"

namespace {

using ::testing::HasSubstr;

const XLA_FFI_Api* Api() { return xffi::GetApi(); }

struct Outcome {
  XLA_FFI_Error_Code code = XLA_FFI_Error_Code_OK;
  std::string message;
};
Outcome Take(XLA_FFI_Error* error) {
  if (error == nullptr) return {};
  XLA_FFI_Error_GetDetails_Args args{};
  args.struct_size = XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
  args.error = error;
  Api()->XLA_FFI_Error_GetDetails(&args);
  Outcome outcome{args.errc, args.message};
  XLA_FFI_Error_Destroy_Args destroy{};
  destroy.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
  destroy.error = error;
  Api()->XLA_FFI_Error_Destroy(&destroy);
  return outcome;
}

std::function<void(XLA_FFI_InvokeContext*)> body;
XLA_FFI_Error* Probe(XLA_FFI_CallFrame* frame) {
  body(frame->ctx);
  return nullptr;
}
void RunInHandler(xffi::CallSiteState* state, XLA_FFI_ExecutionStage stage,
                  std::function<void(XLA_FFI_InvokeContext*)> fn,
                  int handler_api_minor = XLA_FFI_API_MINOR) {
  body = std::move(fn);
  XLA_FFI_CallFrame frame{};
  frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  xffi::CallOptions options;
  options.state = state;
  options.stage = stage;
  options.handler_api_minor = handler_api_minor;
  options.target_name = "stateful";
  xffi::CallResult result = xffi::CallHandler(Probe, &frame, options);
  ASSERT_TRUE(result.status.ok()) << result.status.ToString();
}

struct Widget {
  static int deleted;
  int value;
};
int Widget::deleted = 0;
void DeleteWidget(void* p) {
  ++Widget::deleted;
  delete static_cast<Widget*>(p);
}

XLA_FFI_TypeId WidgetType() {
  static XLA_FFI_TypeInfo info{XLA_FFI_TypeInfo_STRUCT_SIZE, nullptr,
                               DeleteWidget};
  static XLA_FFI_TypeId id =
      *xffi::RegisterType("state.Widget", XLA_FFI_TypeId{0}, &info);
  return id;
}
XLA_FFI_TypeId GadgetType() {
  static XLA_FFI_TypeId id =
      *xffi::RegisterType("state.Gadget", XLA_FFI_TypeId{0}, nullptr);
  return id;
}

Outcome Set(XLA_FFI_InvokeContext* ctx, XLA_FFI_ExecutionStage stage,
            XLA_FFI_TypeId id, void* state) {
  XLA_FFI_State_Set_Args args{};
  args.struct_size = XLA_FFI_State_Set_Args_STRUCT_SIZE;
  args.ctx = ctx;
  args.stage = stage;
  args.type_id = &id;
  args.state = state;
  return Take(Api()->XLA_FFI_State_Set(&args));
}
Outcome Get(XLA_FFI_InvokeContext* ctx, XLA_FFI_ExecutionStage stage,
            XLA_FFI_TypeId id, void** state) {
  XLA_FFI_State_Get_Args args{};
  args.struct_size = XLA_FFI_State_Get_Args_STRUCT_SIZE;
  args.ctx = ctx;
  args.stage = stage;
  args.type_id = &id;
  Outcome outcome = Take(Api()->XLA_FFI_State_Get(&args));
  *state = args.state;
  return outcome;
}

// The layouts before the stage field (40 bytes), and the October-2025 0.2
// State_Set that carried its own deleter (48 bytes).
struct StatelessArgs {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_TypeId* type_id;
  void* state;
};
struct SetWithDeleterArgs {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_TypeId* type_id;
  void* state;
  void (*deleter)(void*);
};
static_assert(XLA_FFI_STRUCT_SIZE(StatelessArgs, state) == 40);
static_assert(XLA_FFI_STRUCT_SIZE(SetWithDeleterArgs, deleter) == 48);

TEST(RuntimeState, PerStageAcrossCalls) {
  const XLA_FFI_TypeId widget = WidgetType();
  Widget::deleted = 0;
  {
    xffi::CallSiteState state;
    auto* instantiated = new Widget{1};
    auto* prepared = new Widget{2};
    RunInHandler(&state, XLA_FFI_ExecutionStage_INSTANTIATE,
                 [&](XLA_FFI_InvokeContext* ctx) {
                   EXPECT_EQ(Set(ctx, XLA_FFI_ExecutionStage_INSTANTIATE,
                                 widget, instantiated)
                                 .code,
                             XLA_FFI_Error_Code_OK);
                 });
    RunInHandler(
        &state, XLA_FFI_ExecutionStage_PREPARE,
        [&](XLA_FFI_InvokeContext* ctx) {
          EXPECT_EQ(
              Set(ctx, XLA_FFI_ExecutionStage_PREPARE, widget, prepared).code,
              XLA_FFI_Error_Code_OK);
        });
    EXPECT_TRUE(state.Has(XLA_FFI_ExecutionStage_INSTANTIATE));
    EXPECT_TRUE(state.Has(XLA_FFI_ExecutionStage_PREPARE));
    EXPECT_FALSE(state.Has(XLA_FFI_ExecutionStage_INITIALIZE));
    for (int run = 0; run < 2; ++run) {
      RunInHandler(
          &state, XLA_FFI_ExecutionStage_EXECUTE,
          [&](XLA_FFI_InvokeContext* ctx) {
            void* p = nullptr;
            EXPECT_EQ(
                Get(ctx, XLA_FFI_ExecutionStage_INSTANTIATE, widget, &p).code,
                XLA_FFI_Error_Code_OK);
            EXPECT_EQ(p, instantiated);
            EXPECT_EQ(Get(ctx, XLA_FFI_ExecutionStage_PREPARE, widget, &p).code,
                      XLA_FFI_Error_Code_OK);
            EXPECT_EQ(p, prepared);
          });
    }
    EXPECT_EQ(Widget::deleted, 0);
  }
  EXPECT_EQ(Widget::deleted, 2);  // with the deleter of the registered type
}

TEST(RuntimeState, Errors) {
  const XLA_FFI_TypeId widget = WidgetType();
  const XLA_FFI_TypeId gadget = GadgetType();
  Widget::deleted = 0;
  xffi::CallSiteState state;
  Widget first{1};
  Widget second{2};
  RunInHandler(
      &state, XLA_FFI_ExecutionStage_INSTANTIATE,
      [&](XLA_FFI_InvokeContext* ctx) {
        void* p = nullptr;
        Outcome missing =
            Get(ctx, XLA_FFI_ExecutionStage_INSTANTIATE, widget, &p);
        EXPECT_EQ(missing.code, XLA_FFI_Error_Code_NOT_FOUND);
        EXPECT_EQ(missing.message,
                  "XLA_FFI_State_Get (handler 'stateful'): no state "
                  "was set for stage INSTANTIATE (requested type "
                  "'state.Widget' (id " +
                      std::to_string(widget.type_id) + "))");

        // A null deleter registered for Gadget: never deleted.
        EXPECT_EQ(
            Set(ctx, XLA_FFI_ExecutionStage_INSTANTIATE, gadget, &first).code,
            XLA_FFI_Error_Code_OK);
        Outcome twice =
            Set(ctx, XLA_FFI_ExecutionStage_INSTANTIATE, gadget, &second);
        EXPECT_EQ(twice.code, XLA_FFI_Error_Code_ALREADY_EXISTS);
        EXPECT_THAT(twice.message, HasSubstr("XLA_FFI_State_Set (handler "
                                             "'stateful'): state for stage "
                                             "INSTANTIATE is already set (type "
                                             "'state.Gadget'"));

        Outcome mismatch =
            Get(ctx, XLA_FFI_ExecutionStage_INSTANTIATE, widget, &p);
        EXPECT_EQ(mismatch.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
        EXPECT_EQ(mismatch.message,
                  "XLA_FFI_State_Get (handler 'stateful'): state for "
                  "stage INSTANTIATE has type 'state.Gadget' (id " +
                      std::to_string(gadget.type_id) +
                      "), but type 'state.Widget' (id " +
                      std::to_string(widget.type_id) + ") was requested");

        // Written as an integer: 42 is no XLA_FFI_ExecutionStage.
        XLA_FFI_State_Set_Args bad{};
        bad.struct_size = XLA_FFI_State_Set_Args_STRUCT_SIZE;
        bad.ctx = ctx;
        XLA_FFI_TypeId gadget_id = gadget;
        bad.type_id = &gadget_id;
        bad.state = &first;
        const int32_t forty_two = 42;
        std::memcpy(&bad.stage, &forty_two, sizeof(forty_two));
        Outcome bad_stage = Take(Api()->XLA_FFI_State_Set(&bad));
        EXPECT_EQ(bad_stage.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
        EXPECT_EQ(bad_stage.message,
                  "XLA_FFI_State_Set (handler 'stateful'): unknown execution "
                  "stage 42");

        XLA_FFI_State_Set_Args null_type{};
        null_type.struct_size = XLA_FFI_State_Set_Args_STRUCT_SIZE;
        null_type.ctx = ctx;
        Outcome null_id = Take(Api()->XLA_FFI_State_Set(&null_type));
        EXPECT_EQ(null_id.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
        EXPECT_THAT(null_id.message, HasSubstr("type_id is null"));
      });
  EXPECT_EQ(Widget::deleted, 0);
}

TEST(RuntimeState, WithoutACallSiteStateItLivesForOneCall) {
  const XLA_FFI_TypeId widget = WidgetType();
  Widget::deleted = 0;
  RunInHandler(nullptr, XLA_FFI_ExecutionStage_INSTANTIATE,
               [&](XLA_FFI_InvokeContext* ctx) {
                 EXPECT_EQ(Set(ctx, XLA_FFI_ExecutionStage_INSTANTIATE, widget,
                               new Widget{3})
                               .code,
                           XLA_FFI_Error_Code_OK);
               });
  EXPECT_EQ(Widget::deleted, 1);
  RunInHandler(
      nullptr, XLA_FFI_ExecutionStage_EXECUTE, [&](XLA_FFI_InvokeContext* ctx) {
        void* p = nullptr;
        EXPECT_EQ(Get(ctx, XLA_FFI_ExecutionStage_INSTANTIATE, widget, &p).code,
                  XLA_FFI_Error_Code_NOT_FOUND);
      });
}

TEST(RuntimeState, FortyByteLayoutMeansInstantiate) {
  const XLA_FFI_TypeId widget = WidgetType();
  Widget::deleted = 0;
  {
    xffi::CallSiteState state;
    auto* w = new Widget{4};
    for (int minor : {1, 2, 3, 5}) {
      SCOPED_TRACE(minor);
      xffi::CallSiteState fresh;
      xffi::CallSiteState& target = minor == 1 ? state : fresh;
      Widget local{0};
      RunInHandler(
          &target, XLA_FFI_ExecutionStage_INSTANTIATE,
          [&](XLA_FFI_InvokeContext* ctx) {
            XLA_FFI_TypeId id = widget;
            StatelessArgs set{40, nullptr, ctx, &id,
                              minor == 1 ? static_cast<void*>(w) : &local};
            if (minor != 1) {
              // Only the first owns a heap Widget; give the rest a type
              // without a deleter.
              id = GadgetType();
            }
            EXPECT_EQ(Take(Api()->XLA_FFI_State_Set(
                               reinterpret_cast<XLA_FFI_State_Set_Args*>(&set)))
                          .code,
                      XLA_FFI_Error_Code_OK);
            StatelessArgs get{40, nullptr, ctx, &id, nullptr};
            EXPECT_EQ(Take(Api()->XLA_FFI_State_Get(
                               reinterpret_cast<XLA_FFI_State_Get_Args*>(&get)))
                          .code,
                      XLA_FFI_Error_Code_OK);
            EXPECT_EQ(get.state, set.state);
          },
          minor);
      EXPECT_TRUE(target.Has(XLA_FFI_ExecutionStage_INSTANTIATE));
    }
    // A 0.3+ caller finds it under INSTANTIATE.
    RunInHandler(
        &state, XLA_FFI_ExecutionStage_EXECUTE,
        [&](XLA_FFI_InvokeContext* ctx) {
          void* p = nullptr;
          EXPECT_EQ(
              Get(ctx, XLA_FFI_ExecutionStage_INSTANTIATE, widget, &p).code,
              XLA_FFI_Error_Code_OK);
          EXPECT_EQ(p, w);
        });
  }
  EXPECT_EQ(Widget::deleted, 1);
}

int own_deleter_calls = 0;
void OwnDeleter(void* p) {
  ++own_deleter_calls;
  delete static_cast<Widget*>(p);
}

TEST(RuntimeState, FortyEightBytesFromA02HandlerCarryADeleter) {
  own_deleter_calls = 0;
  {
    xffi::CallSiteState state;
    auto* w = new Widget{5};
    XLA_FFI_TypeId gadget = GadgetType();  // no registered deleter
    RunInHandler(
        &state, XLA_FFI_ExecutionStage_INSTANTIATE,
        [&](XLA_FFI_InvokeContext* ctx) {
          SetWithDeleterArgs set{48, nullptr, ctx, &gadget, w, OwnDeleter};
          EXPECT_EQ(Take(Api()->XLA_FFI_State_Set(
                             reinterpret_cast<XLA_FFI_State_Set_Args*>(&set)))
                        .message,
                    "");
          StatelessArgs get{40, nullptr, ctx, &gadget, nullptr};
          EXPECT_EQ(Take(Api()->XLA_FFI_State_Get(
                             reinterpret_cast<XLA_FFI_State_Get_Args*>(&get)))
                        .code,
                    XLA_FFI_Error_Code_OK);
          EXPECT_EQ(get.state, w);
        },
        /*handler_api_minor=*/2);
    EXPECT_EQ(own_deleter_calls, 0);
  }
  EXPECT_EQ(own_deleter_calls, 1);
}

TEST(RuntimeState, FortyEightBytesFromA03HandlerHaveAStage) {
  xffi::CallSiteState state;
  Widget w{6};
  XLA_FFI_TypeId gadget = GadgetType();
  RunInHandler(
      &state, XLA_FFI_ExecutionStage_INITIALIZE,
      [&](XLA_FFI_InvokeContext* ctx) {
        EXPECT_EQ(Set(ctx, XLA_FFI_ExecutionStage_INITIALIZE, gadget, &w).code,
                  XLA_FFI_Error_Code_OK);
      },
      /*handler_api_minor=*/3);
  EXPECT_TRUE(state.Has(XLA_FFI_ExecutionStage_INITIALIZE));
  EXPECT_FALSE(state.Has(XLA_FFI_ExecutionStage_INSTANTIATE));
}

int direct_deletions = 0;

TEST(RuntimeState, CallSiteStateDirectly) {
  direct_deletions = 0;
  Widget w{7};
  {
    xffi::CallSiteState state;
    ASSERT_TRUE(state
                    .Set(XLA_FFI_ExecutionStage_RECORD, GadgetType(), &w,
                         [](void*) { ++direct_deletions; })
                    .ok());
    auto got = state.Get(XLA_FFI_ExecutionStage_RECORD, GadgetType());
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, &w);
  }
  EXPECT_EQ(direct_deletions, 1);
  EXPECT_EQ(xffi::ExecutionStageName(XLA_FFI_ExecutionStage_RECORD), "RECORD");
  EXPECT_EQ(xffi::ExecutionStageName(9), "stage 9");
}

}  // namespace
