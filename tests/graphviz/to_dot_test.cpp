// graphviz/to_dot_test.cpp -- fg::to_dot of recorded graphs (PyTorch's tutorial graphs as torchviz draws them, fused
// frames, casts), of static expressions, and fg::type_name.
#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <fusegrad/fusegrad.hpp>

#include "support/dot_reader.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fg = fusegrad;
using fg::test::DotPicture;

// The tutorial's regression data: w, b of shape (1), x and y of 5 points.
struct Regression {
  fg::Tensor w = fg::Tensor::full({1}, 0.5).requires_grad_().name("w");
  fg::Tensor b = fg::Tensor::full({1}, 0.1).requires_grad_().name("b");
  fg::Tensor x = fg::Tensor::from(std::vector<double>{1, 2, 3, 4, 5}, {5});
  fg::Tensor y = fg::Tensor::from(std::vector<double>{2, 4, 6, 8, 10}, {5});
};

// The tutorial's loss, one node per op: torchviz draws Mean <- Pow <- Sub <- Add <- {b, Mul <- w}.
TEST(TapePicture, TheTutorialLossAsTorchvizDrawsIt) {
  Regression r;
  const fg::Tensor loss = fg::taped(fg::mean(fg::square(r.b + r.w * r.x - r.y)));
  const DotPicture p(fg::to_dot(loss));
  EXPECT_EQ(p.count(fg::dot_colors::parameter), 2u);
  EXPECT_EQ(p.count(fg::dot_colors::operation), 5u);
  EXPECT_EQ(p.count(fg::dot_colors::output), 1u);
  EXPECT_EQ(p.edges.size(), 7u);
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{{"w\n(1)", "MulBackward"},
                                                                                 {"b\n(1)", "AddBackward"},
                                                                                 {"MulBackward", "AddBackward"},
                                                                                 {"AddBackward", "SubBackward"},
                                                                                 {"SubBackward", "PowBackward"},
                                                                                 {"PowBackward", "MeanBackward"},
                                                                                 {"MeanBackward", "()"}})
    EXPECT_TRUE(p.has_edge(from, to)) << from << " -> " << to << "\n" << p.text;
}

// b takes no gradient: no box for it, and AddBackward reads MulBackward only.
TEST(TapePicture, ATensorThatTakesNoGradientHasNoBox) {
  Regression r;
  r.b = fg::Tensor::full({1}, 0.1).name("b");
  const DotPicture p(fg::to_dot(fg::taped(fg::mean(fg::square(r.b + r.w * r.x - r.y)))));
  EXPECT_EQ(p.count(fg::dot_colors::parameter), 1u);
  EXPECT_EQ(p.count(fg::dot_colors::operation), 5u);
  EXPECT_EQ(p.edges.size(), 6u);
  EXPECT_FALSE(p.has_label("b\n(1)"));
  EXPECT_EQ(p.edges_into("AddBackward"), 1u);
}

// The branch the tutorial takes when the loss is positive: a second mean joins the first, and w,
// drawn once, feeds both products.
TEST(TapePicture, TheTutorialBranchJoinsASecondChain) {
  Regression r;
  fg::Tensor loss = fg::taped(fg::mean(fg::square(r.b + r.w * r.x - r.y)));
  ASSERT_GT(loss.item(), 0.0);
  if (loss.item() > 0) loss = fg::taped(loss + fg::mean(r.w * r.x - r.y));
  const DotPicture p(fg::to_dot(loss));
  EXPECT_EQ(p.count(fg::dot_colors::parameter), 2u);
  EXPECT_EQ(p.count(fg::dot_colors::operation), 9u);  // 5 + Mul, Sub, Mean + the joining Add
  EXPECT_EQ(p.edges.size(), 12u);
  EXPECT_EQ(p.edges_from("w\n(1)"), 2u);
  EXPECT_EQ(p.labelled("MeanBackward"), 2u);
  EXPECT_EQ(p.labelled("AddBackward"), 2u);
}

