// XlaCustomCallStatusSetSuccess / SetFailure, as legacy targets use them.
#include "xffi/custom_call_status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "runtime/legacy_internal.h"

namespace {

TEST(CustomCallStatus, StartsSuccessful) {
  XlaCustomCallStatus status;
  EXPECT_FALSE(status.failure.has_value());
}

TEST(CustomCallStatus, FailureCopiesTheMessage) {
  XlaCustomCallStatus status;
  std::string message = "bad input";
  XlaCustomCallStatusSetFailure(&status, message.c_str(), message.size());
  message = "overwritten";
  ASSERT_TRUE(status.failure.has_value());
  EXPECT_EQ(*status.failure, "bad input");
}

TEST(CustomCallStatus, LengthBoundsTheMessage) {
  XlaCustomCallStatus status;
  const char* message = "truncate me";
  XlaCustomCallStatusSetFailure(&status, message, 8);
  EXPECT_EQ(*status.failure, "truncate");
}

TEST(CustomCallStatus, NulStopsTheMessageBeforeTheLength) {
  XlaCustomCallStatus status;
  char buffer[64] = "short";  // the rest is NUL
  XlaCustomCallStatusSetFailure(&status, buffer, sizeof(buffer));
  EXPECT_EQ(*status.failure, "short");
  XlaCustomCallStatusSetFailure(&status, "generous bound", SIZE_MAX);
  EXPECT_EQ(*status.failure, "generous bound");
}

TEST(CustomCallStatus, SuccessUndoesFailure) {
  XlaCustomCallStatus status;
  XlaCustomCallStatusSetFailure(&status, "oops", 4);
  XlaCustomCallStatusSetSuccess(&status);
  EXPECT_FALSE(status.failure.has_value());
}

TEST(CustomCallStatus, LastFailureWins) {
  XlaCustomCallStatus status;
  XlaCustomCallStatusSetFailure(&status, "first", 5);
  XlaCustomCallStatusSetFailure(&status, "second", 6);
  EXPECT_EQ(*status.failure, "second");
}

TEST(CustomCallStatus, NullMessageIsAnEmptyFailure) {
  XlaCustomCallStatus status;
  XlaCustomCallStatusSetFailure(&status, nullptr, 10);
  ASSERT_TRUE(status.failure.has_value());
  EXPECT_EQ(*status.failure, "");
}

TEST(CustomCallStatus, NullStatusIsIgnored) {
  XlaCustomCallStatusSetFailure(nullptr, "x", 1);
  XlaCustomCallStatusSetSuccess(nullptr);
}

}  // namespace
