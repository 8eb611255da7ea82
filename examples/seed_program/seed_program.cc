// The seed programs end to end: loads handler libraries as plugins, runs
// every seed computation through xffi's runtime (typed FFI handlers by
// registry name and by exported symbol, legacy targets of API versions 1 to
// 3) and checks each result against a reference computed here.
//
//   seed_program --plugin libdo_custom_call.so --plugin librms_norm.so
//                --plugin libsubtract_f32.so
//                --plugin libdo_custom_call_legacy.so
//
// Exit status: 0 when every check passes, 1 when any fails, 2 for bad usage.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "xffi/runtime/introspect.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/plugin.h"
#include "xffi/runtime/registry.h"
#include "xffi/testing.h"

namespace {

using xffi::LegacyApiVersion;
using xffi::LegacyCallFrame;
using xffi::LegacyShape;
using xffi::Platform;
using xffi::Status;

constexpr int64_t kPeriod = 128;
constexpr int64_t kLength = 2048;

const char kUsage[] =
    "usage: seed_program --plugin LIB [--plugin LIB]...\n"
    "\n"
    "Loads each handler library LIB, then runs the seed computations through\n"
    "the xffi runtime and checks them against references computed here:\n"
    "  do_custom_call   A[i] = B[i % 128] + C[i], f32[128], f32[2048] ->\n"
    "                   f32[2048]: typed FFI (by registry name and by "
    "exported\n"
    "                   symbol DoCustomCall) and legacy API versions 1, 2, 3\n"
    "  subtract_f32     scalar a - b, legacy API version 1\n"
    "  rms_norm         x / sqrt(mean(x^2) + eps) with an eps attribute\n"
    "Exits 1 if any check fails (a missing plugin fails its checks).\n";

// One row of the report.
struct Check {
  std::string name;
  std::string form;
  Status status;
  double max_error = 0;
};

// Deterministic inputs, so a failure reproduces.
std::vector<float> Pattern(int64_t n, float scale, float offset) {
  std::vector<float> values(n);
  uint32_t state = 12345u + static_cast<uint32_t>(n);
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    values[i] = offset + scale * static_cast<float>(state >> 8) / (1 << 24);
  }
  return values;
}

// Fails when any element differs from the reference by more than
// `tolerance` relative to the reference's magnitude (at least 1).
Status Compare(const std::vector<float>& got, const std::vector<float>& want,
               double tolerance, double* max_error) {
  *max_error = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double error = std::fabs(double{got[i]} - double{want[i]});
    if (std::isnan(got[i])) error = std::numeric_limits<double>::infinity();
    if (error > *max_error) *max_error = error;
    if (error > tolerance * std::max(1.0, std::fabs(double{want[i]}))) {
      return xffi::Internal("element " + std::to_string(i) + " is " +
                            std::to_string(got[i]) + ", expected " +
                            std::to_string(want[i]));
    }
  }
  return Status::Ok();
}

struct DoCustomCallData {
  std::vector<float> b = Pattern(kPeriod, 4.0f, -2.0f);
  std::vector<float> c = Pattern(kLength, 100.0f, -50.0f);
  std::vector<float> a = std::vector<float>(kLength, 0.0f);
  std::vector<float> reference() const {
    std::vector<float> out(kLength);
    for (int64_t i = 0; i < kLength; ++i) out[i] = b[i % kPeriod] + c[i];
    return out;
  }
};

Status FromInvoke(const xffi::testing::InvokeResult& result) {
  return result.ok() ? Status::Ok() : result.status();
}

Check TypedDoCustomCall(
    const std::string& form,
    const std::function<xffi::testing::InvokeResult(xffi::testing::CallFrame&)>&
        invoke) {
  Check check{"do_custom_call", form, Status::Ok()};
  DoCustomCallData data;
  xffi::testing::CallFrame frame = xffi::testing::CallFrameBuilder()
                                       .Arg(data.b.data(), {kPeriod})
                                       .Arg(data.c.data(), {kLength})
                                       .Ret(data.a.data(), {kLength})
                                       .Build();
  check.status = FromInvoke(invoke(frame));
  if (check.status.ok()) {
    check.status = Compare(data.a, data.reference(), 0, &check.max_error);
  }
  return check;
}

// A handler exported by any loaded plugin under `symbol`.
xffi::StatusOr<XLA_FFI_Handler*> FindExported(
    const std::vector<std::shared_ptr<const xffi::Plugin>>& plugins,
    const std::string& symbol) {
  for (const auto& plugin : plugins) {
    auto exported = plugin->ExportedHandlers();
    if (!exported.ok()) continue;
    for (const xffi::ExportedHandler& handler : *exported) {
      if (handler.name == symbol) return handler.handler;
    }
  }
  return xffi::NotFound("no loaded plugin exports a handler '" + symbol + "'");
}

