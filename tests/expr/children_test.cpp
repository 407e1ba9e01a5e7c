// expr/children_test.cpp -- fg::children and fg::with_children: a node's operands, and the walks built on them
// (leaves, text, operation and leaf counts).
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <boost/hana/at.hpp>
#include <boost/hana/size.hpp>
#include <boost/mp11/list.hpp>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;
namespace hana = boost::hana;
namespace mp = boost::mp11;
using X = fg::Var<double, fg::Shape<3>>;
using C = fg::Const<double, fg::Shape<3>>;

TEST(Children, ALeafHasNone) {
  const X x;
  static_assert(decltype(hana::size(fg::children(x)))::value == 0);
  static_assert(std::is_same_v<fg::stored_children_t<X>, mp::mp_list<>>);
}

// Each child is the operand itself (a reference, not a copy), left to right.
TEST(Children, AreTheOperandsByReferenceLeftToRight) {
  const X x;
  const C c;
  const auto product = x * c;
  const auto kids = fg::children(product);
  EXPECT_EQ(&hana::at_c<0>(kids), &x);
  EXPECT_EQ(&hana::at_c<1>(kids), &c);
  static_assert(std::is_same_v<fg::stored_children_t<decltype(product)>, mp::mp_list<const X&, const C&>>);
  static_assert(std::is_same_v<fg::child_nodes_t<decltype(product)>, mp::mp_list<X, C>>);

  const auto unary = fg::sin(product);
  EXPECT_EQ(&hana::at_c<0>(fg::children(unary)), &unary.x);
  const auto total = fg::sum(unary);
  EXPECT_EQ(&hana::at_c<0>(fg::children(total)), &std::get<0>(total.args));
}

TEST(Children, WithChildrenBuildsTheSameKindOfNodeOverOtherOperands) {
  const X x{1, 2, 3};
  const X y{4, 5, 6};
  const auto f = fg::exp(x) * y;
  const auto g = fg::with_children(f, fg::sin(y), x);
  static_assert(std::is_same_v<typename decltype(g)::op, fg::mul_op>);
  const auto value = fg::eval(g);
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(value[i], std::sin(4.0 + i) * (1.0 + i));
}

// The walks over children: leaves in order (a leaf used twice is visited twice), text, counts.
TEST(Children, WalksSeeEveryNodeKind) {
  const X x;
  const C c;
  const auto f = fg::sum(-(fg::sin(x) * c) + fg::maximum(x, c));
  std::vector<const void*> seen;
  fg::for_each_leaf(f, [&](const auto& leaf) { seen.push_back(&leaf); });
  EXPECT_EQ(seen, (std::vector<const void*>{&x, &c, &x, &c}));
  const std::string text = fg::describe(
      f, [&](const auto& leaf) { return static_cast<const void*>(&leaf) == &x ? std::string("x") : std::string("c"); });
  EXPECT_EQ(text, "sum((-((sin(x) * c)) + maximum(x, c)))");
  static_assert(fg::operation_count<std::remove_cvref_t<decltype(f)>>() == 6);
  static_assert(fg::leaf_count<std::remove_cvref_t<decltype(f)>>() == 4);
  static_assert(fg::leaf_count<std::remove_cvref_t<decltype(f)>, true>() == 2);
}

}  // namespace
