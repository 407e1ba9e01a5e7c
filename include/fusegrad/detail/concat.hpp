// detail/concat.hpp -- concat(parts...): text built by appending, for the names and messages of nodes.
#pragma once

#include <string>

namespace fusegrad::detail {

// Text built by appending only: GCC 12 reports a false -Wrestrict at -O3 for `"(" + std::string&&`.
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::string out;
  (out.append(parts), ...);
  return out;
}

}  // namespace fusegrad::detail
