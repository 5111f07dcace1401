// Status propagation macros. Debian's Abseil (20220623) ships none, so rpsum keeps two small,
// prefixed ones here.
#ifndef RPSUM_BASE_STATUS_MACROS_H_
#define RPSUM_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RPSUM_STATUS_CONCAT_INNER_(a, b) a##b
#define RPSUM_STATUS_CONCAT_(a, b) RPSUM_STATUS_CONCAT_INNER_(a, b)

// Evaluates `expr` (an absl::Status) and returns it from the enclosing function if not OK.
#define RPSUM_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::absl::Status rpsum_status_ = (expr);         \
    if (!rpsum_status_.ok()) return rpsum_status_; \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status from the enclosing
// function, else moves the value into `lhs` (a declaration such as `auto x` or an lvalue).
#define RPSUM_ASSIGN_OR_RETURN(lhs, rexpr) \
  RPSUM_ASSIGN_OR_RETURN_IMPL_(RPSUM_STATUS_CONCAT_(rpsum_statusor_, __LINE__), lhs, rexpr)

// `statusor` names a variable and `lhs` may be a declaration: neither can be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define RPSUM_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()
// NOLINTEND(bugprone-macro-parentheses)

#endif  // RPSUM_BASE_STATUS_MACROS_H_
