// fuzz_replay: runs the fuzz targets without libFuzzer, so every build
// (GCC included, and the ASan+UBSan CI job) exercises them: over the seed
// corpus (fuzz/corpus/<target>/ and the programs of tests/programs and the
// parser samples) and deterministic mutations of each seed: prefixes cut at
// evenly spaced points, single bytes replaced by syntax characters, and
// single tokens deleted or doubled. A failed property aborts (see
// fuzz_targets.h), which fails the test.
//
//   fuzz_replay                 all targets, seeds and mutations
//   fuzz_replay TARGET          one target's seeds and mutations (ctest runs
//                               one test per target, so they run in parallel)
//   fuzz_replay TARGET FILE...  the named files only (to replay a crasher)
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_targets.h"

namespace fs = std::filesystem;

namespace {

using Entry = int (*)(const uint8_t*, size_t);

struct SeedDir {
  std::string path;       // a directory, or one file
  std::string extension;  // "" takes every file
};

struct Target {
  const char* name;
  Entry entry;
  std::vector<SeedDir> seeds;
};

std::vector<Target> Targets() {
  const std::string corpus = XFFI_FUZZ_CORPUS_DIR;
  const std::string source = XFFI_SOURCE_DIR;
  return {
      {"stablehlo_parser",
       xffi::fuzz::FuzzStableHloParser,
       {{corpus + "/stablehlo_parser", ""},
        {source + "/tests/programs", ".mlir"},
        {source + "/tests/cpp/data/stablehlo", ".mlir"}}},
      {"hlo_parser",
       xffi::fuzz::FuzzHloParser,
       {{corpus + "/hlo_parser", ""},
        {source + "/tests/programs", ".hlo"},
        {source + "/tests/cpp/data/hlo", ".hlo"}}},
      {"mlir_attributes",
       xffi::fuzz::FuzzMlirAttributes,
       {{corpus + "/mlir_attributes", ""}}},
      {"npy_reader",
       xffi::fuzz::FuzzNpyReader,
       {{corpus + "/npy_reader", ""}, {source + "/tests/programs", ".npy"}}},
      {"elf_reader", xffi::fuzz::FuzzElfReader, {{XFFI_FUZZ_ELF_SEED, ""}}},
      {"call_frame", xffi::fuzz::FuzzCallFrame, {{corpus + "/call_frame", ""}}},
  };
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<fs::path> SeedFiles(const Target& target) {
  std::vector<fs::path> files;
  for (const SeedDir& dir : target.seeds) {
    if (fs::is_regular_file(dir.path)) {  // a single seed
      files.push_back(dir.path);
      continue;
    }
    if (!fs::is_directory(dir.path)) continue;
    std::vector<fs::path> here;
    for (const auto& entry : fs::directory_iterator(dir.path)) {
      if (!entry.is_regular_file()) continue;
      if (!dir.extension.empty() && entry.path().extension() != dir.extension)
        continue;
      here.push_back(entry.path());
    }
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  return files;
}

// Where tokens start and end: identifier-like runs, or single characters.
std::vector<std::pair<size_t, size_t>> Tokens(const std::string& text) {
  auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '.' || c == '%' || c == '#' || c == '@' || c == '$' ||
           c == '-' || c == '!' || c == '^';
  };
  std::vector<std::pair<size_t, size_t>> tokens;
  size_t i = 0;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t start = i++;
    if (word(text[start]))
      while (i < text.size() && word(text[i])) ++i;
    tokens.emplace_back(start, i);
  }
  return tokens;
}

// Calls `run` on the seed and on its mutations; returns how many inputs.
template <typename Run>
size_t Mutate(const std::string& seed, Run run) {
  static const char kBytes[] = {
      '{', '}', '(', ')', '<', '>',  '[', ']', '"', '%',  '#',  ':',    ',',
      '=', '0', '9', '-', 'x', '\\', '@', '!', ' ', '\n', '\0', '\x7f', '\xff'};
  // Mutation points of each kind per seed. A sanitized build (-O0, checks
  // on every access) parses about 50x slower and took minutes over the 300
  // corpus programs at 40; every kind of mutation still reaches every seed.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr size_t kPoints = 10;
#else
  constexpr size_t kPoints = 40;
#endif
  size_t count = 0;
  auto go = [&](const std::string& input) {
    run(input);
    ++count;
  };
  go(seed);
  size_t n = seed.size();
  size_t step = std::max<size_t>(1, n / kPoints);
  for (size_t cut = 0; cut < n; cut += step) go(seed.substr(0, cut));
  size_t k = 0;
  for (size_t at = step / 2; at < n; at += step, ++k) {
    std::string flipped = seed;
    flipped[at] = kBytes[k % sizeof(kBytes)];
    go(flipped);
  }
  std::vector<std::pair<size_t, size_t>> tokens = Tokens(seed);
  size_t token_step = std::max<size_t>(1, tokens.size() / kPoints);
  for (size_t t = 0; t < tokens.size(); t += token_step) {
    auto [begin, end] = tokens[t];
    go(seed.substr(0, begin) + seed.substr(end));
    go(seed.substr(0, end) + " " + seed.substr(begin));
  }
  return count;
}

int RunSeeds(const Target& target) {
  std::vector<fs::path> files = SeedFiles(target);
  if (files.empty()) {
    std::fprintf(stderr, "%s: no seeds found\n", target.name);
    return 1;
  }
  size_t inputs = 0;
  for (const fs::path& file : files) {
    // Names the seed a crash came from (its mutations are reproducible).
    std::printf("%s: %s\n", target.name, file.filename().c_str());
    std::fflush(stdout);
    std::string seed = ReadFile(file);
    inputs += Mutate(seed, [&](const std::string& input) {
      target.entry(reinterpret_cast<const uint8_t*>(input.data()),
                   input.size());
    });
  }
  std::printf("%s: %zu seeds, %zu inputs\n", target.name, files.size(), inputs);
  return 0;
}

int RunFiles(const Target& target, int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    std::string input = ReadFile(argv[i]);
    std::printf("%s: %s (%zu bytes)\n", target.name, argv[i], input.size());
    target.entry(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Target> targets = Targets();
  if (argc >= 2) {
    for (const Target& target : targets)
      if (target.name == std::string(argv[1]))
        return argc == 2 ? RunSeeds(target) : RunFiles(target, argc, argv);
    std::fprintf(stderr, "unknown target '%s'\n", argv[1]);
    return 2;
  }
  for (const Target& target : targets)
    if (int failed = RunSeeds(target)) return failed;
  return 0;
}
