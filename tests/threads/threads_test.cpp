// threads/threads_test.cpp -- graphs built, read, differentiated and dropped concurrently: independent ones, and
// ones that share nodes, leaves and deferred values (CI also runs this under ThreadSanitizer).
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;
using fg::Tensor;

constexpr int thread_count = 8;

// What one worker computes on its own data (seeded by its index).
struct Work {
  Eigen::ArrayXd x;                   // B1's input
  double b1_fused = 0, b1_taped = 0;  // B1's value, both recordings
  Eigen::ArrayXd dx_fused, dx_taped;  // B1's gradient, both recordings
  double b = 0, w = 0;                // after gradient descent on y = 1.5 - 0.5 x + noise
  double final_loss = 0;
  bool recorded_under_no_grad = false;  // must stay false
};

Work run(int seed) {
  Work out;
  Tensor x = Tensor::randn({257}, 1000 + seed).requires_grad_();
  out.x = x.eigen();
  {
    const Tensor f = fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x));
    f.backward();
    out.b1_fused = f.item();
    out.dx_fused = x.grad().eigen();
  }
  x.zero_grad();
  {
    const Tensor f = fg::taped(fg::sum(fg::sin(x) * fg::exp(-x * x) + fg::log1p(x * x)));
    f.backward();
    out.b1_taped = f.item();
    out.dx_taped = x.grad().eigen();
  }
  // A small regression, parameters stepped under NoGradGuard on this thread.
  const Tensor xs = Tensor::rand({64}, 2000 + seed);
  const Tensor ys = fg::Tensor(1.5 - 0.5 * xs + 0.01 * Tensor::randn({64}, 3000 + seed));
  Tensor b = Tensor::scalar(0).requires_grad_(), w = Tensor::scalar(0).requires_grad_();
  for (int epoch = 0; epoch < 200; ++epoch) {
    const Tensor loss = fg::mean(fg::square(b + w * xs - ys));
    loss.backward();
    fg::NoGradGuard guard;
    b.sub_(b.grad(), 0.5);
    w.sub_(w.grad(), 0.5);
    b.zero_grad();
    w.zero_grad();
    const Tensor probe = w * xs;  // under the guard: must not be recorded
    out.recorded_under_no_grad = out.recorded_under_no_grad || !probe.is_leaf();
  }
  out.b = b.item();
  out.w = w.item();
  fg::NoGradGuard guard;
  out.final_loss = Tensor(fg::mean(fg::square(b + w * xs - ys))).item();
  return out;
}

TEST(Threads, IndependentGraphsGiveTheSingleThreadedResults) {
  std::vector<Work> results(thread_count);
  {
    std::vector<std::thread> workers;
    for (int t = 0; t < thread_count; ++t) workers.emplace_back([t, &results] { results[t] = run(t); });
    for (std::thread& worker : workers) worker.join();
  }
  for (int t = 0; t < thread_count; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    const Work& r = results[t];
    const Work alone = run(t);  // the same work on this thread alone: the same numbers, bit for bit
    EXPECT_EQ(r.b1_fused, alone.b1_fused);
    EXPECT_TRUE((r.dx_fused == alone.dx_fused).all());
    EXPECT_EQ(r.b, alone.b);
    EXPECT_EQ(r.w, alone.w);
    EXPECT_FALSE(r.recorded_under_no_grad);
    // And the numbers are right: B1 against its closed form, fused against taped.
    const Eigen::ArrayXd& x = r.x;
    const Eigen::ArrayXd e = (-x.square()).exp();
    EXPECT_NEAR(r.b1_fused, (x.sin() * e + x.square().log1p()).sum(), 1e-12 * 257);
    const Eigen::ArrayXd dx = x.cos() * e - 2 * x * x.sin() * e + 2 * x / (1 + x.square());
    EXPECT_LT((r.dx_fused - dx).abs().maxCoeff(), 1e-14);
    EXPECT_LT((r.dx_taped - r.dx_fused).abs().maxCoeff(), 1e-14);
    EXPECT_NEAR(r.b1_taped, r.b1_fused, 1e-12);
    // The regression found its line: y = 1.5 - 0.5 x with noise 0.01.
    EXPECT_NEAR(r.b, 1.5, 0.05);
    EXPECT_NEAR(r.w, -0.5, 0.1);
    EXPECT_LT(r.final_loss, 1e-3);
  }
}

