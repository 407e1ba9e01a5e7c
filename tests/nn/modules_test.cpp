// nn/modules_test.cpp -- Linear, Sequential and activations; parameters found by reflection with their dotted names;
// save and load.
#include <unistd.h>
#include <array>
#include <bit>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <list>
#include <locale>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/hana/at.hpp>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/nn.hpp>
#include <fusegrad/optim.hpp>

#include "support/expect_error.hpp"

namespace fg = fusegrad;
namespace nn = fusegrad::nn;

namespace modules_test {

// Models as users write them: plain structs, members declared with Boost.Hana.
struct Block {
  BOOST_HANA_DEFINE_STRUCT(Block, (nn::Linear, fc), (fg::Tensor, scale));
};
struct Model {
  BOOST_HANA_DEFINE_STRUCT(Model, (std::vector<Block>, blocks), (std::array<nn::Linear, 2>, heads),
                           (fg::Tensor, frozen), (int, steps));
};
struct Scaled {
  BOOST_HANA_DEFINE_STRUCT(Scaled, (fg::ScalarTensor, scale), (fg::Tensor, weight));
};
struct FloatModel {
  BOOST_HANA_DEFINE_STRUCT(FloatModel, (fg::BasicTensor<float>, weight));
};
// Layers held the other ways a model holds them: maybe, behind a pointer, in any standard container.
struct Holders {
  BOOST_HANA_DEFINE_STRUCT(Holders, (std::optional<nn::Linear>, maybe), (std::optional<nn::Linear>, absent),
                           (std::shared_ptr<nn::Linear>, shared), (std::unique_ptr<Block>, owned),
                           (std::unique_ptr<nn::Linear>, null), (std::deque<nn::Linear>, layers),
                           (std::list<Block>, chain), (std::filesystem::path, checkpoint),
                           (std::vector<double>, losses), (std::string, label));
};  // the last three hold no parameters: a path's components are paths again, and are not searched
struct WithComplex {
  BOOST_HANA_DEFINE_STRUCT(WithComplex, (fg::Tensor, w), (fg::BasicTensor<std::complex<double>>, c));
};
// A model that holds a computed tensor beside its parameter.
struct WithComputed {
  BOOST_HANA_DEFINE_STRUCT(WithComputed, (fg::Tensor, w), (fg::Tensor, z));
};
// float and double parameters side by side, as in a model kept partly in float to save memory.
struct Mixed {
  BOOST_HANA_DEFINE_STRUCT(Mixed, (fg::Tensor, w), (fg::FloatTensor, f), (nn::BasicLinear<float>, head),
                           (nn::Linear, body));
};

namespace {

Model make_model() {
  return Model{{Block{nn::Linear(3, 4, 1), fg::Tensor::full({4}, 1.0).requires_grad_()},
                Block{nn::Linear(4, 4, 3), fg::Tensor::full({4}, 2.0).requires_grad_()}},
               {nn::Linear(4, 2, 5), nn::Linear(4, 1, 7, /*with_bias=*/false)},
               fg::Tensor::zeros({2}),
               0};
}

template <fg::Scalar T = double, class M>
std::vector<std::string> names_of(const M& model) {
  std::vector<std::string> names;
  for (const auto& p : nn::named_parameters<T>(model)) names.push_back(p.name);
  return names;
}

Holders make_holders() {
  Holders h{nn::Linear(2, 3, 1),
            std::nullopt,
            std::make_shared<nn::Linear>(3, 2, 2),
            std::make_unique<Block>(Block{nn::Linear(2, 2, 3), fg::Tensor::full({2}, 0.5).requires_grad_()}),
            nullptr,
            {},
            {},
            "runs/a/b.txt",
            {0.5, 0.25},
            "holders"};
  h.layers.emplace_back(2, 2, 4);
  h.layers.emplace_back(2, 1, 5, /*with_bias=*/false);
  h.chain.push_back(Block{nn::Linear(1, 1, 6), fg::Tensor::full({1}, 2.0).requires_grad_()});
  return h;
}

Mixed make_mixed() {
  return Mixed{fg::Tensor::full({2}, 1.5).requires_grad_(), fg::FloatTensor::full({3}, 0.25f).requires_grad_(),
               nn::BasicLinear<float>(2, 1, 7), nn::Linear(2, 2, 8)};
}

// Every value of every parameter, float ones widened, in member order.
template <class M>
std::vector<double> values_of_both(const M& model) {
  std::vector<double> out;
  for (const auto& p : nn::parameters<double>(model)) out.insert(out.end(), p.data(), p.data() + p.numel());
  for (const auto& p : nn::parameters<float>(model)) out.insert(out.end(), p.data(), p.data() + p.numel());
  return out;
}

TEST(Linear, ComputesXWTransposedPlusBInOneFusedNode) {
  const nn::Linear layer(3, 2, 42);
  ASSERT_EQ(layer.weight.shape(), fg::Extents({2, 3}));
  ASSERT_EQ(layer.bias.shape(), fg::Extents({2}));
  const fg::Tensor x = fg::Tensor::from({1.0, 2.0, 3.0, -1.0, 0.5, 0.0}, {2, 3});
  const fg::Tensor y = layer(x);
  EXPECT_EQ(y.grad_fn_name(), "FusedBackward");
  for (std::size_t n = 0; n < 2; ++n)
    for (std::size_t o = 0; o < 2; ++o) {
      double expected = layer.bias.data()[o];
      for (std::size_t i = 0; i < 3; ++i) expected += x.data()[n * 3 + i] * layer.weight.data()[o * 3 + i];
      EXPECT_NEAR(y.data()[n * 2 + o], expected, 1e-15);
    }
}

// PyTorch's initialisation: uniform in (-1/sqrt(in), 1/sqrt(in)), the same for the same seed.
TEST(Linear, InitialisesAsPyTorchFromItsSeed) {
  const nn::Linear a(16, 8, 3), b(16, 8, 3), c(16, 8, 4);
  double largest = 0;
  for (std::size_t i = 0; i < a.weight.numel(); ++i) largest = std::max(largest, std::abs(a.weight.data()[i]));
  EXPECT_LT(largest, 0.25);
  EXPECT_GT(largest, 0.2);  // 128 draws reach near the bound
  EXPECT_EQ(a.weight.data()[5], b.weight.data()[5]);
  EXPECT_NE(a.weight.data()[5], c.weight.data()[5]);
  EXPECT_TRUE(a.weight.is_leaf() && a.weight.requires_grad() && a.bias.requires_grad());
}

// Layers seeded 0 to 7 share no value between any of their weights and biases: 8 * (128 + 8) draws of 53 random
// bits repeat by chance with a probability under 1e-10. (SplitMix64's mix64(0) is 0, so a bias seeded with mix64(seed)
// would repeat seed 0's first weights.)
TEST(Linear, WeightsAndBiasesShareNoDraws) {
  std::set<double> seen;
  std::size_t draws = 0;
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    const nn::Linear layer(16, 8, seed);
    for (const fg::Tensor* t : {&layer.weight, &layer.bias})
      for (std::size_t i = 0; i < t->numel(); ++i, ++draws) seen.insert(t->data()[i]);
  }
  EXPECT_EQ(seen.size(), draws);
}

TEST(Linear, RefusesInputOfTheWrongWidth) {
  const nn::Linear layer(3, 2, 1);
  fg::test::expect_error<fg::shape_error>(
      [&] {
        (void)layer(fg::Tensor::zeros({2, 4}));
      },
      {"Linear", "(N, 3)", "(2, 4)"});
}

// As PyTorch's: x of shape (*, in), one sample (in) or batches of batches (B, N, in), gives (*, out). With loss
// sum(y), dW[o][i] is the sum of x[..., i] over every row, db[o] the number of rows, dx[..., i] the sum of W[o][i]
// over o.
TEST(Linear, TakesOneSampleOrBatchesOfBatches) {
  nn::Linear layer(3, 2, 42);
  const double* w = layer.weight.data();
  const double* b = layer.bias.data();
  for (const fg::Extents& shape : {fg::Extents{3}, fg::Extents{2, 2, 3}, fg::Extents{2, 1, 2, 3}}) {
    SCOPED_TRACE(shape.to_string());
    const std::size_t rows = shape.size() / 3;
    std::vector<double> values(shape.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.25 * double(i) - 1.0;
    fg::Tensor x = fg::Tensor::from(values, shape);
    x.requires_grad_();
    for (fg::Tensor* p : {&x, &layer.weight, &layer.bias}) p->zero_grad();
    const fg::Tensor y = layer(x);
    std::vector<std::size_t> out_shape(shape.axes().begin(), shape.axes().end());
    out_shape.back() = 2;
    ASSERT_EQ(y.shape(), fg::Extents(std::span<const std::size_t>(out_shape)));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t o = 0; o < 2; ++o) {
        double expected = b[o];
        for (std::size_t i = 0; i < 3; ++i) expected += values[r * 3 + i] * w[o * 3 + i];
        EXPECT_NEAR(y.data()[r * 2 + o], expected, 1e-15);
      }
    fg::Tensor(fg::sum(y)).backward();
    for (std::size_t o = 0; o < 2; ++o) {
      EXPECT_DOUBLE_EQ(layer.bias.grad().data()[o], double(rows));
      for (std::size_t i = 0; i < 3; ++i) {
        double column = 0;
        for (std::size_t r = 0; r < rows; ++r) column += values[r * 3 + i];
        EXPECT_NEAR(layer.weight.grad().data()[o * 3 + i], column, 1e-14);
      }
    }
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(x.grad().data()[r * 3 + i], w[i] + w[3 + i], 1e-15);
  }
  fg::test::expect_error<fg::shape_error>([&] { (void)layer(fg::Tensor::scalar(1.0)); }, {"Linear", "(3)", "()"});
  fg::test::expect_error<fg::shape_error>(
      [&] {
        (void)layer(fg::Tensor::zeros({2, 3, 4}));
      },
      {"Linear", "(..., 3)", "(2, 3, 4)"});
}

// No input features, or none out, as in PyTorch: nn.Linear(0, 3) maps a (2, 0) batch to zeros (its bias is zeros),
// nn.Linear(3, 0) a (2, 3) batch to shape (2, 0).
TEST(Linear, TakesZeroFeatures) {
  const nn::Linear from_none(0, 3, 1), to_none(3, 0, 1);
  const fg::Tensor zeros = from_none(fg::Tensor::zeros({2, 0}));
  ASSERT_EQ(zeros.shape(), fg::Extents({2, 3}));
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(zeros.data()[i], 0.0);
  EXPECT_EQ(to_none(fg::Tensor::ones({2, 3})).shape(), fg::Extents({2, 0}));
}

TEST(Sequential, AppliesItsLayersInOrderAndNamesThemByPosition) {
  nn::Sequential model(nn::Linear(2, 3, 1), nn::Tanh{}, nn::Linear(3, 1, 2));
  const fg::Tensor x = fg::Tensor::from({0.5, -1.0, 2.0, 0.25}, {2, 2});
  const fg::Tensor expected = boost::hana::at_c<2>(model.layers)(fg::tanh(boost::hana::at_c<0>(model.layers)(x)));
  const fg::Tensor y = model(x);
  ASSERT_EQ(y.shape(), fg::Extents({2, 1}));
  EXPECT_EQ(y.data()[0], expected.data()[0]);
  EXPECT_EQ(y.data()[1], expected.data()[1]);
  std::vector<std::string> names;
  for (const auto& p : nn::named_parameters(model)) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
}

// Through structs, vectors and arrays of them; a tensor that takes no gradient is no parameter,
// a tensor shared by two members is listed once.
TEST(Parameters, FoundByReflectionWithDottedNames) {
  Model model = make_model();
  EXPECT_EQ(names_of(model), (std::vector<std::string>{"blocks.0.fc.weight", "blocks.0.fc.bias", "blocks.0.scale",
                                                       "blocks.1.fc.weight", "blocks.1.fc.bias", "blocks.1.scale",
                                                       "heads.0.weight", "heads.0.bias", "heads.1.weight"}));
  model.blocks[1].scale = model.blocks[0].scale;  // shared
  EXPECT_EQ(nn::parameters(model).size(), 8u);
  EXPECT_EQ(nn::parameters(model)[2].impl(), model.blocks[0].scale.impl());
}

// A ScalarTensor is a tensor: a parameter when it requires grad. A model whose parameters hold float, asked for
// double ones, says which type to ask for.
TEST(Parameters, ScalarTensorsCountAndAnotherScalarTypeIsNamed) {
  Scaled scaled{fg::ScalarTensor(2.0).requires_grad_(), fg::Tensor::ones({2}).requires_grad_()};
  std::vector<std::string> names;
  for (const auto& p : nn::named_parameters(scaled)) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"scale", "weight"}));
  EXPECT_EQ(nn::parameters(scaled)[0].impl(), scaled.scale.impl());
  FloatModel floats{fg::BasicTensor<float>::ones({2}).requires_grad_()};
  EXPECT_EQ(nn::parameters<float>(floats).size(), 1u);
  fg::test::expect_error<fg::value_error>([&] { (void)nn::parameters(floats); },
                                          {"hold float", "fg::nn::parameters<float>(model)"});
}

