// Compares the ABI facts of xffi's c_api.h with those of XLA's official
// headers, each exported by its own TU (abi_table_*.cc) because the headers
// cannot share one. Against FFI 0.5 every fact must match. Against FFI 0.3
// every fact must match except the changes 0.4 and 0.5 made, and those must
// differ by exactly the documented amounts: a fact that silently starts to
// match is drift too.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "abi_table.h"

namespace {

using Facts = std::map<std::string, int64_t>;

Facts ToMap(XffiAbiTable table) {
  Facts facts;
  for (size_t i = 0; i < table.size; ++i) {
    const bool inserted =
        facts.emplace(table.entries[i].name, table.entries[i].value).second;
    EXPECT_TRUE(inserted) << "fact listed twice: " << table.entries[i].name;
  }
  return facts;
}

int64_t At(const Facts& facts, const std::string& name) {
  auto it = facts.find(name);
  if (it == facts.end()) {
    ADD_FAILURE() << "missing fact: " << name;
    return -1;
  }
  return it->second;
}

std::set<std::string> Names(const Facts& facts) {
  std::set<std::string> names;
  for (const auto& [name, value] : facts) names.insert(name);
  return names;
}

TEST(AbiCompare, TablesAreNotEmpty) {
  // Guards against a build that compiled the lists away.
  EXPECT_GT(XffiAbiTableOfficialV05().size, 300u);
  EXPECT_GT(XffiAbiTableOfficialV03().size, 300u);
}

TEST(AbiCompare, OfficialHeadersAreTheExpectedVersions) {
  const Facts v03 = ToMap(XffiAbiTableOfficialV03());
  const Facts v05 = ToMap(XffiAbiTableOfficialV05());
  EXPECT_EQ(At(v03, "XLA_FFI_API_MAJOR"), 0);
  EXPECT_EQ(At(v03, "XLA_FFI_API_MINOR"), 3);
  EXPECT_EQ(At(v05, "XLA_FFI_API_MAJOR"), 0);
  EXPECT_EQ(At(v05, "XLA_FFI_API_MINOR"), 5);
}

TEST(AbiCompare, XffiMatchesOfficialV05Exactly) {
  const Facts official = ToMap(XffiAbiTableOfficialV05());
  const Facts ours = ToMap(XffiAbiTableXffiV05Names());
  ASSERT_EQ(Names(official), Names(ours));
  for (const auto& [name, value] : official) {
    EXPECT_EQ(ours.at(name), value) << name << ": xffi has " << ours.at(name)
                                    << ", XLA FFI 0.5 has " << value;
  }
}

TEST(AbiCompare, XffiExtensionsMatchOfficialExactly) {
  const Facts official = ToMap(XffiAbiTableOfficialExtensions());
  const Facts ours = ToMap(XffiAbiTableXffiExtensions());
  EXPECT_GT(official.size(), 100u);
  ASSERT_EQ(Names(official), Names(ours));
  for (const auto& [name, value] : official) {
    EXPECT_EQ(ours.at(name), value) << name << ": xffi has " << ours.at(name)
                                    << ", jaxlib 0.12 has " << value;
  }
  EXPECT_EQ(At(official, "XLA_FFI_Extension_Record"), 128);
  EXPECT_EQ(At(official, "XLA_FFI_Extension_Collectives"), 129);
}

// The facts 0.4 and 0.5 changed, as (0.3 value, 0.5 value). Everything else
// spelled in 0.3 must be unchanged in xffi.
const std::map<std::string, std::pair<int64_t, int64_t>>& DocumentedChanges() {
  static const auto* changes =
      new std::map<std::string, std::pair<int64_t, int64_t>>{
          {"XLA_FFI_API_MINOR", {3, 5}},
          // 0.4 appended `record` to the bundle.
          {"XLA_FFI_Handler_Bundle sizeof", {32, 40}},
          {"XLA_FFI_Handler_Register_Args.bundle sizeof", {32, 40}},
          // ... which moved `traits` and grew the registration args.
          {"XLA_FFI_Handler_Register_Args.traits offset", {80, 88}},
          {"XLA_FFI_Handler_Register_Args_STRUCT_SIZE", {84, 92}},
          {"XLA_FFI_Handler_Register_Args sizeof", {88, 96}},
          // 0.4 appended InvokeContext_FindExtension, 0.5 CustomOptions_Get.
          {"XLA_FFI_Api sizeof", {192, 208}},
          {"XLA_FFI_Api_STRUCT_SIZE", {192, 208}},
      };
  return *changes;
}

TEST(AbiCompare, XffiMatchesOfficialV03ExceptDocumentedChanges) {
  const Facts official = ToMap(XffiAbiTableOfficialV03());
  const Facts ours = ToMap(XffiAbiTableXffiV03Names());
  ASSERT_EQ(Names(official), Names(ours));
  for (const auto& [name, value] : official) {
    auto change = DocumentedChanges().find(name);
    if (change == DocumentedChanges().end()) {
      EXPECT_EQ(ours.at(name), value)
          << name << ": xffi has " << ours.at(name) << ", XLA FFI 0.3 has "
          << value << " and no documented change explains it";
    } else {
      EXPECT_EQ(value, change->second.first)
          << name << " in XLA FFI 0.3 is not the documented value";
      EXPECT_EQ(ours.at(name), change->second.second)
          << name << " in xffi is not the documented 0.5 value";
    }
  }
  for (const auto& [name, values] : DocumentedChanges()) {
    EXPECT_TRUE(official.count(name))
        << "documented change not checked: " << name;
  }
}

// What 0.4/0.5 added or renamed must line up with what it replaced, so that
// a runtime with 0.5 layouts can serve a 0.3 caller.
TEST(AbiCompare, V05AdditionsExtendV03Layouts) {
  const Facts v03 = ToMap(XffiAbiTableOfficialV03());
  const Facts v05 = ToMap(XffiAbiTableOfficialV05());

  // The error-message slot: 0.3's GetMessage and 0.5's GetDetails share it,
  // and GetDetails_Args is GetMessage_Args with `errc` appended.
  EXPECT_EQ(At(v05, "XLA_FFI_Api.XLA_FFI_Error_GetDetails offset"),
            At(v03, "XLA_FFI_Api.XLA_FFI_Error_GetMessage offset"));
  for (const char* field :
       {"struct_size", "extension_start", "error", "message"}) {
    EXPECT_EQ(At(v05, std::string("XLA_FFI_Error_GetDetails_Args.") + field +
                          " offset"),
              At(v03, std::string("XLA_FFI_Error_GetMessage_Args.") + field +
                          " offset"))
        << field;
  }
  EXPECT_EQ(At(v03, "XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE"), 32);
  EXPECT_EQ(At(v05, "XLA_FFI_Error_GetDetails_Args.errc offset"), 32);
  EXPECT_EQ(At(v05, "XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE"), 36);

  // Renamed without change: ExecutionContext_Get -> InvokeContext_Get and
  // Extension_Base -> InternalExtension.
  EXPECT_EQ(At(v05, "XLA_FFI_Api.XLA_FFI_InvokeContext_Get offset"),
            At(v03, "XLA_FFI_Api.XLA_FFI_ExecutionContext_Get offset"));
  for (const char* suffix : {" sizeof", "_STRUCT_SIZE", ".ctx offset",
                             ".type_id offset", ".data offset"}) {
    EXPECT_EQ(
        At(v05, std::string("XLA_FFI_InvokeContext_Get_Args") + suffix),
        At(v03, std::string("XLA_FFI_ExecutionContext_Get_Args") + suffix))
        << suffix;
  }
  for (const char* suffix :
       {" sizeof", "_STRUCT_SIZE", ".type offset", ".next offset"}) {
    EXPECT_EQ(At(v05, std::string("XLA_FFI_InternalExtension") + suffix),
              At(v03, std::string("XLA_FFI_Extension_Base") + suffix))
        << suffix;
  }

  // New slots and fields are appended exactly where 0.3 ended.
  EXPECT_EQ(At(v05, "XLA_FFI_Handler_Bundle.record offset"),
            At(v03, "XLA_FFI_Handler_Bundle sizeof"));
  EXPECT_EQ(At(v05, "XLA_FFI_Handler_Register_Args.traits offset"),
            At(v03, "XLA_FFI_Handler_Register_Args.traits offset") + 8);
  EXPECT_EQ(At(v05, "XLA_FFI_Api.XLA_FFI_InvokeContext_FindExtension offset"),
            At(v03, "XLA_FFI_Api sizeof"));
  EXPECT_EQ(At(v05, "XLA_FFI_Api.XLA_FFI_CustomOptions_Get offset"),
            At(v03, "XLA_FFI_Api sizeof") + 8);
  EXPECT_EQ(At(v05, "XLA_FFI_ExecutionStage_RECORD"),
            At(v03, "XLA_FFI_ExecutionStage_EXECUTE") + 1);
}

// The lists themselves: what is spelled only in one version is exactly the
// set of renames and additions above, no more (a fact that moved into a
// version-only list would escape the exact comparison).
TEST(AbiCompare, VersionOnlySpellingsAreTheDocumentedOnes) {
  const Facts v03 = ToMap(XffiAbiTableOfficialV03());
  const Facts v05 = ToMap(XffiAbiTableOfficialV05());
  std::set<std::string> only_v03_structs, only_v05_structs;
  for (const auto& [name, value] : v03) {
    if (!v05.count(name))
      only_v03_structs.insert(name.substr(0, name.find_first_of(". ")));
  }
  for (const auto& [name, value] : v05) {
    if (!v03.count(name))
      only_v05_structs.insert(name.substr(0, name.find_first_of(". ")));
  }
  EXPECT_THAT(
      only_v03_structs,
      ::testing::UnorderedElementsAre(
          "XLA_FFI_Extension_Base", "XLA_FFI_Extension_Base_STRUCT_SIZE",
          "XLA_FFI_Error_GetMessage_Args",
          "XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE",
          "XLA_FFI_ExecutionContext_Get_Args",
          "XLA_FFI_ExecutionContext_Get_Args_STRUCT_SIZE", "XLA_FFI_Api"));
  EXPECT_THAT(
      only_v05_structs,
      ::testing::UnorderedElementsAre(
          "XLA_FFI_InternalExtension", "XLA_FFI_InternalExtension_STRUCT_SIZE",
          "XLA_FFI_ExtensionId", "XLA_FFI_ExtensionId_STRUCT_SIZE",
          "XLA_FFI_Extension", "XLA_FFI_Extension_STRUCT_SIZE",
          "XLA_FFI_Error_GetDetails_Args",
          "XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE",
          "XLA_FFI_InvokeContext_Get_Args",
          "XLA_FFI_InvokeContext_Get_Args_STRUCT_SIZE",
          "XLA_FFI_InvokeContext_FindExtension_Args",
          "XLA_FFI_InvokeContext_FindExtension_Args_STRUCT_SIZE",
          "XLA_FFI_CustomOptions_Get_Args",
          "XLA_FFI_CustomOptions_Get_Args_STRUCT_SIZE",
          "XLA_FFI_Handler_Bundle", "XLA_FFI_Api",
          "XLA_FFI_ExecutionStage_RECORD"));
}

}  // namespace
