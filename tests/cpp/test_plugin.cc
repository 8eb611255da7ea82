// Plugin loading: registrations and their origin, symbol lookup, export
// listing, and the errors for missing, malformed and unloadable files.
#include "xffi/runtime/plugin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::xffi::Plugin;

std::string TempPath(const std::string& name) {
  return testing::TempDir() + "xffi_test_plugin_" + name;
}

std::string WriteFile(const std::string& name, const std::string& bytes) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

std::vector<std::string> Names(
    const std::vector<xffi::ExportedHandler>& handlers) {
  std::vector<std::string> names;
  for (const auto& handler : handlers) names.push_back(handler.name);
  return names;
}

// Calls a handler taking one f32[n] and returning one f32[n].
void CallUnary(XLA_FFI_Handler* handler, const std::vector<float>& in,
               std::vector<float>& out) {
  int64_t dims[1] = {static_cast<int64_t>(in.size())};
  XLA_FFI_Buffer arg{
      XLA_FFI_Buffer_STRUCT_SIZE,    nullptr, XLA_FFI_DataType_F32,
      const_cast<float*>(in.data()), 1,       dims};
  XLA_FFI_Buffer ret{XLA_FFI_Buffer_STRUCT_SIZE,
                     nullptr,
                     XLA_FFI_DataType_F32,
                     out.data(),
                     1,
                     dims};
  XLA_FFI_ArgType arg_type = XLA_FFI_ArgType_BUFFER;
  XLA_FFI_RetType ret_type = XLA_FFI_RetType_BUFFER;
  void* args[1] = {&arg};
  void* rets[1] = {&ret};
  XLA_FFI_CallFrame frame{};
  frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  frame.stage = XLA_FFI_ExecutionStage_EXECUTE;
  frame.args = {XLA_FFI_Args_STRUCT_SIZE, nullptr, 1, &arg_type, args};
  frame.rets = {XLA_FFI_Rets_STRUCT_SIZE, nullptr, 1, &ret_type, rets};
  frame.attrs.struct_size = XLA_FFI_Attrs_STRUCT_SIZE;
  ASSERT_EQ(handler(&frame), nullptr);
}

TEST(Plugin, StaticRegistrationsCarryTheLibraryAsOrigin) {
  auto plugin = Plugin::Load(XFFI_TEST_PLUGIN_STATIC_HANDLERS);
  ASSERT_TRUE(plugin.ok()) << plugin.status().ToString();
  const std::string& origin = (*plugin)->origin();
  EXPECT_THAT(origin, HasSubstr("static_handlers"));

  auto record = xffi::FindHandler("plugin_add_one", "Host");
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  EXPECT_EQ((*record)->origin, origin);
  EXPECT_EQ((*record)->api_minor, 3);

  auto handlers = (*plugin)->RegisteredHandlers();
  ASSERT_EQ(handlers.size(), 1u);
  EXPECT_EQ(handlers[0]->name, "plugin_add_one");

  std::vector<float> in = {1, 2, 3}, out(3);
  CallUnary((*record)->bundle.execute, in, out);
  EXPECT_THAT(out, ElementsAre(2, 3, 4));

  auto legacy = (*plugin)->RegisteredLegacyTargets();
  ASSERT_EQ(legacy.size(), 2u);
  EXPECT_EQ(legacy[0]->name, "plugin_legacy_fail");
  EXPECT_EQ(legacy[0]->api_version,
            xffi::LegacyApiVersion::kStatusReturningUnified);
  EXPECT_EQ(legacy[1]->name, "plugin_legacy_sub");
  EXPECT_EQ(legacy[1]->api_version, xffi::LegacyApiVersion::kOriginal);
  for (const auto* target : legacy) EXPECT_EQ(target->origin, origin);
}

TEST(Plugin, LegacyTargetsFromAPluginRun) {
  ASSERT_TRUE(Plugin::Load(XFFI_TEST_PLUGIN_STATIC_HANDLERS).ok());
  float a = 5, b = 1.5f, out = 0;
  auto frame = xffi::LegacyCallFrame::Create(
      xffi::Platform::kHost,
      {xffi::LegacyShape::Array(), xffi::LegacyShape::Array()},
      xffi::LegacyShape::Array());
  ASSERT_TRUE(frame.SetOperandLeaf(0, &a).ok());
  ASSERT_TRUE(frame.SetOperandLeaf(1, &b).ok());
  ASSERT_TRUE(frame.SetResultLeaf(0, &out).ok());
  ASSERT_TRUE(xffi::CallLegacyTarget("plugin_legacy_sub",
                                     xffi::LegacyApiVersion::kOriginal, frame)
                  .ok());
  EXPECT_EQ(out, 3.5f);

  frame.set_opaque("the plugin failed on purpose");
  xffi::Status status = xffi::CallLegacyTarget(
      "plugin_legacy_fail", xffi::LegacyApiVersion::kStatusReturningUnified,
      frame);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_THAT(status.message(), HasSubstr("'plugin_legacy_fail'"));
  EXPECT_THAT(status.message(), HasSubstr("the plugin failed on purpose"));
}

