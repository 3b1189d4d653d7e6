// Result<T>: a value or an Error, shaped like C++23 std::expected so it can be swapped later.
// Usage:
//   Result<Number> n = Number::Parse(s);
//   if (!n) return n.error();
//   Use(*n);
#pragma once

#include <cassert>
#include <optional>
#include <utility>
#include <variant>

#include "common/error.h"

namespace ttlstore {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { assert(!ok()); return std::get<1>(v_); }
  Error&& error() && { assert(!ok()); return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  static Status Ok() { return {}; }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const& { assert(!ok()); return *error_; }
  Error&& error() && { assert(!ok()); return std::move(*error_); }

 private:
  std::optional<Error> error_;
};

}  // namespace ttlstore

// Evaluates `expr` (a Result<T>); on error returns the error from the enclosing function,
// otherwise declares `var` holding the value.
#define TTL_CONCAT_INNER(a, b) a##b
#define TTL_CONCAT(a, b) TTL_CONCAT_INNER(a, b)
#define ASSIGN_OR_RETURN(var, expr)                                      \
  auto TTL_CONCAT(var, _result) = (expr);                                \
  if (!TTL_CONCAT(var, _result)) return std::move(TTL_CONCAT(var, _result)).error(); \
  auto var = std::move(*TTL_CONCAT(var, _result))

// Evaluates `expr` (a Status); returns its error from the enclosing function if it failed.
#define RETURN_IF_ERROR(expr)                                   \
  do {                                                          \
    ::ttlstore::Status status_ = (expr);                        \
    if (!status_) return std::move(status_).error();            \
  } while (0)
