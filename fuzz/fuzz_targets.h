// The fuzz entry points, callable without libFuzzer: each fuzz_*.cc defines
// one of these and, unless XFFI_FUZZ_REPLAY is set, LLVMFuzzerTestOneInput
// forwarding to it. fuzz_replay.cc links all of them into one test.
//
// Every target returns 0 for any input and aborts (after printing why) when
// a property fails: a parse error without "SOURCE:LINE:COLUMN: ", or a
// successful parse whose printed text does not parse back or does not print
// the same again.
#ifndef XFFI_FUZZ_FUZZ_TARGETS_H_
#define XFFI_FUZZ_FUZZ_TARGETS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace xffi::fuzz {

int FuzzStableHloParser(const uint8_t* data, size_t size);
int FuzzHloParser(const uint8_t* data, size_t size);
int FuzzMlirAttributes(const uint8_t* data, size_t size);
int FuzzNpyReader(const uint8_t* data, size_t size);
int FuzzElfReader(const uint8_t* data, size_t size);
int FuzzCallFrame(const uint8_t* data, size_t size);

// Aborts with `what` and the message unless `message` starts with
// "SOURCE:LINE:COLUMN: " for the given source name.
void CheckErrorHasPosition(std::string_view source, std::string_view message);
// Prints `what` with the texts involved to stderr and aborts.
[[noreturn]] void Fail(std::string_view what, std::string_view input,
                       std::string_view detail);

}  // namespace xffi::fuzz

#endif  // XFFI_FUZZ_FUZZ_TARGETS_H_