// Threads that record and threads inside a NoGradGuard, in lock step, so that the guards and
// the recording overlap in time.
TEST(Threads, GradModeOfOneThreadLeavesTheOthersAlone) {
  constexpr int rounds = 50;
  std::barrier sync(thread_count);
  std::vector<int> recorded(thread_count, 0), gradients_right(thread_count, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < thread_count; ++t)
    workers.emplace_back([&, t] {
      const bool guarded = t % 2 == 1;
      Tensor x = Tensor::full({3}, double(t + 1)).requires_grad_();
      for (int round = 0; round < rounds; ++round) {
        sync.arrive_and_wait();
        if (guarded) {
          fg::NoGradGuard guard;
          const Tensor y = fg::sum(x * x);
          recorded[t] += !y.is_leaf();
        } else {
          const Tensor y = fg::sum(x * x);  // d/dx = 2x = 2 (t + 1)
          recorded[t] += !y.is_leaf();
          y.backward();
          gradients_right[t] += (x.grad().eigen() == 2.0 * (t + 1)).all();
          x.zero_grad();
        }
      }
    });
  for (std::thread& worker : workers) worker.join();
  for (int t = 0; t < thread_count; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    if (t % 2 == 1) {
      EXPECT_EQ(recorded[t], 0);
    } else {
      EXPECT_EQ(recorded[t], rounds);
      EXPECT_EQ(gradients_right[t], rounds);
    }
  }
}

// One data tensor read by every thread (handles are reference-counted atomically); each
// thread has its own parameter. d/dw sum((w x)^2) = 2 w sum(x^2).
TEST(Threads, SharedReadOnlyDataWithPrivateParameters) {
  const Tensor x = Tensor::arange(1, 5);  // (1, 2, 3, 4): sum of squares 30
  std::vector<double> grads(thread_count), values(thread_count);
  std::vector<std::thread> workers;
  for (int t = 0; t < thread_count; ++t)
    workers.emplace_back([&, t] {
      Tensor w = Tensor::scalar(double(t)).requires_grad_();
      for (int round = 0; round < 100; ++round) {
        w.zero_grad();
        const Tensor loss = fg::sum(fg::square(w * x));
        const Tensor copy = x;  // copies and drops of the shared handle, concurrently
        loss.backward();
        grads[t] = w.grad().item();
        values[t] = loss.item();
      }
    });
  for (std::thread& worker : workers) worker.join();
  for (int t = 0; t < thread_count; ++t) {
    EXPECT_EQ(grads[t], 60.0 * t) << "thread " << t;
    EXPECT_EQ(values[t], 30.0 * t * t) << "thread " << t;
  }
  EXPECT_FALSE(x.grad().defined());
}

// Each thread builds and drops its own long chain: the iterative release keeps its queue per thread.
TEST(Threads, LongChainsDroppedConcurrently) {
  constexpr int length = 5'000;
  std::vector<double> grads(thread_count);
  std::vector<std::thread> workers;
  for (int t = 0; t < thread_count; ++t)
    workers.emplace_back([&, t] {
      Tensor x = Tensor::scalar(1.0).requires_grad_();
      {
        Tensor y = x;
        for (int k = 0; k < length; ++k) y = y * (k % 2 ? 2.0 : 0.5);  // the factors cancel in pairs
        y.backward({.retain_graph = t % 2 == 0});
      }  // dropped here, with or without the saved values
      grads[t] = x.grad().item();
    });
  for (std::thread& worker : workers) worker.join();
  for (int t = 0; t < thread_count; ++t) EXPECT_EQ(grads[t], 1.0) << "thread " << t;
}

// Backward calls from several threads through one retained shared node, each thread on a loss of its
// own, into one shared leaf: w.grad is the sum of every call's gradient (PyTorch's guarantee). With
// h = sin(w x) and loss_t = sum(c_t h), d loss_t / dw = c_t sum(x cos(w x)).
TEST(Threads, ConcurrentBackwardThroughASharedGraphSumsTheGradients) {
  constexpr int workers_count = 4, rounds = 150;
  const Tensor x = Tensor::arange(1, 9) / 8.0;  // 1/8 ... 1
  Tensor w = Tensor::scalar(0.7).requires_grad_();
  const Tensor h = fg::taped(fg::sin(w * x));
  std::barrier sync(workers_count);
  std::vector<std::thread> workers;
  std::vector<double> loss_values(workers_count);
  for (int t = 0; t < workers_count; ++t)
    workers.emplace_back([&, t] {
      const double c = t + 1.0;
      sync.arrive_and_wait();
      for (int round = 0; round < rounds; ++round) {
        const Tensor loss = fg::taped(fg::sum(c * h));
        loss.backward({.retain_graph = true});
        loss_values[t] = loss.item();
      }
    });
  for (std::thread& worker : workers) worker.join();
  const Eigen::ArrayXd xs = x.eigen();
  const double dh = (xs * (0.7 * xs).cos()).sum();  // d sum(h) / dw
  double c_total = 0;
  for (int t = 0; t < workers_count; ++t) {
    c_total += t + 1.0;
    EXPECT_NEAR(loss_values[t], (t + 1.0) * (0.7 * xs).sin().sum(), 1e-13) << "thread " << t;
  }
  const double expected = rounds * c_total * dh;  // 1500 * dh: every call counted once
  EXPECT_NEAR(w.grad().item(), expected, 1e-12 * expected);
}

