// nn/parameters.hpp -- parameters and named_parameters: every tensor of a model that requires grad, found by
// reflection (Boost.Hana's structs, fusegrad's layers, vectors and arrays of them), named as PyTorch names them.
#pragma once

#include <array>
#include <cstddef>
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
template <class C>
inline constexpr bool is_sequence_v = false;
template <class U, class A>
inline constexpr bool is_sequence_v<std::vector<U, A>> = true;
template <class U, std::size_t N>
inline constexpr bool is_sequence_v<std::array<U, N>> = true;

inline std::string dotted(const std::string& prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

// Adds the parameters of `m` under `prefix`. A tensor is one if it requires grad (a tensor shared
// by two members is listed once, under its first name, as PyTorch does); a struct adapted for
// Boost.Hana is searched member by member, a fusegrad layer through its visit_members, a vector or
// array element by element; anything else holds none. `elsewhere` counts the tensors that require grad but hold
// another scalar type than T, so that a model found empty can say why.
template <Scalar T, class M>
void collect(const M& m, const std::string& prefix, std::vector<NamedParameter<T>>& out, std::size_t& elsewhere) {
  using U = std::remove_cvref_t<M>;
  using other = std::conditional_t<std::is_same_v<T, double>, float, double>;
  if constexpr (std::is_base_of_v<BasicTensor<T>, U>) {  // a Tensor, a ScalarTensor
    if (!m.defined() || !m.requires_grad()) return;
    for (const NamedParameter<T>& p : out)
      if (p.tensor.impl() == m.impl()) return;
    out.push_back({prefix, m});
  } else if constexpr (std::is_base_of_v<BasicTensor<other>, U>) {
    if (m.defined() && m.requires_grad()) ++elsewhere;
  } else if constexpr (requires { m.visit_members([](std::string_view, const auto&) {}); }) {
    m.visit_members(
        [&](std::string_view name, const auto& member) { collect<T>(member, dotted(prefix, name), out, elsewhere); });
  } else if constexpr (boost::hana::Struct<U>::value) {
    boost::hana::for_each(boost::hana::accessors<U>(), [&](auto accessor) {
      collect<T>(boost::hana::second(accessor)(m),
                 dotted(prefix, boost::hana::to<const char*>(boost::hana::first(accessor))), out, elsewhere);
    });
  } else if constexpr (is_sequence_v<U>) {
    for (std::size_t k = 0; k < m.size(); ++k) collect<T>(m[k], dotted(prefix, std::to_string(k)), out, elsewhere);
  }
}
}  // namespace detail

/// Every tensor of `model` that requires grad, with its dotted name, in member order: PyTorch's
/// named_parameters(). A model is a plain struct whose members are declared with Boost.Hana
/// (BOOST_HANA_DEFINE_STRUCT, or BOOST_HANA_ADAPT_STRUCT outside it); its members may be tensors,
/// fusegrad layers (nn::Linear, nn::Sequential), other such structs, and vectors or arrays of any
/// of these. No registration, no base class. The tensors are handles: the model's own tensors,
/// which an optimiser given them updates.
/// Throws value_error when the model's only parameters hold the other scalar type (a float model asked for double
/// ones): name it, `nn::parameters<float>(model)`.
template <Scalar T = double, class Model>
[[nodiscard]] std::vector<NamedParameter<T>> named_parameters(const Model& model) {
  std::vector<NamedParameter<T>> out;
  std::size_t elsewhere = 0;
  detail::collect<T>(model, "", out, elsewhere);
  if (out.empty() && elsewhere != 0) {
    const std::string asked = std::is_same_v<T, double> ? "double" : "float",
                      held = std::is_same_v<T, double> ? "float" : "double";
    throw value_error("fusegrad::nn: the model's parameters hold " + held + ", and its parameters of " + asked +
                      " were asked for; give the scalar type: fg::nn::parameters<" + held + ">(model) (likewise " +
                      "named_parameters, save and load)");
  }
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
