// error.hpp -- the exceptions fusegrad throws: one base class, one subclass per kind of mistake.
#pragma once

#include <stdexcept>
#include <string>

namespace fusegrad {

/// Base of every exception fusegrad throws; catch this to catch them all.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Run-time extents that do not fit an operation (broadcasting, matmul ...).
class shape_error : public error {
 public:
  using error::error;
};

/// Misuse of a recorded graph: backward through freed parts, non-scalar roots, stale saved values.
class graph_error : public error {
 public:
  using error::error;
};

/// A value outside an operation's domain (item() on a non-scalar, NaN found by anomaly mode ...).
class value_error : public error {
 public:
  using error::error;
};

/// Memory for a tensor's values, a gradient or a sweep's buffer that the system did not give: the message says how
/// many bytes were asked for (PyTorch's "can't allocate memory").
class memory_error : public error {
 public:
  using error::error;
};

}  // namespace fusegrad
