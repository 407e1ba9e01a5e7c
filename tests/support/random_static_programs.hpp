// support/random_static_programs.hpp -- random programs in the static layer: expression trees of blocks drawn at
// compile time from a seed, with static and dyn axes, checked static == fused tape node == taped == gradcheck.
//
// A static expression's type is its program, so the programs are drawn by a constexpr generator
// (support/static_program_generator.hpp) and each seed is one type. Leaves are Vars or Consts whose shapes broadcast to
// one shape, each axis static or dyn in the type. RapidCheck then draws the values (multiples of 1/8) and an upstream
// r, and checks the gradient of s = sum(r * program), or of a linear root around it (-s, 2 - s / 2, s / 4: the seed
// says which), four ways: value_and_grad on the static expression; the same expression over Tensors recorded as ONE
// fused tape node; fg::taped (a node per operation); fg::gradcheck of the static function (the complex step when every
// block is analytic, central differences otherwise). A failure prints the seed, the leaves' types and the program as
// C++.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <rapidcheck.h>
#include <Eigen/Core>

#include <fusegrad/check/gradcheck.hpp>
#include <fusegrad/fusegrad.hpp>

#include "support/random_programs.hpp"
#include "support/static_program_generator.hpp"

namespace fusegrad::test {

/// One program of B's blocks, from Seed, in the static layer and on the tape.
template <BlockTable B, std::uint64_t Seed>
struct random_static_program {
  static constexpr const static_program& program = static_program_of<B, Seed>;

  // The static shape of leaf K: its extents, with dyn on its dyn axes.
  template <std::size_t K, std::size_t... I>
  static auto leaf_shape(std::index_sequence<I...>)
      -> Shape<(program.leaves[K].dyn[I] ? dyn : program.leaves[K].shape.extent[I])...>;
  template <std::size_t K>
  using shape_of_leaf = decltype(leaf_shape<K>(std::make_index_sequence<program.leaves[K].shape.rank>{}));

  // The static shape of the upstream r: the root's, or the program's extents where the root's rank is known only
  // at run time (a block that reshapes to extents in hand).
  template <std::size_t... I>
  static auto program_shape(std::index_sequence<I...>) -> Shape<program.shape.extent[I]...>;
  template <class RootShape>
  using upstream_shape = std::conditional_t<ShapeType<RootShape>, RootShape,
                                            decltype(program_shape(std::make_index_sequence<program.shape.rank>{}))>;

