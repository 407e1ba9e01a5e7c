// softmax_classifier.cpp -- three classes of points in the plane, a linear model trained with a stable
// cross-entropy (log_softmax over the class axis), the reductions that read its output (argmax, max, min), and the
// same loss from class indices with gather.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  // 150 points: 50 around each of three centres, one-hot labels.
  constexpr std::size_t n = 150, classes = 3;
  const double centres[classes][2] = {{-2.0, 0.0}, {2.0, 0.0}, {0.0, 2.5}};
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.8);
  Eigen::ArrayXd points(n * 2), labels = Eigen::ArrayXd::Zero(n * classes);
  std::vector<std::size_t> label_of(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t c = i % classes;
    points[Eigen::Index(2 * i)] = centres[c][0] + noise(rng);
    points[Eigen::Index(2 * i + 1)] = centres[c][1] + noise(rng);
    labels[Eigen::Index(i * classes + c)] = 1.0;
    label_of[i] = c;
  }
  const fg::ConstTensor x(fg::Tensor::from(points, {n, 2}));
  const fg::ConstTensor y(fg::Tensor::from(labels, {n, classes}));

  fg::Tensor w = fg::Tensor::zeros({2, classes}).requires_grad_();
  fg::Tensor b = fg::Tensor::zeros({classes}).requires_grad_();
  double first_loss = 0, loss_value = 0;
  for (int step = 0; step < 200; ++step) {
    // Cross-entropy from logits: log_softmax subtracts logsumexp over the class axis, so a
    // logit of 1000 neither overflows nor turns the loss into NaN.
    const fg::Tensor logits = fg::matmul(x, w) + b;
    const fg::Tensor loss = -fg::mean(fg::sum(y * fg::log_softmax(logits, fg::axes<1>), fg::axes<1>));
    loss.backward();
    {
      fg::NoGradGuard no_grad;
      w.sub_(w.grad(), 0.5);
      b.sub_(b.grad(), 0.5);
    }
    w.zero_grad();
    b.zero_grad();
    loss_value = loss.item();
    if (step == 0) first_loss = loss_value;
  }

  // Reading the model: each point's most likely class, and how sure the model is.
  const fg::Tensor logits = fg::matmul(x, w) + b;  // a Tensor: softmax reads it twice, the product runs once
  const fg::Tensor probabilities = fg::softmax(logits, fg::axes<1>);
  const fg::Tensor predicted = fg::argmax(probabilities, fg::axes<1>);  // class indices, as doubles
  const fg::Tensor confidence = fg::max(probabilities, fg::axes<1>);
  // The same loss from class indices rather than one-hot rows: gather picks each point's log-probability of its
  // class (PyTorch's nll_loss), and its gradient goes to those entries alone.
  const fg::Indices class_of(std::vector<std::int64_t>(label_of.begin(), label_of.end()), {n, 1});
  const double one_hot_loss =
      fg::Tensor(-fg::mean(fg::sum(y * fg::log_softmax(logits, fg::axes<1>), fg::axes<1>))).item();
  const double gathered_loss =
      fg::Tensor(-fg::mean(fg::gather(fg::log_softmax(logits, fg::axes<1>), 1, class_of))).item();
  std::printf("first three points' probabilities (rows of a slice):\n");
  const fg::Tensor first_rows = fg::slice(probabilities, 0, 0, 3);
  for (std::int64_t i = 0; i < 3; ++i) {
    const fg::Tensor row = first_rows[i];
    std::printf("  %.3f %.3f %.3f (class %zu)\n", row.at({0}), row.at({1}), row.at({2}), label_of[std::size_t(i)]);
  }
  std::size_t correct = 0;
  for (std::size_t i = 0; i < n; ++i) correct += predicted.data()[i] == double(label_of[i]);
  const double accuracy = double(correct) / double(n);
  std::printf("loss %.4f -> %.4f (log 3 = %.4f at the start)\n", first_loss, loss_value, std::log(3.0));
  std::printf("accuracy %.3f, mean confidence %.3f, least confident %.3f\n", accuracy,
              fg::Tensor(fg::mean(confidence)).item(), fg::Tensor(fg::min(confidence)).item());
  std::printf("loss from one-hot rows %.6f, from class indices %.6f\n", one_hot_loss, gathered_loss);
  const bool same_loss = std::abs(one_hot_loss - gathered_loss) < 1e-12;
  return accuracy > 0.9 && loss_value < first_loss && same_loss ? 0 : 1;
}