// Recorded fused, the loss is one node: a frame titled FusedBackward with one box per operation,
// w and b wired to the operations that read them; collapsed, one box.
TEST(TapePicture, AFusedNodeIsAFrameOfItsOperations) {
  Regression r;
  const fg::Tensor loss = fg::mean(fg::square(r.b + r.w * r.x - r.y));
  ASSERT_EQ(loss.grad_fn_name(), "FusedBackward");
  const DotPicture p(fg::to_dot(loss));
  EXPECT_EQ(p.clusters, std::vector<std::string>{"FusedBackward"});
  EXPECT_EQ(p.count(fg::dot_colors::operation), 5u);
  EXPECT_EQ(p.edges.size(), 7u);  // the same edges as the taped picture
  EXPECT_TRUE(p.has_edge("w\n(1)", "MulBackward"));
  EXPECT_TRUE(p.has_edge("b\n(1)", "AddBackward"));
  EXPECT_TRUE(p.has_edge("PowBackward", "MeanBackward"));
  EXPECT_TRUE(p.has_edge("MeanBackward", "()"));

  const DotPicture collapsed(fg::to_dot(loss, {.expand_fused = false}));
  EXPECT_TRUE(collapsed.clusters.empty());
  EXPECT_EQ(collapsed.count(fg::dot_colors::operation), 1u);
  EXPECT_EQ(collapsed.edges.size(), 3u);
  EXPECT_TRUE(collapsed.has_edge("w\n(1)", "FusedBackward"));
  EXPECT_TRUE(collapsed.has_edge("b\n(1)", "FusedBackward"));
  EXPECT_TRUE(collapsed.has_edge("FusedBackward", "()"));
}

// A tensor read twice by one fused node feeds both operations that read it.
TEST(TapePicture, ATensorReadTwiceInAFrameFeedsBothReaders) {
  const fg::Tensor w = fg::Tensor::full({3}, 0.5).requires_grad_().name("w");
  const fg::Tensor y = fg::sin(w) * w;
  const DotPicture p(fg::to_dot(y));
  EXPECT_EQ(p.count(fg::dot_colors::operation), 2u);
  EXPECT_TRUE(p.has_edge("w\n(3)", "SinBackward"));
  EXPECT_TRUE(p.has_edge("w\n(3)", "MulBackward"));
  EXPECT_TRUE(p.has_edge("SinBackward", "MulBackward"));
  EXPECT_TRUE(p.has_edge("MulBackward", "(3)"));
  EXPECT_EQ(p.edges.size(), 4u);
}

// A frame draws the operations that gradients pass through, as fg::taped records them: not a chain of data (sin and
// exp of d), nor a comparison or an argmax, which pass none.
TEST(TapePicture, AFrameDrawsOnlyTheOperationsGradientsPassThrough) {
  const fg::Tensor w = fg::Tensor::full({3}, 0.5).requires_grad_().name("w");
  const fg::Tensor v = fg::Tensor::full({3}, 0.5).requires_grad_().name("v");
  const fg::Tensor d = fg::Tensor::full({3}, 2.0);

  const DotPicture data_chain(fg::to_dot(fg::Tensor(fg::sum(w * fg::exp(fg::sin(d))))));
  const DotPicture data_chain_taped(fg::to_dot(fg::taped(fg::sum(w * fg::exp(fg::sin(d))))));
  for (const DotPicture* p : {&data_chain, &data_chain_taped}) {
    EXPECT_EQ(p->count(fg::dot_colors::operation), 2u) << p->text;  // MulBackward, SumBackward
    EXPECT_FALSE(p->has_label("SinBackward")) << p->text;
    EXPECT_FALSE(p->has_label("ExpBackward")) << p->text;
    EXPECT_TRUE(p->has_edge("w\n(3)", "MulBackward")) << p->text;
    EXPECT_TRUE(p->has_edge("MulBackward", "SumBackward")) << p->text;
    EXPECT_EQ(p->edges.size(), 3u) << p->text;
  }

  const DotPicture masks(fg::to_dot(fg::Tensor(fg::sum(w * (w > 0.1) + fg::argmax(v) * v))));
  EXPECT_FALSE(masks.has_label("GtBackward")) << masks.text;
  EXPECT_FALSE(masks.has_label("ArgmaxBackward")) << masks.text;
  EXPECT_EQ(masks.edges_from("w\n(3)"), 1u) << masks.text;  // into MulBackward only
  EXPECT_EQ(masks.edges_from("v\n(3)"), 1u) << masks.text;
  EXPECT_EQ(masks.labelled("MulBackward"), 2u) << masks.text;
  EXPECT_EQ(masks.count(fg::dot_colors::operation), 4u) << masks.text;  // two MulBackward, AddBackward, SumBackward
}