// An engaged optional and a non-null pointer are searched and named as the member itself, as PyTorch names a
// sub-module; an empty one holds none. Any standard container is searched element by element, named by position.
TEST(Parameters, FoundInOptionalsPointersAndAnyContainer) {
  const Holders h = make_holders();
  EXPECT_EQ(names_of(h),
            (std::vector<std::string>{"maybe.weight", "maybe.bias", "shared.weight", "shared.bias", "owned.fc.weight",
                                      "owned.fc.bias", "owned.scale", "layers.0.weight", "layers.0.bias",
                                      "layers.1.weight", "chain.0.fc.weight", "chain.0.fc.bias", "chain.0.scale"}));
  const std::vector<fg::Tensor> found = nn::parameters(h);
  ASSERT_EQ(found.size(), 13u);
  EXPECT_EQ(found[0].impl(), h.maybe->weight.impl());
  EXPECT_EQ(found[2].impl(), h.shared->weight.impl());
  EXPECT_EQ(found[6].impl(), h.owned->scale.impl());
  EXPECT_EQ(found[9].impl(), h.layers[1].weight.impl());
  EXPECT_EQ(found[12].impl(), h.chain.front().scale.impl());
}

// A pointer back up the model (a parent link) or a sub-model two members share is searched once: the search ends,
// and the shared parameters are listed under their first names.
struct Node {
  BOOST_HANA_DEFINE_STRUCT(Node, (fg::Tensor, w), (std::shared_ptr<Node>, parent), (std::shared_ptr<Node>, child));
};
TEST(Parameters, PointerCyclesAreSearchedOnce) {
  auto root = std::make_shared<Node>(Node{fg::Tensor::ones({1}).requires_grad_(), nullptr, nullptr});
  root->child = std::make_shared<Node>(Node{fg::Tensor::ones({2}).requires_grad_(), root, nullptr});
  EXPECT_EQ(names_of(*root), (std::vector<std::string>{"w", "child.w"}));
  root->child->parent = nullptr;  // no cycle left for the shared_ptrs to keep alive
}

