// The pass manager (src/passes/pass_manager.h): passes run in the order they
// were added and say whether they changed the module; the manager verifies
// after every pass that did, when asked, and writes the module as HLO text
// after the passes named in dump_after. Dead-code elimination is the pass
// "dce".
#include "passes/pass_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "passes/dead_code_elimination.h"
#include "xffi/program/builder.h"
#include "xffi/program/text.h"

namespace xffi::passes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Appends its name to `log`; when it changes the module, it renames it so
// the change shows.
class Recording : public Pass {
 public:
  Recording(std::string name, std::vector<std::string>* log, bool changes)
      : name_(std::move(name)), log_(log), changes_(changes) {}
  std::string_view name() const override { return name_; }
  StatusOr<bool> Run(Module& module) override {
    log_->push_back(name_);
    if (changes_) module.set_name(module.name() + "." + name_);
    return changes_;
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  bool changes_;
};

class Failing : public Pass {
 public:
  std::string_view name() const override { return "fail"; }
  StatusOr<bool> Run(Module&) override {
    return InvalidArgument("f.hlo:3:4: negate: cannot");
  }
};

// Adds an op whose declared shape its operand does not give.
class Breaking : public Pass {
 public:
  std::string_view name() const override { return "break"; }
  StatusOr<bool> Run(Module& module) override {
    Computation* entry = module.entry();
    entry->AddInstruction(Opcode::kNegate, Shape::Array(ElementType::kF32, {7}),
                          {entry->parameter(0)}, "bad");
    return true;
  }
};

// x + x, with an unread negate.
Module Small() {
  Builder b("small");
  Op x = b.Parameter(0, Shape::Array(ElementType::kF32, {2}), "x");
  b.Unary(Opcode::kNegate, x);
  StatusOr<Module> module = b.Build(b.Add(x, x));
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  return std::move(*module);
}

TEST(PassManager, RunsPassesInOrderAndSaysWhetherAnyChanged) {
  std::vector<std::string> log;
  PassManager passes;
  passes.Add<Recording>("first", &log, false)
      .Add<Recording>("second", &log, true)
      .Add<Recording>("third", &log, false);
  EXPECT_EQ(passes.names(),
            (std::vector<std::string>{"first", "second", "third"}));
  Module module = Small();
  StatusOr<bool> changed = passes.Run(module);
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(log, (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(module.name(), "small.second");

  PassManager quiet;
  quiet.Add<Recording>("first", &log, false);
  changed = quiet.Run(module);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

TEST(PassManager, AFailingPassStopsTheRunWithItsError) {
  std::vector<std::string> log;
  PassManager passes;
  passes.Add<Recording>("first", &log, true)
      .Add<Failing>()
      .Add<Recording>("after", &log, true);
  Module module = Small();
  StatusOr<bool> changed = passes.Run(module);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().message(), "f.hlo:3:4: negate: cannot");
  EXPECT_EQ(log, (std::vector<std::string>{"first"}));
}

TEST(PassManager, VerifiesAfterEachPassThatChangedTheModule) {
  PassManagerOptions options;
  options.verify_after_each_pass = true;
  PassManager checked(options);
  checked.Add<Breaking>();
  Module module = Small();
  StatusOr<bool> changed = checked.Run(module);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_THAT(changed.status().message(),
              HasSubstr("pass 'break' left an invalid module: 'bad' "
                        "(negate) in computation 'small'"));
  EXPECT_THAT(changed.status().message(), HasSubstr("result shape f32[7]"));

  // Without verification the broken module goes on (a release build's
  // default).
  PassManager unchecked;
  unchecked.Add<Breaking>();
  Module again = Small();
  changed = unchecked.Run(again);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(VerifyModule(again).ok());
}

TEST(PassManager, DumpsTheModuleAfterTheNamedPasses) {
  std::vector<std::string> log;
  std::vector<std::pair<std::string, std::string>> dumps;
  PassManagerOptions options;
  options.dump_after = {"dce"};
  options.dump = [&](std::string_view pass, const std::string& text) {
    dumps.emplace_back(std::string(pass), text);
  };
  PassManager passes(options);
  passes.Add<Recording>("first", &log, false).Add<DeadCodeElimination>();
  Module module = Small();
  ASSERT_TRUE(passes.Run(module).ok());
  ASSERT_EQ(dumps.size(), 1u);
  EXPECT_EQ(dumps[0].first, "dce");
  EXPECT_THAT(dumps[0].second,
              StartsWith("// xffi: the module after pass 'dce'\nHloModule "
                         "small"));
  // The text is the module as it is then, and reads back.
  EXPECT_THAT(dumps[0].second, Not(HasSubstr("negate")));
  StatusOr<Module> reparsed = ParseHlo(dumps[0].second, "dump.hlo");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().ToString();
  EXPECT_EQ(reparsed->entry()->instruction_count(),
            module.entry()->instruction_count());

  // "all": after every pass, saying which left the module as it was.
  dumps.clear();
  options.dump_after = {"all"};
  PassManager every(options);
  every.Add<Recording>("first", &log, false).Add<DeadCodeElimination>();
  Module fresh = Small();
  ASSERT_TRUE(every.Run(fresh).ok());
  ASSERT_EQ(dumps.size(), 2u);
  EXPECT_EQ(dumps[0].first, "first");
  EXPECT_THAT(dumps[0].second,
              StartsWith("// xffi: the module after pass 'first' "
                         "(unchanged)\n"));
  EXPECT_THAT(dumps[0].second, HasSubstr("negate"));
  EXPECT_EQ(dumps[1].first, "dce");
}

TEST(PassManager, AnUnknownPassToDumpAfterIsAnErrorListingThePasses) {
  std::vector<std::string> log;
  PassManagerOptions options;
  options.dump_after = {"dce", "fusion"};
  PassManager passes(options);
  passes.Add<Recording>("first", &log, true).Add<DeadCodeElimination>();
  Module module = Small();
  StatusOr<bool> changed = passes.Run(module);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().message(),
            "no pass named 'fusion' to dump after; the passes are: first, "
            "dce (or all)");
  EXPECT_TRUE(log.empty());  // refused before any pass ran
}

TEST(DeadCodeElimination, RemovesUnreadOpsAndSaysSo) {
  DeadCodeElimination dce;
  EXPECT_EQ(dce.name(), "dce");
  Module module = Small();
  int64_t before = module.entry()->instruction_count();
  StatusOr<bool> changed = dce.Run(module);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(module.entry()->instruction_count(), before - 1);
  EXPECT_TRUE(VerifyModule(module).ok());
  changed = dce.Run(module);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

}  // namespace
}  // namespace xffi::passes
