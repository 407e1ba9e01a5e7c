// support/random_programs.hpp -- random programs: expression trees of recorded blocks, checked fused == taped ==
// central differences == complex step (RapidCheck). Each test file brings a table of blocks; this header draws
// programs of them and checks one.
//
// A program is a tree of 1-8 operations. Each inner node is a block, a short static expression of u and a (a block
// whose text does not read a is unary), with a subtree for u and one for a; each leaf is a tensor, and one leaf may
// stand in several places (its gradient sums over the paths). Every subtree's shape broadcasts to one shape drawn
// per program, so a block that broadcasts u with a always applies. Recorded fused, each block is ONE node, so a
// program crosses node boundaries as well as fusing inside them; taped, every operation is a node. The gradient of
// sum(r * program) for a random upstream r, in double, is compared between the two recordings, against central
// differences and against the complex step (exact to rounding) when every block is analytic; the fused float
// gradient against the double one. The references only evaluate the program, so they are compiled fused only:
// each block is compiled as a node for double (fused and taped), float and complex (fused).
// The blocks and their tables are in support/block_tables.hpp.
// A failure shrinks (RapidCheck retries every choice the generator made: fewer blocks, leaves for subtrees, smaller
// shapes, simpler values) to a program printed as C++; RC_PARAMS="seed=<n>" replays it.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <rapidcheck.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/block_tables.hpp"
#include "support/random_shapes.hpp"

