// support/random_chains.hpp -- random chains of recorded blocks, checked fused == taped == central differences ==
// complex step (RapidCheck). Each test file brings a table of blocks; this header draws chains of them and checks one.
//
// A chain of 1-6 operations is drawn as a sequence of blocks, each a short static expression
// of the running tensor u and a fresh operand a (broadcasting against u). Recorded fused, each
// block is ONE node, so the chain crosses node boundaries as well as fusing inside them; taped,
// every operation is a node. The gradient of sum(r * chain) for a random upstream r, in double,
// is compared between the two recordings, against central differences and against the complex
// step (exact to rounding) when every block is analytic; the fused float gradient against the
// double one. The references only evaluate the chain, so they are compiled fused only: each
// block is compiled as a node for double (fused and taped), float and complex (fused).
// A failure prints the blocks, shapes and seed; RC_PARAMS="seed=<n>" replays it.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <optional>
#include <ostream>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <rapidcheck.h>
#include <Eigen/Core>
#include <boost/hana/for_each.hpp>

#include <fusegrad/fusegrad.hpp>

#include "support/random_shapes.hpp"

namespace fusegrad::test {

/// One kind of step of a chain: u -> an expression of u and a fresh operand a.
struct Block {
  const char* text;
  int ops;                   // operations it records taped
  bool analytic;             // complex-differentiable as written: the complex step checks the chain
  bool broadcasts_with_a;    // its result has the shape of u and a broadcast; otherwise u's shape
  std::size_t min_rank = 0;  // the ranks of u it applies to
  std::size_t max_rank = 8;
};

/// What a test file gives: `blocks`, its table, and `apply<T>(k, u, a, record)`, block k of u and a
/// with its expression passed to record(expr), which returns the recorded tensor.
template <class B>
concept BlockTable = requires(const BasicTensor<double>& t) {
  { B::blocks } -> std::convertible_to<std::span<const Block>>;
  B::apply(0, t, t, [](const auto& e) { return BasicTensor<double>(e); });
};

// leaves[0] is u's start; leaves[k + 1] is block k's operand a (unused by blocks without a).
struct ChainCase {
  std::vector<int> chain;
  std::vector<Extents> shapes;
  std::vector<Eigen::ArrayXd> values;
  std::vector<bool> requires_grad;
  std::span<const Block> blocks;
};

inline void showValue(const ChainCase& c, std::ostream& os) {
  os << "blocks:";
  for (int b : c.chain) os << " [" << c.blocks[std::size_t(b)].text << "]";
  os << "\nleaves:";
  for (std::size_t k = 0; k < c.shapes.size(); ++k)
    os << " " << (k ? "a" + std::to_string(k - 1) : std::string("u0")) << c.shapes[k].to_string()
       << (c.requires_grad[k] ? "*" : "");
  os << "  (* requires grad)";
}

// A shape that broadcasts to `big`: some leading axes dropped, some extents set to 1.
inline rc::Gen<Extents> gen_operand_shape(const Extents& big) {
  return rc::gen::exec([big] {
    const std::size_t drop = *rc::gen::inRange<std::size_t>(0, big.rank() + 1);
    std::vector<std::size_t> e;
    for (std::size_t i = drop; i < big.rank(); ++i) e.push_back(*rc::gen::arbitrary<bool>() ? big[i] : 1);
    return Extents(std::span<const std::size_t>(e));
  });
}

// Multiples of 1/8 in [-2, 2]: exact in float, so both scalar types see the same inputs.
inline rc::Gen<Eigen::ArrayXd> gen_leaf_values(std::size_t n) {
  return rc::gen::map(rc::gen::container<std::vector<int>>(n, rc::gen::inRange(-16, 17)),
                      [](const std::vector<int>& v) {
                        Eigen::ArrayXd out(Eigen::Index(v.size()));
                        for (std::size_t i = 0; i < v.size(); ++i) out[Eigen::Index(i)] = v[i] / 8.0;
                        return out;
                      });
}

// Blocks are drawn one after the other, each among those that fit the operations left and the
// rank u has at that point.
inline rc::Gen<ChainCase> gen_chain_case(std::span<const Block> blocks) {
  return rc::gen::exec([blocks] {
    ChainCase c;
    c.blocks = blocks;
    const Extents big = *gen_extents(0, 3);
    const auto add_leaf = [&](const Extents& shape, bool first) {
      c.shapes.push_back(shape);
      c.values.push_back(*gen_leaf_values(shape.size()));
      c.requires_grad.push_back(first || *rc::gen::arbitrary<bool>());
    };
    add_leaf(*gen_operand_shape(big), true);
    Extents u = c.shapes.front();
    // Operations in the chain, uniformly (gen::inRange would follow RapidCheck's size and make
    // most chains one block long).
    int left = *rc::gen::elementOf(std::vector<int>{1, 2, 3, 4, 5, 6});
    while (left > 0) {
      std::vector<int> fitting;
      for (std::size_t b = 0; b < blocks.size(); ++b)
        if (blocks[b].ops <= left && blocks[b].min_rank <= u.rank() && u.rank() <= blocks[b].max_rank)
          fitting.push_back(int(b));
      if (fitting.empty() && c.chain.empty())  // a chain has at least one block, however long
        for (std::size_t b = 0; b < blocks.size(); ++b)
          if (blocks[b].min_rank <= u.rank() && u.rank() <= blocks[b].max_rank) fitting.push_back(int(b));
      if (fitting.empty()) break;  // no block left is short enough for u's rank: the chain ends here
      c.chain.push_back(*rc::gen::elementOf(fitting));
      const Block& block = blocks[std::size_t(c.chain.back())];
      left -= block.ops;
      add_leaf(*gen_operand_shape(big), false);
      if (block.broadcasts_with_a) u = broadcast(u, c.shapes.back());
    }
    return c;
  });
}

template <class T>
std::vector<BasicTensor<T>> make_leaves(const ChainCase& c, bool with_grad) {
  std::vector<BasicTensor<T>> leaves;
  for (std::size_t k = 0; k < c.shapes.size(); ++k) {
    leaves.push_back(BasicTensor<T>::from(Eigen::ArrayX<T>(c.values[k].template cast<T>()), c.shapes[k]));
    if (with_grad && c.requires_grad[k]) leaves.back().requires_grad_();
  }
  return leaves;
}

template <BlockTable B, bool Taped = false, class T>
BasicTensor<T> run_chain(const ChainCase& c, const std::vector<BasicTensor<T>>& leaves) {
  const auto record = [](const auto& e) {
    if constexpr (Taped)
      return fusegrad::taped(e);
    else
      return BasicTensor<T>(e);
  };
  BasicTensor<T> u = leaves[0];
  for (std::size_t k = 0; k < c.chain.size(); ++k) u = B::apply(c.chain[k], u, leaves[k + 1], record);
  return u;
}

// The chain's value and the gradient of sum(r * chain) for every leaf (zeros where none).
struct ChainResult {
  Eigen::ArrayXd value;
  std::vector<Eigen::ArrayXd> grads;
};

template <BlockTable B, class T, bool Taped = false>
ChainResult differentiate_chain(const ChainCase& c, const Eigen::ArrayXd& upstream) {
  const auto leaves = make_leaves<T>(c, true);
  const BasicTensor<T> out = run_chain<B, Taped>(c, leaves);
  ChainResult r{out.eigen().template cast<double>(), {}};
  RC_ASSERT(out.requires_grad());
  out.backward(BasicTensor<T>::from(Eigen::ArrayX<T>(upstream.cast<T>()), out.shape()));
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const BasicTensor<T> g = leaves[k].grad();
    if (!c.requires_grad[k]) RC_ASSERT(!g.defined());  // a constant never gets a gradient
    r.grads.push_back(g.defined() ? Eigen::ArrayXd(g.eigen().template cast<double>())
                                  : Eigen::ArrayXd::Zero(Eigen::Index(c.shapes[k].size())));
    if (g.defined()) RC_ASSERT(g.shape() == c.shapes[k]);
  }
  return r;
}