// The paths are those of the node's inputs as recorded: a leaf switched off afterwards still feeds its frame.
TEST(TapePicture, AFrameKeepsTheInputsItWasRecordedWith) {
  fg::Tensor w = fg::Tensor::full({3}, 0.5).requires_grad_().name("w");
  const fg::Tensor d = fg::Tensor::full({3}, 2.0);
  const fg::Tensor y = fg::sum(w * fg::exp(fg::sin(d)));
  w.requires_grad_(false);
  const DotPicture p(fg::to_dot(y));
  EXPECT_EQ(p.count(fg::dot_colors::operation), 2u) << p.text;
  EXPECT_TRUE(p.has_edge("w\n(3)", "MulBackward")) << p.text;
  EXPECT_TRUE(p.has_edge("MulBackward", "SumBackward")) << p.text;
  EXPECT_TRUE(p.has_edge("SumBackward", "()")) << p.text;
  EXPECT_EQ(p.edges.size(), 3u) << p.text;
}

// Nodes recorded fused and nodes recorded taped join in one picture: the fused node's frame
// sends its value to the taped node after it.
TEST(TapePicture, FramesAndBoxesJoin) {
  const fg::Tensor w = fg::Tensor::full({3}, 0.5).requires_grad_().name("w");
  const fg::Tensor h = fg::exp(w) + w;           // a frame: ExpBackward, AddBackward
  const fg::Tensor out = fg::taped(fg::sum(h));  // a box: SumBackward
  const DotPicture p(fg::to_dot(out));
  EXPECT_EQ(p.clusters.size(), 1u);
  EXPECT_TRUE(p.has_edge("AddBackward", "SumBackward"));
  EXPECT_TRUE(p.has_edge("SumBackward", "()"));
  EXPECT_EQ(p.edges_from("w\n(3)"), 2u);
}

// A cast is followed into the graph of the other scalar type.
TEST(TapePicture, CastsLeadIntoTheOtherScalarTypesGraph) {
  const fg::Tensor w = fg::Tensor::full({2}, 0.5).requires_grad_().name("w");
  const fg::Tensor y = fg::taped(fg::sum(fg::taped(w.to<float>() * 2.0f).to<double>()));
  const DotPicture p(fg::to_dot(y));
  EXPECT_EQ(p.labelled("ToCopyBackward"), 2u);
  EXPECT_TRUE(p.has_edge("w\n(2)", "ToCopyBackward"));
  EXPECT_TRUE(p.has_edge("ToCopyBackward", "MulBackward"));
  EXPECT_TRUE(p.has_edge("MulBackward", "ToCopyBackward"));
  EXPECT_TRUE(p.has_edge("SumBackward", "()"));
  EXPECT_EQ(p.edges.size(), 5u);
}

// A leaf drawn alone; the output's name, when it has one, heads its box.
TEST(TapePicture, ALeafIsItsOwnOutput) {
  const fg::Tensor w = fg::Tensor::full({2, 3}, 1.0).requires_grad_().name("weights");
  const DotPicture p(fg::to_dot(w));
  EXPECT_EQ(p.boxes.size(), 1u);
  EXPECT_TRUE(p.has_label("weights\n(2, 3)"));
  EXPECT_TRUE(p.edges.empty());
}