// The lock every backward holds: while one thread holds it for a while, the others sleep on it and are woken in
// turn, and a count that only the lock's holders touch ends exact. A thread that holds it may take it again.
TEST(Threads, GraphLockAdmitsOneThreadAtATimeAndWakesTheSleepers) {
  constexpr int increments = 20000;
  long long count = 0;  // a plain integer: only the lock orders the increments
  std::barrier sync(thread_count);
  std::vector<std::thread> workers;
  for (int t = 0; t < thread_count; ++t)
    workers.emplace_back([&, t] {
      sync.arrive_and_wait();
      if (t == 0) {
        const fg::detail::graph_lock lock;
        const fg::detail::graph_lock again;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the others go to sleep on it
        ++count;
      }
      for (int i = 0; i < increments; ++i) {
        const fg::detail::graph_lock lock;
        ++count;
      }
    });
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(count, 1 + static_cast<long long>(thread_count) * increments);
}

// The same in a loop of short rounds, so that the backwards also overlap with recording on the
// shared node and with the drop of each thread's loss: every round's gradient is checked.
TEST(Threads, EveryConcurrentBackwardRoundGivesTheSerialSum) {
  constexpr int workers_count = 4, rounds = 60;
  const Tensor x = Tensor::arange(1, 5);
  const Eigen::ArrayXd xs = x.eigen();
  for (int round = 0; round < rounds; ++round) {
    Tensor w = Tensor::scalar(0.1 * round).requires_grad_();
    const Tensor h = fg::Tensor(fg::exp(-w * x));  // one fused node, shared
    std::barrier sync(workers_count);
    std::vector<std::thread> workers;
    for (int t = 0; t < workers_count; ++t)
      workers.emplace_back([&, t] {
        sync.arrive_and_wait();
        const Tensor loss = fg::taped(fg::sum(h * double(t + 1)) + w);
        loss.backward({.retain_graph = true});
      });
    for (std::thread& worker : workers) worker.join();
    // d/dw [(t + 1) sum(exp(-w x)) + w], summed over t = 0..3: -10 sum(x exp(-w x)) + 4.
    const double expected = -10.0 * (xs * (-0.1 * round * xs).exp()).sum() + 4.0;
    ASSERT_NEAR(w.grad().item(), expected, 1e-12 * std::abs(expected) + 1e-14) << "round " << round;
  }
}

// A fused sum's value is deferred until first read (or computed by backward). Threads that read
// it at once, one of them running backward, all see the one value, computed once.
TEST(Threads, ConcurrentReadersOfADeferredValueSeeOneValue) {
  constexpr int rounds = 100;
  const Tensor x = Tensor::arange(1, 101);  // sum of squares 338350
  for (int round = 0; round < rounds; ++round) {
    Tensor w = Tensor::scalar(1.0 + round).requires_grad_();
    const Tensor s = fg::sum(w * x * x);
    std::barrier sync(thread_count);
    std::vector<double> seen(thread_count);
    std::vector<std::thread> workers;
    for (int t = 0; t < thread_count; ++t)
      workers.emplace_back([&, t] {
        sync.arrive_and_wait();
        if (t == 0) s.backward({.retain_graph = true});
        seen[t] = t % 2 ? s.item() : s.data()[0];
      });
    for (std::thread& worker : workers) worker.join();
    for (int t = 0; t < thread_count; ++t) ASSERT_EQ(seen[t], 338350.0 * (1.0 + round)) << "thread " << t;
    ASSERT_EQ(w.grad().item(), 338350.0);
  }
}

