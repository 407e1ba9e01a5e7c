// expr/leaf_mistakes.hpp -- PyTorch's in-place update `w -= lr * dw` on a Var or Const, which fusegrad's leaves do not
// take (their values change through value()): one error that says so.
#pragma once

#include <fusegrad/detail/always_false.hpp>
#include <fusegrad/expr/leaf.hpp>

namespace fusegrad {

namespace detail {
template <class L>
inline constexpr bool is_var_or_const_v = false;
template <class T, class S, class Storage>
inline constexpr bool is_var_or_const_v<Var<T, S, Storage>> = true;
template <class T, class S, class Storage>
inline constexpr bool is_var_or_const_v<Const<T, S, Storage>> = true;

// The right side of PyTorch's in-place update, w -= lr * grad, on a Var or Const: one error that says where a leaf's
// values change, where no operator would match (and a wall of Eigen's candidates would follow). Reached by a
// user-defined conversion, so that a program's own operator for a leaf, which takes its right side as it is or as an
// Eigen base, is the better match and keeps its calls.
struct update_of_a_leaf {
  template <class U>
  update_of_a_leaf(const U& /*update*/) {  // NOLINT: implicit: any right side converts, as a worse match
    static_assert(always_false<U>,
                  "fusegrad::Var/Const: a leaf's values change through value(), an Eigen map over them: "
                  "x.value() -= 0.1 * dx (a view leaf's are the memory it views)");
  }
};
}  // namespace detail

template <class L>
  requires detail::is_var_or_const_v<L>
void operator+=(L&, detail::update_of_a_leaf) {}
template <class L>
  requires detail::is_var_or_const_v<L>
void operator-=(L&, detail::update_of_a_leaf) {}
template <class L>
  requires detail::is_var_or_const_v<L>
void operator*=(L&, detail::update_of_a_leaf) {}
template <class L>
  requires detail::is_var_or_const_v<L>
void operator/=(L&, detail::update_of_a_leaf) {}

}  // namespace fusegrad
