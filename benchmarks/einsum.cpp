// einsum.cpp -- einsum forward and backward, loss sum(einsum(...) * R), against the same products written with Eigen:
//   E1 "ij,jk->ik" at 256x256: three GEMMs by hand;
//   E2 "bij,bjk->bik" with b = 32, 64x64: three GEMMs per batch element by hand;
//   E3 "ij,jk,kl->il" with (512,8)(8,512)(512,8), where the order matters: by hand in the best order (the last two
//      first), and left to right (a 512x512 intermediate) for scale.
// Every variant's value and gradient, the hand-written ones' too, are checked against the products written with Eigen
// (the reference gradients of each problem below, computed apart) before they are timed.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include <benchmark/benchmark.h>

#include <fusegrad/fusegrad.hpp>

#include "bench_common.hpp"

namespace fg = fusegrad;

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using dyn2 = fg::Shape<fg::dyn, fg::dyn>;
using dyn3 = fg::Shape<fg::dyn, fg::dyn, fg::dyn>;

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint32_t seed) {
  return fg::bench::uniform(rows * cols, -1, 1, seed).reshaped<Eigen::RowMajor>(rows, cols);
}

// Operand k's gradient against the hand-written one, element by element: each is a sum of products of its own.
void check_operand_gradient(const std::string& variant, std::size_t k, const double* got, const Matrix& want) {
  const auto n = std::size_t(want.size());
  fg::bench::check_gradient(variant, "of operand " + std::to_string(k), std::span(got, n), std::span(want.data(), n),
                            1e-9, fg::bench::relative_to::each);
}

// A hand-written variant's loss and gradients against the problem's reference ones (computed apart, in its
// constructor).
template <class Problem>
void check_handwritten(const std::string& variant, const Problem& p, double loss,
                       std::initializer_list<const Matrix*> grads) {
  fg::bench::check_value(variant, loss, p.loss);
  std::size_t k = 0;
  for (const Matrix* g : grads) {
    check_operand_gradient(variant, k, g->data(), *p.gradients()[k]);
    ++k;
  }
}

// --- E1: "ij,jk->ik" ------------------------------------------------------------------------------------------------
struct product {
  static constexpr const char* name = "E1";
  static constexpr fg::fixed_string subscripts{"ij,jk->ik"};
  using shape = dyn2;
  Matrix A = random_matrix(256, 256, 1), B = random_matrix(256, 256, 2), R = random_matrix(256, 256, 3);
  Matrix dA = R * B.transpose(), dB = A.transpose() * R;  // the reference gradients
  double loss = ((A * B).array() * R.array()).sum();      // and value
  std::array<const Matrix*, 2> operands() const { return {&A, &B}; }
  std::array<const Matrix*, 2> gradients() const { return {&dA, &dB}; }
  fg::Extents extents(const Matrix& m) const { return {std::size_t(m.rows()), std::size_t(m.cols())}; }
};

void e1_handwritten(benchmark::State& state) {
  const product p;
  Matrix C(256, 256), dA(256, 256), dB(256, 256);
  const auto step = [&] {
    C.noalias() = p.A * p.B;
    const double loss = (C.array() * p.R.array()).sum();
    dA.noalias() = p.R * p.B.transpose();
    dB.noalias() = p.A.transpose() * p.R;
    return loss;
  };
  check_handwritten("E1/handwritten", p, step(), {&dA, &dB});
  for (auto _ : state) {
    const double loss = step();
    benchmark::DoNotOptimize(loss);
    benchmark::DoNotOptimize(dA.data());
    benchmark::DoNotOptimize(dB.data());
  }
}

// --- E2: "bij,bjk->bik" ---------------------------------------------------------------------------------------------
constexpr Eigen::Index batch = 32, side = 64;
struct batched {
  static constexpr const char* name = "E2";
  static constexpr fg::fixed_string subscripts{"bij,bjk->bik"};
  using shape = dyn3;
  Matrix A = random_matrix(batch * side, side, 4), B = random_matrix(batch * side, side, 5),
         R = random_matrix(batch * side, side, 6);  // batch blocks of 64 rows
  Matrix dA = Matrix(batch * side, side), dB = Matrix(batch * side, side);
  double loss = 0;
  std::array<const Matrix*, 2> operands() const { return {&A, &B}; }
  std::array<const Matrix*, 2> gradients() const { return {&dA, &dB}; }
  fg::Extents extents(const Matrix&) const { return {std::size_t(batch), std::size_t(side), std::size_t(side)}; }
  batched() {
    for (Eigen::Index b = 0; b < batch; ++b) {
      dA.middleRows(b * side, side).noalias() = R.middleRows(b * side, side) * B.middleRows(b * side, side).transpose();
      dB.middleRows(b * side, side).noalias() = A.middleRows(b * side, side).transpose() * R.middleRows(b * side, side);
      loss +=
          ((A.middleRows(b * side, side) * B.middleRows(b * side, side)).array() * R.middleRows(b * side, side).array())
              .sum();
    }
  }
};