namespace fusegrad::test {

struct ProgramNode {
  int block = -1;  // the block of an inner node; -1 for a leaf
  int leaf = 0;    // a leaf's index in the program's leaves
  int u = -1;      // an inner node's operands (node indices); a is -1 when the block does not read it
  int a = -1;
};

/// A program: its nodes, children before parents (the last is the root), and its leaves.
struct ProgramCase {
  std::vector<ProgramNode> nodes;
  std::vector<Extents> shapes;
  std::vector<Eigen::ArrayXd> values;
  std::vector<bool> requires_grad;
  std::span<const Block> blocks;
};

// The names of the printed program: x<k> for leaf k, t<k> for the k-th recorded node.
inline std::vector<std::string> node_names(const ProgramCase& p) {
  std::vector<std::string> names;
  int recorded = 0;
  for (const ProgramNode& n : p.nodes)
    names.push_back(n.block < 0 ? "x" + std::to_string(n.leaf) : "t" + std::to_string(recorded++));
  return names;
}

/// The program as C++: one line per leaf, one per recorded node.
inline void showValue(const ProgramCase& p, std::ostream& os) {
  os << "using namespace fusegrad;  // helper names (ties, reversed, ...): the test file's block table\n";
  for (std::size_t k = 0; k < p.shapes.size(); ++k) {
    os << "Tensor x" << k << " = Tensor::from({";
    for (Eigen::Index i = 0; i < p.values[k].size(); ++i) os << (i ? ", " : "") << p.values[k][i];
    os << "}, {";
    for (std::size_t i = 0; i < p.shapes[k].rank(); ++i) os << (i ? ", " : "") << p.shapes[k][i];
    os << "})" << (p.requires_grad[k] ? ".requires_grad_()" : "") << ";\n";
  }
  const std::vector<std::string> names = node_names(p);
  for (std::size_t k = 0; k < p.nodes.size(); ++k) {
    const ProgramNode& n = p.nodes[k];
    if (n.block < 0) continue;
    os << "Tensor " << names[k] << " = "
       << substitute_operands(p.blocks[std::size_t(n.block)].text, names[std::size_t(n.u)],
                              n.a < 0 ? "" : names[std::size_t(n.a)])
       << ";\n";
  }
  os << "// checked: the gradient of sum(r * " << names.back() << ") for every leaf";
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

// Multiples of 1/8 in [-2, 2]: exact in float, so both scalar types see the same inputs. Drawn
// as 0, 1, -1, 2, -2, ... eighths, so that a failure shrinks towards 0.
inline rc::Gen<Eigen::ArrayXd> gen_leaf_values(std::size_t n) {
  const auto eighths = [](const std::vector<int>& v) {
    Eigen::ArrayXd out(Eigen::Index(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i) out[Eigen::Index(i)] = (v[i] % 2 ? (v[i] + 1) / 2 : -v[i] / 2) / 8.0;
    return out;
  };
  // resize(100): gen::inRange follows RapidCheck's size, which would make a run's first programs' values all 0.
  return rc::gen::map(rc::gen::container<std::vector<int>>(n, rc::gen::resize(100, rc::gen::inRange(0, 33))), eighths);
}

// Grown from the root down: a node of shape s is a leaf of shape s, or a block that fits s's rank
// and the operations left, with a subtree of shape s for u and one that broadcasts to s for a (or
// the other way round, for a block that broadcasts them). The root is always a block.
inline rc::Gen<ProgramCase> gen_program(std::span<const Block> blocks) {
  return rc::gen::exec([blocks] {
    ProgramCase p;
    p.blocks = blocks;
    const Extents big = *gen_extents(0, 3);
    // Operations in the program, uniformly (gen::inRange would follow RapidCheck's size and make
    // most programs one block long).
    int left = *rc::gen::elementOf(std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8});
    const auto add_leaf = [&](const Extents& shape) {
      std::vector<int> same;
      for (std::size_t k = 0; k < p.shapes.size(); ++k)
        if (p.shapes[k] == shape) same.push_back(int(k));
      ProgramNode leaf;
      if (!same.empty() && *rc::gen::arbitrary<bool>()) {  // a leaf used again
        leaf.leaf = *rc::gen::elementOf(same);
      } else {
        leaf.leaf = int(p.shapes.size());
        p.shapes.push_back(shape);
        p.values.push_back(*gen_leaf_values(shape.size()));
        p.requires_grad.push_back(p.shapes.size() == 1 || *rc::gen::arbitrary<bool>());
      }
      p.nodes.push_back(leaf);
      return int(p.nodes.size() - 1);
    };
    std::function<int(const Extents&, bool)> grow = [&](const Extents& shape, bool root) -> int {
      const auto fits_rank = [&](const Block& b) { return b.min_rank <= shape.rank() && shape.rank() <= b.max_rank; };
      std::vector<int> fitting;
      for (std::size_t b = 0; b < blocks.size(); ++b)
        if (blocks[b].ops <= left && fits_rank(blocks[b])) fitting.push_back(int(b));
      if (fitting.empty() && root)  // a program has at least one block, however long
        for (std::size_t b = 0; b < blocks.size(); ++b)
          if (fits_rank(blocks[b])) fitting.push_back(int(b));
      if (fitting.empty() || (!root && !*rc::gen::arbitrary<bool>())) return add_leaf(shape);
      ProgramNode n;
      n.block = *rc::gen::elementOf(fitting);
      const Block& block = blocks[std::size_t(n.block)];
      left -= block.ops;
      if (!reads_a(block)) {
        n.u = grow(shape, false);
      } else if (!block.broadcasts_with_a) {
        n.u = grow(shape, false);
        n.a = grow(*gen_operand_shape(big), false);
      } else if (*rc::gen::arbitrary<bool>()) {  // u broadcasts to a's shape
        n.u = grow(*gen_operand_shape(shape), false);
        n.a = grow(shape, false);
      } else {
        n.u = grow(shape, false);
        n.a = grow(*gen_operand_shape(shape), false);
      }
      p.nodes.push_back(n);
      return int(p.nodes.size() - 1);
    };
    grow(*gen_operand_shape(big), true);
    return p;
  });
}

template <class T>
std::vector<BasicTensor<T>> make_leaves(const ProgramCase& c, bool with_grad) {
  std::vector<BasicTensor<T>> leaves;
  for (std::size_t k = 0; k < c.shapes.size(); ++k) {
    leaves.push_back(BasicTensor<T>::from(Eigen::ArrayX<T>(c.values[k].template cast<T>()), c.shapes[k]));
    if (with_grad && c.requires_grad[k]) leaves.back().requires_grad_();
  }
  return leaves;
}

template <BlockTable B, bool Taped = false, class T>
BasicTensor<T> run_program(const ProgramCase& p, const std::vector<BasicTensor<T>>& leaves) {
  const auto record = [](const auto& e) {
    if constexpr (Taped)
      return fusegrad::taped(e);
    else
      return BasicTensor<T>(e);
  };
  std::vector<BasicTensor<T>> value(p.nodes.size());
  for (std::size_t k = 0; k < p.nodes.size(); ++k) {
    const ProgramNode& n = p.nodes[k];
    if (n.block < 0)
      value[k] = leaves[std::size_t(n.leaf)];
    else  // a block that does not read a is given u for it
      value[k] = B::apply(n.block, value[std::size_t(n.u)], value[std::size_t(n.a < 0 ? n.u : n.a)], record);
  }
  return value.back();
}

// The program's value and the gradient of sum(r * program) for every leaf (zeros where none).
struct ProgramResult {
  Eigen::ArrayXd value;
  std::vector<Eigen::ArrayXd> grads;
};

template <BlockTable B, class T, bool Taped = false>
ProgramResult differentiate_program(const ProgramCase& c, const Eigen::ArrayXd& upstream) {
  const auto leaves = make_leaves<T>(c, true);
  const BasicTensor<T> out = run_program<B, Taped>(c, leaves);
  ProgramResult r{out.eigen().template cast<double>(), {}};
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

// Central differences of sum(r * program) in double, leaf by leaf, element by element.
template <BlockTable B>
std::vector<Eigen::ArrayXd> program_central_differences(const ProgramCase& c, const Eigen::ArrayXd& upstream) {
  NoGradGuard guard;
  std::vector<Eigen::ArrayXd> out;
  for (std::size_t k = 0; k < c.shapes.size(); ++k) {
    Eigen::ArrayXd g = Eigen::ArrayXd::Zero(Eigen::Index(c.shapes[k].size()));
    if (c.requires_grad[k]) {
      ProgramCase moved = c;
      for (Eigen::Index i = 0; i < g.size(); ++i) {
        const double x = c.values[k][i], h = 6e-6 * std::max(1.0, std::abs(x));
        moved.values[k][i] = x + h;
        const double up = (upstream * run_program<B>(moved, make_leaves<double>(moved, false)).eigen()).sum();
        moved.values[k][i] = x - h;
        const double down = (upstream * run_program<B>(moved, make_leaves<double>(moved, false)).eigen()).sum();
        moved.values[k][i] = x;
        g[i] = (up - down) / (2 * h);
      }
    }
    out.push_back(g);
  }
  return out;
}

// The complex step of sum(r * program), leaf by leaf, element by element: Im f(x + ih) / h with
// h = 1e-20, exact to rounding (no subtraction). Only for programs of analytic blocks.
template <BlockTable B>
std::vector<Eigen::ArrayXd> program_complex_steps(const ProgramCase& c, const Eigen::ArrayXd& upstream) {
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
        g[i] = (upstream.cast<C>() * run_program<B>(c, leaves).eigen()).sum().imag() / h;
        *x = C(x->real(), 0);
      }
    }
    out.push_back(g);
  }
  return out;
}