// A model mixing float and double parameters gives each type its own, for one optimiser per type; asked for one
// type, it does not throw because the other is there too.
TEST(Parameters, AMixedModelGivesEachScalarTypeItsParameters) {
  Mixed m = make_mixed();
  EXPECT_EQ(names_of<double>(m), (std::vector<std::string>{"w", "body.weight", "body.bias"}));
  EXPECT_EQ(names_of<float>(m), (std::vector<std::string>{"f", "head.weight", "head.bias"}));
  fg::optim::BasicSGD<double> doubles(nn::parameters<double>(m), {.lr = 0.5});
  fg::optim::BasicSGD<float> floats(nn::parameters<float>(m), {.lr = 0.5});
  const fg::Tensor loss = fg::sum(m.w) + fg::sum(m.f.to<double>());
  loss.backward();
  doubles.step();
  floats.step();
  EXPECT_EQ(m.w.data()[0], 1.0);
  EXPECT_EQ(m.f.data()[0], -0.25f);
}

// One step of Adam over a model's parameters: every one moves.
TEST(Parameters, FeedAnOptimiser) {
  nn::Sequential model(nn::Linear(2, 4, 1), nn::ReLU{}, nn::Linear(4, 1, 2));
  fg::optim::Adam opt(nn::parameters(model), {.lr = 0.1});
  const fg::Tensor x = fg::Tensor::from({0.5, -1.0, 2.0, 0.25, -0.3, 0.8}, {3, 2});
  const fg::Tensor y = fg::Tensor::from({1.0, -1.0, 0.5}, {3, 1});
  const auto loss_now = [&] { return fg::Tensor(nn::mse_loss(model(x), y)); };
  const double before = loss_now().item();
  for (int step = 0; step < 50; ++step) {
    opt.zero_grad();
    loss_now().backward();
    opt.step();
  }
  EXPECT_LT(loss_now().item(), 0.5 * before);
}

