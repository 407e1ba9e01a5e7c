// expr/common_value_type.hpp -- a node's scalar type from its operands': all the same, or one compile error that
// names two of them.
#pragma once

#include <cstddef>

namespace fusegrad::detail {

// Never defined: the diagnostic of mixed scalar types (shape.hpp: how a static rule reports).
template <class L, class R>
struct operands_have_different_scalar_types;

template <class L, class R>
struct common_value_type {
  enum : std::size_t { report = sizeof(operands_have_different_scalar_types<L, R>) };  // cast one of them
  using type = L;  // after the one error, a type, so that nothing else fails
};
template <class T>
struct common_value_type<T, T> {
  using type = T;
};

// Of any number of operands, from the left.
template <class T, class... Ts>
struct common_value_type_of {
  using type = T;
};
template <class T, class U, class... Ts>
struct common_value_type_of<T, U, Ts...> : common_value_type_of<typename common_value_type<T, U>::type, Ts...> {};

template <class... Ts>
using common_value_type_t = typename common_value_type_of<Ts...>::type;

}  // namespace fusegrad::detail
