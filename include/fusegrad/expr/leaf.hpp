// expr/leaf.hpp -- Var and Const: the leaves of static expressions, owning or viewing their data.
#pragma once

#include <initializer_list>
#include <type_traits>

#include <fusegrad/concepts.hpp>
#include <fusegrad/expr/leaf_data.hpp>
#include <fusegrad/expr/view_leaf_data.hpp>

namespace fusegrad {
namespace detail {

// The shape of a Var or Const that names none, Var<double>, or names a type that is not a Shape: its leaf is then a
// Shape<dyn> vector that takes any arguments, so that the static_assert of Var or Const is the one error.
struct shape_not_given {};

template <Scalar T, class Storage>
class leaf_data<T, shape_not_given, Storage> : public leaf_data<T, Shape<dyn>, owning> {
 public:
  template <class... A>
  explicit leaf_data(A&&...) : leaf_data<T, Shape<dyn>, owning>(Extents{0}) {}
  leaf_data(std::initializer_list<T>) : leaf_data() {}
  leaf_data(std::initializer_list<std::initializer_list<T>>) : leaf_data() {}
  leaf_data(const Extents&, std::initializer_list<T>) : leaf_data() {}
};

// The scalar type a leaf stores: T, or double where T is not a Scalar, so that the leaf's own static_assert is the one
// error (a constrained T would add knock-on errors for every use of the leaf). The same for its shape.
template <class T>
using leaf_scalar_t = std::conditional_t<Scalar<T>, T, double>;
template <class S>
using leaf_shape_t = std::conditional_t<ShapeType<S>, S, shape_not_given>;
}  // namespace detail

/// A variable: a leaf that receives gradients. `Var<double, Shape<3>> x{1.0, 2.0, 3.0};`
/// Static shapes up to max_fixed_bytes own fixed-size storage, so no heap is touched.
/// `Var<double, Shape<dyn>, view> x(data, {n});` reads caller memory without copying.
/// Example: examples/static_gradient.cpp.
template <class T, class S = detail::shape_not_given, class Storage = owning>
class Var : public detail::leaf_data<detail::leaf_scalar_t<T>, detail::leaf_shape_t<S>, Storage> {
  static_assert(Scalar<T>,
                "fusegrad::Var<T, S>: T is not a scalar type fusegrad differentiates; use float, double, "
                "std::complex<float> or std::complex<double> (an integer tensor has no gradient)");
  static_assert(!std::is_same_v<detail::leaf_shape_t<S>, detail::shape_not_given>,
                "fusegrad::Var<T, S>: S is the shape, a type: fg::Var<double, fg::Shape<3>>, or "
                "fg::Shape<fg::dyn> for an extent known at run time");

 public:
  using detail::leaf_data<detail::leaf_scalar_t<T>, detail::leaf_shape_t<S>, Storage>::leaf_data;
  static constexpr bool takes_grad = true;
};

/// A constant: a leaf that never receives gradients (data, targets, literals).
template <class T, class S = detail::shape_not_given, class Storage = owning>
class Const : public detail::leaf_data<detail::leaf_scalar_t<T>, detail::leaf_shape_t<S>, Storage> {
  static_assert(Scalar<T>,
                "fusegrad::Const<T, S>: T is not a scalar type fusegrad computes with; use float, double, "
                "std::complex<float> or std::complex<double> (convert integer data to one of them)");
  static_assert(!std::is_same_v<detail::leaf_shape_t<S>, detail::shape_not_given>,
                "fusegrad::Const<T, S>: S is the shape, a type: fg::Const<double, fg::Shape<3>>, or "
                "fg::Shape<fg::dyn> for an extent known at run time");

 public:
  using detail::leaf_data<detail::leaf_scalar_t<T>, detail::leaf_shape_t<S>, Storage>::leaf_data;
  static constexpr bool takes_grad = false;
};

namespace detail {
// A Const that reads the caller's memory (the view storage policy): its values may change, or be freed, after the
// expression is built.
template <class E>
struct is_view_const : std::false_type {};
template <Scalar T, ShapeType S>
struct is_view_const<Const<T, S, view>> : std::true_type {};
}  // namespace detail

}  // namespace fusegrad
