// nn/parameters.hpp -- parameters and named_parameters: every tensor of a model that requires grad, found by
// reflection (Boost.Hana's structs, fusegrad's layers, optionals, smart pointers and containers of them), named as
// PyTorch names them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/hana/accessors.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/core/to.hpp>
#include <boost/hana/define_struct.hpp>  // BOOST_HANA_DEFINE_STRUCT, how a model declares its members
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>

#include <fusegrad/concepts.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/tensor_in_place.hpp>  // a parameter found here may be updated in place

namespace fusegrad::nn {

/// A parameter and its dotted name ("l1.weight", "layers.0.bias").
template <Scalar T>
struct NamedParameter {
  std::string name;
  BasicTensor<T> tensor;
};

namespace detail {
// Holds at most one of its element: searched through when it holds one, under the holder's own name.
template <class C>
inline constexpr bool is_holder_v = false;
template <class U>
inline constexpr bool is_holder_v<std::optional<U>> = true;
template <class U>
inline constexpr bool is_holder_v<std::shared_ptr<U>> = true;
template <class U, class D>
inline constexpr bool is_holder_v<std::unique_ptr<U, D>> = true;

// A range whose elements may hold parameters: not one of numbers or characters (a string, an Eigen vector), nor one
// whose elements are ranges of its own type (a std::filesystem::path, whose components are paths again).
template <class U>
constexpr bool holds_members_range() {
  if constexpr (std::ranges::forward_range<const U>) {
    using element = std::remove_cvref_t<std::ranges::range_reference_t<const U>>;
    return !std::is_arithmetic_v<element> && !std::is_same_v<element, U>;
  } else {
    return false;
  }
}
template <class U>
inline constexpr bool holds_members_range_v = holds_members_range<U>();

// The tensor a Tensor, FloatTensor or ScalarTensor is, of any scalar type; it also tells tensors from the rest.
template <Scalar S>
const BasicTensor<S>& as_tensor(const BasicTensor<S>& t) {
  return t;
}

inline std::string dotted(const std::string& prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

// Calls visit(name, tensor) for each tensor of `m` that requires grad, of any scalar type, in member order: a struct
// adapted for Boost.Hana is searched member by member, a fusegrad layer through its visit_members, an optional or
// smart pointer through what it holds, any other range (vector, array, deque, list...) element by element, named
// by position; anything else holds none. `held` lists what pointers led to so far: each is searched once, so a
// sub-model two members share, or a pointer back up the model (a parent link), ends the search there.
template <class M, class Visit>
void visit_tensors(const M& m, const std::string& prefix, Visit& visit, std::vector<const void*>& held) {
  using U = std::remove_cvref_t<M>;
  if constexpr (requires { detail::as_tensor(m); }) {
    if (m.defined() && m.requires_grad()) visit(prefix, detail::as_tensor(m));
  } else if constexpr (requires { m.visit_members([](std::string_view, const auto&) {}); }) {
    m.visit_members(
        [&](std::string_view name, const auto& member) { visit_tensors(member, dotted(prefix, name), visit, held); });
  } else if constexpr (boost::hana::Struct<U>::value) {
    boost::hana::for_each(boost::hana::accessors<U>(), [&](auto accessor) {
      visit_tensors(boost::hana::second(accessor)(m),
                    dotted(prefix, boost::hana::to<const char*>(boost::hana::first(accessor))), visit, held);
    });
  } else if constexpr (is_holder_v<U>) {
    if (!m) return;
    const void* address = &*m;
    if (std::find(held.begin(), held.end(), address) != held.end()) return;
    held.push_back(address);
    visit_tensors(*m, prefix, visit, held);
  } else if constexpr (holds_members_range_v<U>) {
    std::size_t k = 0;
    for (const auto& element : m) visit_tensors(element, dotted(prefix, std::to_string(k++)), visit, held);
  }
}

// Calls f(name, tensor) for each parameter of `model`, of any scalar type, in member order; a tensor shared by two
// members is a parameter once, under its first name, as in PyTorch.
template <class Model, class F>
void for_each_parameter(const Model& model, F&& f) {
  std::vector<const void*> seen;
  const auto once = [&](const std::string& name, const auto& tensor) {
    if (std::find(seen.begin(), seen.end(), tensor.impl()) != seen.end()) return;
    seen.push_back(tensor.impl());
    f(name, tensor);
  };
  std::vector<const void*> held;
  visit_tensors(model, "", once, held);
}
}  // namespace detail

/// Every tensor of `model` that requires grad and holds T, with its dotted name, in member order: PyTorch's
/// named_parameters() for one scalar type. A model is a plain struct whose members are declared with Boost.Hana
/// (BOOST_HANA_DEFINE_STRUCT, or BOOST_HANA_ADAPT_STRUCT outside it); its members may be tensors, fusegrad layers
/// (nn::Linear, nn::Sequential), other such structs, std::optionals, std::shared_ptrs and std::unique_ptrs of these
/// (named as the member itself; an empty one holds none), and vectors, arrays, deques, lists or any other range of
/// them (named by position). A member of any other type holds none: a struct not declared with Boost.Hana cannot be
/// searched (C++20 has no reflection). No registration, no base class. The tensors are handles: the model's own
/// tensors, which an optimiser given them updates.
/// A model mixing float and double parameters gives each type its own (one optimiser per type); save and load
/// handle both at once. Throws value_error when the model's only parameters hold another scalar type (a float model
/// asked for double ones): name it, `nn::parameters<float>(model)`.
template <Scalar T = double, class Model>
[[nodiscard]] std::vector<NamedParameter<T>> named_parameters(const Model& model) {
  std::vector<NamedParameter<T>> out;
  std::string_view held;  // another scalar type the model's parameters hold
  detail::for_each_parameter(model, [&]<Scalar S>(const std::string& name, const BasicTensor<S>& tensor) {
    if constexpr (std::is_same_v<S, T>)
      out.push_back({name, tensor});
    else if (held.empty())
      held = scalar_name<S>();
  });
  if (out.empty() && !held.empty())
    throw value_error("fusegrad::nn: the model's parameters hold " + std::string(held) + ", and its parameters of " +
                      std::string(scalar_name<T>()) + " were asked for; give the scalar type: fg::nn::parameters<" +
                      std::string(held) + ">(model) (likewise named_parameters)");
  return out;
}

/// The tensors of named_parameters(model), for an optimiser: `fg::optim::Adam opt(fg::nn::parameters(model));`.
template <Scalar T = double, class Model>
[[nodiscard]] std::vector<BasicTensor<T>> parameters(const Model& model) {
  std::vector<BasicTensor<T>> out;
  for (NamedParameter<T>& p : named_parameters<T>(model)) out.push_back(std::move(p.tensor));
  return out;
}

}  // namespace fusegrad::nn