// Central differences of sum(r * chain) in double, leaf by leaf, element by element.
template <BlockTable B>
std::vector<Eigen::ArrayXd> chain_central_differences(const ChainCase& c, const Eigen::ArrayXd& upstream) {
  NoGradGuard guard;
  std::vector<Eigen::ArrayXd> out;
  for (std::size_t k = 0; k < c.shapes.size(); ++k) {
    Eigen::ArrayXd g = Eigen::ArrayXd::Zero(Eigen::Index(c.shapes[k].size()));
    if (c.requires_grad[k]) {
      ChainCase moved = c;
      for (Eigen::Index i = 0; i < g.size(); ++i) {
        const double x = c.values[k][i], h = 6e-6 * std::max(1.0, std::abs(x));
        moved.values[k][i] = x + h;
        const double up = (upstream * run_chain<B>(moved, make_leaves<double>(moved, false)).eigen()).sum();
        moved.values[k][i] = x - h;
        const double down = (upstream * run_chain<B>(moved, make_leaves<double>(moved, false)).eigen()).sum();
        moved.values[k][i] = x;
        g[i] = (up - down) / (2 * h);
      }
    }
    out.push_back(g);
  }
  return out;
}

// The complex step of sum(r * chain), leaf by leaf, element by element: Im f(x + ih) / h with
// h = 1e-20, exact to rounding (no subtraction). Only for chains of analytic blocks.
template <BlockTable B>
std::vector<Eigen::ArrayXd> chain_complex_steps(const ChainCase& c, const Eigen::ArrayXd& upstream) {
  using C = std::complex<double>;
  constexpr double h = 1e-20;
  NoGradGuard guard;
  std::vector<BasicTensor<C>> leaves = make_leaves<C>(c, false);
  std::vector<Eigen::ArrayXd> out;
  for (std::size_t k = 0; k < c.shapes.size(); ++k) {
    Eigen::ArrayXd g = Eigen::ArrayXd::Zero(Eigen::Index(c.shapes[k].size()));
    if (c.requires_grad[k]) {
      for (Eigen::Index i = 0; i < g.size(); ++i) {
        C* x = leaves[k].mutable_eigen().data() + i;
        *x = C(x->real(), h);
        g[i] = (upstream.cast<C>() * run_chain<B>(c, leaves).eigen()).sum().imag() / h;
        *x = C(x->real(), 0);
      }
    }
    out.push_back(g);
  }
  return out;
}

