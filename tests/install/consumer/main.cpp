// A consumer of fusegrad: exits 0 only if broadcasting and reduce_broadcast give the right numbers, and, when fusegrad
// was configured with a BLAS, a matrix product through it does.
#include <cstdio>
#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>

namespace fg = fusegrad;

#if defined(FUSEGRAD_EXPECT_BLAS) && !defined(EIGEN_USE_BLAS)
#error "fusegrad was configured with FUSEGRAD_BLAS, but its target did not define EIGEN_USE_BLAS"
#elif !defined(FUSEGRAD_EXPECT_BLAS) && defined(EIGEN_USE_BLAS)
#error "fusegrad was configured without a BLAS, but EIGEN_USE_BLAS is defined"
#endif

static_assert(std::is_same_v<fg::broadcast_t<fg::Shape<3, 1>, fg::Shape<4>>, fg::Shape<3, 4>>,
              "broadcast_t<Shape<3, 1>, Shape<4>> must be Shape<3, 4>");

int main() {
  int failures = 0;
  // (2,3) broadcast with (4,1,3) is (4,2,3).
  const fg::Extents big = fg::broadcast({2, 3}, {4, 1, 3});
  if (!(big == fg::Extents{4, 2, 3})) {
    std::printf("broadcast((2, 3), (4, 1, 3)) = %s, expected (4, 2, 3)\n", big.to_string().c_str());
    ++failures;
  }
  // A (2,3) operand broadcast to (2,2,3): its gradient is the sum over the new leading axis.
  Eigen::ArrayXd grad(12);
  grad << 1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60;
  const Eigen::ArrayXd reduced = fg::reduce_broadcast(grad, {2, 2, 3}, {2, 3});
  Eigen::ArrayXd expected(6);
  expected << 11, 22, 33, 44, 55, 66;
  if (reduced.size() != 6 || !reduced.isApprox(expected)) {
    std::printf("reduce_broadcast gave the wrong gradient\n");
    ++failures;
  }
  // 8 x 8 is past Eigen's threshold for small products: with EIGEN_USE_BLAS this is the BLAS's dgemm, which must link.
  Eigen::MatrixXd a(8, 8), b = 2 * Eigen::MatrixXd::Identity(8, 8);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) a(i, j) = i - 2 * j;
  }
  if (!((a * b).eval() == 2 * a)) {
    std::printf("an 8 x 8 matrix product gave the wrong values\n");
    ++failures;
  }
  std::printf("fusegrad consumer: broadcast -> %s, reduce_broadcast -> %d failures\n", big.to_string().c_str(),
              failures);
  return failures == 0 ? 0 : 1;
}