Check LegacyDoCustomCall(const std::string& target, LegacyApiVersion version,
                         const std::string& opaque) {
  Check check{target, "legacy v" + std::to_string(static_cast<int>(version)),
              Status::Ok()};
  DoCustomCallData data;
  LegacyCallFrame frame = LegacyCallFrame::Create(
      Platform::kHost, {LegacyShape::Array(), LegacyShape::Array()},
      LegacyShape::Array());
  check.status = frame.SetOperandLeaf(0, data.b.data());
  if (check.status.ok()) check.status = frame.SetOperandLeaf(1, data.c.data());
  if (check.status.ok()) check.status = frame.SetResultLeaf(0, data.a.data());
  frame.set_opaque(opaque);
  if (check.status.ok()) {
    check.status = xffi::CallLegacyTarget(target, version, frame);
  }
  if (check.status.ok()) {
    check.status = Compare(data.a, data.reference(), 0, &check.max_error);
  }
  return check;
}

// A target's reported failure must come back as an error carrying its text.
Check ExpectLegacyFailure(const std::string& target, LegacyApiVersion version,
                          const std::string& opaque, bool nan_in_b,
                          const std::string& expected_text) {
  Check check{
      target,
      "legacy v" + std::to_string(static_cast<int>(version)) + " failure",
      Status::Ok()};
  DoCustomCallData data;
  if (nan_in_b) data.b[7] = std::nanf("");
  LegacyCallFrame frame = LegacyCallFrame::Create(
      Platform::kHost, {LegacyShape::Array(), LegacyShape::Array()},
      LegacyShape::Array());
  (void)frame.SetOperandLeaf(0, data.b.data());
  (void)frame.SetOperandLeaf(1, data.c.data());
  (void)frame.SetResultLeaf(0, data.a.data());
  frame.set_opaque(opaque);
  Status status = xffi::CallLegacyTarget(target, version, frame);
  if (status.ok()) {
    check.status = xffi::Internal("the target reported no failure");
  } else if (status.message().find(expected_text) == std::string::npos) {
    check.status = status;  // some other error, e.g. not registered
  }
  return check;
}

Check SubtractF32() {
  Check check{"subtract_f32", "legacy v1", Status::Ok()};
  const float cases[][2] = {{1.25f, 0.5f}, {0.0f, 3.0f}, {-7.5f, -7.5f}};
  for (const auto& pair : cases) {
    float a = pair[0], b = pair[1], out = std::nanf("");
    LegacyCallFrame frame = LegacyCallFrame::Create(
        Platform::kHost, {LegacyShape::Array(), LegacyShape::Array()},
        LegacyShape::Array());
    (void)frame.SetOperandLeaf(0, &a);
    (void)frame.SetOperandLeaf(1, &b);
    (void)frame.SetResultLeaf(0, &out);
    check.status = xffi::CallLegacyTarget("subtract_f32",
                                          LegacyApiVersion::kOriginal, frame);
    if (!check.status.ok()) return check;
    double error = 0;
    check.status = Compare({out}, {a - b}, 0, &error);
    check.max_error = std::max(check.max_error, error);
    if (!check.status.ok()) return check;
  }
  return check;
}

Check RmsNorm() {
  Check check{"rms_norm", "typed FFI, eps=1e-5", Status::Ok()};
  constexpr int64_t kRows = 4, kCols = 256;
  constexpr float kEps = 1e-5f;
  std::vector<float> x = Pattern(kRows * kCols, 6.0f, -3.0f);
  std::vector<float> y(x.size(), 0.0f), reference(x.size());
  for (int64_t row = 0; row < kRows; ++row) {
    double sum = 0;
    for (int64_t i = 0; i < kCols; ++i) {
      sum += double{x[row * kCols + i]} * x[row * kCols + i];
    }
    double scale = 1.0 / std::sqrt(sum / kCols + kEps);
    for (int64_t i = 0; i < kCols; ++i) {
      reference[row * kCols + i] =
          static_cast<float>(x[row * kCols + i] * scale);
    }
  }
  xffi::testing::CallFrame frame = xffi::testing::CallFrameBuilder()
                                       .Arg(x.data(), {kRows, kCols})
                                       .Ret(y.data(), {kRows, kCols})
                                       .Attr("eps", kEps)
                                       .Build();
  check.status =
      FromInvoke(xffi::testing::InvokeRegistered("rms_norm", "Host", frame));
  if (check.status.ok()) {
    check.status = Compare(y, reference, 1e-5, &check.max_error);
  }
  return check;
}

