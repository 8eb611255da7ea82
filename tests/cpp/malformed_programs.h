// The malformed programs of tests/cpp/data/malformed, shared by the compile
// and CLI tests: a custom call to cli_mark (a side effect the tests watch
// for) feeding an op whose declared result disagrees with its operands.
// Each case also says how to mend it, so a test can show the same program
// runs, and marks, once it is well formed.
#ifndef XFFI_TESTS_CPP_MALFORMED_PROGRAMS_H_
#define XFFI_TESTS_CPP_MALFORMED_PROGRAMS_H_

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace xffi::test {

struct MalformedProgram {
  std::string file;     // under tests/cpp/data/malformed
  std::string opcode;   // the HLO spelling the verifier's message names
  std::string op_text;  // text on the op's line, to find where it is
  std::string why;      // what the verifier's message says is wrong
  // Replacements that make the program well formed.
  std::vector<std::pair<std::string, std::string>> mend;
  // The f32 parameter shapes of the mended program.
  std::vector<std::vector<int64_t>> inputs;
};

inline std::vector<MalformedProgram> MalformedPrograms() {
  // f32[2,3] and f32[2,5] concatenated along 0, declared f32[4,3].
  const std::string concat =
      "operand 1 f32[2,5] does not match operand 0 f32[2,3] outside "
      "dimension 0";
  // [0:2, 1:3] of f32[2,3] is f32[2,2], declared f32[2,3].
  const std::string slice =
      "does not match f32[2,2], the shape its operands give";
  // f32[2,3] padded by 1 low and 1 high in dimension 0 is f32[4,3],
  // declared f32[5,3].
  const std::string pad =
      "does not match f32[4,3], the shape its operands give";
  return {
      {"concatenate.mlir",
       "concatenate",
       "stablehlo.concatenate",
       concat,
       {{"tensor<2x5xf32>", "tensor<2x3xf32>"}},
       {{2, 3}, {2, 3}}},
      {"concatenate.hlo",
       "concatenate",
       "concatenate(",
       concat,
       {{"f32[2,5]", "f32[2,3]"}},
       {{2, 3}, {2, 3}}},
      {"slice.mlir",
       "slice",
       "stablehlo.slice",
       slice,
       {{"1:3]", "0:3]"}},
       {{2, 3}}},
      {"slice.hlo", "slice", "slice(", slice, {{"[1:3]", "[0:3]"}}, {{2, 3}}},
      {"pad.mlir", "pad", "stablehlo.pad", pad, {{"5x3", "4x3"}}, {{2, 3}}},
      {"pad.hlo", "pad", "pad(", pad, {{"f32[5,3]", "f32[4,3]"}}, {{2, 3}}},
  };
}

inline std::string MalformedProgramPath(const MalformedProgram& program) {
  return std::string(XFFI_MALFORMED_DIR) + "/" + program.file;
}

inline std::string ReadMalformedProgram(const MalformedProgram& program) {
  std::ifstream in(MalformedProgramPath(program));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string Mended(const MalformedProgram& program, std::string text) {
  for (const auto& [from, to] : program.mend) {
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  return text;
}

// The 1-based line of the op: where the verifier's message must point.
inline int LineOfOp(const MalformedProgram& program, const std::string& text) {
  int line = 1;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos;
       start = end + 1, end = text.find('\n', start), ++line) {
    if (text.substr(start, end - start).find(program.op_text) !=
        std::string::npos)
      return line;
  }
  return 0;
}

}  // namespace xffi::test

#endif  // XFFI_TESTS_CPP_MALFORMED_PROGRAMS_H_
