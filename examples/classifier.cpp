// classifier.cpp -- a two-layer network learns the two-moons set: fg::nn layers, cross-entropy from class indices,
// fg::optim::Adam over the model's parameters (found by reflection), and the parameters saved and loaded.
// Passes when the test split's accuracy reaches 95 %.
#include <unistd.h>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/nn.hpp>
#include <fusegrad/optim.hpp>

namespace fg = fusegrad;
namespace nn = fusegrad::nn;

// A model is a plain struct; Boost.Hana declares its members, so nn::parameters finds the tensors in them.
struct Classifier {
  BOOST_HANA_DEFINE_STRUCT(Classifier, (nn::Linear, hidden), (nn::Linear, out));

  [[nodiscard]] fg::Tensor operator()(const fg::Tensor& x) const { return out(fg::Tensor(fg::tanh(hidden(x)))); }
};

namespace {

// Two interleaved half circles with noise (the "two moons"), drawn with fusegrad's generator: the
// same points on every platform.
struct Moons {
  fg::Tensor points;  // (n, 2)
  fg::Indices labels;
};
Moons make_moons(std::size_t n, std::uint64_t seed) {
  const fg::Tensor angle = fg::Tensor::rand({n}, seed);
  const fg::Tensor noise = fg::Tensor::randn({n, 2}, seed + 1);
  std::vector<double> points(2 * n);
  std::vector<std::int64_t> labels(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = std::numbers::pi * angle.data()[i];
    labels[i] = std::int64_t(i % 2);
    const double x = labels[i] ? 1 - std::cos(t) : std::cos(t);
    const double y = labels[i] ? 0.5 - std::sin(t) : std::sin(t);
    points[2 * i] = x + 0.1 * noise.data()[2 * i];
    points[2 * i + 1] = y + 0.1 * noise.data()[2 * i + 1];
  }
  return {fg::Tensor::from(points, {n, 2}), fg::Indices(labels, fg::Extents{n})};
}

double accuracy(const Classifier& model, const Moons& data) {
  const fg::NoGradGuard evaluating;
  const fg::Tensor scores = model(data.points);
  std::size_t right = 0;
  for (std::size_t i = 0; i < data.labels.size(); ++i) {
    const std::int64_t predicted = scores.data()[2 * i + 1] > scores.data()[2 * i] ? 1 : 0;
    right += predicted == data.labels[i];
  }
  return double(right) / double(data.labels.size());
}

}  // namespace

int main() {
  const Moons train = make_moons(400, 1), test = make_moons(200, 2);
  Classifier model{nn::Linear(2, 16, /*seed*/ 10), nn::Linear(16, 2, /*seed*/ 20)};

  std::printf("parameters:");
  for (const auto& p : nn::named_parameters(model))
    std::printf("  %s %s", p.name.c_str(), p.tensor.shape().to_string().c_str());
  std::printf("\n");

  fg::optim::Adam opt(nn::parameters(model), {.lr = 0.05});
  constexpr int epochs = 300;
  const auto start = std::chrono::steady_clock::now();
  double loss = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    opt.zero_grad();
    const fg::Tensor l = nn::cross_entropy_loss(model(train.points), train.labels);
    l.backward();
    opt.step();
    loss = l.item();
    if (epoch % 100 == 0)
      std::printf("epoch %3d  loss %.4f  train accuracy %.3f\n", epoch, loss, accuracy(model, train));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double test_accuracy = accuracy(model, test);
  std::printf("test accuracy %.3f, %.1f us per epoch (400 points, forward, backward and step)\n", test_accuracy,
              1e6 * seconds / epochs);

  // The parameters to a file and back into a fresh model: the same predictions.
  const auto file =
      std::filesystem::temp_directory_path() / ("fusegrad_classifier_" + std::to_string(::getpid()) + ".txt");
  nn::save(model, file);
  Classifier restored{nn::Linear(2, 16, 0), nn::Linear(16, 2, 0)};
  nn::load(restored, file);
  std::filesystem::remove(file);
  const bool same = accuracy(restored, test) == test_accuracy;
  std::printf("saved and loaded: %s\n", same ? "the same accuracy" : "A DIFFERENT ACCURACY");

  return test_accuracy >= 0.95 && same ? 0 : 1;
}
