// expr/print.hpp -- operator<< for static expressions and leaves: their value, laid out as PyTorch prints a tensor.
#pragma once

#include <ostream>
#include <sstream>
#include <type_traits>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/tensor_layout.hpp>
#include <fusegrad/expr/closure.hpp>
#include <fusegrad/expr/eval.hpp>
#include <fusegrad/expr/visit.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad {

/// Prints the value of a static expression or leaf (a Var, a Const), computed as fg::eval computes it, in PyTorch's
/// layout and the stream's precision: `[[1, 2],\n [3, 4]]`, a rank-0 value as its number. As with Eigen's expressions,
/// printing one evaluates it. Tensors print as tensors (tape/print.hpp).
///   std::cout << x * 2.0 << '\n';
template <class E>
  requires(Differentiable<E> && !detail::is_handle_v<E>)
std::ostream& operator<<(std::ostream& os, const E& expr) {
  if constexpr (detail::one_scalar_type_v<E>) {  // otherwise the one error of mixed scalar types, and nothing more
    using T = typename E::value_type;
    const auto value = eval(expr);  // a number for rank 0, else the values in row-major order
    const T* values = [&] {
      if constexpr (std::is_same_v<std::remove_cv_t<decltype(value)>, T>)
        return &value;
      else
        return value.data();
    }();
    const Extents extents = expr.extents();
    std::ostringstream out;  // built aside, so the caller's width applies to the whole text
    detail::tensor_layout<T>(values, extents, os).write(out, 0);
    os << out.str();
  }
  return os;
}

}  // namespace fusegrad
