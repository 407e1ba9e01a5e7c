// tape/bridge_random_test.cpp -- random chains: fused == taped == central differences == complex step (RapidCheck).
//
// A chain of 1-6 operations is drawn as a sequence of blocks, each a short static expression
// of the running tensor u and a fresh operand a (broadcasting against u). Recorded fused, each
// block is ONE node, so the chain crosses node boundaries as well as fusing inside them; taped,
// every operation is a node. The gradient of sum(r * chain) for a random upstream r is compared
// between the two recordings, against central differences (double), against the complex step
// (exact to rounding) when every block is analytic, and float against double.
// A failure prints the blocks, shapes and seed; RC_PARAMS="seed=<n>" replays it.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <iterator>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

#include "support/random_shapes.hpp"

namespace {

namespace fg = fusegrad;
using fg::Extents;

struct Block {
  const char* text;
  int ops;
  bool analytic;  // complex-differentiable as written: the complex step checks the chain
};
// All are smooth where they are evaluated (arguments of log, sqrt and reciprocal stay at 1 or
// more, pow's base too), so central differences apply everywhere.
constexpr Block blocks[] = {
    {"sin(u)", 1, true},
    {"u * a", 1, true},
    {"u - a", 1, true},
    {"-u", 1, true},
    {"tanh(u) + a", 2, true},
    {"log1p(square(u))", 2, true},
    {"sigmoid(u - a)", 2, true},
    {"cos(u) * u", 2, true},
    {"exp(-(u * u))", 3, true},
    {"u / (1 + a * a)", 3, true},
    {"sqrt(1 + u * u)", 3, true},
    {"log(2 + sin(u))", 3, true},
    {"expm1(sin(u)) * a", 3, true},
    {"reciprocal(2 + cos(u))", 3, true},
    {"tan(0.5 * sin(u))", 3, true},
    {"pow(1 + u * u, a)", 4, true},
    {"u - mean(u)", 2, true},
    {"u * sum(a)", 2, true},
    {"u - logsumexp(u)", 2, true},
    {"softmax(u, all_axes) * a", 4, true},
    {"u * prod(cos(a)) + variance<0>(u)", 4, true},
    {"softplus(u) - log_sigmoid(a)", 3, false},
};
constexpr int block_count = int(std::size(blocks));

template <class T>
fg::BasicTensor<T> apply_block(int block, const fg::BasicTensor<T>& u, const fg::BasicTensor<T>& a, bool taped) {
  const auto record = [taped](const auto& e) { return taped ? fg::taped(e) : fg::BasicTensor<T>(e); };
  switch (block) {
    case 0:
      return record(fg::sin(u));
    case 1:
      return record(u * a);
    case 2:
      return record(u - a);
    case 3:
      return record(-u);
    case 4:
      return record(fg::tanh(u) + a);
    case 5:
      return record(fg::log1p(fg::square(u)));
    case 6:
      return record(fg::sigmoid(u - a));
    case 7:
      return record(fg::cos(u) * u);
    case 8:
      return record(fg::exp(-(u * u)));
    case 9:
      return record(u / (1.0 + a * a));
    case 10:
      return record(fg::sqrt(1.0 + u * u));
    case 11:
      return record(fg::log(2.0 + fg::sin(u)));
    case 12:
      return record(fg::expm1(fg::sin(u)) * a);
    case 13:
      return record(fg::reciprocal(2.0 + fg::cos(u)));
    case 14:
      return record(fg::tan(0.5 * fg::sin(u)));
    case 15:
      return record(fg::pow(1.0 + u * u, a));
    case 16:
      return record(u - fg::mean(u));
    case 17:
      return record(u * fg::sum(a));
    case 18:
      return record(u - fg::logsumexp(u));
    case 19:
      return record(fg::softmax(u, fg::all_axes) * a);
    case 20:
      return record(u * fg::prod(fg::cos(a)) + fg::variance<0>(u));
    default:
      if constexpr (std::is_floating_point_v<T>) return record(fg::softplus(u) - fg::log_sigmoid(a));
      throw std::logic_error("a block that is not analytic has no complex form");
  }
}

// leaves[0] is u's start; leaves[k + 1] is block k's operand a (unused by blocks without a).
struct ChainCase {
  std::vector<int> chain;
  std::vector<Extents> shapes;
  std::vector<Eigen::ArrayXd> values;
  std::vector<bool> requires_grad;
};

void showValue(const ChainCase& c, std::ostream& os) {
  os << "blocks:";
  for (int b : c.chain) os << " [" << blocks[b].text << "]";
  os << "\nleaves:";
  for (std::size_t k = 0; k < c.shapes.size(); ++k)
    os << " " << (k ? "a" + std::to_string(k - 1) : std::string("u0")) << c.shapes[k].to_string()
       << (c.requires_grad[k] ? "*" : "");
  os << "  (* requires grad)";
}

// A shape that broadcasts to `big`: some leading axes dropped, some extents set to 1.
rc::Gen<Extents> gen_operand_shape(const Extents& big) {
  return rc::gen::exec([big] {
    const std::size_t drop = *rc::gen::inRange<std::size_t>(0, big.rank() + 1);
    std::vector<std::size_t> e;
    for (std::size_t i = drop; i < big.rank(); ++i) e.push_back(*rc::gen::arbitrary<bool>() ? big[i] : 1);
    return Extents(std::span<const std::size_t>(e));
  });
}

// Multiples of 1/8 in [-2, 2]: exact in float, so both scalar types see the same inputs.
rc::Gen<Eigen::ArrayXd> gen_leaf_values(std::size_t n) {
  return rc::gen::map(rc::gen::container<std::vector<int>>(n, rc::gen::inRange(-16, 17)),
                      [](const std::vector<int>& v) {
                        Eigen::ArrayXd out(Eigen::Index(v.size()));
                        for (std::size_t i = 0; i < v.size(); ++i) out[Eigen::Index(i)] = v[i] / 8.0;
                        return out;
                      });
}

rc::Gen<ChainCase> gen_chain_case() {
  return rc::gen::exec([] {
    ChainCase c;
    int left = *rc::gen::inRange(1, 7);  // operations in the chain
    while (left > 0) {
      std::vector<int> fitting;
      for (int b = 0; b < block_count; ++b)
        if (blocks[b].ops <= left) fitting.push_back(b);
      c.chain.push_back(*rc::gen::elementOf(fitting));
      left -= blocks[c.chain.back()].ops;
    }
    const Extents big = *fg::test::gen_extents(0, 3);
    for (std::size_t k = 0; k <= c.chain.size(); ++k) {
      c.shapes.push_back(*gen_operand_shape(big));
      c.values.push_back(*gen_leaf_values(c.shapes.back().size()));
      c.requires_grad.push_back(k == 0 || *rc::gen::arbitrary<bool>());
    }
    return c;
  });
}

template <class T>
std::vector<fg::BasicTensor<T>> make_leaves(const ChainCase& c, bool with_grad) {
  std::vector<fg::BasicTensor<T>> leaves;
  for (std::size_t k = 0; k < c.shapes.size(); ++k) {
    leaves.push_back(fg::BasicTensor<T>::from(c.values[k], c.shapes[k]));
    if (with_grad && c.requires_grad[k]) leaves.back().requires_grad_();
  }
  return leaves;
}

template <class T>
fg::BasicTensor<T> run_chain(const ChainCase& c, const std::vector<fg::BasicTensor<T>>& leaves, bool taped) {
  fg::BasicTensor<T> u = leaves[0];
  for (std::size_t k = 0; k < c.chain.size(); ++k) u = apply_block(c.chain[k], u, leaves[k + 1], taped);
  return u;
}

// The chain's value and the gradient of sum(r * chain) for every leaf (zeros where none).
struct Result {
  Eigen::ArrayXd value;
  std::vector<Eigen::ArrayXd> grads;
};

template <class T>
Result differentiate(const ChainCase& c, const Eigen::ArrayXd& upstream, bool taped) {
  const auto leaves = make_leaves<T>(c, true);
  const fg::BasicTensor<T> out = run_chain(c, leaves, taped);
  Result r{out.eigen().template cast<double>(), {}};
  RC_ASSERT(out.requires_grad());
  out.backward(fg::BasicTensor<T>::from(upstream, out.shape()));
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const fg::BasicTensor<T> g = leaves[k].grad();
    if (!c.requires_grad[k]) RC_ASSERT(!g.defined());  // a constant never gets a gradient
    r.grads.push_back(g.defined() ? Eigen::ArrayXd(g.eigen().template cast<double>())
                                  : Eigen::ArrayXd::Zero(Eigen::Index(c.shapes[k].size())));
    if (g.defined()) RC_ASSERT(g.shape() == c.shapes[k]);
  }
  return r;
}

