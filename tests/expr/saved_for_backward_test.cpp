// expr/saved_for_backward_test.cpp -- an op that saves state in its value for its VJPs (SavesForBackward) gets that
// state back in vjp_all: within one sweep in the static layer, and from recording to backward in a tape node whose
// root is the op and whose operands are tensors. Where the state cannot be handed over (an operand that is an
// expression, whose values the recording's sweep held; a second backward, after the first took it), vjp_all gets
// a state no value() filled and computes what it needs, as the protocol says.
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

namespace {

// What each vjp_all call was given: true when a value() had filled the saved state.
std::vector<bool> vjp_saw_saved;

// y = 2 x. Its value saves a marker; its VJP, dx = 2 dy, records whether it got it.
struct doubled_op {
  static constexpr std::string_view name = "doubled";
  static constexpr std::string_view backward_name = "DoubledBackward";
  static constexpr fg::vjp_needs needs = fg::vjp_needs::none;
  static constexpr std::size_t arity = 1;

  template <fg::ShapeLike S>
  using result_shape = S;
  static fg::Extents result_extents(const fg::Extents& x) { return x; }

  template <class T>
  struct saved_type {
    bool filled = false;
  };

  template <class T>
  void value(T* y, const fg::operands<T, 1>& in, saved_type<T>* saved = nullptr) const {
    for (std::size_t i = 0; i < in.extents[0].size(); ++i) y[i] = 2 * in.values[0][i];
    if (saved) saved->filled = true;
  }
  template <std::size_t I, class T>
  void vjp(T* dx, const T* dy, const fg::operands<T, 1>& in, const T* /*y*/) const {
    for (std::size_t i = 0; i < in.extents[0].size(); ++i) dx[i] = 2 * dy[i];
  }
  template <class T>
  void vjp_all(const std::array<T*, 1>& dx, const T* dy, const fg::operands<T, 1>& in, const T* y,
               saved_type<T>* saved = nullptr) const {
    vjp_saw_saved.push_back(saved && saved->filled);
    if (dx[0]) vjp<0>(dx[0], dy, in, y);
  }
};
static_assert(fg::SavesForBackward<doubled_op>);

template <fg::Differentiable X>
auto doubled(X&& x) {
  return fg::detail::make_materialized_with(doubled_op{}, std::forward<X>(x));
}

class SavedForBackward : public ::testing::Test {
 protected:
  void SetUp() override { vjp_saw_saved.clear(); }
};

TEST_F(SavedForBackward, TheStaticLayerHandsItOverWithinTheSweep) {
  fg::Var<double, fg::Shape<3>> x{1.0, -2.0, 0.5};
  const auto [value, dx] = fg::value_and_grad(fg::sum(doubled(x) * x), x);  // sum(2 x^2): dx = 4 x
  EXPECT_DOUBLE_EQ(value, 2 * (1.0 + 4.0 + 0.25));
  EXPECT_DOUBLE_EQ(dx[0], 4.0);
  EXPECT_DOUBLE_EQ(dx[1], -8.0);
  EXPECT_DOUBLE_EQ(dx[2], 2.0);
  EXPECT_EQ(vjp_saw_saved, std::vector<bool>{true});
}

TEST_F(SavedForBackward, ATapeNodeOverTensorsKeepsItFromRecordingToBackward) {
  fg::Tensor t = fg::Tensor::from(Eigen::ArrayXd::LinSpaced(4, -1.0, 2.0), {4}).requires_grad_();
  fg::Tensor y = doubled(t);  // one node: the op over a tensor
  EXPECT_TRUE(vjp_saw_saved.empty());
  fg::Tensor(fg::sum(y)).backward();
  EXPECT_EQ(vjp_saw_saved, std::vector<bool>{true});
  EXPECT_TRUE(t.grad().eigen().isConstant(2.0, 0.0));
}

// The first backward takes the state kept at recording; a second one (a retained graph) gets a state no value()
// filled, from which vjp_all computes what it needs.
TEST_F(SavedForBackward, TheFirstBackwardTakesIt) {
  fg::Tensor t = fg::Tensor::from(Eigen::ArrayXd::Constant(3, 1.5), {3}).requires_grad_();
  fg::Tensor loss = fg::taped(fg::sum(doubled(t)));
  loss.backward({.retain_graph = true});
  loss.backward();
  EXPECT_EQ(vjp_saw_saved, (std::vector<bool>{true, false}));
  EXPECT_TRUE(t.grad().eigen().isConstant(4.0, 0.0));  // 2 from each backward
}

TEST_F(SavedForBackward, NotOverAnOperandThatIsAnExpression) {
  fg::Tensor t = fg::Tensor::from(Eigen::ArrayXd::Constant(3, 1.5), {3}).requires_grad_();
  fg::Tensor y = doubled(t * 3.0);  // one node; the operand's values lived in the recording's sweep only
  fg::Tensor(fg::sum(y)).backward();
  EXPECT_EQ(vjp_saw_saved, std::vector<bool>{false});
  EXPECT_TRUE(t.grad().eigen().isConstant(6.0, 0.0));
}

}  // namespace
