// nn/sequential.hpp -- Sequential: layers applied in order, PyTorch's nn.Sequential, typed (no virtual call).
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <boost/hana/fold_left.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>

namespace fusegrad::nn {

/// Layers applied in order: `fg::nn::Sequential model(fg::nn::Linear(2, 16, 1), fg::nn::ReLU{},
/// fg::nn::Linear(16, 2, 2));` then `model(x)`. Its parameters are named by position, as
/// PyTorch names them: "0.weight", "2.bias".
template <class... Layers>
struct Sequential {
  boost::hana::tuple<Layers...> layers;

  explicit Sequential(Layers... ls) : layers(std::move(ls)...) {}

  template <class X>
  [[nodiscard]] auto operator()(const X& x) const {
    return boost::hana::fold_left(layers, x, [](const auto& in, const auto& layer) { return layer(in); });
  }

  /// The layers by position, for fg::nn::parameters.
  template <class F>
  void visit_members(F&& f) const {
    std::size_t k = 0;
    boost::hana::for_each(layers, [&](const auto& layer) { f(std::to_string(k++), layer); });
  }
};

}  // namespace fusegrad::nn
