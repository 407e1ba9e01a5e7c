// tape/fused_node.hpp -- fused_node: a static expression over tensors, recorded as one tape node.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>
#include <boost/mp11/algorithm.hpp>

#include <fusegrad/detail/fixed_list.hpp>
#include <fusegrad/expr/analytic.hpp>
#include <fusegrad/expr/eval.hpp>
#include <fusegrad/expr/grad.hpp>
#include <fusegrad/expr/visit.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/check_finite.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/graph_lock.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/tensor_impl.hpp>

namespace fusegrad::detail {

// Routes each tensor leaf occurrence to the gradient destination of the node input it is.
template <class T>
struct tensor_sinks {
  std::span<const edge<T>> inputs;
  std::span<T* const> grads;

  template <class L>
  typename L::value_type* sink_for(const L& leaf) const {
    if constexpr (is_tensor_v<L> && L::takes_grad) {
      for (std::size_t k = 0; k < inputs.size(); ++k)
        if (inputs[k].input == leaf.impl()) return grads[k];
    }
    return nullptr;
  }
};

// A recorded static expression. It keeps the expression (tensor leaves are handles, so
// their values stay alive) and recomputes the element-wise chain block by block during
// backward: nothing intermediate is stored.
template <class E>
class fused_node final : public node<typename E::value_type> {
  using T = typename E::value_type;
  template <class L>
  using is_tensor_leaf = std::bool_constant<is_tensor_v<L>>;
  // Tensor leaf occurrences (numbers in the expression are not tensors: they need no entry).
  static constexpr std::size_t capacity = boost::mp11::mp_count_if<leaf_types_t<E>, is_tensor_leaf>::value;
  static constexpr std::size_t grad_capacity = leaf_count<E, true>();  // ConstTensors never need an edge

 public:
  // A sum or mean over all axes: its value may wait for backward, which computes it anyway.
  static constexpr bool deferrable = E::kind == node_kind::materialized && LinearFullReduction<typename E::op>;

  using leaf_list = fixed_list<tensor_impl<T>*, capacity>;
  using grad_leaf_list = fixed_list<tensor_impl<T>*, grad_capacity>;

  // One element-wise op on tensors (and numbers held in the node): when its operands have
  // the output's size (no broadcasting, which a taped node of same-shaped or scalar tensors
  // usually is), the op spec's value and VJP run straight on Eigen maps; the sweep gives the
  // same numbers with more bookkeeping than a one-op node can afford.
  template <class X>
  static constexpr bool direct_operand = is_tensor_v<X> || X::kind == node_kind::leaf;
  static constexpr bool single_op = [] {
    if constexpr (is_unary_expr_v<E>)
      return is_tensor_v<node_t<decltype(E::x)>>;
    else if constexpr (E::kind == node_kind::elementwise)
      return direct_operand<node_t<decltype(E::lhs)>> && direct_operand<node_t<decltype(E::rhs)>> &&
             (is_tensor_v<node_t<decltype(E::lhs)>> || is_tensor_v<node_t<decltype(E::rhs)>>);
    else
      return false;
  }();

  template <class X>
  fused_node(X&& expr, const Extents& output_extents, const grad_leaf_list& grad_leaves, const leaf_list& all_leaves)
      : expr_(std::forward<X>(expr)) {
    // Nothing below throws: the expression, a member of a union, would not be destroyed.
    this->size = output_extents.size();
    if constexpr (!single_op) extents_ = output_extents;
    for (tensor_impl<T>* leaf : all_leaves) {
      read_[read_count_] = leaf;
      read_versions_[read_count_++] = leaf->storage->version;
    }
    for (std::size_t k = 0; k < grad_leaves.size(); ++k)
      edges_[k] = {grad_leaves.items[k]->grad_fn, grad_leaves.items[k]};
    this->input_edges = edges_.data();
    this->input_count = static_cast<std::uint32_t>(grad_leaves.size());
    flat_ = is_flat();
  }
  fused_node(const fused_node&) = delete;
  fused_node& operator=(const fused_node&) = delete;