void e2_handwritten(benchmark::State& state) {
  const batched p;
  Matrix C(side, side), dA(batch * side, side), dB(batch * side, side);
  const auto step = [&] {
    double loss = 0;
    for (Eigen::Index b = 0; b < batch; ++b) {
      const auto A = p.A.middleRows(b * side, side), B = p.B.middleRows(b * side, side),
                 R = p.R.middleRows(b * side, side);
      C.noalias() = A * B;
      loss += (C.array() * R.array()).sum();
      dA.middleRows(b * side, side).noalias() = R * B.transpose();
      dB.middleRows(b * side, side).noalias() = A.transpose() * R;
    }
    return loss;
  };
  check_handwritten("E2/handwritten", p, step(), {&dA, &dB});
  for (auto _ : state) {
    const double loss = step();
    benchmark::DoNotOptimize(loss);
    benchmark::DoNotOptimize(dA.data());
    benchmark::DoNotOptimize(dB.data());
  }
}

// --- E3: "ij,jk,kl->il" ---------------------------------------------------------------------------------------------
struct chain {
  static constexpr const char* name = "E3";
  static constexpr fg::fixed_string subscripts{"ij,jk,kl->il"};
  using shape = dyn2;
  Matrix A = random_matrix(512, 8, 7), B = random_matrix(8, 512, 8), C = random_matrix(512, 8, 9),
         R = random_matrix(512, 8, 10);
  Matrix dA, dB, dC;
  double loss = 0;
  std::array<const Matrix*, 3> operands() const { return {&A, &B, &C}; }
  std::array<const Matrix*, 3> gradients() const { return {&dA, &dB, &dC}; }
  fg::Extents extents(const Matrix& m) const { return {std::size_t(m.rows()), std::size_t(m.cols())}; }
  chain() {
    const Matrix T = B * C, dT = A.transpose() * R;
    dA = R * T.transpose();
    dB = dT * C.transpose();
    dC = B.transpose() * dT;
    loss = ((A * T).array() * R.array()).sum();
  }
};

// The best order: T = B C (8x8) first; backward through it.
void e3_handwritten(benchmark::State& state) {
  const chain p;
  Matrix T(8, 8), Y(512, 8), dT(8, 8), dA(512, 8), dB(8, 512), dC(512, 8);
  const auto step = [&] {
    T.noalias() = p.B * p.C;
    Y.noalias() = p.A * T;
    const double loss = (Y.array() * p.R.array()).sum();
    dA.noalias() = p.R * T.transpose();
    dT.noalias() = p.A.transpose() * p.R;
    dB.noalias() = dT * p.C.transpose();
    dC.noalias() = p.B.transpose() * dT;
    return loss;
  };
  check_handwritten("E3/handwritten", p, step(), {&dA, &dB, &dC});
  for (auto _ : state) {
    const double loss = step();
    benchmark::DoNotOptimize(loss);
    benchmark::DoNotOptimize(dA.data());
    benchmark::DoNotOptimize(dB.data());
    benchmark::DoNotOptimize(dC.data());
  }
}

// Left to right, as a contraction in a fixed order does: A B is 512x512.
void e3_left_to_right(benchmark::State& state) {
  const chain p;
  Matrix AB(512, 512), Y(512, 8), dAB(512, 512), dA(512, 8), dB(8, 512), dC(512, 8);
  const auto step = [&] {
    AB.noalias() = p.A * p.B;
    Y.noalias() = AB * p.C;
    const double loss = (Y.array() * p.R.array()).sum();
    dAB.noalias() = p.R * p.C.transpose();
    dC.noalias() = AB.transpose() * p.R;
    dA.noalias() = dAB * p.B.transpose();
    dB.noalias() = p.A.transpose() * dAB;
    return loss;
  };
  check_handwritten("E3/left_to_right", p, step(), {&dA, &dB, &dC});
  for (auto _ : state) {
    const double loss = step();
    benchmark::DoNotOptimize(loss);
    benchmark::DoNotOptimize(dA.data());
    benchmark::DoNotOptimize(dB.data());
    benchmark::DoNotOptimize(dC.data());
  }
}

// --- every case through fusegrad: the static layer, one fused tape node, one node per op
// ------------------------------

// The static layer: loss = sum(einsum<subscripts>(operands...) * R) over Vars, R a Const.
template <class Problem>
void fused(benchmark::State& state) {
  const Problem p;
  const auto operands = p.operands();
  using var = fg::Var<double, typename Problem::shape>;
  auto vars = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<var, operands.size()>{var(p.extents(*operands[K]))...};
  }
  (std::make_index_sequence<operands.size()>{});
  for (std::size_t k = 0; k < operands.size(); ++k)
    std::copy_n(operands[k]->data(), operands[k]->size(), vars[k].value().data());
  fg::Const<double, typename Problem::shape> R(p.extents(p.R));
  std::copy_n(p.R.data(), p.R.size(), R.value().data());
  const auto gradients = [&] {
    return std::apply(
        [&](auto&... v) { return fg::value_and_grad(fg::sum(fg::einsum<Problem::subscripts>(v...) * R), v...); }, vars);
  };
  {
    const auto all = gradients();
    const std::string variant = std::string(Problem::name) + "/fused";
    fg::bench::check_value(variant, std::get<0>(all), p.loss);
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (check_operand_gradient(variant, K, std::get<K + 1>(all).data(), *p.gradients()[K]), ...);
    }
    (std::make_index_sequence<operands.size()>{});
  }
  for (auto _ : state) {
    auto all = gradients();
    benchmark::DoNotOptimize(std::get<0>(all));
    [&]<std::size_t... K>(std::index_sequence<K...>) { (benchmark::DoNotOptimize(std::get<K + 1>(all).data()), ...); }
    (std::make_index_sequence<std::tuple_size_v<decltype(all)> - 1>{});
  }
}