  // Var indices: the position of leaf K among the program's Vars.
  static constexpr std::size_t var_index(std::size_t k) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < k; ++i) n += program.leaves[i].var;
    return n;
  }
  static constexpr std::size_t var_count = var_index(program.leaf_count);

  // Node K over `leaves`, a tuple with one entry per leaf (a Var or Const lvalue, which the expression
  // references, or a Tensor, which it copies).
  template <std::size_t K, class Leaves>
  static auto build(const Leaves& leaves) {
    constexpr ProgramNode n = program.nodes[K];
    constexpr std::size_t u = std::size_t(n.u), a = std::size_t(n.a < 0 ? n.u : n.a);
    const auto operand = [&]<std::size_t M>() -> decltype(auto) {
      if constexpr (program.nodes[M].block < 0)
        return std::get<std::size_t(program.nodes[M].leaf)>(leaves);
      else
        return build<M>(leaves);
    };
    return B::template expression<std::size_t(n.block)>(operand.template operator()<u>(),
                                                        operand.template operator()<a>());
  }
  static constexpr std::size_t root = program.node_count - 1;

  // The values of every leaf (row-major) and the upstream r.
  struct case_values {
    std::vector<Eigen::ArrayXd> leaves;
    Eigen::ArrayXd upstream;
  };

  static Extents extents_of_leaf(std::size_t k) {
    const static_leaf& l = program.leaves[k];
    return Extents(std::span<const std::size_t>(l.shape.extent, l.shape.rank));
  }

  // Leaf K as the static layer's Var or Const of scalar type T.
  template <std::size_t K, class T>
  static auto static_leaf_of(const case_values& v) {
    using S = shape_of_leaf<K>;
    auto make = [&]<template <class, class, class> class Leaf>() {
      Leaf<T, S, owning> leaf(extents_of_leaf(K));
      leaf.value() = v.leaves[K].template cast<T>();
      return leaf;
    };
    if constexpr (program.leaves[K].var)
      return make.template operator()<Var>();
    else
      return make.template operator()<Const>();
  }

  // The Consts of scalar type T, at their leaves' places in a tuple (0 at a Var's place): they
  // outlive the expressions that reference them.
  template <class T>
  static auto make_consts(const case_values& v) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::make_tuple([&] {
        if constexpr (program.leaves[K].var)
          return 0;
        else
          return static_leaf_of<K, T>(v);
      }()...);
    }
    (std::make_index_sequence<program.leaf_count>{});
  }
  struct consts {
    decltype(make_consts<double>(std::declval<const case_values&>())) real;
    decltype(make_consts<std::complex<double>>(std::declval<const case_values&>())) complex;
  };

  // sum(r * program) as a function of the Vars, in double or complex (gradcheck's complex step).
  static auto function(const case_values& v, const consts& c) {
    return [&v, &c](const auto&... vars) {
      using T = typename std::remove_cvref_t<decltype((vars, ...))>::value_type;
      const auto var_refs = std::forward_as_tuple(vars...);
      const auto& const_leaves = [&]() -> const auto& {
        if constexpr (std::is_same_v<T, double>)
          return c.real;
        else
          return c.complex;
      }
      ();
      const auto leaves = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return std::forward_as_tuple([&]() -> decltype(auto) {
          if constexpr (program.leaves[K].var)
            return std::get<var_index(K)>(var_refs);
          else
            return std::get<K>(const_leaves);
        }()...);
      }
      (std::make_index_sequence<program.leaf_count>{});
      auto tree = build<root>(leaves);
      Const<T, upstream_shape<typename decltype(tree)::static_shape>, owning> r(tree.extents());
      r.value() = v.upstream.template cast<T>();
      return around(sum(std::move(tree) * std::move(r)));
    };
  }

  // The scalar root around sum(r * program), by seed: a linear root of one of four forms (value
  // c + factor * s), so that the one-pass sweep of linear roots meets random programs too.
  static constexpr int form = int(Seed % 4);
  static constexpr double factor = form == 0 ? 1.0 : form == 1 ? -1.0 : form == 2 ? -0.5 : 0.25;
  static constexpr double offset = form == 2 ? 2.0 : 0.0;
  static constexpr const char* form_text[] = {"s", "-s", "2.0 - 0.5 * s", "s / Const<T, Shape<>>(4)"};
  template <class S>
  static auto around(S&& s) {
    using T = typename std::remove_cvref_t<S>::value_type;
    if constexpr (form == 0)
      return std::forward<S>(s);
    else if constexpr (form == 1)
      return -std::forward<S>(s);
    else if constexpr (form == 2)
      return 2.0 - 0.5 * std::forward<S>(s);
    else
      return std::forward<S>(s) / Const<T, Shape<>>(T(4));
  }
};

// The leaves' types and the program as C++, for a failure's report.
template <BlockTable B, std::uint64_t Seed>
std::string describe_static_program(const std::vector<Eigen::ArrayXd>& values) {
  const static_program& program = static_program_of<B, Seed>;
  std::ostringstream out;
  out << "static program of seed " << Seed << ", root " << random_static_program<B, Seed>::form_text[Seed % 4]
      << " with s = sum(r * program); in the static layer,";
  for (std::size_t k = 0; k < program.leaf_count; ++k) {
    const static_leaf& l = program.leaves[k];
    out << (k ? ", " : " ") << "x" << k << " is a " << (l.var ? "Var" : "Const") << "<double, Shape<";
    for (std::size_t i = 0; i < l.shape.rank; ++i)
      out << (i ? ", " : "") << (l.dyn[i] ? std::string("dyn") : std::to_string(l.shape.extent[i]));
    out << ">>";
  }
  ProgramCase p;
  p.blocks = B::blocks;
  p.nodes.assign(program.nodes, program.nodes + program.node_count);
  for (std::size_t k = 0; k < program.leaf_count; ++k) {
    const static_leaf& l = program.leaves[k];
    p.shapes.emplace_back(std::span<const std::size_t>(l.shape.extent, l.shape.rank));
    p.values.push_back(values[k]);
    p.requires_grad.push_back(l.var);
  }
  out << "\n";
  showValue(p, out);
  return out.str();
}