  [[nodiscard]] std::string name() const override {
    if constexpr (operation_count<E>() == 1) {
      return std::string(E::op::backward_name);
    } else {
      return "FusedBackward";
    }
  }

  [[nodiscard]] std::string_view non_analytic_op() const noexcept override { return first_non_analytic_op<E>(); }

  [[nodiscard]] std::string expression() const override {
    if (this->released) return "(freed)";
    return describe(expr_, [this](const auto& leaf) { return leaf_name(leaf); });
  }

  // A deferred value: computed later, so the leaves may have changed since recording.
  void compute_value(T* out) override {
    check_versions("its value");
    evaluate(out);
  }
  // The value, without the version check: for fused() at recording only, which read the
  // versions just now. Any later read goes through compute_value.
  void evaluate(T* out) const {
    if (!compute_flat(out)) evaluate_into(expr_, output_extents(), out);
    if (anomaly_detection) [[unlikely]]
      check_finite(out, this->size, name() + " = " + expression() + " (forward)");
  }

  void check_runnable() const override { check_versions("its gradient"); }

  // The engine called check_runnable() first.
  void backward(const T* grad_output, std::span<T* const> input_grads, T* value_out) override {
    if constexpr (single_op) {
      if (flat_) {  // most taped nodes: the op spec's VJP on flat maps (never deferred: value_out is null)
        if (this->size == 1)
          backward_single_op<1>(grad_output, input_grads);
        else
          backward_single_op(grad_output, input_grads);
        return;
      }
    }
    const tensor_sinks<T> sinks{grad_inputs(), input_grads};
    if constexpr (deferrable) {
      // One value upstream of a sum or mean: forward and reverse share one loop.
      const T value = reduce_and_sweep(expr_, sinks, grad_output[0]);
      if (value_out) *value_out = value;
    } else {
      // Only a deferred value (a sum or mean) is ever asked for here: the values are not kept.
      const auto& extents = output_extents();
      const Eigen::Map<const array_t<T>> upstream(grad_output, static_cast<Eigen::Index>(this->size));
      sweep_back(expr_, extents, sinks, upstream, extents, discard_values{});
    }
  }

  void release_saved() noexcept override {
    value_settled();
    if (this->released) return;
    std::destroy_at(&expr_);
    read_count_ = 0;
    this->released = true;
  }

  // A deferrable node may have been settled by an in-place write on another thread; the
  // lock orders that thread's work on the node before its destruction here.
  ~fused_node() override {
    if constexpr (deferrable) {
      const graph_lock lock;
      value_settled();
    }
    if (!this->released) std::destroy_at(&expr_);
  }

  // Registers this node with the storages its deferred value reads (see tensor_storage), and
  // marks the output's value pending. Under graph_lock, like every settling of a deferred
  // value: an in-place write on another thread finds the node in a storage's list at once.
  void defer_value(tensor_impl<T>& output) {
    const graph_lock lock;
    output.value_pending.store(true, std::memory_order_relaxed);
    deferred_ = true;  // first: if a registration throws, value_settled() undoes the others
    try {
      for (tensor_impl<T>* leaf : read()) leaf->storage->add_deferred_reader(this);
    } catch (...) {
      output.value_pending.store(false, std::memory_order_relaxed);
      value_settled();
      throw;
    }
  }
  // Under graph_lock, or from a node no other thread can reach.
  void value_settled() noexcept override {
    if constexpr (!deferrable) return;  // never registered: the common taped node skips the test
    if (!deferred_) return;
    deferred_ = false;
    for (tensor_impl<T>* leaf : read()) leaf->storage->remove_deferred_reader(this);
  }
  // Called by an in-place write on an input, under graph_lock (settle_deferred_readers). The
  // output may be dying on another thread, its grad_fn already moved out: the value is
  // computed here, by the node, not through the output's compute_pending_value.
  void settle_value() override {
    tensor_impl<T>* out = this->output.load(std::memory_order_relaxed);
    if (out && out->value_pending.load(std::memory_order_relaxed)) {
      compute_value(out->storage->data);
      out->value_pending.store(false, std::memory_order_release);
    }
    value_settled();
  }