class SaveLoad : public ::testing::Test {
 protected:
  std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("fusegrad_parameters_" + std::to_string(::getpid()) + ".txt");
  void TearDown() override { std::filesystem::remove(file); }

  template <class M>
  static std::vector<double> values_of(const M& model) {
    std::vector<double> out;
    for (const fg::Tensor& p : nn::parameters(model)) out.insert(out.end(), p.data(), p.data() + p.numel());
    return out;
  }
  void write(const std::string& text) const { std::ofstream(file) << text; }
};

TEST_F(SaveLoad, ARoundTripIsExact) {
  Model saved = make_model();
  {
    const fg::NoGradGuard update;
    saved.heads[0].weight.mutable_eigen()[0] = 0.1 + 0.2;  // not a short decimal
  }
  nn::save(saved, file);
  Model loaded = make_model();
  {
    const fg::NoGradGuard update;
    for (fg::Tensor& p : nn::parameters(loaded)) p.fill_(-7.0);
  }
  nn::load(loaded, file);
  EXPECT_EQ(values_of(loaded), values_of(saved));
}

// A program's locale that groups digits ("1,200") changes neither the file nor how it is read.
TEST_F(SaveLoad, AGroupingLocaleChangesNothing) {
  struct grouping : std::numpunct<char> {
    char do_thousands_sep() const override { return ','; }
    std::string do_grouping() const override { return "\3"; }
  };
  struct Wide {
    BOOST_HANA_DEFINE_STRUCT(Wide, (fg::Tensor, weight));
  };
  struct global_locale {  // the program's, for this scope
    std::locale before;
    explicit global_locale(const std::locale& l) : before(std::locale::global(l)) {}
    ~global_locale() { std::locale::global(before); }
  };
  Wide saved{fg::Tensor::arange(0.0, 1200.0).requires_grad_()};
  Wide loaded{fg::Tensor::zeros({1200}).requires_grad_()};
  {
    const global_locale grouped(std::locale(std::locale::classic(), new grouping));
    nn::save(saved, file);
    nn::load(loaded, file);
  }
  EXPECT_EQ(loaded.weight.data()[1199], 1199.0);
  std::ifstream in(file);
  std::string header, shape;
  std::getline(in, header);
  std::getline(in, shape);
  EXPECT_EQ(shape, "weight double 1 1200");
}

