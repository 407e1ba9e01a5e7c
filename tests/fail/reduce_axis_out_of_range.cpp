// expect: error: .*reduction_axis_out_of_range_for_shape<fusegrad::Shape<3, 2>, fusegrad::Axes<2>, .*"\(3, 2\)"
// fail/reduce_axis_out_of_range.cpp -- Shape<3, 2> has axes 0 and 1; reducing over axis 2 is a compile error.
#include <fusegrad/shape/reduce.hpp>

using fusegrad::Axes;
using fusegrad::reduce_t;
using fusegrad::Shape;

using fine = reduce_t<Shape<3, 2>, Axes<1>>;  // the legal twin: sum over the last axis -> (3)
static_assert(fine::rank == 1, "(3, 2) summed over axis 1 has rank 1");

#ifdef FUSEGRAD_FAIL
using past_the_end = reduce_t<Shape<3, 2>, Axes<2>>;  // axis 2 does not exist in a rank-2 shape
#endif

int main() { return 0; }
