// tape/cast.hpp -- t.to<float>() and t.to<double>(): a copy in the other scalar type, its gradient cast back.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/concat.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/tape/backward.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/check_finite.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/record_node.hpp>
#include <fusegrad/tape/walk_graph.hpp>

namespace fusegrad {

namespace detail {

// The recorded cast of a tensor of scalar type From into one of type To (PyTorch's
// ToCopyBackward). Its input lives in a graph of another type, which a node<To> cannot
// point to with an edge: it has none, and the engine runs that graph's backward after this
// one's (node::backward_across), every cast of the pass together, so that this pass runs that
// graph once.
template <class To, class From>
class cast_node final : public node<To> {
 public:
  explicit cast_node(ref<tensor_impl<From>> source) : source_(std::move(source)) {
    this->size = source_->extents.size();
  }

  [[nodiscard]] std::string name() const override { return "ToCopyBackward"; }
  [[nodiscard]] std::string expression() const override {
    return concat("to<", scalar_name<To>(), ">(tensor of ", scalar_name<From>(), ")");
  }
  [[nodiscard]] std::string_view non_analytic_op() const noexcept override { return {}; }
  // The value is written at recording, never deferred.
  void compute_value(To* /*out*/) override {}
  void settle_value() override {}
  // The VJP reads no values: a source changed in place since does not change it.
  void check_runnable() const override {
    if (this->released) throw freed_graph_error(name(), this->released);
  }
  // Keeps the gradient, cast, for backward_across (a pass that runs a cast releases nothing
  // before the end, so the source is still held then). Casting down can overflow: anomaly mode
  // checks the result, as it checks what every other node sends.
  void backward(const To* grad_output, std::span<To* const> /*input_grads*/, std::uint64_t /*unfilled*/,
                To* /*value_out*/) override {
    pending_grad_.resize(this->size);
    std::transform(grad_output, grad_output + this->size, pending_grad_.data(),
                   [](To g) { return static_cast<From>(g); });
    if (anomaly_detection)
      check_finite(pending_grad_.data(), this->size, name() + " = " + expression() + " (backward)");
  }
  void release_saved() noexcept override { source_ = nullptr; }

  void backward_across(std::span<const ref<node<To>>> crossings, bool retain_graph,
                       gradient_capture<To>* capture) override {
    // Every node without input edges in a graph of To is a cast from the other type.
    std::vector<ref<tensor_impl<From>>> sources;
    std::vector<small_buffer<From>> seeds;
    for (const ref<node<To>>& crossing : crossings) {
      auto& cast = dynamic_cast<cast_node&>(*crossing);
      ref<tensor_impl<From>> source = cast.source_;
      small_buffer<From> seed = std::move(cast.pending_grad_);
      const auto same = std::find(sources.begin(), sources.end(), source);
      if (same == sources.end()) {
        sources.push_back(std::move(source));
        seeds.push_back(std::move(seed));
      } else {  // the same tensor cast twice: one root, the seeds added
        From* sum = seeds[std::size_t(same - sources.begin())].data();
        for (std::size_t k = 0; k < seed.size(); ++k) sum[k] += seed.data()[k];
      }
    }
    std::vector<backward_root<From>> roots;
    for (std::size_t k = 0; k < sources.size(); ++k) roots.push_back({sources[k].get(), seeds[k].data()});
    // fg::grad's inputs all have one scalar type, so its capture wants nothing here; a cast back
    // leads to the capture that started it.
    gradient_capture<From> here{{}, {}, capture};
    gradient_capture<From>* other = nullptr;
    if (capture) other = capture->across ? static_cast<gradient_capture<From>*>(capture->across) : &here;
    run_backward(std::span<const backward_root<From>>(roots), retain_graph, other, /*across=*/true);
  }
  void walk_across(graph_walk& walk) const override {
    if (!source_) throw freed_graph_error(name());
    walk_graph(*source_, walk);
  }
  void release_across() override {
    if (!source_) return;
    const backward_root<From> root{source_.get(), nullptr};
    release_graph(std::span<const backward_root<From>>(&root, 1));
  }
  void visit_across(across_visitor& visitor) const override {
    if (source_) visitor.visit(*source_);
  }

 private:
  ref<tensor_impl<From>> source_;    // the tensor cast; dropped by release_saved
  small_buffer<From> pending_grad_;  // the gradient for source_, from backward to backward_across
};
}  // namespace detail

template <Scalar T>
template <Scalar U>
BasicTensor<U> BasicTensor<T>::to() const {
  static_assert(std::same_as<T, float> || std::same_as<T, double>,
                "fusegrad: to<U>() casts between float and double tensors; this tensor's scalar type is neither");
  static_assert(std::same_as<U, float> || std::same_as<U, double>, "fusegrad: to<U>() casts to float or double only");
  if constexpr (std::same_as<T, U>) {
    return *this;
  } else {
    const T* values = data();  // settles a deferred value
    const std::size_t n = numel();
    BasicTensor<U> out;
    if (is_grad_enabled() && requires_grad())
      out = BasicTensor<U>(detail::record_node<U, detail::cast_node<U, T>>(shape(), detail::ref<impl_type>(impl())));
    else
      out = BasicTensor<U>::empty(shape());
    std::transform(values, values + n, out.impl()->storage->data, [](T v) { return static_cast<U>(v); });
    return out;
  }
}

/// `t` as a tensor of scalar type U (float or double), recorded: the gradient is cast back
/// (PyTorch's t.to(dtype)). `t` itself when it already has type U.
template <Scalar U, Scalar T>
[[nodiscard]] BasicTensor<U> to(const BasicTensor<T>& t) {
  return t.template to<U>();
}
/// An expression over tensors, recorded (one fused node), then cast: `fg::to<float>(a * 3.0)`.
template <Scalar U, class E>
  requires(Differentiable<E> && !detail::is_tensor_v<std::remove_cvref_t<E>>)
[[nodiscard]] BasicTensor<U> to(E&& expr) {
  return BasicTensor<typename std::remove_cvref_t<E>::value_type>(std::forward<E>(expr)).template to<U>();
}

}  // namespace fusegrad