// Central differences of sum(r * chain) in double, leaf by leaf, element by element.
std::vector<Eigen::ArrayXd> central_differences(const ChainCase& c, const Eigen::ArrayXd& upstream) {
  fg::NoGradGuard guard;
  std::vector<Eigen::ArrayXd> out;
  for (std::size_t k = 0; k < c.shapes.size(); ++k) {
    Eigen::ArrayXd g = Eigen::ArrayXd::Zero(Eigen::Index(c.shapes[k].size()));
    if (c.requires_grad[k]) {
      ChainCase moved = c;
      for (Eigen::Index i = 0; i < g.size(); ++i) {
        const double x = c.values[k][i], h = 6e-6 * std::max(1.0, std::abs(x));
        moved.values[k][i] = x + h;
        const double up = (upstream * run_chain(moved, make_leaves<double>(moved, false), false).eigen()).sum();
        moved.values[k][i] = x - h;
        const double down = (upstream * run_chain(moved, make_leaves<double>(moved, false), false).eigen()).sum();
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
std::vector<Eigen::ArrayXd> complex_steps(const ChainCase& c, const Eigen::ArrayXd& upstream) {
  using C = std::complex<double>;
  constexpr double h = 1e-20;
  fg::NoGradGuard guard;
  std::vector<fg::BasicTensor<C>> leaves;
  for (std::size_t k = 0; k < c.shapes.size(); ++k)
    leaves.push_back(fg::BasicTensor<C>::from(Eigen::ArrayX<C>(c.values[k].cast<C>()), c.shapes[k]));
  std::vector<Eigen::ArrayXd> out;
  for (std::size_t k = 0; k < c.shapes.size(); ++k) {
    Eigen::ArrayXd g = Eigen::ArrayXd::Zero(Eigen::Index(c.shapes[k].size()));
    if (c.requires_grad[k]) {
      for (Eigen::Index i = 0; i < g.size(); ++i) {
        C* x = leaves[k].mutable_eigen().data() + i;
        *x = C(x->real(), h);
        g[i] = (upstream.cast<C>() * run_chain(c, leaves, false).eigen()).sum().imag() / h;
        *x = C(x->real(), 0);
      }
    }
    out.push_back(g);
  }
  return out;
}

// The first element where |actual - expected| > tolerance * max(1, max |expected|), described.
std::optional<std::string> mismatch(const Eigen::ArrayXd& actual, const Eigen::ArrayXd& expected, double tolerance,
                                    const std::string& what) {
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

void require_close(const Eigen::ArrayXd& actual, const Eigen::ArrayXd& expected, double tolerance,
                   const std::string& what) {
  if (const auto m = mismatch(actual, expected, tolerance, what)) RC_FAIL(*m);
}

void require_all_close(const Result& actual, const Result& expected, double tolerance, const std::string& what) {
  require_close(actual.value, expected.value, tolerance, what + " value");
  for (std::size_t k = 0; k < expected.grads.size(); ++k)
    require_close(actual.grads[k], expected.grads[k], tolerance, what + " gradient of leaf " + std::to_string(k));
}

RC_GTEST_PROP(BridgeRandom, FusedTapedAndFiniteDifferencesAgree, ()) {
  const ChainCase c = *gen_chain_case();
  Extents out_shape;
  {
    fg::NoGradGuard guard;
    out_shape = run_chain(c, make_leaves<double>(c, false), false).shape();
  }
  const Eigen::ArrayXd upstream = *gen_leaf_values(out_shape.size());

  const Result fused = differentiate<double>(c, upstream, false);
  const Result taped = differentiate<double>(c, upstream, true);
  require_all_close(taped, fused, 1e-12, "double taped vs fused:");
  const std::vector<Eigen::ArrayXd> fd = central_differences(c, upstream);
  for (std::size_t k = 0; k < fd.size(); ++k)
    require_close(fused.grads[k], fd[k], 1e-6, "fused vs central differences, leaf " + std::to_string(k));
  if (std::all_of(c.chain.begin(), c.chain.end(), [](int b) { return blocks[b].analytic; })) {
    const std::vector<Eigen::ArrayXd> exact = complex_steps(c, upstream);
    for (std::size_t k = 0; k < exact.size(); ++k)
      require_close(fused.grads[k], exact[k], 1e-12, "fused vs the complex step, leaf " + std::to_string(k));
  }

  const Result fused_f = differentiate<float>(c, upstream, false);
  const Result taped_f = differentiate<float>(c, upstream, true);
  require_all_close(taped_f, fused_f, 1e-5, "float taped vs fused:");
  require_all_close(fused_f, fused, 1e-4, "float vs double:");
}

}  // namespace
