// tape/print_test.cpp -- operator<< for tensors and static expressions: PyTorch's layout, the stream's number
// format, summaries.
#include <iomanip>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;
using fg::Tensor;

template <class T>
std::string printed(const T& value) {
  std::ostringstream s;
  s << value;
  return s.str();
}

TEST(Print, ScalarVectorAndMatrix) {
  EXPECT_EQ(printed(Tensor::scalar(3.5)), "tensor(3.5)");
  EXPECT_EQ(printed(Tensor::from({1.0, 2.5, -3.0}, {3})), "tensor([  1, 2.5,  -3])");  // aligned columns
  EXPECT_EQ(printed(Tensor::from({1.0, 2.0, 3.0, 4.0}, {2, 2})),
            "tensor([[1, 2],\n"
            "        [3, 4]])");
}

// A static expression or leaf prints its value, as PyTorch's layout writes a tensor's brackets (and as Eigen prints its
// expressions, evaluated); a Tensor among its leaves does not make it a tensor. A ScalarTensor stays a tensor.
TEST(Print, StaticExpressionsPrintTheirValues) {
  const fg::Var<double, fg::Shape<2, 3>> m{1.0, 2.0, 3.0, 4.0, 5.0, 6.5};
  const fg::Var<double, fg::Shape<fg::dyn>> v(Eigen::ArrayXd::LinSpaced(3, 0.0, 1.0));
  const fg::Var<double, fg::Shape<>> s{2.5};
  EXPECT_EQ(printed(m),
            "[[  1,   2,   3],\n"
            " [  4,   5, 6.5]]");
  EXPECT_EQ(printed(v * 2.0), "[0, 1, 2]");
  EXPECT_EQ(printed(fg::sum(m)), "21.5");
  EXPECT_EQ(printed(s), "2.5");
  EXPECT_EQ(printed(fg::Const<double, fg::Shape<2>>{0.5, -1.0}), "[0.5,  -1]");
  EXPECT_EQ(printed(Tensor::from({1.0, 2.0}, {2}) * 3.0), "[3, 6]");
  EXPECT_EQ(printed(fg::ScalarTensor(3.0)), "tensor(3)");
  std::ostringstream precise;
  precise << std::setprecision(3) << m / 3.0;
  EXPECT_EQ(precise.str(),
            "[[0.333, 0.667,     1],\n"
            " [ 1.33,  1.67,  2.17]]");
}

// NaN prints as "nan" whatever its sign bit (0/0 has it set on x86); an empty tensor of rank 2 or more states its
// shape, as PyTorch's does.
TEST(Print, NaNAndEmptyTensors) {
  const Tensor zero = Tensor::zeros({2});
  EXPECT_EQ(printed(Tensor(zero / zero)), "tensor([nan, nan])");
  EXPECT_EQ(printed(Tensor::zeros({0})), "tensor([])");
  EXPECT_EQ(printed(Tensor::zeros({0, 2})), "tensor([], size=(0, 2))");
  EXPECT_EQ(printed(Tensor::zeros({2, 0})), "tensor([], size=(2, 0))");
}

// Each axis above the rows adds a blank line between its entries, as PyTorch prints them.
TEST(Print, ThreeAxes) {
  EXPECT_EQ(printed(Tensor::from({1.0, 2.0, 3.0, 4.0}, {2, 1, 2})),
            "tensor([[[1, 2]],\n"
            "\n"
            "        [[3, 4]]])");
}

TEST(Print, GradientStateAndScalarType) {
  Tensor x = Tensor::from({1.0, 2.0}, {2}).requires_grad_();
  EXPECT_EQ(printed(x), "tensor([1, 2], requires_grad=true)");
  EXPECT_EQ(printed(fg::taped(x * 2.0)), "tensor([2, 4], grad_fn=MulBackward)");
  EXPECT_EQ(printed(Tensor(fg::sum(x))), "tensor(3, grad_fn=SumBackward)");  // a deferred value, computed to print
  // sin(1) + 2 sin(2) = 2.660066..., six significant digits by default
  EXPECT_EQ(printed(Tensor(fg::sum(fg::sin(x) * x))), "tensor(2.66007, grad_fn=FusedBackward)");
  EXPECT_EQ(printed(fg::FloatTensor::from({1.5f}, {1})), "tensor([1.5], dtype=float)");
  EXPECT_EQ(printed(Tensor()), "tensor(undefined)");
}

TEST(Print, UsesTheStreamsNumberFormat) {
  std::ostringstream s;
  s << std::setprecision(3) << Tensor::scalar(1.0 / 3.0) << ' ' << std::fixed << std::setprecision(2)
    << Tensor::from({1.0, 0.5}, {2});
  EXPECT_EQ(s.str(), "tensor(0.333) tensor([1.00, 0.50])");
}

// Over 1000 values, long axes show their first and last three entries around "...".
TEST(Print, LargeTensorsAreSummarized) {
  EXPECT_EQ(printed(Tensor::arange(2000)), "tensor([   0,    1,    2, ..., 1997, 1998, 1999])");
  EXPECT_EQ(printed(Tensor::from(Tensor::arange(1001).eigen(), {1001, 1})),
            "tensor([[   0],\n"
            "        [   1],\n"
            "        [   2],\n"
            "        ...,\n"
            "        [ 998],\n"
            "        [ 999],\n"
            "        [1000]])");
  EXPECT_EQ(printed(Tensor::arange(1000)).size(), std::string("tensor([").size() + 1000 * 5 - 2 + 2);  // all shown
}

}  // namespace
