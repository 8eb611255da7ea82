// Whether this test binary was built with AddressSanitizer or
// ThreadSanitizer. The largest sweeps (every type x reducer x shape
// compiled and compared against a reference) run a thinned set of cases
// there: a case costs 30-150x more under the -O0 sanitizer build, which made
// a handful of sweeps a fifth of the ASan stage of scripts/test.sh, and
// what the sanitizer adds (memory and UB checks of xffi's own code) is
// reached by every kept case already; the release stage runs every case.
#ifndef XFFI_TESTS_CPP_SANITIZED_BUILD_H_
#define XFFI_TESTS_CPP_SANITIZED_BUILD_H_

#include <initializer_list>
#include <vector>

namespace xffi::testing_util {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// `all` in a plain build, `thinned` in a sanitized one.
template <typename T>
std::vector<T> SweepValues(std::initializer_list<T> all,
                           std::initializer_list<T> thinned) {
  return kSanitizedBuild ? std::vector<T>(thinned) : std::vector<T>(all);
}

}  // namespace xffi::testing_util

#endif  // XFFI_TESTS_CPP_SANITIZED_BUILD_H_
