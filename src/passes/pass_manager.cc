#include "passes/pass_manager.h"

#include <algorithm>
#include <cstdio>

#include "xffi/program/text.h"

namespace xffi::passes {
namespace {

bool Wanted(const std::vector<std::string>& dump_after, std::string_view name) {
  return std::any_of(dump_after.begin(), dump_after.end(),
                     [&](const std::string& wanted) {
                       return wanted == "all" || wanted == name;
                     });
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i > 0 ? ", " : "") + names[i];
  return out.empty() ? "none" : out;
}

}  // namespace

std::vector<std::string> PassManager::names() const {
  std::vector<std::string> out;
  for (const auto& pass : passes_) out.emplace_back(pass->name());
  return out;
}

StatusOr<bool> PassManager::Run(Module& module) const {
  const std::vector<std::string> known = names();
  for (const std::string& wanted : options_.dump_after)
    if (wanted != "all" &&
        std::find(known.begin(), known.end(), wanted) == known.end())
      return InvalidArgument(
          "no pass named '" + wanted +
          "' to dump after; the passes are: " + Joined(known) + " (or all)");
  bool any = false;
  for (const auto& pass : passes_) {
    const std::string name(pass->name());
    StatusOr<bool> changed = pass->Run(module);
    if (!changed.ok()) return changed.status();
    any = any || *changed;
    if (*changed && options_.verify_after_each_pass) {
      Status verified = VerifyModule(module);
      if (!verified.ok())
        return Internal("pass '" + name +
                        "' left an invalid module: " + verified.message());
    }
    if (Wanted(options_.dump_after, name)) {
      std::string text = "// xffi: the module after pass '" + name + "'" +
                         (*changed ? "" : " (unchanged)") + "\n" +
                         PrintHlo(module);
      if (options_.dump)
        options_.dump(name, text);
      else
        std::fputs(text.c_str(), stderr);
    }
  }
  return any;
}

}  // namespace xffi::passes
