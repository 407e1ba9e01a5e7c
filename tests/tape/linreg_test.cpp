// tape/linreg_test.cpp -- PyTorch's dynamic-graph tutorial (linear regression) reproduced on its data; numbers from
// tests/data/linreg/REFERENCE.md.
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;
using fg::Extents;

// --- the data -------------------------------------------------------------------------------------

struct Columns {
  Eigen::ArrayXd x, y;
};

// tests/data/linreg/<name>: a header "x,y", then one sample per line at full float64 precision.
Columns read_csv(const std::string& name) {
  const std::filesystem::path path =
      std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "linreg" / name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::string line;
  std::getline(in, line);
  if (line != "x,y") throw std::runtime_error(path.string() + ": the header is not \"x,y\"");
  std::vector<double> xs, ys;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    double x = 0, y = 0;
    char comma = 0;
    if (!(fields >> x >> comma >> y) || comma != ',') throw std::runtime_error(path.string() + ": bad line " + line);
    xs.push_back(x);
    ys.push_back(y);
  }
  return {Eigen::Map<Eigen::ArrayXd>(xs.data(), Eigen::Index(xs.size())),
          Eigen::Map<Eigen::ArrayXd>(ys.data(), Eigen::Index(ys.size()))};
}

// torch.manual_seed(42); randn(1) for b, then for w.
constexpr double b0 = 0.33669036626815796;
constexpr double w0 = 0.12880940735340118;
constexpr double lr = 0.1;
constexpr int epochs = 1000;

// REFERENCE.md, one row per dtype.
struct Reference {
  double loss, dloss_db, dloss_dw;                     // at (b0, w0)
  double branch_loss, branch_db, branch_dw;            // the `if (loss > 0)` example
  double final_b, final_w, final_train_loss, val_mse;  // after 1000 epochs
  double at_start, after_training, val_tolerance;      // relative tolerances
};
template <class T>
constexpr Reference reference();
template <>
constexpr Reference reference<double>() {
  return {2.7474866465858563,
          -3.1124962265216927,
          -1.8156430415357463,
          0.8545481670568522,
          -3.1124962265216927,
          -1.3431840937622836,
          1.0235409024567799,
          1.9689641812930265,
          0.008044657695500954,
          0.0086584974,
          1e-12,
          1e-9,
          1e-8};  // val MSE is printed with 8 significant digits
}
template <>
constexpr Reference reference<float>() {
  return {2.7474865913391113,
          -3.1124958992004395,
          -1.815643072128296,
          0.8545482158660889,
          -3.1124958992004395,
          -1.3431841135025024,
          1.023543119430542,
          1.9689600467681885,
          0.008044655434787273,
          0.0086584687,
          1e-5,
          5e-5,
          1e-4};  // 1000 float steps: summation order differs from PyTorch's
}

// Float64 checkpoints (b, w) after k epochs.
struct Checkpoint {
  int epoch;
  double b, w;
};
constexpr Checkpoint checkpoints[] = {
    {1, 0.6479399889203272, 0.3103737115069758},
    {10, 1.46743300417754, 0.9169598228930423},
    {100, 1.1552241080580319, 1.7112984542366538},
};

// The engine's recorded graph, counted as PyTorch counts it: one node per recorded operation
// plus one AccumulateGrad per leaf that receives a gradient. Reads the engine's internals
// (tensor_impl, node, edge), the only way to observe node counts until a DOT export exists.
struct GraphSize {
  std::size_t nodes = 0, edges = 0;
};
template <class T>
GraphSize graph_size(const fg::BasicTensor<T>& root) {
  std::set<const void*> seen;
  std::vector<const fg::detail::node<T>*> stack;
  GraphSize size;
  if (const auto* n = root.impl()->grad_fn.get()) stack.push_back(n), seen.insert(n);
  while (!stack.empty()) {
    const auto* n = stack.back();
    stack.pop_back();
    ++size.nodes;
    for (const auto& e : n->inputs()) {
      ++size.edges;
      const void* target = e.fn ? static_cast<const void*>(e.fn.get()) : static_cast<const void*>(e.input);
      if (!seen.insert(target).second) continue;
      if (e.fn)
        stack.push_back(e.fn.get());
      else
        ++size.nodes;  // AccumulateGrad of a leaf
    }
  }
  return size;
}

template <class T>
class LinearRegression : public ::testing::Test {
 protected:
  using Tensor = fg::BasicTensor<T>;
  static constexpr Reference ref = reference<T>();

