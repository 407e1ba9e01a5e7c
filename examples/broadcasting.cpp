// broadcasting.cpp -- NumPy broadcasting in fusegrad: shapes at compile time, extents at run time,
// and the gradient of a broadcast operand summed back to the operand's shape.
#include <cstdio>
#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/error.hpp>
#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/reduce.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>
#include <fusegrad/shape/shape.hpp>

namespace fg = fusegrad;

// Prints a row-major array as a list of numbers.
void print(const char* label, const Eigen::ArrayXd& values) {
  std::printf("%s [", label);
  for (Eigen::Index i = 0; i < values.size(); ++i) std::printf(i ? ", %g" : "%g", values[i]);
  std::printf("]\n");
}

int main() {
  // 1. Compile time: shapes are types, so broadcasting is a type computation.
  using Column = fg::Shape<3, 1>;             // a column of 3
  using Row = fg::Shape<4>;                   // a row of 4
  using Grid = fg::broadcast_t<Column, Row>;  // (3, 1) x (4) -> (3, 4), computed by the compiler
  static_assert(std::is_same_v<Grid, fg::Shape<3, 4>>, "a column times a row is a grid");
  using Batch = fg::broadcast_t<fg::Shape<2, 3>, fg::Shape<5, 1, 3>>;  // missing leading axes count as 1
  using Anything = fg::broadcast_t<fg::Shape<fg::dyn>, fg::Shape<4>>;  // dyn meets 4: 4, checked at run time
  using Total = fg::reduce_t<Grid>;                                    // summing every axis leaves a scalar
  using Rows = fg::reduce_t<Grid, fg::Axes<1>, fg::keep_dims::yes>;    // summing axis 1, keeping it as 1

  std::printf("compile time:\n");
  std::printf("  broadcast_t<(3, 1), (4)>                  = %s\n", fg::to_string<Grid>().c_str());      // (3, 4)
  std::printf("  broadcast_t<(2, 3), (5, 1, 3)>            = %s\n", fg::to_string<Batch>().c_str());     // (5, 2, 3)
  std::printf("  broadcast_t<(dyn), (4)>                   = %s\n", fg::to_string<Anything>().c_str());  // (4)
  std::printf("  reduce_t<(3, 4)>                          = %s\n", fg::to_string<Total>().c_str());     // ()
  std::printf("  reduce_t<(3, 4), Axes<1>, keep_dims::yes> = %s\n", fg::to_string<Rows>().c_str());      // (3, 1)

  // 2. Run time: Extents hold shapes only known while the program runs; same rules.
  const fg::Extents a{8, 1, 6, 1};             // NumPy's documentation example
  const fg::Extents b{7, 1, 5};                // aligned from the right: (1, 7, 1, 5)
  const fg::Extents ab = fg::broadcast(a, b);  // -> (8, 7, 6, 5)
  std::printf("run time:\n");
  std::printf("  broadcast(%s, %s) = %s\n", a.to_string().c_str(), b.to_string().c_str(), ab.to_string().c_str());

  // 3. A mismatch at run time is a shape_error that names both shapes and the axis.
  try {
    (void)fg::broadcast({3, 2}, {4});   // 2 and 4 clash on the last axis
  } catch (const fg::shape_error& e) {  // every fusegrad error derives from fusegrad::error
    std::printf("  caught shape_error: %s\n", e.what());
  }

  // 4. Gradients: y = x + bias with x (2, 3) and bias (3); bias was broadcast to (2, 3),
  //    so its gradient is dL/dy summed over the axis broadcasting added.
  Eigen::ArrayXd dy(6);                                                  // dL/dy, row-major (2, 3)
  dy << 1, 2, 3,                                                         // row 0
      10, 20, 30;                                                        // row 1
  const Eigen::ArrayXd dbias = fg::reduce_broadcast(dy, {2, 3}, {3});    // -> (11, 22, 33)
  const Eigen::ArrayXd dcol = fg::reduce_broadcast(dy, {2, 3}, {2, 1});  // a (2, 1) operand -> (6, 60)
  const Eigen::ArrayXd dscalar = fg::reduce_broadcast(dy, {2, 3}, {});   // a scalar operand -> 66
  std::printf("gradients of broadcast operands, dL/dy = (2, 3) [1, 2, 3, 10, 20, 30]:\n");
  print("  bias (3):     ", dbias);
  print("  column (2, 1): ", dcol);
  print("  scalar ():    ", dscalar);

  // The results the comments promise; the example is also a test, so check them.
  const bool ok = ab == fg::Extents{8, 7, 6, 5} && dbias.isApprox(Eigen::Array3d(11, 22, 33)) &&
                  dcol.isApprox(Eigen::Array2d(6, 60)) && dscalar.size() == 1 && dscalar[0] == 66;
  return ok ? 0 : 1;  // a non-zero exit fails `ctest -R example.broadcasting`
}
