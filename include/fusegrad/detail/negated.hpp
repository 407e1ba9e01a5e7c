// detail/negated.hpp -- negated(x): -x for arrays of real values, with the sign of zero flipped in every lane.
#pragma once

#include <type_traits>

namespace fusegrad::detail {

// -x as the ops write it on Eigen arrays. Eigen 3.4 negates an AVX or AVX-512 register as 0 - x, which makes -(+0)
// +0, where a value alone or in an SSE2 register gets -0: a sign that would depend on where the value sits in its
// array (and log1mexp's slope at 0, -inf from either zero, would turn +inf in some lanes). Multiplying by -1 is exact
// and flips the sign everywhere, as PyTorch's negation does. Complex values keep unary minus: (-1) z would multiply
// an infinite part by 0.
template <class X>
auto negated(const X& x) {
  if constexpr (requires { typename X::Scalar; }) {
    if constexpr (std::is_floating_point_v<typename X::Scalar>)
      return x * typename X::Scalar(-1);
    else
      return -x;  // complex values
  } else {
    return -x;  // a number
  }
}

}  // namespace fusegrad::detail