/// The property for one program: values drawn by RapidCheck; the gradient of sum(r * program) from
/// value_and_grad, from one fused tape node and from fg::taped agree to rounding, and gradcheck passes.
template <BlockTable B, std::uint64_t Seed>
void check_random_static_program() {
  using P = random_static_program<B, Seed>;
  constexpr std::size_t leaf_count = P::program.leaf_count;
  typename P::case_values v;
  for (std::size_t k = 0; k < leaf_count; ++k) v.leaves.push_back(*gen_leaf_values(P::extents_of_leaf(k).size()));

  std::array<BasicTensor<double>, leaf_count> tensors;
  for (std::size_t k = 0; k < leaf_count; ++k) {
    tensors[k] = BasicTensor<double>::from(v.leaves[k], P::extents_of_leaf(k));
    if (P::program.leaves[k].var) tensors[k].requires_grad_();
  }
  Extents out_shape;
  {
    NoGradGuard guard;
    out_shape = BasicTensor<double>(P::template build<P::root>(tensors)).shape();
  }
  v.upstream = *gen_leaf_values(out_shape.size());
  RC_LOG() << describe_static_program<B, Seed>(v.leaves) << "\n";

  // The static layer.
  const auto vars = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::tuple_cat([&] {
      if constexpr (P::program.leaves[K].var)
        return std::make_tuple(P::template static_leaf_of<K, double>(v));
      else
        return std::tuple<>();
    }()...);
  }
  (std::make_index_sequence<leaf_count>{});
  const typename P::consts consts{P::template make_consts<double>(v), P::template make_consts<std::complex<double>>(v)};
  const auto f = P::function(v, consts);
  const auto static_result = std::apply(
      [&](const auto&... x) {
        auto all = value_and_grad(f(x...), x...);
        const auto flat = [](const auto& g) {
          if constexpr (std::is_arithmetic_v<std::remove_cvref_t<decltype(g)>>)
            return Eigen::ArrayXd::Constant(1, g).eval();
          else
            return Eigen::ArrayXd(Eigen::Map<const Eigen::ArrayXd>(g.data(), g.size()));
        };
        return std::apply(
            [&](double value, const auto&... g) {
              return std::make_pair(value, std::vector<Eigen::ArrayXd>{flat(g)...});
            },
            all);
      },
      vars);
  const double value = static_result.first;
  const std::vector<Eigen::ArrayXd>& static_grads = static_result.second;

  // One fused tape node, and a node per operation.
  const auto tape_grads = [&](bool taped) {
    for (auto& t : tensors) t.zero_grad();
    const auto expr = P::template build<P::root>(tensors);
    const BasicTensor<double> out = taped ? fusegrad::taped(expr) : BasicTensor<double>(expr);
    const double tape_value = P::offset + P::factor * (out.eigen() * v.upstream).sum();
    require_close(Eigen::ArrayXd::Constant(1, tape_value), Eigen::ArrayXd::Constant(1, value), 1e-12,
                  taped ? "taped value" : "fused node value");
    out.backward(BasicTensor<double>::from(Eigen::ArrayXd(P::factor * v.upstream), out.shape()));
    std::vector<Eigen::ArrayXd> grads;
    for (std::size_t k = 0; k < leaf_count; ++k)
      if (P::program.leaves[k].var) {
        const BasicTensor<double> g = tensors[k].grad();
        grads.push_back(g.defined() ? Eigen::ArrayXd(g.eigen())
                                    : Eigen::ArrayXd::Zero(Eigen::Index(tensors[k].numel())));
      }
    return grads;
  };
  for (const bool taped : {false, true}) {
    const std::vector<Eigen::ArrayXd> grads = tape_grads(taped);
    for (std::size_t k = 0; k < grads.size(); ++k)
      require_close(grads[k], static_grads[k], 1e-12,
                    std::string(taped ? "taped" : "fused node") + " vs static gradient of var " + std::to_string(k));
  }

  // The references: the complex step, or central differences.
  GradcheckReport report = std::apply([&](const auto&... x) { return gradcheck(f, x...); }, vars);
  if (!report.passed && !report.used_complex_step()) {
    // The blocks keep programs off their kinks, not out of the kinks' neighbourhoods: central
    // differences may straddle one that lies within their step. A step 1000 times smaller decides.
    report = std::apply([&](const auto&... x) { return gradcheck(f, x..., GradcheckOptions{.eps = 1e-8}); }, vars);
  }
  if (!report.passed) {
    std::ostringstream text;
    text << report;
    RC_FAIL(text.str());
  }
}

}  // namespace fusegrad::test