// A file whose lines end in "\r\n" (copied through Windows, or checked out with git's autocrlf) loads as saved.
TEST_F(SaveLoad, AFileWithWindowsLineEndingsLoads) {
  const Model saved = make_model();
  nn::save(saved, file);
  std::string text;
  {
    std::ifstream in(file, std::ios::binary);
    for (std::string line; std::getline(in, line);) text += line + "\r\n";
  }
  std::ofstream(file, std::ios::binary) << text;
  Model loaded = make_model();
  {
    const fg::NoGradGuard update;
    for (fg::Tensor& p : nn::parameters(loaded)) p.fill_(-7.0);
  }
  nn::load(loaded, file);
  EXPECT_EQ(values_of(loaded), values_of(saved));
}

// Special values come back bit for bit: a NaN's sign and payload too, and whether it is quiet or signalling, in double
// and in float (whose NaNs the file holds as the double NaNs of the same sign and payload).
TEST_F(SaveLoad, NaNsKeepTheirSignAndPayload) {
  const auto bits_of = [](auto v) {
    if constexpr (sizeof v == 8)
      return std::bit_cast<std::uint64_t>(v);
    else
      return std::uint64_t(std::bit_cast<std::uint32_t>(v));
  };
  const auto round_trip = [&]<class T>(std::initializer_list<T> values) {
    nn::BasicLinear<T> saved(1, 1, 1, false), loaded(1, 1, 1, false);
    saved.weight = fg::BasicTensor<T>::from(values, {1, values.size()}).requires_grad_();
    loaded.weight = fg::BasicTensor<T>::zeros({1, values.size()}).requires_grad_();
    nn::save(saved, file);
    nn::load(loaded, file);
    for (std::size_t i = 0; i < values.size(); ++i)
      EXPECT_EQ(bits_of(loaded.weight.data()[i]), bits_of(saved.weight.data()[i])) << "value " << i;
  };
  round_trip({std::bit_cast<double>(0xfff8000000000000), std::bit_cast<double>(0x7ff8000000000123),
              std::bit_cast<double>(0x7ffabcdef0123456), std::bit_cast<double>(0x7ff4000000000001),  // signalling
              std::bit_cast<double>(0xfff0000000000001), -0.0, -std::numeric_limits<double>::infinity(),
              std::numeric_limits<double>::denorm_min()});
  round_trip({std::bit_cast<float>(0xffc00000u), std::bit_cast<float>(0x7fc00123u), std::bit_cast<float>(0x7f800001u),
              std::bit_cast<float>(0xffa12345u),  // signalling
              -0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()});
  // A float's NaN is written as the double NaN of its sign and payload, quiet or signalling as it is.
  nn::BasicLinear<float> one(1, 1, 1, false);
  one.weight = fg::BasicTensor<float>::from({std::bit_cast<float>(0x7f800001u)}, {1, 1}).requires_grad_();
  nn::save(one, file);
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\nnan:7ff0000020000000\n"), std::string::npos) << text;
}