// A shared intermediate that retains its gradient is dropped by its owner while another thread
// runs backward through it (with anomaly detection on that thread, which collects tensors'
// gradients aside until the end, or off): its gradient is written only while it lives, a dying
// tensor is never brought back, and the leaf's gradient is right.
void drop_a_retained_intermediate_during_backward(bool detect_anomalies) {
  constexpr int rounds = 40;
  for (int round = 0; round < rounds; ++round) {
    Tensor w = Tensor::scalar(2.0).requires_grad_();
    auto h = std::make_unique<Tensor>(fg::taped(w * w));
    h->retain_grad();
    const Tensor loss = fg::taped(*h * 3.0);  // d loss / dw = 3 * 2w = 12
    std::barrier sync(2);
    std::thread dropper([&] {
      sync.arrive_and_wait();
      h.reset();
    });
    sync.arrive_and_wait();
    {
      std::optional<fg::DetectAnomalyGuard> guard;
      if (detect_anomalies) guard.emplace();
      loss.backward({.retain_graph = true});
    }
    dropper.join();
    ASSERT_EQ(w.grad().item(), 12.0) << "round " << round;
  }
}
TEST(Threads, DroppingARetainedIntermediateDuringAnotherThreadsBackward) {
  drop_a_retained_intermediate_during_backward(false);
}
TEST(Threads, DroppingARetainedIntermediateDuringAnotherThreadsBackwardInAnomalyMode) {
  drop_a_retained_intermediate_during_backward(true);
}

// The output of exp over 40 values, which its node keeps for its VJP, is dropped by its owner while another thread
// runs backward through it: the node reads the values it holds, and the gradient is right.
TEST(Threads, DroppingAnOutputWhoseNodeKeepsItsValuesDuringAnotherThreadsBackward) {
  constexpr int rounds = 40;
  for (int round = 0; round < rounds; ++round) {
    Tensor w = Tensor::full({40}, 0.5).requires_grad_();
    auto h = std::make_unique<Tensor>(fg::exp(w));
    const Tensor loss = fg::taped(fg::sum(*h * 3.0));  // d loss / dw = 3 exp(w)
    std::barrier sync(2);
    std::thread dropper([&] {
      sync.arrive_and_wait();
      h.reset();
    });
    sync.arrive_and_wait();
    loss.backward();
    dropper.join();
    for (Eigen::Index i = 0; i < 40; ++i)
      ASSERT_NEAR(w.grad().eigen()[i], 3 * std::exp(0.5), 1e-14) << "round " << round << ", element " << i;
  }
}

// Losses whose values are deferred read a parameter; one thread writes the parameter in place (adding `step`,
// which computes every deferred value that reads it first) while others drop their losses unread or read them:
// every value read is the one of the parameter at recording. record(p) records a loss; expected(round) is its value
// in that round.
template <class Record, class Expected>
void in_place_writes_while_deferred_readers_are_dropped_and_read(Tensor p, const Tensor& step, Record record,
                                                                 Expected expected) {
  constexpr int rounds = 200, readers = 3;
  std::vector<int> wrong(readers, 0);
  std::barrier sync(readers + 1);
  std::vector<std::thread> workers;
  for (int t = 0; t < readers; ++t)
    workers.emplace_back([&, t] {
      for (int round = 0; round < rounds; ++round) {
        sync.arrive_and_wait();         // p holds its value of this round now
        const Tensor loss = record(p);  // deferred, registered with p's storage
        sync.arrive_and_wait();         // the writer starts its in-place write
        if (t % 2 == 0) wrong[t] += loss.item() != expected(round);
      }  // each loss dropped: unread (odd threads) or read
    });
  for (int round = 0; round < rounds; ++round) {
    sync.arrive_and_wait();
    sync.arrive_and_wait();
    fg::NoGradGuard guard;
    p.add_(step);
  }
  for (std::thread& worker : workers) worker.join();
  for (int t = 0; t < readers; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

TEST(Threads, InPlaceWritesWhileDeferredReadersAreDroppedAndRead) {
  // p holds round + (1, 2, 3, 4) in each round.
  in_place_writes_while_deferred_readers_are_dropped_and_read(
      Tensor::arange(1, 5).requires_grad_(), Tensor::ones({4}),
      [](const Tensor& p) { return Tensor(fg::sum(p * 1.0)); }, [](int round) { return 4.0 * round + 10.0; });
}

// The same with one-element element-wise expressions, which defer their values too.
TEST(Threads, InPlaceWritesWhileDeferredScalarExpressionsAreDroppedAndRead) {
  // q holds round + 1 in each round.
  in_place_writes_while_deferred_readers_are_dropped_and_read(
      Tensor::scalar(1.0).requires_grad_(), Tensor::scalar(1.0),
      [](const Tensor& q) { return Tensor(q * q + 2.0 * q); },
      [](int round) {
        const double v = round + 1.0;
        return v * v + 2 * v;
      });
}

}  // namespace
