// test_package.cpp -- the fusegrad Conan package works: headers found, Eigen and Boost linked, results right.
#include <cstdio>
#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>

namespace fg = fusegrad;

static_assert(std::is_same_v<fg::broadcast_t<fg::Shape<3, 1>, fg::Shape<4>>, fg::Shape<3, 4>>,
              "broadcast_t<Shape<3, 1>, Shape<4>> must be Shape<3, 4>");

int main() {
  const fg::Extents big = fg::broadcast({3, 1}, {4});                     // (3,4)
  const Eigen::ArrayXd grad = Eigen::ArrayXd::Ones(12);                   // dL/dy over (3,4)
  const Eigen::ArrayXd column = fg::reduce_broadcast(grad, big, {3, 1});  // each row sums 4 ones
  std::printf("fusegrad %s -> column gradient %g %g %g\n", big.to_string().c_str(), column[0], column[1], column[2]);
  return big == fg::Extents{3, 4} && (column == 4.0).all() ? 0 : 1;
}