// The first element where |actual - expected| > tolerance * max(1, max |expected|), described.
inline std::optional<std::string> chain_mismatch(const Eigen::ArrayXd& actual, const Eigen::ArrayXd& expected,
                                                 double tolerance, const std::string& what) {
  if (actual.size() != expected.size())
    return what + ": " + std::to_string(actual.size()) + " elements, expected " + std::to_string(expected.size());
  const double scale = std::max(1.0, expected.size() ? expected.abs().maxCoeff() : 0.0);
  for (Eigen::Index i = 0; i < actual.size(); ++i)
    if (!(std::abs(actual[i] - expected[i]) <= tolerance * scale)) {
      std::ostringstream s;
      s.precision(17);
      s << what << "[" << i << "]: " << actual[i] << " vs " << expected[i] << " (tolerance " << tolerance * scale
        << ")";
      return s.str();
    }
  return std::nullopt;
}

inline void require_close(const Eigen::ArrayXd& actual, const Eigen::ArrayXd& expected, double tolerance,
                          const std::string& what) {
  if (const auto m = chain_mismatch(actual, expected, tolerance, what)) RC_FAIL(*m);
}

inline void require_all_close(const ChainResult& actual, const ChainResult& expected, double tolerance,
                              const std::string& what) {
  require_close(actual.value, expected.value, tolerance, what + " value");
  for (std::size_t k = 0; k < expected.grads.size(); ++k)
    require_close(actual.grads[k], expected.grads[k], tolerance, what + " gradient of leaf " + std::to_string(k));
}

/// The property: one random chain of B's blocks, its gradient in both recordings against central
/// differences, the complex step (analytic chains), and fused float against double.
template <BlockTable B>
void check_random_chain() {
  const ChainCase c = *gen_chain_case(B::blocks);
  Extents out_shape;
  {
    NoGradGuard guard;
    out_shape = run_chain<B>(c, make_leaves<double>(c, false)).shape();
  }
  const Eigen::ArrayXd upstream = *gen_leaf_values(out_shape.size());

  const ChainResult fused = differentiate_chain<B, double>(c, upstream);
  const ChainResult taped = differentiate_chain<B, double, true>(c, upstream);
  require_all_close(taped, fused, 1e-12, "double taped vs fused:");
  const std::vector<Eigen::ArrayXd> fd = chain_central_differences<B>(c, upstream);
  for (std::size_t k = 0; k < fd.size(); ++k)
    require_close(fused.grads[k], fd[k], 1e-6, "fused vs central differences, leaf " + std::to_string(k));
  if (std::all_of(c.chain.begin(), c.chain.end(), [&](int b) { return c.blocks[std::size_t(b)].analytic; })) {
    const std::vector<Eigen::ArrayXd> exact = chain_complex_steps<B>(c, upstream);
    for (std::size_t k = 0; k < exact.size(); ++k)
      require_close(fused.grads[k], exact[k], 1e-12, "fused vs the complex step, leaf " + std::to_string(k));
  }

  const ChainResult fused_f = differentiate_chain<B, float>(c, upstream);
  require_all_close(fused_f, fused, 1e-4, "float vs double:");
}

/// Adds the name of every operation of a static expression to `names`.
template <class E>
void add_op_names(const E& e, std::set<std::string>& names) {
  if constexpr (E::kind != node_kind::leaf) {
    names.insert(std::string(E::op::name));
    boost::hana::for_each(children(e), [&](const auto& child) { add_op_names(child, names); });
  }
}

/// The operations B's blocks record, read off their expressions: each block applied once to
/// tensors of a rank it accepts.
template <BlockTable B>
std::set<std::string> op_names_of_blocks() {
  std::set<std::string> names;
  NoGradGuard guard;
  for (std::size_t b = 0; b < B::blocks.size(); ++b) {
    const std::size_t rank =
        std::max<std::size_t>(B::blocks[b].min_rank, std::min<std::size_t>(2, B::blocks[b].max_rank));
    const std::vector<std::size_t> extents(rank, 3);
    const auto t = BasicTensor<double>::full(Extents(std::span<const std::size_t>(extents)), 0.5);
    B::apply(int(b), t, t, [&](const auto& e) {
      add_op_names(e, names);
      return BasicTensor<double>(e);
    });
  }
  return names;
}

/// The block tables of the test executable: each test file registers its own (a namespace-scope
/// `const bool registered = register_block_table<MyBlocks>();`), so that one test can check that
/// together they draw every operation of ops.hpp.
inline std::vector<std::set<std::string> (*)()>& block_tables() {
  static std::vector<std::set<std::string> (*)()> tables;
  return tables;
}
template <BlockTable B>
bool register_block_table() {
  block_tables().push_back(&op_names_of_blocks<B>);
  return true;
}

}  // namespace fusegrad::test