 private:
  template <class L>
  std::string leaf_name(const L& leaf) const {
    if constexpr (is_tensor_v<L>) {
      return leaf_name_of(leaf.impl());
    } else if constexpr (std::is_same_v<typename L::static_shape, Shape<>>) {
      std::ostringstream s;
      s << leaf.data()[0];
      return s.str();
    } else {
      return "const" + leaf.extents().to_string();
    }
  }

  // Output-sized memory as a flat array; N = 1 for one element, which Eigen then handles as
  // a fixed-size value (no loop, no call): a scalar tensor's op is a few instructions.
  template <int N = Eigen::Dynamic>
  [[nodiscard]] Eigen::Map<Eigen::Array<T, N, 1>> map(T* p) const {
    return {p, static_cast<Eigen::Index>(this->size)};
  }
  template <int N = Eigen::Dynamic>
  [[nodiscard]] Eigen::Map<const Eigen::Array<T, N, 1>> map(const T* p) const {
    return {p, static_cast<Eigen::Index>(this->size)};
  }
  // A single op whose operands all have the output's size: flat element-wise, nothing broadcast.
  [[nodiscard]] bool is_flat() const {
    const std::size_t n = this->size;
    if constexpr (!single_op)
      return false;
    else if constexpr (is_unary_expr_v<E>)
      return size_of(expr_.x) == n;
    else
      return size_of(expr_.lhs) == n && size_of(expr_.rhs) == n;
  }
  // The values of a leaf of the expression (a tensor is defined: fused() checked it).
  template <class L>
  static const T* values_of(const L& leaf) {
    if constexpr (is_tensor_v<L>)
      return leaf.impl()->data();
    else
      return leaf.data();
  }
  template <class L>
  static std::size_t size_of(const L& leaf) {
    if constexpr (is_tensor_v<L>)
      return leaf.impl()->extents.size();
    else
      return leaf.extents().size();
  }
  // The value of a flat single op, straight from the op spec; false when the sweep must run.
  bool compute_flat(T* out) const {
    if constexpr (single_op) {
      if (flat_) {
        if (this->size == 1)
          map<1>(out) = op_value<1>(expr_);
        else
          map(out) = op_value(expr_);
        return true;
      }
    }
    return false;
  }
  template <int N = Eigen::Dynamic>
  auto op_value(const E& e) const {
    using Op = typename E::op;
    if constexpr (is_unary_expr_v<E>)
      return Op::value(map<N>(values_of(e.x)));
    else
      return Op::value(map<N>(values_of(e.lhs)), map<N>(values_of(e.rhs)));
  }
  // The VJP of a flat single op, added into its operands' gradient destinations. The output
  // values, when the VJP reads them, are recomputed (once, not once per use): into a
  // register for one element, else into a buffer.
  template <int N = Eigen::Dynamic>
  void backward_single_op(const T* grad_output, std::span<T* const> input_grads) const {
    using Op = typename E::op;
    const E& e = expr_;
    const auto dy = map<N>(grad_output);
    if constexpr (!needs_output(Op::needs)) {
      add_operand_vjps<N>(e, dy, op_value<N>(e), input_grads);  // y is never evaluated
    } else if constexpr (N == 1) {
      const Eigen::Array<T, 1, 1> y = op_value<1>(e);
      add_operand_vjps<1>(e, dy, y, input_grads);
    } else {
      small_buffer<T> kept(this->size);
      map<N>(kept.data()) = op_value<N>(e);
      add_operand_vjps<N>(e, dy, map<N>(static_cast<const T*>(kept.data())), input_grads);
    }
  }
  template <int N, class Dy, class Y>
  void add_operand_vjps(const E& e, const Dy& dy, const Y& y, std::span<T* const> input_grads) const {
    using Op = typename E::op;
    const tensor_sinks<T> sinks{grad_inputs(), input_grads};
    if constexpr (is_unary_expr_v<E>) {
      if (T* g = sinks.sink_for(e.x)) map<N>(g) += Op::vjp(dy, map<N>(values_of(e.x)), y);
    } else {
      const auto a = map<N>(values_of(e.lhs));
      const auto b = map<N>(values_of(e.rhs));
      if (T* g = sinks.sink_for(e.lhs)) map<N>(g) += Op::vjp_lhs(dy, a, b, y);
      if (T* g = sinks.sink_for(e.rhs)) map<N>(g) += Op::vjp_rhs(dy, a, b, y);
    }
  }

