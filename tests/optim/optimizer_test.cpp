// optim/optimizer_test.cpp -- SGD, Adam, AdamW and the schedules against five steps of PyTorch's (tests/data/optim/),
// and what the optimisers refuse.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/optim.hpp>

#include "data/optim/torch_reference.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
namespace optim = fusegrad::optim;
namespace ref = fusegrad::test::torch_optim;

// The fixture's problem: loss = sum(k * (p - 0.5)^2) + sum(sin(q) * q), from p0 and q0.
struct Problem {
  fg::Tensor p = fg::Tensor::from(std::span<const double>(ref::p0), {2, 3}).requires_grad_();
  fg::Tensor q = fg::Tensor::from(std::span<const double>(ref::q0), {3}).requires_grad_();
  fg::ConstTensor k{fg::Tensor::from(std::span<const double>(ref::k), {2, 3})};

  [[nodiscard]] fg::Tensor loss() const { return fg::sum(k * fg::square(p - 0.5)) + fg::sum(fg::sin(q) * q); }
};

void expect_values(const fg::Tensor& t, std::span<const double> expected, const char* what, int step) {
  ASSERT_EQ(t.numel(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(t.data()[i], expected[i], 1e-12 * std::max(1.0, std::abs(expected[i])))
        << what << "[" << i << "] after step " << step + 1;
}

// Five steps of `opt` (made over the problem's p and q), each checked against PyTorch's.
template <class Optimiser, class Schedule = std::nullptr_t>
void expect_torch_steps(Problem& problem, Optimiser& opt, const double (&p)[5][6], const double (&q)[5][3],
                        Schedule* schedule = nullptr, const double* lrs = nullptr) {
  for (int step = 0; step < 5; ++step) {
    opt.zero_grad();
    problem.loss().backward();
    opt.step();
    if constexpr (!std::is_same_v<Schedule, std::nullptr_t>) {
      schedule->step();
      EXPECT_NEAR(opt.lr(), lrs[step], 1e-15) << "learning rate after step " << step + 1;
    }
    expect_values(problem.p, p[step], "p", step);
    expect_values(problem.q, q[step], "q", step);
  }
}

TEST(SGD, PlainStepsMatchPyTorch) {
  Problem problem;
  optim::SGD opt({problem.p, problem.q}, {.lr = 0.1});
  expect_torch_steps(problem, opt, ref::sgd_p, ref::sgd_q);
}
TEST(SGD, MomentumMatchesPyTorch) {
  Problem problem;
  optim::SGD opt({problem.p, problem.q}, {.lr = 0.1, .momentum = 0.9});
  expect_torch_steps(problem, opt, ref::sgd_momentum_p, ref::sgd_momentum_q);
}
TEST(SGD, DampeningAndWeightDecayMatchPyTorch) {
  Problem problem;
  optim::SGD opt({problem.p, problem.q}, {.lr = 0.05, .momentum = 0.8, .dampening = 0.3, .weight_decay = 0.01});
  expect_torch_steps(problem, opt, ref::sgd_dampening_weight_decay_p, ref::sgd_dampening_weight_decay_q);
}
TEST(SGD, NesterovMatchesPyTorch) {
  Problem problem;
  optim::SGD opt({problem.p, problem.q}, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.001, .nesterov = true});
  expect_torch_steps(problem, opt, ref::sgd_nesterov_p, ref::sgd_nesterov_q);
}
TEST(SGD, MaximizeMatchesPyTorch) {
  Problem problem;
  optim::SGD opt({problem.p, problem.q}, {.lr = 0.05, .momentum = 0.5, .maximize = true});
  expect_torch_steps(problem, opt, ref::sgd_maximize_p, ref::sgd_maximize_q);
}

// Negated first, then the weight decay added (where PyTorch versions have differed).
TEST(SGD, MaximizeWithWeightDecayMatchesPyTorch) {
  Problem problem;
  optim::SGD opt({problem.p, problem.q}, {.lr = 0.05, .weight_decay = 0.3, .maximize = true});
  expect_torch_steps(problem, opt, ref::sgd_maximize_weight_decay_p, ref::sgd_maximize_weight_decay_q);
}

TEST(Adam, DefaultsButTheRateMatchPyTorch) {
  Problem problem;
  optim::Adam opt({problem.p, problem.q}, {.lr = 0.1});
  expect_torch_steps(problem, opt, ref::adam_p, ref::adam_q);
  EXPECT_EQ(opt.steps(0), 5);
  fg::test::expect_error<fg::value_error>([&] { (void)opt.steps(2); }, {"steps(k)", "k = 2", "2 parameters"});
}
TEST(Adam, WeightDecayAndAmsgradMatchPyTorch) {
  Problem problem;
  optim::Adam opt({problem.p, problem.q},
                  {.lr = 0.05, .beta1 = 0.8, .beta2 = 0.99, .eps = 1e-6, .weight_decay = 0.1, .amsgrad = true});
  expect_torch_steps(problem, opt, ref::adam_weight_decay_amsgrad_p, ref::adam_weight_decay_amsgrad_q);
}
TEST(Adam, MaximizeWithWeightDecayMatchesPyTorch) {
  Problem problem;
  optim::Adam opt({problem.p, problem.q}, {.lr = 0.05, .weight_decay = 0.3, .maximize = true});
  expect_torch_steps(problem, opt, ref::adam_maximize_weight_decay_p, ref::adam_maximize_weight_decay_q);
}

TEST(AdamW, DecoupledWeightDecayMatchesPyTorch) {
  Problem problem;
  optim::AdamW opt({problem.p, problem.q}, {.lr = 0.1, .weight_decay = 0.05});
  expect_torch_steps(problem, opt, ref::adamw_p, ref::adamw_q);
}
TEST(AdamW, AmsgradMaximizeMatchesPyTorch) {
  Problem problem;
  optim::AdamW opt({problem.p, problem.q},
                   {.lr = 0.02, .beta1 = 0.7, .beta2 = 0.9, .weight_decay = 0.2, .amsgrad = true, .maximize = true});
  expect_torch_steps(problem, opt, ref::adamw_amsgrad_maximize_p, ref::adamw_amsgrad_maximize_q);
}
TEST(AdamW, DefaultWeightDecayIsPyTorchs) {
  EXPECT_EQ(optim::AdamWOptions{}.weight_decay, 0.01);
  EXPECT_EQ(optim::AdamOptions{}.weight_decay, 0.0);
}

TEST(StepLR, MatchesPyTorch) {
  Problem problem;
  optim::SGD opt({problem.p, problem.q}, {.lr = 0.1, .momentum = 0.5});
  optim::StepLR schedule(opt, {.step_size = 2, .gamma = 0.5});
  expect_torch_steps(problem, opt, ref::sgd_step_lr_p, ref::sgd_step_lr_q, &schedule, ref::sgd_step_lr_lr);
}
TEST(CosineAnnealingLR, MatchesPyTorchPastItsPeriod) {
  Problem problem;
  optim::Adam opt({problem.p, problem.q}, {.lr = 0.1});
  optim::CosineAnnealingLR schedule(opt, {.t_max = 4, .eta_min = 0.01});
  expect_torch_steps(problem, opt, ref::adam_cosine_lr_p, ref::adam_cosine_lr_q, &schedule, ref::adam_cosine_lr_lr);
}

// A schedule anneals from the rate when the first schedule was made on the optimiser (PyTorch's initial_lr): after a
// StepLR took the rate from 0.1 to 0.025, a CosineAnnealingLR comes back up to 0.05, not to 0.025. PyTorch 1.13's
// rates.
TEST(CosineAnnealingLR, AnnealsFromTheFirstSchedulesInitialRate) {
  Problem problem;
  optim::SGD opt({problem.p}, {.lr = 0.1});
  optim::StepLR halve(opt, {.step_size = 1, .gamma = 0.5});
  halve.step();
  halve.step();
  EXPECT_EQ(opt.initial_lr(), 0.1);
  optim::CosineAnnealingLR cosine(opt, {.t_max = 4});
  const double torch_lrs[] = {0.021338834764831845, 0.0125, 0.0036611652351681567, 0.0, 0.014644660940672622,
                              0.05000000000000001};
  for (const double expected : torch_lrs) {
    cosine.step();
    EXPECT_NEAR(opt.lr(), expected, 1e-17);
  }
}

// A schedule's settings are checked when it is made; a step that fails changes neither the rate nor the epoch.
TEST(Schedules, RefuseBadSettingsAndFailWithoutChangingAnything) {
  Problem problem;
  optim::SGD opt({problem.p}, {.lr = 0.1});
  fg::test::expect_error<fg::value_error>([&] { optim::StepLR(opt, {.step_size = 2, .gamma = INFINITY}); },
                                          {"StepLR", "gamma", "inf"});
  fg::test::expect_error<fg::value_error>([&] { optim::CosineAnnealingLR(opt, {.t_max = 4, .eta_min = -0.05}); },
                                          {"CosineAnnealingLR", "eta_min", ">= 0", "-0.05"});
  fg::test::expect_error<fg::value_error>([&] { optim::CosineAnnealingLR(opt, {.t_max = 4, .eta_min = NAN}); },
                                          {"CosineAnnealingLR", "eta_min", "nan"});
  optim::StepLR grow(opt, {.step_size = 1, .gamma = 1e300});
  grow.step();  // 1e299
  fg::test::expect_error<fg::value_error>([&] { grow.step(); },
                                          {"StepLR::step", "epoch 2", "past the largest double", "gamma <= 1"});
  EXPECT_EQ(grow.epoch(), 1);
  EXPECT_EQ(opt.lr(), 0.1 * 1e300);
  optim::CosineAnnealingLR cosine(opt, {.t_max = 2});
  for (int epoch = 1; epoch <= 3; ++epoch) cosine.step();
  opt.set_lr(1e308);  // by hand, where the rising half doubles the rate at epoch 4
  fg::test::expect_error<fg::value_error>([&] { cosine.step(); }, {"CosineAnnealingLR::step", "epoch 4", "inf"});
  EXPECT_EQ(cosine.epoch(), 3);
  EXPECT_EQ(opt.lr(), 1e308);
  fg::test::expect_error<fg::value_error>([&] { optim::SGD({problem.q}, {.lr = -1e-10}); }, {"not -1e-10"});
}

// A step that fails changes nothing, counted writes included: a deferred value reading the second parameter fails
// (NaN under the guard) before the first parameter's write is counted, so a graph that saved it still runs.
TEST(Optimizer, AFailedStepCountsNoWrite) {
  fg::Tensor p0 = fg::Tensor::from({1.0, 2.0}, {2}).requires_grad_(),
             p1 = fg::Tensor::from({3.0}, {1}).requires_grad_();
  optim::Adam opt({p0, p1}, {.lr = 0.1});
  fg::Tensor(fg::sum(p0 * p0) + fg::sum(p1 * p1)).backward();
  const fg::Tensor saved_p0 = fg::taped(p0 * p0);
  const fg::Tensor deferred = fg::sum(fg::log(p1 - 100.0));  // NaN once computed
  {
    fg::DetectAnomalyGuard guard;
    fg::test::expect_error<fg::value_error>([&] { opt.step(); }, {"NaN or infinity"});
  }
  EXPECT_EQ(p0.data()[0], 1.0);
  EXPECT_EQ(opt.steps(0), 0);
  fg::taped(fg::sum(saved_p0)).backward();  // p0 counted no write: the graph that saved it runs
  EXPECT_EQ(p0.grad().data()[0], 2.0 + 2.0);
  (void)deferred;
}

// A schedule whose settings are refused records nothing: the next one anneals from the rate of its own making.
TEST(CosineAnnealingLR, ARefusedScheduleRecordsNoInitialRate) {
  Problem problem;
  optim::SGD opt({problem.p}, {.lr = 0.1});
  fg::test::expect_error<fg::value_error>([&] { optim::CosineAnnealingLR(opt, {.t_max = 0}); }, {"t_max"});
  opt.set_lr(0.5);
  EXPECT_EQ(opt.initial_lr(), 0.5);
}

// A step records nothing and changes only the parameters: they stay leaves, the next forward
// records and differentiates as before; a graph recorded before the step reads old values and
// is refused, as in PyTorch.
TEST(Optimizer, AStepIsUnrecordedAndTheNextForwardWorks) {
  Problem problem;
  optim::Adam opt({problem.p, problem.q}, {.lr = 0.1});
  problem.loss().backward();
  const fg::Tensor stale = problem.loss();
  opt.step();
  EXPECT_TRUE(problem.p.is_leaf());
  EXPECT_TRUE(problem.p.requires_grad());
  opt.zero_grad();
  EXPECT_FALSE(problem.p.grad().defined());
  problem.loss().backward();
  EXPECT_TRUE(problem.p.grad().defined());
  fg::test::expect_error<fg::graph_error>([&] { stale.backward(); }, {"modified in place"});
}

// A parameter without a gradient (not reached by this backward) is left as it is, state and all.
TEST(Optimizer, AParameterWithoutAGradientIsSkipped) {
  Problem problem;
  fg::Tensor unused = fg::Tensor::full({2}, 3.0).requires_grad_();
  optim::Adam opt({problem.p, unused}, {.lr = 0.1});
  problem.loss().backward();
  opt.step();
  EXPECT_EQ(unused.data()[0], 3.0);
  EXPECT_EQ(opt.steps(1), 0);
  EXPECT_EQ(opt.steps(0), 1);
}

// Float parameters follow the double trajectory to float precision.
TEST(Optimizer, FloatParametersFollowTheDoubleTrajectory) {
  Problem problem;
  fg::BasicTensor<float> p = problem.p.to<float>().detach().requires_grad_();
  fg::BasicTensor<float> q = problem.q.to<float>().detach().requires_grad_();
  const fg::BasicConstTensor<float> k(problem.k.to<float>());
  optim::BasicAdam<float> opt({p, q}, {.lr = 0.1});
  for (int step = 0; step < 5; ++step) {
    opt.zero_grad();
    fg::BasicTensor<float>(fg::sum(k * fg::square(p - 0.5f)) + fg::sum(fg::sin(q) * q)).backward();
    opt.step();
  }
  for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(p.data()[i], ref::adam_p[4][i], 1e-5);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(q.data()[i], ref::adam_q[4][i], 1e-5);
}

// Float parameters against PyTorch's float32 steps. PyTorch rounds 1 - beta, computed in double, to float; computed in
// float, 1 - 0.999f is 1.3e-5 off, which moves p by about 8e-6 relative over these steps. What remains is rounding
// (PyTorch's fused multiply-adds, float sums in a different order): within 5e-7 relative.
template <class Optimiser>
void expect_torch_float_steps(const typename Optimiser::options_type& options, const double (&p_ref)[5][6],
                              const double (&q_ref)[5][3]) {
  Problem problem;
  fg::BasicTensor<float> p = problem.p.to<float>().detach().requires_grad_();
  fg::BasicTensor<float> q = problem.q.to<float>().detach().requires_grad_();
  const fg::BasicConstTensor<float> k(problem.k.to<float>());
  Optimiser opt({p, q}, options);
  for (int step = 0; step < 5; ++step) {
    opt.zero_grad();
    fg::BasicTensor<float>(fg::sum(k * fg::square(p - 0.5f)) + fg::sum(fg::sin(q) * q)).backward();
    opt.step();
    for (std::size_t i = 0; i < 6; ++i)
      EXPECT_NEAR(p.data()[i], p_ref[step][i], 5e-7 * std::max(1.0, std::abs(p_ref[step][i])))
          << "p[" << i << "] after step " << step + 1;
    for (std::size_t i = 0; i < 3; ++i)
      EXPECT_NEAR(q.data()[i], q_ref[step][i], 5e-7 * std::max(1.0, std::abs(q_ref[step][i])))
          << "q[" << i << "] after step " << step + 1;
  }
}
TEST(Optimizer, FloatAdamMatchesPyTorchsFloat32Steps) {
  expect_torch_float_steps<optim::BasicAdam<float>>({.lr = 0.1}, ref::adam_float32_p, ref::adam_float32_q);
  expect_torch_float_steps<optim::BasicAdamW<float>>(
      {.lr = 0.02, .beta1 = 0.7, .beta2 = 0.999, .weight_decay = 0.2, .amsgrad = true}, ref::adamw_amsgrad_float32_p,
      ref::adamw_amsgrad_float32_q);
}

// Which terms an update has is decided on the options as given, as PyTorch decides them: a momentum of 1e-50, 0 as a
// float, still keeps a damped buffer. With gradient 1, lr 0.1 and dampening 0.5: the first step takes 0.1 (the buffer
// starts as the gradient), the second 0.1 * 0.5, so p goes 1, 0.9, 0.85 (PyTorch's float32 steps: 0.9, 0.849999964).
TEST(SGD, AMomentumThatIsZeroAsAFloatStillDampens) {
  fg::BasicTensor<float> p = fg::BasicTensor<float>::from({1.0f}, {1}).requires_grad_();
  optim::BasicSGD<float> opt({p}, {.lr = 0.1, .momentum = 1e-50, .dampening = 0.5});
  for (const double want : {0.9, 0.85}) {
    opt.zero_grad();
    fg::BasicTensor<float>(fg::sum(p)).backward();
    opt.step();
    EXPECT_NEAR(p.data()[0], want, 1e-7);
  }
}

TEST(Optimizer, RefusesWhatItCannotOptimise) {
  Problem problem;
  const fg::Tensor plain = fg::Tensor::zeros({2});
  fg::test::expect_error<fg::value_error>([] { optim::SGD({}, {.lr = 0.1}); }, {"SGD", "empty"});
  fg::test::expect_error<fg::value_error>([&] { optim::SGD({problem.p}, {}); },
                                          {"SGD", "no learning rate", "not set", ".lr"});
  fg::test::expect_error<fg::value_error>(
      [&] {
        optim::SGD({problem.p, plain}, {.lr = 0.1});
      },
      {"parameter 1", "does not require grad", "requires_grad_()"});
  fg::test::expect_error<fg::value_error>([&] { optim::Adam({problem.p * 2.0}); }, {"parameter 0", "not a leaf"});
  fg::test::expect_error<fg::value_error>(
      [&] {
        optim::Adam({problem.p, problem.q, problem.p});
      },
      {"parameter 2 is parameter 0 again"});
  fg::test::expect_error<fg::value_error>([&] { optim::Adam({fg::Tensor()}); }, {"undefined"});
  fg::test::expect_error<fg::value_error>([&] { optim::SGD({problem.p}, {.lr = 0.1, .nesterov = true}); },
                                          {"Nesterov", "momentum > 0"});
  fg::test::expect_error<fg::value_error>([&] { optim::Adam({problem.p}, {.beta1 = 1.0}); }, {"beta1", "[0, 1)"});
  fg::test::expect_error<fg::value_error>([&] { optim::AdamW({problem.p}, {.lr = -1}); }, {"AdamW", "learning rate"});
  // Settings that are not numbers would turn the parameters to NaN, or stop them, at a step without an error.
  fg::test::expect_error<fg::value_error>(
      [&] { optim::SGD({problem.p}, {.lr = 0.1, .momentum = 0.9, .dampening = NAN}); }, {"SGD", "dampening", "nan"});
  fg::test::expect_error<fg::value_error>([&] { optim::SGD({problem.p}, {.lr = 0.1, .weight_decay = INFINITY}); },
                                          {"SGD", "weight_decay", "inf"});
  fg::test::expect_error<fg::value_error>([&] { optim::SGD({problem.p}, {.lr = 0.1, .momentum = NAN}); },
                                          {"SGD", "momentum", "nan"});
  fg::test::expect_error<fg::value_error>([&] { optim::Adam({problem.p}, {.eps = INFINITY}); }, {"Adam", "eps", "inf"});
  fg::test::expect_error<fg::value_error>([&] { optim::AdamW({problem.p}, {.weight_decay = INFINITY}); },
                                          {"AdamW", "weight_decay", "inf"});
  optim::SGD opt({problem.p}, {.lr = 0.1});
  fg::test::expect_error<fg::value_error>([&] { optim::StepLR(opt, {.step_size = 0}); }, {"step_size"});
  fg::test::expect_error<fg::value_error>([&] { optim::CosineAnnealingLR(opt, {}); }, {"t_max"});
  fg::test::expect_error<fg::value_error>([&] { opt.set_lr(std::nan("")); }, {"set_lr"});
  EXPECT_EQ(opt.lr(), 0.1);
}

// Whether a step restarts from eta_min is PyTorch's (epoch - 1 - t_max) % (2 * t_max) == 0, computed without
// 2 * t_max, which overflows a long for t_max > LONG_MAX / 2 (undefined behaviour: the sanitizer build stops there).
// PyTorch 1.13 with T_max = 2**63 - 1 or 2**62 + 1, lr 0.1 and eta_min 0.01: 0.1 at each of the first four steps.
TEST(CosineAnnealingLR, AHugeTMaxFollowsPyTorchWithoutOverflow) {
  for (const long t_max : {LONG_MAX, LONG_MAX / 2 + 2}) {
    Problem problem;
    optim::SGD opt({problem.p}, {.lr = 0.1});
    optim::CosineAnnealingLR schedule(opt, {.t_max = t_max, .eta_min = 0.01});
    for (int e = 0; e < 4; ++e) {
      schedule.step();
      EXPECT_EQ(opt.lr(), 0.1) << t_max;
    }
    EXPECT_EQ(schedule.epoch(), 4);
  }
}

// A rate set below eta_min by hand falls further in the rising half of the cosine, as in PyTorch, while it stays
// >= 0. A step that would take it below 0 (PyTorch goes on with the negative rate) throws, naming the schedule,
// eta_min and the rate, and changes neither the rate nor the epoch; a rate set >= eta_min goes on from there.
// PyTorch 1.13, T_max = 100, eta_min = 0.05, lr 0.1, 101 steps, then lr = 0.04: epoch 102 0.010009868792681821,
// epoch 103 -0.03994079698320287 (refused here); from lr = 0.06 set at epoch 102: epoch 103 0.07249074815907174,
// epoch 104 0.08996053456856513.
TEST(CosineAnnealingLR, AStepThatWouldMakeTheRateNegativeThrowsAndChangesNothing) {
  Problem problem;
  optim::SGD opt({problem.p}, {.lr = 0.1});
  optim::CosineAnnealingLR schedule(opt, {.t_max = 100, .eta_min = 0.05});
  for (int e = 0; e < 101; ++e) schedule.step();
  opt.set_lr(0.04);
  schedule.step();
  EXPECT_NEAR(opt.lr(), 0.010009868792681821, 1e-15);
  const double before = opt.lr();
  fg::test::expect_error<fg::value_error>([&] { schedule.step(); },
                                          {"CosineAnnealingLR", "eta_min 0.05", "rate 0.0100098687926", "below 0"});
  EXPECT_EQ(opt.lr(), before);
  EXPECT_EQ(schedule.epoch(), 102);
  opt.set_lr(0.06);
  schedule.step();
  EXPECT_NEAR(opt.lr(), 0.07249074815907174, 1e-15);
  schedule.step();
  EXPECT_NEAR(opt.lr(), 0.08996053456856513, 1e-15);
  EXPECT_EQ(schedule.epoch(), 104);
}

}  // namespace
