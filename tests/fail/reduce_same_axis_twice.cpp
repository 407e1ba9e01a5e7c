// expect: error: .*reduction_names_the_same_axis_twice<fusegrad::Shape<3, 2>, fusegrad::Axes<1, 1>, .*"\(3, 2\)"
// fail/reduce_same_axis_twice.cpp -- a reduction that names axis 1 twice: a compile error naming shape and axes.
#include <fusegrad/shape/reduce.hpp>

using fusegrad::Axes;
using fusegrad::reduce_t;
using fusegrad::Shape;

using fine = reduce_t<Shape<3, 2>, Axes<0, 1>>;  // the legal twin: both axes -> ()
static_assert(fine::rank == 0, "(3, 2) summed over axes 0 and 1 has rank 0");

#ifdef FUSEGRAD_FAIL
using twice = reduce_t<Shape<3, 2>, Axes<1, 1>>;  // name each axis once
#endif

int main() { return 0; }
