// expect: error: .*shapes_cannot_be_broadcast<fusegrad::Shape<3, 2>, fusegrad::Shape<4>, .*"\(3, 2\) and \(4\)"
// fail/broadcast_mismatch.cpp -- (3,2) and (4) clash on the last axis: a compile error naming both shapes.
#include <fusegrad/shape/broadcast.hpp>

using fusegrad::broadcast_t;
using fusegrad::Shape;

using fine = broadcast_t<Shape<3, 2>, Shape<2>>;  // the legal twin: (3,2) x (2) -> (3,2)
static_assert(fine::rank == 2, "(3, 2) x (2) has rank 2");

#ifdef FUSEGRAD_FAIL
using clash = broadcast_t<Shape<3, 2>, Shape<4>>;  // 2 vs 4 on the last axis
#endif

int main() { return 0; }