void PrintTable(const std::vector<Check>& checks) {
  std::printf("\n%-22s %-26s %-6s %-10s %s\n", "computation", "form", "result",
              "max error", "detail");
  std::printf("%s\n", std::string(90, '-').c_str());
  for (const Check& check : checks) {
    std::printf("%-22s %-26s %-6s %-10.3g %s\n", check.name.c_str(),
                check.form.c_str(), check.status.ok() ? "ok" : "FAIL",
                check.max_error,
                check.status.ok() ? "" : check.status.ToString().c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> plugin_paths;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--plugin" && i + 1 < argc) {
      plugin_paths.push_back(argv[++i]);
    } else if (arg.rfind("--plugin=", 0) == 0) {
      plugin_paths.push_back(arg.substr(9));
    } else {
      std::fprintf(stderr, "seed_program: unexpected argument '%s'\n\n%s",
                   arg.c_str(), kUsage);
      return 2;
    }
  }
  if (plugin_paths.empty()) {
    std::fprintf(stderr, "seed_program: no --plugin given\n\n%s", kUsage);
    return 2;
  }

  std::vector<Check> checks;
  std::vector<std::shared_ptr<const xffi::Plugin>> plugins;
  for (const std::string& path : plugin_paths) {
    auto plugin = xffi::Plugin::Load(path);
    if (!plugin.ok()) {
      checks.push_back({"load " + path, "plugin", plugin.status()});
      continue;
    }
    plugins.push_back(*plugin);
    std::printf("loaded %s: %zu FFI handler(s), %zu legacy target(s)",
                path.c_str(), (*plugin)->RegisteredHandlers().size(),
                (*plugin)->RegisteredLegacyTargets().size());
    std::printf("\n");
    // What `xffi inspect` shows: the exported symbols, self-described.
    if (auto exported = xffi::DescribeExportedHandlers(**plugin);
        exported.ok()) {
      for (const xffi::TargetDescription& handler : *exported) {
        std::printf("  exports %s: %s\n", handler.name.c_str(),
                    handler.signature.empty() ? "(no signature)"
                                              : handler.signature.c_str());
      }
    } else {
      checks.push_back({"inspect " + path, "plugin", exported.status()});
    }
  }

  std::printf("\nregistered targets:\n");
  for (const std::string& line : xffi::DescribeTargetsText(Platform::kHost)) {
    std::printf("  %s\n", line.c_str());
  }

  checks.push_back(TypedDoCustomCall(
      "typed FFI, by name", [](xffi::testing::CallFrame& frame) {
        return xffi::testing::InvokeRegistered("do_custom_call", "Host", frame);
      }));
  auto exported = FindExported(plugins, "DoCustomCall");
  if (exported.ok()) {
    checks.push_back(TypedDoCustomCall(
        "typed FFI, by symbol", [&](xffi::testing::CallFrame& frame) {
          xffi::testing::InvokeOptions options;
          options.target_name = "DoCustomCall";
          return xffi::testing::Invoke(*exported, frame, options);
        }));
  } else {
    checks.push_back(
        {"do_custom_call", "typed FFI, by symbol", exported.status()});
  }
  checks.push_back(
      LegacyDoCustomCall("do_custom_call", LegacyApiVersion::kOriginal, ""));
  checks.push_back(LegacyDoCustomCall("do_custom_call_status",
                                      LegacyApiVersion::kStatusReturning, ""));
  checks.push_back(LegacyDoCustomCall("do_custom_call_v3",
                                      LegacyApiVersion::kStatusReturningUnified,
                                      std::to_string(kLength)));
  checks.push_back(ExpectLegacyFailure("do_custom_call_status",
                                       LegacyApiVersion::kStatusReturning, "",
                                       /*nan_in_b=*/true, "B[7] is NaN"));
  checks.push_back(ExpectLegacyFailure(
      "do_custom_call_v3", LegacyApiVersion::kStatusReturningUnified, "twenty",
      /*nan_in_b=*/false, "got 'twenty'"));
  checks.push_back(SubtractF32());
  checks.push_back(RmsNorm());

  PrintTable(checks);
  int failed = 0;
  for (const Check& check : checks) failed += check.status.ok() ? 0 : 1;
  std::printf("\n%zu passed, %d failed\n", checks.size() - failed, failed);
  return failed == 0 ? 0 : 1;
}
