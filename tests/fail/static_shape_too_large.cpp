// expect: error: static assertion failed: fusegrad::Extents::of<S>\(\): S holds more than 2\^59 elements
// fail/static_shape_too_large.cpp -- the extents of a static shape of more than 2^59 elements: one compile error
// saying so (a run-time shape that large throws shape_error).
#include <cstddef>

#include <fusegrad/shape/extents.hpp>

namespace fg = fusegrad;

int main() {
  constexpr std::size_t big = std::size_t(1) << 30;
  constexpr fg::Extents empty = fg::Extents::of<fg::Shape<big, 0, big>>();  // the legal twin: an empty axis
  static_assert(empty.size() == 0);
#ifdef FUSEGRAD_FAIL
  constexpr fg::Extents huge = fg::Extents::of<fg::Shape<big, big>>();  // 2^60 elements
  (void)huge;
#endif
  return 0;
}