// The first element where |actual - expected| > tolerance * max(1, max |expected|), described.
inline std::optional<std::string> first_mismatch(const Eigen::ArrayXd& actual, const Eigen::ArrayXd& expected,
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
  if (const auto m = first_mismatch(actual, expected, tolerance, what)) RC_FAIL(*m);
}

inline void require_all_close(const ProgramResult& actual, const ProgramResult& expected, double tolerance,
                              const std::string& what) {
  require_close(actual.value, expected.value, tolerance, what + " value");
  for (std::size_t k = 0; k < expected.grads.size(); ++k)
    require_close(actual.grads[k], expected.grads[k], tolerance, what + " gradient of leaf " + std::to_string(k));
}

/// The property: one random program of B's blocks, its gradient in both recordings against central
/// differences, the complex step (analytic programs), and fused float against double.
template <BlockTable B>
void check_random_program() {
  const ProgramCase c = *gen_program(B::blocks);
  Extents out_shape;
  {
    NoGradGuard guard;
    out_shape = run_program<B>(c, make_leaves<double>(c, false)).shape();
  }
  const Eigen::ArrayXd upstream = *gen_leaf_values(out_shape.size());

  const ProgramResult fused = differentiate_program<B, double>(c, upstream);
  const ProgramResult taped = differentiate_program<B, double, true>(c, upstream);
  require_all_close(taped, fused, 1e-12, "double taped vs fused:");
  const std::vector<Eigen::ArrayXd> fd = program_central_differences<B>(c, upstream);
  for (std::size_t k = 0; k < fd.size(); ++k)
    require_close(fused.grads[k], fd[k], 1e-6, "fused vs central differences, leaf " + std::to_string(k));
  if (std::all_of(c.nodes.begin(), c.nodes.end(),
                  [&](const ProgramNode& n) { return n.block < 0 || c.blocks[std::size_t(n.block)].analytic; })) {
    const std::vector<Eigen::ArrayXd> exact = program_complex_steps<B>(c, upstream);
    for (std::size_t k = 0; k < exact.size(); ++k)
      require_close(fused.grads[k], exact[k], 1e-12, "fused vs the complex step, leaf " + std::to_string(k));
  }

  const ProgramResult fused_f = differentiate_program<B, float>(c, upstream);
  require_all_close(fused_f, fused, 1e-4, "float vs double:");
}

}  // namespace fusegrad::test