// A file may hold a NaN as "nan" or "-nan", without its bits: the quiet NaN of that sign, in float and in double
// parameters alike.
TEST_F(SaveLoad, NaNTokensReadAsTheQuietNaNOfTheirSign) {
  nn::BasicLinear<float> floats(1, 1, 1, false);
  floats.weight = fg::BasicTensor<float>::zeros({1, 2}).requires_grad_();
  write("fusegrad parameters 1\nweight float 2 1 2\nnan -nan\nend\n");
  nn::load(floats, file);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(floats.weight.data()[0]), 0x7fc00000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(floats.weight.data()[1]), 0xffc00000u);
  nn::BasicLinear<double> doubles(1, 1, 1, false);
  doubles.weight = fg::Tensor::zeros({1, 2}).requires_grad_();
  write("fusegrad parameters 1\nweight double 2 1 2\n-nan nan\nend\n");
  nn::load(doubles, file);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(doubles.weight.data()[0]), 0xfff8000000000000u);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(doubles.weight.data()[1]), 0x7ff8000000000000u);
}

// Every mistake names what is wrong, and the model keeps every value it had.
TEST_F(SaveLoad, ABadFileChangesNothing) {
  Model source = make_model();
  nn::save(source, file);
  std::string good;
  {
    std::ifstream in(file);
    good.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  Model target = make_model();
  {
    const fg::NoGradGuard update;
    for (fg::Tensor& p : nn::parameters(target)) p.fill_(3.0);
  }
  const std::vector<double> before = values_of(target);
  const auto expect_refused = [&](const std::string& text, std::initializer_list<std::string_view> parts) {
    SCOPED_TRACE(text);
    write(text);
    fg::test::expect_error<fg::value_error>([&] { nn::load(target, file); }, parts);
    EXPECT_EQ(values_of(target), before);
  };
  expect_refused("a parameters file\n", {"not a fusegrad parameters file"});
  const std::size_t last = good.rfind("heads.1.weight");
  expect_refused(good.substr(0, last) + "end\n", {"heads.1.weight", "is not in the file"});
  expect_refused(good.substr(0, good.size() - 4) + "extra double 1 1\n1p+0\nend\n", {"extra", "not in the model"});
  // The good file with heads.1.weight's header line, or blocks.1.scale's value 2 (1p+1), written otherwise.
  const auto with_header = [&](std::string_view header) {
    std::string text = good;
    text.replace(text.find("heads.1.weight double 2 1 4"), 27, header);
    return text;
  };
  const auto with_scale = [&](std::string_view value) {
    std::string text = good;
    text.replace(text.find("1p+1", text.find("blocks.1.scale")), 4, value);
    return text;
  };
  expect_refused(with_header("heads.1.weight double 2 2 2"),
                 {"heads.1.weight", "(2, 2) in the file", "(1, 4) in the model"});
  expect_refused(with_header("heads.1.weight double 2 1 4 5"), {"heads.1.weight", "\"5\" after its 2 extents"});
  expect_refused(with_scale("1,5"), {"blocks.1.scale", "is not a number"});
  // Hexadecimal digits without an exponent: 0x0.5 would be 0.3125.
  expect_refused(with_scale("0.5"), {"blocks.1.scale", "\"0.5\" is not a number as save writes them", "1p-1"});
  expect_refused(with_header("heads.1.weight double 9 1 1 1 1 1 1 1 1 4"), {"heads.1.weight", "rank 9", "at most 8"});
  expect_refused(with_header("heads.1.weight double -2 1 4"), {"heads.1.weight", "rank \"-2\" is not a count"});
  // A file cut anywhere after its first line and before its end line, whatever token or line the cut splits.
  for (std::size_t size = good.find('\n') + 1; size < good.size() - 4; size += 5)
    expect_refused(good.substr(0, size), {"cut short"});
  expect_refused(good + "more\n", {"text after the end line"});
  expect_refused(with_header("heads.1.weight double 2 -1 4"), {"heads.1.weight", "extent \"-1\" is not a count"});
  expect_refused(with_header("heads.1.weight double 2 1152921504606846976 4"), {"heads.1.weight", "holds more than"});
}

// A load that a later parameter's deferred value stops (its value, computed before the parameter changes, is not
// finite under DetectAnomalyGuard) counts no parameter as written: a graph recorded before it still runs backward.
TEST_F(SaveLoad, ALoadStoppedByADeferredValueChangesNoVersion) {
  Mixed model{fg::Tensor::from({1.0, 2.0}).requires_grad_(), fg::FloatTensor::from({0.0f, 4.0f}).requires_grad_(),
              nn::BasicLinear<float>(2, 1, 7), nn::Linear(2, 2, 8)};
  nn::save(model, file);
  fg::Tensor loss = fg::taped(fg::sum(fg::exp(model.w)));      // saves w for its backward
  const fg::FloatTensor deferred = fg::sum(fg::log(model.f));  // one value, computed when asked for: -inf
  {
    const fg::DetectAnomalyGuard checked;
    fg::test::expect_error<fg::value_error>([&] { nn::load(model, file); }, {"produced NaN or infinity"});
  }
  loss.backward();
  EXPECT_DOUBLE_EQ(model.w.grad().data()[0], std::exp(1.0));
  EXPECT_DOUBLE_EQ(model.w.grad().data()[1], std::exp(2.0));
  EXPECT_EQ(deferred.item(), -std::numeric_limits<float>::infinity());

  // The same where the deferred value is a computed tensor's own, held in the model.
  const fg::Tensor u = fg::Tensor::from({0.0, 1.0}).requires_grad_();
  WithComputed computed{fg::Tensor::from({1.0, 2.0}).requires_grad_(), fg::sum(fg::exp(u))};
  nn::save(computed, file);
  computed.z = fg::sum(fg::log(u));                              // deferred: -inf
  fg::Tensor saved_w = fg::taped(fg::sum(fg::exp(computed.w)));  // saves w for its backward
  {
    const fg::DetectAnomalyGuard checked;
    fg::test::expect_error<fg::value_error>([&] { nn::load(computed, file); }, {"produced NaN or infinity"});
  }
  saved_w.backward();
  EXPECT_DOUBLE_EQ(computed.w.grad().data()[0], std::exp(1.0));
}

// Parameters in optionals, behind pointers and in any container are saved and loaded like the rest.
TEST_F(SaveLoad, ParametersInOptionalsPointersAndContainersRoundTrip) {
  const Holders saved = make_holders();
  nn::save(saved, file);
  Holders loaded = make_holders();
  {
    const fg::NoGradGuard update;
    for (fg::Tensor& p : nn::parameters(loaded)) p.fill_(-7.0);
  }
  nn::load(loaded, file);
  EXPECT_EQ(values_of(loaded), values_of(saved));
  EXPECT_EQ(loaded.chain.front().scale.data()[0], 2.0);
}

// One file holds a mixed model's float and double parameters, each with its scalar type, and load restores both.
TEST_F(SaveLoad, AMixedModelSavesAndLoadsBothScalarTypes) {
  const Mixed saved = make_mixed();
  nn::save(saved, file);
  std::string text;
  {
    std::ifstream in(file);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (const std::string head :
       {"\nw double 1 2\n", "\nf float 1 3\n", "\nhead.weight float 2 1 2\n", "\nbody.bias double 1 2\n"})
    EXPECT_NE(text.find(head), std::string::npos) << head;
  Mixed loaded = make_mixed();
  {
    const fg::NoGradGuard update;
    loaded.w.fill_(-7.0);
    loaded.f.fill_(7.0f);
    loaded.head.weight.fill_(7.0f);
  }
  nn::load(loaded, file);
  EXPECT_EQ(values_of_both(loaded), values_of_both(saved));
  // A file without a float parameter is refused, and the model keeps its values.
  const std::size_t f_begins = text.find("\nf float") + 1, f_ends = text.find('\n', text.find('\n', f_begins) + 1);
  write(text.substr(0, f_begins) + text.substr(f_ends + 1));
  {
    const fg::NoGradGuard update;
    loaded.w.fill_(-7.0);
  }
  fg::test::expect_error<fg::value_error>([&] { nn::load(loaded, file); }, {"parameter f", "is not in the file"});
  EXPECT_EQ(loaded.w.data()[0], -7.0);
}

// The file holds float and double values: a complex parameter is refused by name rather than left out.
TEST_F(SaveLoad, AComplexParameterIsRefused) {
  WithComplex model{fg::Tensor::ones({2}).requires_grad_(),
                    fg::BasicTensor<std::complex<double>>::ones({2}).requires_grad_()};
  EXPECT_EQ(nn::parameters(model).size(), 1u);
  EXPECT_EQ(nn::parameters<std::complex<double>>(model).size(), 1u);
  fg::test::expect_error<fg::value_error>([&] { nn::save(model, file); },
                                          {"nn::save", "parameter c", "complex<double>", "float and double"});
  EXPECT_FALSE(std::filesystem::exists(file));
  write("fusegrad parameters 1\nw double 1 2\n1p+1 1p+1\nend\n");
  fg::test::expect_error<fg::value_error>([&] { nn::load(model, file); },
                                          {"nn::load", "parameter c", "complex<double>", "float and double"});
  EXPECT_EQ(model.w.data()[0], 1.0);
}

// A bare tensor is no model: the file names each parameter by its member's name.
TEST_F(SaveLoad, ABareTensorIsRefused) {
  fg::Tensor t = fg::Tensor::ones({2}).requires_grad_();
  fg::test::expect_error<fg::value_error>([&] { nn::save(t, file); }, {"nn::save", "bare tensor", "struct"});
  EXPECT_FALSE(std::filesystem::exists(file));
  Scaled scaled{fg::ScalarTensor(2.0).requires_grad_(), t};
  nn::save(scaled, file);
  fg::test::expect_error<fg::value_error>([&] { nn::load(t, file); }, {"nn::load", "bare tensor", "struct"});
  EXPECT_EQ(t.data()[0], 1.0);
}

// A float model's file holds floats: a value beyond float's range or between two floats is refused (converting it
// would be undefined behaviour, or a silent rounding), and the model keeps its values.
TEST_F(SaveLoad, AFloatModelRefusesAValueFloatCannotHold) {
  nn::BasicLinear<float> layer(1, 1, /*seed*/ 1, /*with_bias*/ false);
  nn::save(layer, file);
  std::string good;
  {
    std::ifstream in(file);
    good.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string head = "weight float 2 1 1\n";
  const std::size_t values = good.find(head) + head.size();
  const float before = layer.weight.data()[0];
  // A NaN whose payload float cannot hold: bits below float's 23, or none above them (float would make it infinite).
  for (const std::string value : {"1p+200", "1.0000000000001p+0", "nan:7ff8000000000001", "nan:7ff0000000000001"}) {
    SCOPED_TRACE(value);
    std::string edited = good;
    edited.replace(values, good.find('\n', values) - values, value);
    write(edited);
    fg::test::expect_error<fg::value_error>([&] { nn::load(layer, file); }, {"weight", "float cannot hold exactly"});
    EXPECT_EQ(layer.weight.data()[0], before);
  }
  write(good);
  nn::load(layer, file);  // the file as save wrote it
  EXPECT_EQ(layer.weight.data()[0], before);
}

}  // namespace

}  // namespace modules_test
