// tape/cast.hpp -- t.to<float>() and t.to<double>(): a copy in the other scalar type, its gradient cast back.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fusegrad/detail/buffer.hpp>
#include <fusegrad/detail/concat.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/tape/backward_pass.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/check_finite.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/record_node.hpp>
#include <fusegrad/tape/typed_backward_pass.hpp>

namespace fusegrad {

namespace detail {

template <class To, class From>
class cast_node;

// The backward pass through the graph of scalar type From that cast nodes lead into, from the
// gradients they kept: it owns its roots, their seeds and the capture it reports to.
template <class From>
class pass_from_casts final : public backward_pass {
 public:
  template <class To>
  pass_from_casts(std::span<const ref<node<To>>> crossings, gradient_capture<To>* capture) {
    // Every node that leads across in a graph of To is a cast from the other type (node::leads_across).
    for (const ref<node<To>>& crossing : crossings) {
      auto& cast = dynamic_cast<cast_node<To, From>&>(*crossing);
      ref<tensor_impl<From>> source = cast.source_;
      small_buffer<From> seed = std::move(cast.pending_grad_);
      const auto same = std::find(sources_.begin(), sources_.end(), source);
      if (same == sources_.end()) {
        sources_.push_back(std::move(source));
        seeds_.push_back(std::move(seed));
      } else {  // the same tensor cast twice: one root, the seeds added
        From* sum = seeds_[std::size_t(same - sources_.begin())].data();
        for (std::size_t k = 0; k < seed.size(); ++k) sum[k] += seed.data()[k];
      }
    }
    for (std::size_t k = 0; k < sources_.size(); ++k) roots_.push_back({sources_[k].get(), seeds_[k].data()});
    // fg::grad's inputs all have one scalar type, so its capture wants nothing here; a cast back
    // leads to the capture that started it.
    gradient_capture<From>* other = nullptr;
    if (capture) {
      here_.other_type = capture;
      other = capture->other_type ? capture->other_type : &here_;
    }
    // The graph is released with the whole graph, by the first pass's finish() (release_graph follows casts).
    pass_.emplace(roots_, /*retain_graph=*/true, other, /*started_by_cast=*/true);
  }
  std::unique_ptr<backward_pass> run() override { return pass_->run(); }
  void finish() override { pass_->finish(); }

 private:
  std::vector<ref<tensor_impl<From>>> sources_;
  std::vector<small_buffer<From>> seeds_;
  std::vector<backward_root<From>> roots_;
  gradient_capture<From> here_;
  std::optional<typed_backward_pass<From>> pass_;
};

// The recorded cast of a tensor of scalar type From into one of type To (PyTorch's
// ToCopyBackward). Its input lives in a graph of another type, which a node<To> cannot
// point to with an edge: it has none, and the engine runs that graph's backward after this
// one's (pass_from_casts), every cast of the pass together, so that this pass runs that
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
  // Keeps the gradient, cast, for pass_from_casts (a pass that runs a cast releases nothing
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

  std::unique_ptr<backward_pass> pass_across(std::span<const ref<node<To>>> crossings,
                                             gradient_capture<To>* capture) override {
    return std::make_unique<pass_from_casts<From>>(crossings, capture);
  }
  void visit_across(across_visitor& visitor) const override {
    if (source_) visitor.visit(*source_);
  }

 private:
  template <class>
  friend class pass_from_casts;
  ref<tensor_impl<From>> source_;    // the tensor cast; dropped by release_saved
  small_buffer<From> pending_grad_;  // the gradient for source_, from backward to pass_from_casts
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