  // `what` is what would come out wrong: "its value" (a deferred value) or "its gradient".
  // The check runs for every node of every backward; the messages are built out of line.
  void check_versions(const char* what) const {
    if (this->released) [[unlikely]]
      throw_freed();
    for (std::size_t k = 0; k < read_size(); ++k)
      if (read_[k]->storage->version != read_versions_[k]) [[unlikely]]
        throw_modified(read_[k], read_versions_[k], what);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void throw_freed() const { throw freed_graph_error(name()); }
  [[noreturn, gnu::cold, gnu::noinline]] void throw_modified(const tensor_impl<T>* leaf, std::uint32_t version,
                                                             const char* what) const {
    throw graph_error("fusegrad: tensor '" + leaf_name_of(leaf) + "' of " + name() + " = " + expression() +
                      " was modified in place after it was recorded (version " + std::to_string(version) + ", now " +
                      std::to_string(leaf->storage->version) + "); " + what +
                      " would be wrong. Modify a copy, or record the operation after the change");
  }

  [[nodiscard]] std::string leaf_name_of(const tensor_impl<T>* leaf) const {
    const auto reads = read();
    const auto k = static_cast<std::size_t>(std::find(reads.begin(), reads.end(), leaf) - reads.begin());
    return k < 26 ? std::string(1, char('a' + k)) : concat("t", std::to_string(k));
  }

  // this->inputs() and the tensors read, with their bounds known: loops over them unroll.
  [[nodiscard]] std::span<const edge<T>> grad_inputs() const noexcept {
    return {edges_.data(), at_most<grad_capacity>(this->input_count)};
  }
  // The tensors the expression reads (kept alive by it), and the version of each one's values at recording.
  [[nodiscard]] std::span<tensor_impl<T>* const> read() const noexcept { return {read_.data(), read_size()}; }
  [[nodiscard]] std::size_t read_size() const noexcept { return at_most<capacity>(read_count_); }

  // The expression, alive until release_saved (this->released says): a std::optional would
  // keep a flag of its own, 8 bytes per node with padding.
  union {
    E expr_;
  };
  std::array<edge<T>, grad_capacity> edges_;  // this->inputs()
  std::array<tensor_impl<T>*, capacity> read_;
  std::array<std::uint32_t, capacity> read_versions_;
  static_assert(capacity <= UINT16_MAX, "fused_node: an expression reads at most 65535 tensors");
  std::uint16_t read_count_ = 0;
  bool deferred_ = false;  // registered as a deferred reader of the leaves' storages
  bool flat_ = false;      // is_flat(), decided at recording
  // The output's extents, which the sweep of a node of several ops reads on every call. A
  // one-op node, most of a taped graph, recomputes them from its operands in the rare case
  // it needs them (broadcasting): a retained taped op is 80 bytes smaller.
  struct extents_of_operands {};
  [[no_unique_address]] std::conditional_t<single_op, extents_of_operands, Extents> extents_;
  [[nodiscard]] decltype(auto) output_extents() const {
    if constexpr (single_op)
      return expr_.extents();
    else
      return (extents_);
  }
};

}  // namespace fusegrad::detail