  void SetUp() override {
    const Columns train = read_csv("train.csv"), val = read_csv("val.csv");
    ASSERT_EQ(train.x.size(), 80);
    ASSERT_EQ(val.x.size(), 20);
    x = Tensor::from(train.x, {80, 1});
    y = Tensor::from(train.y, {80, 1});
    x_val = Tensor::from(val.x, {20, 1});
    y_val = Tensor::from(val.y, {20, 1});
    b = Tensor::full({1}, T(b0)).requires_grad_();
    w = Tensor::full({1}, T(w0)).requires_grad_();
  }

  static void expect_relative(double actual, double expected, double tolerance, const char* what) {
    EXPECT_NEAR(actual, expected, tolerance * std::abs(expected)) << what;
  }

  // Plain gradient descent, full batch, as in the tutorial; `taped` records one node per op.
  void train(bool taped) {
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      const Tensor loss =
          taped ? fg::taped(fg::mean(fg::square(b + w * x - y))) : Tensor(fg::mean(fg::square(b + w * x - y)));
      loss.backward();
      {
        fg::NoGradGuard guard;
        b.sub_(b.grad(), T(lr));
        w.sub_(w.grad(), T(lr));
      }
      b.zero_grad();
      w.zero_grad();
      for (const Checkpoint& c : checkpoints)
        if (c.epoch == epoch) {
          SCOPED_TRACE("after epoch " + std::to_string(epoch));
          expect_relative(b.item(), c.b, std::is_same_v<T, float> ? 1e-5 : 1e-12, "b");
          expect_relative(w.item(), c.w, std::is_same_v<T, float> ? 1e-5 : 1e-12, "w");
        }
    }
    fg::NoGradGuard guard;
    const Tensor train_loss = fg::mean(fg::square(b + w * x - y));
    const Tensor val_mse = fg::mean(fg::square(b + w * x_val - y_val));
    expect_relative(b.item(), ref.final_b, ref.after_training, "final b");
    expect_relative(w.item(), ref.final_w, ref.after_training, "final w");
    expect_relative(train_loss.item(), ref.final_train_loss, ref.after_training, "final train loss");
    expect_relative(val_mse.item(), ref.val_mse, ref.val_tolerance, "val MSE");
  }

  Tensor x, y, x_val, y_val, b, w;
};
using Scalars = ::testing::Types<double, float>;
TYPED_TEST_SUITE(LinearRegression, Scalars);

TYPED_TEST(LinearRegression, LossAndGradientAtTheStart) {
  using Tensor = typename TestFixture::Tensor;
  const Reference& ref = TestFixture::ref;
  auto [x, y, b, w] = std::tie(this->x, this->y, this->b, this->w);
  for (const bool taped : {false, true}) {
    SCOPED_TRACE(taped ? "taped" : "fused");
    b.zero_grad();
    w.zero_grad();
    const Tensor loss =
        taped ? fg::taped(fg::mean(fg::square(b + w * x - y))) : Tensor(fg::mean(fg::square(b + w * x - y)));
    loss.backward();
    TestFixture::expect_relative(loss.item(), ref.loss, ref.at_start, "loss");
    TestFixture::expect_relative(b.grad().item(), ref.dloss_db, ref.at_start, "dL/db");
    TestFixture::expect_relative(w.grad().item(), ref.dloss_dw, ref.at_start, "dL/dw");
    EXPECT_EQ(b.grad().shape(), Extents{1});
    EXPECT_FALSE(x.grad().defined());  // data never gets a gradient
    EXPECT_FALSE(y.grad().defined());
  }
}

// loss = mean((b + w x - y)^2); if (loss > 0) loss = loss + mean(w x - y): the graph grows a branch.
TYPED_TEST(LinearRegression, DataDependentBranch) {
  using Tensor = typename TestFixture::Tensor;
  const Reference& ref = TestFixture::ref;
  auto [x, y, b, w] = std::tie(this->x, this->y, this->b, this->w);
  for (const bool taped : {false, true}) {
    SCOPED_TRACE(taped ? "taped" : "fused");
    b.zero_grad();
    w.zero_grad();
    const auto record = [taped](const auto& e) { return taped ? fg::taped(e) : Tensor(e); };
    Tensor loss = record(fg::mean(fg::square(b + w * x - y)));
    if (loss.item() > 0) loss = record(loss + fg::mean(w * x - y));
    EXPECT_EQ(loss.grad_fn_name(), taped ? "AddBackward" : "FusedBackward");
    loss.backward();
    TestFixture::expect_relative(loss.item(), ref.branch_loss, ref.at_start, "loss");
    TestFixture::expect_relative(b.grad().item(), ref.branch_db, ref.at_start, "dL/db");
    TestFixture::expect_relative(w.grad().item(), ref.branch_dw, ref.at_start, "dL/dw");
    EXPECT_FALSE(x.grad().defined());
    EXPECT_FALSE(y.grad().defined());
  }
}

