// expr/print.hpp -- operator<< for static expressions and leaves: their value, laid out as PyTorch prints a tensor.
#pragma once

#include <ostream>
#include <sstream>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/tensor_layout.hpp>
#include <fusegrad/expr/closure.hpp>
#include <fusegrad/expr/eval.hpp>
#include <fusegrad/expr/storage.hpp>
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
    const Extents extents = expr.extents();
    auto values = make_storage<T, typename E::static_shape>(extents);
    detail::evaluate_into(expr, extents, values.data());
    std::ostringstream out;                          // built aside, so the caller's width applies to the whole text
    if (extents.size() == 0 && extents.rank() != 1)  // no brackets can show an empty axis that is not the only one
      out << "[], size=" << extents.to_string();
    else
      detail::tensor_layout<T>(values.data(), extents, os).write(out, 0);
    os << out.str();
  }
  return os;
}

}  // namespace fusegrad