// Names are labels only: quotes, backslashes, angle brackets, braces and line breaks come back
// out of the DOT text as they went in, and inject nothing.
TEST(TapePicture, HostileNamesAreEscaped) {
  const std::string hostile = "a\"b\\c<d>{e}\n]; x -> y [label=\"";
  const fg::Tensor w = fg::Tensor::full({1}, 1.0).requires_grad_().name(hostile);
  const std::string dot = fg::to_dot(fg::taped(w * 2.0));
  const DotPicture p(dot);
  EXPECT_TRUE(p.has_label(hostile + "\n(1)")) << dot;
  const fg::Tensor controlled = fg::Tensor::full({1}, 1.0).requires_grad_().name(std::string("a\tb\rc\0d", 7));
  EXPECT_TRUE(DotPicture(fg::to_dot(controlled)).has_label("a b c d\n(1)")) << "control characters become spaces";
  EXPECT_EQ(p.boxes.size(), 3u);
  EXPECT_EQ(p.edges.size(), 2u);
}

// Graphviz reads UTF-8, and an SVG must be: a byte that is not UTF-8 becomes U+FFFD, valid characters stay.
TEST(TapePicture, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  const fg::Tensor cut = fg::Tensor::full({1}, 1.0).requires_grad_().name("x\xe2\x82");  // a euro sign cut short
  EXPECT_TRUE(DotPicture(fg::to_dot(cut)).has_label("x\xef\xbf\xbd\xef\xbf\xbd\n(1)"));
  const fg::Tensor stray = fg::Tensor::full({1}, 1.0).requires_grad_().name("\xbf\xc0\xaf\xed\xa0\x80y");
  std::string replaced;
  for (int k = 0; k < 6; ++k) replaced += "\xef\xbf\xbd";  // one U+FFFD per byte that begins no character
  EXPECT_TRUE(DotPicture(fg::to_dot(stray)).has_label(replaced + "y\n(1)"))
      << "a stray continuation byte, an overlong form and a surrogate";
  const std::string valid = "w \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad";  // euro, emoji, CJK
  const fg::Tensor named = fg::Tensor::full({1}, 1.0).requires_grad_().name(valid);
  EXPECT_TRUE(DotPicture(fg::to_dot(named)).has_label(valid + "\n(1)"));
}

// DotOptions::name names a tensor in a recorded graph too, over its own name.
TEST(TapePicture, DotOptionsNameATensor) {
  const fg::Tensor w = fg::Tensor::full({1}, 1.0).requires_grad_().name("w");
  const fg::Tensor y = fg::taped(w * 2.0);
  const DotPicture p(fg::to_dot(y, fg::DotOptions{}.name(w, "weights")));
  EXPECT_TRUE(p.has_label("weights\n(1)"));
  EXPECT_FALSE(p.has_label("w\n(1)"));
  EXPECT_TRUE(DotPicture(fg::to_dot(w, fg::DotOptions{}.name(w, "weights"))).has_label("weights\n(1)"))
      << "the tensor drawn, its own green box";
}

// After a backward without retain_graph, the nodes no longer hold the leaves they read (here the
// only handle to w is gone): the nodes are drawn freed, without the leaves.
TEST(TapePicture, AGraphABackwardFreedIsDrawnWithoutItsLeaves) {
  fg::Tensor y;
  {
    const fg::Tensor w = fg::Tensor::full({3}, 0.5).requires_grad_().name("w");
    y = fg::taped(fg::sum(fg::exp(w) * 2.0));
  }
  y.backward();
  const DotPicture p(fg::to_dot(y));
  EXPECT_EQ(p.count(fg::dot_colors::parameter), 0u);
  EXPECT_TRUE(p.has_label("SumBackward\n(freed)"));
  EXPECT_TRUE(p.has_edge("ExpBackward\n(freed)", "MulBackward\n(freed)"));
  EXPECT_EQ(p.edges.size(), 3u);
}

TEST(TapePicture, AnUndefinedTensorIsAValueError) {
  fg::test::expect_error<fg::value_error>([] { (void)fg::to_dot(fg::Tensor()); }, {"undefined"});
}