TYPED_TEST(LinearRegression, BiasWithoutGradient) {
  using Tensor = typename TestFixture::Tensor;
  const Reference& ref = TestFixture::ref;
  auto [x, y, w] = std::tie(this->x, this->y, this->w);
  const Tensor b = Tensor::full({1}, TypeParam(b0));  // requires_grad not set
  for (const bool taped : {false, true}) {
    SCOPED_TRACE(taped ? "taped" : "fused");
    w.zero_grad();
    const Tensor loss =
        taped ? fg::taped(fg::mean(fg::square(b + w * x - y))) : Tensor(fg::mean(fg::square(b + w * x - y)));
    loss.backward();
    EXPECT_FALSE(b.grad().defined());                                                    // b's grad stays undefined
    TestFixture::expect_relative(w.grad().item(), ref.dloss_dw, ref.at_start, "dL/dw");  // w's is unchanged
    TestFixture::expect_relative(loss.item(), ref.loss, ref.at_start, "loss");
  }
}

// The recorded graphs, counted like PyTorch's (REFERENCE.md): taped recording gives PyTorch's
// counts; fused recording gives one node per materialisation point.
TYPED_TEST(LinearRegression, RecordedGraphs) {
  using Tensor = typename TestFixture::Tensor;
  auto [x, y, b, w] = std::tie(this->x, this->y, this->b, this->w);
  {
    SCOPED_TRACE("no branch");
    const Tensor taped = fg::taped(fg::mean(fg::square(b + w * x - y)));
    EXPECT_EQ(taped.grad_fn_name(), "MeanBackward");
    // Mean -> Pow -> Sub -> Add -> {AccumulateGrad[b], Mul -> AccumulateGrad[w]}
    EXPECT_EQ(graph_size(taped).nodes, 7u);
    EXPECT_EQ(graph_size(taped).edges, 6u);
    const Tensor fused = fg::mean(fg::square(b + w * x - y));
    EXPECT_EQ(fused.grad_fn_name(), "FusedBackward");
    EXPECT_EQ(graph_size(fused).nodes, 3u);  // Fused -> {AccumulateGrad[b], AccumulateGrad[w]}
    EXPECT_EQ(graph_size(fused).edges, 2u);
  }
  {
    SCOPED_TRACE("with the branch");
    Tensor taped = fg::taped(fg::mean(fg::square(b + w * x - y)));
    taped = fg::taped(taped + fg::mean(w * x - y));
    EXPECT_EQ(taped.grad_fn_name(), "AddBackward");
    EXPECT_EQ(graph_size(taped).nodes, 11u);  // AccumulateGrad[w] shared by both paths
    EXPECT_EQ(graph_size(taped).edges, 11u);
    Tensor fused = fg::mean(fg::square(b + w * x - y));
    fused = fused + fg::mean(w * x - y);
    EXPECT_EQ(graph_size(fused).nodes, 4u);  // Fused -> {Fused, AccumulateGrad[w]}; Fused -> {b, w}
    EXPECT_EQ(graph_size(fused).edges, 4u);
  }
  {
    SCOPED_TRACE("b without requires_grad");
    const Tensor constant_b = Tensor::full({1}, TypeParam(b0));
    const Tensor yhat = fg::taped(constant_b + w * x);
    EXPECT_EQ(yhat.grad_fn_name(), "AddBackward");
    EXPECT_EQ(graph_size(yhat).nodes, 3u);  // Add -> Mul -> AccumulateGrad[w]
    const Tensor loss = fg::taped(fg::mean(fg::square(yhat - y)));
    EXPECT_EQ(graph_size(loss).nodes, 6u);
  }
}

TYPED_TEST(LinearRegression, GradientDescentFused) { this->train(false); }

TYPED_TEST(LinearRegression, GradientDescentTaped) { this->train(true); }

}  // namespace