TEST(Plugin, LoadingTwiceGivesTheSamePlugin) {
  auto first = Plugin::Load(XFFI_TEST_PLUGIN_STATIC_HANDLERS);
  auto again = Plugin::Load(std::string(XFFI_TEST_PLUGIN_DIR) + "/../plugins/" +
                            "libxffi_test_plugin_static_handlers.so");
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(first->get(), again->get());
}

TEST(Plugin, FindsExportedHandlersBySymbol) {
  auto plugin = Plugin::Load(XFFI_TEST_PLUGIN_EXPORTED_HANDLERS);
  ASSERT_TRUE(plugin.ok()) << plugin.status().ToString();
  EXPECT_TRUE((*plugin)->RegisteredHandlers().empty());

  auto handler = (*plugin)->Find("exported_double");
  ASSERT_TRUE(handler.ok()) << handler.status().ToString();
  std::vector<float> in = {1, -2}, out(2);
  CallUnary(*handler, in, out);
  EXPECT_THAT(out, ElementsAre(2, -4));

  ASSERT_TRUE((*plugin)->Find("unmarked_handler").ok());
}

TEST(Plugin, ListsExportedHandlersWithAndWithoutLoading) {
  auto listed = xffi::ListExportedHandlers(XFFI_TEST_PLUGIN_EXPORTED_HANDLERS);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_THAT(Names(*listed),
              ElementsAre("exported_double", "exported_negate"));
  for (const auto& handler : *listed) EXPECT_EQ(handler.handler, nullptr);

  auto plugin = Plugin::Load(XFFI_TEST_PLUGIN_EXPORTED_HANDLERS);
  ASSERT_TRUE(plugin.ok());
  auto exported = (*plugin)->ExportedHandlers();
  ASSERT_TRUE(exported.ok()) << exported.status().ToString();
  ASSERT_EQ(exported->size(), 2u);
  EXPECT_EQ((*exported)[0].handler, *(*plugin)->Find("exported_double"));
  EXPECT_EQ((*exported)[1].handler, *(*plugin)->Find("exported_negate"));

  auto none = xffi::ListExportedHandlers(XFFI_TEST_PLUGIN_STATIC_HANDLERS);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(Plugin, MissingSymbolNamesSymbolLibraryAndExports) {
  auto plugin = Plugin::Load(XFFI_TEST_PLUGIN_EXPORTED_HANDLERS);
  ASSERT_TRUE(plugin.ok());
  auto handler = (*plugin)->Find("no_such_handler");
  ASSERT_FALSE(handler.ok());
  EXPECT_EQ(handler.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(handler.status().message(), HasSubstr("'no_such_handler'"));
  EXPECT_THAT(handler.status().message(),
              HasSubstr(XFFI_TEST_PLUGIN_EXPORTED_HANDLERS));
  EXPECT_THAT(handler.status().message(),
              HasSubstr("exports the handlers exported_double, "
                        "exported_negate"));

  auto hidden = (*plugin)->Find("hidden_handler");
  EXPECT_EQ(hidden.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
}

TEST(Plugin, SymbolsOfOtherLibrariesAndDataAreNotHandlers) {
  auto plugin = Plugin::Load(XFFI_TEST_PLUGIN_EXPORTED_HANDLERS);
  ASSERT_TRUE(plugin.ok());
  // The plugin calls getenv, so libc is among the libraries dlsym searches.
  auto libc = (*plugin)->Find("getenv");
  ASSERT_FALSE(libc.ok());
  EXPECT_EQ(libc.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(libc.status().message(), HasSubstr("not defined by plugin"));

  auto data = (*plugin)->Find("exported_data");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(data.status().message(), HasSubstr("'exported_data'"));
  EXPECT_THAT(data.status().message(), HasSubstr("is data"));
}

TEST(Plugin, LegacyFunctionFoundBySymbolCanBeRegistered) {
  auto plugin = Plugin::Load(XFFI_TEST_PLUGIN_EXPORTED_HANDLERS);
  ASSERT_TRUE(plugin.ok());
  auto function = (*plugin)->FindFunction("legacy_triple");
  ASSERT_TRUE(function.ok());
  ASSERT_TRUE(xffi::RegisterLegacyTarget("triple", *function, "cpu",
                                         xffi::LegacyApiVersion::kOriginal)
                  .ok());
  // Attributed by address: registered by the test, but the code is the
  // plugin's.
  auto legacy = (*plugin)->RegisteredLegacyTargets();
  ASSERT_EQ(legacy.size(), 1u);
  EXPECT_EQ(legacy[0]->name, "triple");
}

TEST(Plugin, MissingFileIsNotFound) {
  std::string path = TempPath("does_not_exist.so");
  auto plugin = Plugin::Load(path);
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(plugin.status().message(), HasSubstr("'" + path + "'"));
  EXPECT_THAT(plugin.status().message(), HasSubstr("does not exist"));

  auto searched = Plugin::Load("libxffi_no_such_library_anywhere.so");
  ASSERT_FALSE(searched.ok());
  EXPECT_EQ(searched.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(searched.status().message(),
              HasSubstr("libxffi_no_such_library_anywhere.so"));
}

TEST(Plugin, DirectoryIsRefused) {
  auto plugin = Plugin::Load(XFFI_TEST_PLUGIN_DIR);
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(plugin.status().message(), HasSubstr("is a directory"));
}

TEST(Plugin, MalformedFilesAreInvalidArguments) {
  std::string real = ReadFile(XFFI_TEST_PLUGIN_EXPORTED_HANDLERS);
  ASSERT_GT(real.size(), 4096u);
  struct Case {
    std::string name, bytes, problem;
  };
  std::vector<Case> cases = {
      {"text.so", "this is not a library\n", "shorter than an ELF64 header"},
      {"empty.so", "", "shorter than an ELF64 header"},
      {"bad_magic.so", std::string(128, 'x'), "ELF magic"},
      {"truncated.so", real.substr(0, 1024), "truncated"},
  };
  std::string elf32 = real;
  elf32[4] = 1;  // ELFCLASS32
  cases.push_back({"elf32.so", elf32, "32-bit"});
  for (const Case& c : cases) {
    std::string path = WriteFile(c.name, c.bytes);
    auto plugin = Plugin::Load(path);
    ASSERT_FALSE(plugin.ok()) << c.name;
    EXPECT_EQ(plugin.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT)
        << c.name << ": " << plugin.status().ToString();
    EXPECT_THAT(plugin.status().message(), HasSubstr("'" + path + "'"));
    EXPECT_THAT(plugin.status().message(), HasSubstr(c.problem)) << c.name;

    auto listed = xffi::ListExportedHandlers(path);
    ASSERT_FALSE(listed.ok()) << c.name;
    EXPECT_EQ(listed.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
    EXPECT_THAT(listed.status().message(), HasSubstr("'" + path + "'"));
    std::remove(path.c_str());
  }
}

TEST(Plugin, UnresolvedSymbolIsNamed) {
  auto plugin = Plugin::Load(XFFI_TEST_PLUGIN_UNRESOLVED);
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_THAT(plugin.status().message(),
              HasSubstr(XFFI_TEST_PLUGIN_UNRESOLVED));
  EXPECT_THAT(plugin.status().message(),
              HasSubstr("xffi_test_symbol_nobody_defines"));
}

TEST(Plugin, LegacyTargetsFromACPlugin) {
  auto plugin = Plugin::Load(XFFI_TEST_PLUGIN_C_LEGACY);
  ASSERT_TRUE(plugin.ok()) << plugin.status().ToString();
  auto legacy = (*plugin)->RegisteredLegacyTargets();
  ASSERT_EQ(legacy.size(), 2u);
  for (const auto* target : legacy) {
    EXPECT_EQ(target->api_version, xffi::LegacyApiVersion::kUnspecified);
  }

  float x = 2.5f, out = 0;
  auto frame = xffi::LegacyCallFrame::Create(xffi::Platform::kHost,
                                             {xffi::LegacyShape::Array()},
                                             xffi::LegacyShape::Array());
  ASSERT_TRUE(frame.SetOperandLeaf(0, &x).ok());
  ASSERT_TRUE(frame.SetResultLeaf(0, &out).ok());
  ASSERT_TRUE(xffi::CallLegacyTarget("c_negate",
                                     xffi::LegacyApiVersion::kOriginal, frame)
                  .ok());
  EXPECT_EQ(out, -2.5f);
  // Without a version anywhere the convention is unknown: refused.
  EXPECT_EQ(xffi::CallLegacyTarget("c_negate",
                                   xffi::LegacyApiVersion::kUnspecified, frame)
                .code(),
            XLA_FFI_Error_Code_FAILED_PRECONDITION);
  xffi::Status status = xffi::CallLegacyTarget(
      "c_fail", xffi::LegacyApiVersion::kStatusReturning, frame);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_THAT(status.message(), HasSubstr("failed in C"));
}

void Unrelated(void*, const void**) {}

TEST(Plugin, FailedRegistrationNamesPluginAndTarget) {
  ASSERT_TRUE(xffi::RegisterLegacyTarget("plugin_conflict",
                                         reinterpret_cast<void*>(&Unrelated),
                                         "Host")
                  .ok());
  auto plugin = Plugin::Load(XFFI_TEST_PLUGIN_CONFLICTING_LEGACY);
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
  EXPECT_THAT(plugin.status().message(),
              HasSubstr(XFFI_TEST_PLUGIN_CONFLICTING_LEGACY));
  EXPECT_THAT(plugin.status().message(), HasSubstr("'plugin_conflict'"));
  // The failure is remembered: the initializers will not run again.
  auto again = Plugin::Load(XFFI_TEST_PLUGIN_CONFLICTING_LEGACY);
  EXPECT_EQ(again.status().code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
}

}  // namespace
