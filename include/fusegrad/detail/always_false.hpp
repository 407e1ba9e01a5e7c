// detail/always_false.hpp -- always_false<A...>: a condition that depends on template parameters and never holds, for a
// static_assert that fires only where its template is used.
#pragma once

namespace fusegrad::detail {

template <class... A>
inline constexpr bool always_false = false;

}  // namespace fusegrad::detail