TEST(TensorName, CopiesShareTheNameAndADetachedTensorHasNone) {
  fg::Tensor w = fg::Tensor::zeros({2});
  EXPECT_EQ(w.name(), "");
  w.name("w");
  const fg::Tensor copy = w;
  EXPECT_EQ(copy.name(), "w");
  EXPECT_EQ(w.detach().name(), "");
  w.name("renamed");
  EXPECT_EQ(copy.name(), "renamed");
}

// f = sum(sin(x) * exp(-x * x)): x is one box read by three operations.
TEST(ExpressionPicture, LeavesOpsAndShapesFromTheType) {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const auto f = fg::sum(fg::sin(x) * fg::exp(-x * x));
  const DotPicture p(fg::to_dot(f, fg::DotOptions{}.name(x, "x")));
  EXPECT_EQ(p.count(fg::dot_colors::parameter), 1u);
  EXPECT_TRUE(p.has_label("x\nVar (3)"));
  EXPECT_EQ(p.count(fg::dot_colors::operation), 6u);  // sin, negate, mul, exp, mul, sum
  EXPECT_TRUE(p.has_label("sum\n()"));
  EXPECT_TRUE(p.has_label("negate\n(3)"));
  EXPECT_EQ(p.edges_from("x\nVar (3)"), 3u);
  EXPECT_TRUE(p.has_edge("sum\n()", "()"));
  EXPECT_EQ(p.edges.size(), 9u);
}

// dyn where only the run time knows an extent; Consts white; numbers plain text; unnamed leaves a, b.
TEST(ExpressionPicture, DynConstsAndNumbers) {
  fg::Var<double, fg::Shape<fg::dyn, 2>> a(fg::Extents{4, 2});
  fg::Const<double, fg::Shape<2>> c{1.0, 2.0};
  const auto f = fg::mean(a * c + 2.5);
  const DotPicture p(fg::to_dot(f));
  EXPECT_TRUE(p.has_label("a\nVar (dyn, 2)"));
  EXPECT_TRUE(p.has_label("b\nConst (2)"));
  EXPECT_EQ(p.count(fg::dot_colors::constant), 1u);
  EXPECT_TRUE(p.has_label("2.5"));
  EXPECT_TRUE(p.has_label("mul\n(dyn, 2)"));
  EXPECT_TRUE(p.has_edge("2.5", "add\n(dyn, 2)"));
}

// A Const of one value is a number, drawn as its value to the last digit, unless the options name it: then it is a
// leaf like any other.
TEST(ExpressionPicture, ANamedScalarConstIsALeafAndNumbersKeepEveryDigit) {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const fg::Const<double, fg::Shape<>> lr(0.0001234567);
  const DotPicture named(fg::to_dot(fg::sum(x * lr), fg::DotOptions{}.name(lr, "lr").name(x, "x")));
  EXPECT_TRUE(named.has_label("lr\nConst ()")) << named.text;
  EXPECT_EQ(named.count(fg::dot_colors::constant), 1u) << named.text;
  EXPECT_TRUE(named.has_edge("lr\nConst ()", "mul\n(3)")) << named.text;

  const DotPicture unnamed(fg::to_dot(fg::sum(x * lr) + fg::sum(x * 0.99999999)));
  EXPECT_TRUE(unnamed.has_label("0.0001234567")) << unnamed.text;
  EXPECT_TRUE(unnamed.has_label("0.99999999")) << unnamed.text;
  EXPECT_EQ(unnamed.count(fg::dot_colors::constant), 0u) << unnamed.text;
}

// Two empty Vars hold no values (both data() are null): still two leaves, each drawn once however often it is read.
TEST(ExpressionPicture, EmptyVarsAreTwoLeaves) {
  const fg::Var<double, fg::Shape<fg::dyn>> a(fg::Extents{0}), b(fg::Extents{0});
  const DotPicture p(fg::to_dot(fg::sum(a * fg::exp(b) + a), fg::DotOptions{}.name(b, "b")));
  EXPECT_EQ(p.count(fg::dot_colors::parameter), 2u);
  EXPECT_EQ(p.edges_from("a\nVar (dyn)"), 2u);
  EXPECT_EQ(p.edges_from("b\nVar (dyn)"), 1u);
}