// The static layer writing the gradients into arrays the loop reuses (value_and_grad_into), as the hand-written
// variants reuse theirs; value_and_grad returns arrays of its own, in blocks the thread recycles.
template <class Problem>
void fused_into(benchmark::State& state) {
  const Problem p;
  const auto operands = p.operands();
  constexpr std::size_t count = operands.size();
  using var = fg::Var<double, typename Problem::shape>;
  auto vars = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<var, count>{var(p.extents(*operands[K]))...};
  }
  (std::make_index_sequence<count>{});
  std::array<Eigen::ArrayXd, count> grads;
  for (std::size_t k = 0; k < count; ++k) {
    std::copy_n(operands[k]->data(), operands[k]->size(), vars[k].value().data());
    grads[k].resize(operands[k]->size());
  }
  fg::Const<double, typename Problem::shape> R(p.extents(p.R));
  std::copy_n(p.R.data(), p.R.size(), R.value().data());
  const auto step = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return fg::value_and_grad_into(fg::sum(fg::einsum<Problem::subscripts>(vars[K]...) * R), std::tie(grads[K]...),
                                   vars[K]...);
  };
  const std::string variant = std::string(Problem::name) + "/fused_into";
  fg::bench::check_value(variant, step(std::make_index_sequence<count>{}), p.loss);
  for (std::size_t k = 0; k < count; ++k) check_operand_gradient(variant, k, grads[k].data(), *p.gradients()[k]);
  for (auto _ : state) {
    benchmark::DoNotOptimize(step(std::make_index_sequence<count>{}));
    benchmark::DoNotOptimize(grads[0].data());
  }
}

// The tape: the same loss over Tensors, recorded as one fused node (Fused) or one node per op.
template <class Problem, bool Fused>
void tape(benchmark::State& state) {
  const Problem p;
  const auto operands = p.operands();
  std::array<fg::Tensor, operands.size()> tensors;
  for (std::size_t k = 0; k < operands.size(); ++k)
    tensors[k] = fg::Tensor::from(*operands[k], p.extents(*operands[k])).requires_grad_();
  const fg::ConstTensor R(fg::Tensor::from(p.R, p.extents(p.R)));
  const auto step = [&] {
    for (fg::Tensor& t : tensors) t.zero_grad();
    const auto expr =
        std::apply([&](auto&... t) { return fg::sum(fg::einsum(Problem::subscripts.view(), t...) * R); }, tensors);
    fg::Tensor loss = Fused ? fg::Tensor(expr) : fg::taped(expr);
    loss.backward();
    return loss;
  };
  const std::string variant = std::string(Problem::name) + (Fused ? "/tape_fused" : "/taped");
  fg::bench::check_value(variant, step().item(), p.loss);
  for (std::size_t k = 0; k < operands.size(); ++k)
    check_operand_gradient(variant, k, tensors[k].grad().data(), *p.gradients()[k]);
  for (auto _ : state) benchmark::DoNotOptimize(step().item());
}

}  // namespace

BENCHMARK(e1_handwritten)->Name("E1/handwritten/256");
BENCHMARK(fused<product>)->Name("E1/fused/256");
BENCHMARK(fused_into<product>)->Name("E1/fused_into/256");
BENCHMARK(tape<product, true>)->Name("E1/tape_fused/256");
BENCHMARK(tape<product, false>)->Name("E1/taped/256");
BENCHMARK(e2_handwritten)->Name("E2/handwritten/32");
BENCHMARK(fused<batched>)->Name("E2/fused/32");
BENCHMARK(fused_into<batched>)->Name("E2/fused_into/32");
BENCHMARK(tape<batched, true>)->Name("E2/tape_fused/32");
BENCHMARK(tape<batched, false>)->Name("E2/taped/32");
BENCHMARK(e3_handwritten)->Name("E3/handwritten/512");
BENCHMARK(e3_left_to_right)->Name("E3/left_to_right/512");
BENCHMARK(fused<chain>)->Name("E3/fused/512");
BENCHMARK(fused_into<chain>)->Name("E3/fused_into/512");
BENCHMARK(tape<chain, true>)->Name("E3/tape_fused/512");
BENCHMARK(tape<chain, false>)->Name("E3/taped/512");

BENCHMARK_MAIN();
