// Property checks the fuzz targets share.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_targets.h"

namespace xffi::fuzz {

void Fail(std::string_view what, std::string_view input,
          std::string_view detail) {
  std::fprintf(stderr, "fuzz property failed: %.*s\n--- input (%zu bytes)\n",
               static_cast<int>(what.size()), what.data(), input.size());
  std::fwrite(input.data(), 1, input.size(), stderr);
  std::fprintf(stderr, "\n--- detail\n%.*s\n", static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

void CheckErrorHasPosition(std::string_view source, std::string_view message) {
  std::string_view rest = message;
  bool ok = rest.substr(0, source.size()) == source &&
            rest.size() > source.size() && rest[source.size()] == ':';
  if (ok) rest.remove_prefix(source.size() + 1);
  for (int part = 0; ok && part < 2; ++part) {
    size_t digits = 0;
    while (digits < rest.size() &&
           std::isdigit(static_cast<unsigned char>(rest[digits])))
      ++digits;
    ok = digits > 0 && digits < rest.size() && rest[digits] == ':';
    if (ok) rest.remove_prefix(digits + 1);
  }
  ok = ok && rest.size() > 1 && rest[0] == ' ';
  if (!ok) Fail("an error message without SOURCE:LINE:COLUMN", "", message);
}

}  // namespace xffi::fuzz