// An expression of Tensors not yet recorded is drawn as an expression, with the shapes of this run;
// the options' names come before the tensors' own.
TEST(ExpressionPicture, AnUnrecordedExpressionOfTensorsHasTheShapesOfThisRun) {
  const fg::Tensor t = fg::Tensor::full({2, 3}, 1.0).name("t");
  const DotPicture p(fg::to_dot(fg::exp(t) * 2.0));
  EXPECT_TRUE(p.has_label("t\nTensor (2, 3)"));
  EXPECT_TRUE(DotPicture(fg::to_dot(fg::exp(t), fg::DotOptions{}.name(t, "input"))).has_label("input\nTensor (2, 3)"));
  EXPECT_TRUE(p.has_label("exp\n(2, 3)"));
  EXPECT_TRUE(p.has_edge("2", "mul\n(2, 3)"));
  // t takes no gradient, so it is white, as a Const is; a tensor that requires grad is a parameter.
  EXPECT_EQ(p.count(fg::dot_colors::constant), 1u);
  EXPECT_EQ(p.count(fg::dot_colors::parameter), 0u);
  const fg::Tensor w = fg::Tensor::full({2, 3}, 2.0).requires_grad_();
  const DotPicture q(fg::to_dot(t * w));
  EXPECT_EQ(q.count(fg::dot_colors::constant), 1u);
  EXPECT_EQ(q.count(fg::dot_colors::parameter), 1u);
}

// Past z, unnamed leaves are lettered again with a round: a1 to z1, then a2, so no name stands for two leaves. A
// recorded node names the tensors it reads the same way.
TEST(ExpressionPicture, LeavesPastTheTwentySixthAreLetteredAgainWithTheirRound) {
  std::vector<fg::Tensor> t;
  for (int k = 0; k < 28; ++k) t.push_back(fg::Tensor::full({1}, k));
  const auto sum_of_all = [&]<std::size_t... K>(std::index_sequence<K...>) { return (t[K] + ...); };
  const DotPicture p(fg::to_dot(sum_of_all(std::make_index_sequence<28>{})));
  for (const char* name : {"a", "z", "a1", "b1"}) EXPECT_TRUE(p.has_label(std::string(name) + "\nTensor (1)")) << name;
  EXPECT_FALSE(p.has_label("c1\nTensor (1)"));
  EXPECT_EQ(p.count(fg::dot_colors::operation), 27u);
}

TEST(TypeName, OneLineWhenItFits) {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  EXPECT_EQ(fg::type_name(fg::sum(fg::sin(x) * x)), "sum(mul(sin(Var<double, (3)>), Var<double, (3)>))");
  fg::Var<float, fg::Shape<fg::dyn>> v(fg::Extents{2});
  EXPECT_EQ(fg::type_name(v * 2.0f), "mul(Var<float, (dyn)>, Const<float, ()>)");
  const fg::Tensor t = fg::Tensor::zeros({2});
  EXPECT_EQ(fg::type_name(fg::exp(t)), "exp(Tensor<double>)");
}

TEST(TypeName, OperandsOnLinesOfTheirOwnWhenALineWouldBeTooLong) {
  fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const auto f = fg::sum(fg::sin(x) * fg::exp(-x * x));
  EXPECT_EQ(fg::type_name(f, 40),
            "sum(\n"
            "  mul(\n"
            "    sin(Var<double, (3)>),\n"
            "    exp(\n"
            "      mul(\n"
            "        negate(Var<double, (3)>),\n"
            "        Var<double, (3)>))))");
  EXPECT_EQ(fg::type_name(f, 100).find('\n'), std::string::npos);  // 85 characters: one line
}

}  // namespace
