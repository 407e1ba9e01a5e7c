// tape/fused_node.hpp -- fused_node: a static expression over tensors, recorded as one tape node.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>
#include <boost/mp11/algorithm.hpp>

#include <fusegrad/detail/fixed_list.hpp>
#include <fusegrad/detail/number_text.hpp>
#include <fusegrad/expr/analytic.hpp>
#include <fusegrad/expr/children.hpp>
#include <fusegrad/expr/eval.hpp>
#include <fusegrad/expr/expression_graph.hpp>
#include <fusegrad/expr/grad.hpp>
#include <fusegrad/expr/visit.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/check_finite.hpp>
#include <fusegrad/tape/flat_op.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/graph_lock.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/one_op_saved.hpp>
#include <fusegrad/tape/ref_counted.hpp>
#include <fusegrad/tape/tensor_impl.hpp>
#include <fusegrad/tape/tensor_sinks.hpp>
#include <fusegrad/tape/tensor_storage.hpp>

namespace fusegrad::detail {

// A reshape of a tensor (an op that declares `is_view`: its values are its operand's, in
// order): the result shares the tensor's values, as PyTorch's view does.
template <class E>
constexpr bool is_view_of_tensor() {
  if constexpr (E::kind == node_kind::materialized) {
    if constexpr (requires { requires E::op::is_view; }) return is_tensor_v<boost::mp11::mp_front<child_nodes_t<E>>>;
  }
  return false;
}

// A recorded static expression. It keeps the expression (tensor leaves are handles, so
// their values stay alive) and recomputes the element-wise chain block by block during
// backward: nothing intermediate is stored, except what a materialised root's op saves for its
// VJPs when its value is computed (SavesForBackward: an einsum's intermediate products), and,
// for a node of one op, what one_op_saved keeps: its output's values where its VJP reads them, or the slope computed
// with them (sin, cos).
template <class E>
class fused_node final : public node<typename E::value_type> {
  using T = typename E::value_type;
  template <class L>
  using is_tensor_leaf = std::bool_constant<is_tensor_v<L>>;
  // Tensor leaf occurrences (numbers in the expression are not tensors: they need no entry).
  static constexpr std::size_t capacity = detail::count_types_if_v<leaf_types_t<E>, is_tensor_leaf>;
  static constexpr std::size_t grad_capacity = leaf_count<E, true>();  // ConstTensors never need an edge

 public:
  using leaf_list = fixed_list<tensor_impl<T>*, capacity>;
  using grad_leaf_list = fixed_list<tensor_impl<T>*, grad_capacity>;

  // One element-wise op on tensors and numbers (most nodes of a taped graph): flat_op runs it, not the sweep.
  static constexpr bool single_op = flat_op<E>::applies;

  // A sum or mean over all axes, or a linear root above such (-sum(f), sum(f) / n).
  static constexpr bool linear_root = LinearRoot<E>;
  // Whose value, when it is one element, may wait for backward, which computes it anyway: a linear root's sweep
  // reduces as it goes; an element-wise root's backward sweeps its chains forward before it reverses them, and
  // writes the value it passes. A one-op node is left out: its backward computes no value (flat_op), and a taped
  // graph's next node reads it at once.
  static constexpr bool deferrable = linear_root || (E::kind == node_kind::elementwise && !single_op);
  // A one-op node whose VJP reads the op's values keeps its output's storage (one_op_saved).
  static constexpr bool keeps_output = one_op_saved<E>::keeps_output;

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
    expression_graph g;
    add_expression(g);
    return g.text();
  }

  void add_expression(expression_graph& out) const override {
    if (this->released) return;
    const auto label = [this](const auto& leaf) { return this->leaf_name(leaf); };
    detail::add_vertices(expr_, label, out);
  }

  // A deferred value: computed later, so the leaves may have changed since recording.
  void compute_value(T* out) override {
    check_versions("its value");
    evaluate(out);
  }
  // The value, without the version check: for fused() at recording only, which read the
  // versions just now. Any later read goes through compute_value.
  void evaluate(T* out) {
    if constexpr (single_op)
      one_op_.evaluate(expr_, this->size, out);
    else
      evaluate_into(expr_, output_extents(), out, &saved_);
    if (anomaly_detection) [[unlikely]]
      check_finite(out, this->size, name() + " = " + expression() + " (forward)");
  }

  // Called once the output's values are computed, with their storage (see keeps_output).
  void keep_output(const ref<tensor_storage<T>>& values) noexcept requires keeps_output {
    one_op_.keep_output(values, this->size);
  }

  // A view's VJP reads no values: its source may change in place meanwhile (an optimiser step),
  // as PyTorch's ViewBackward allows. So may the operands of one op whose VJP reads no values (add, sub,
  // negation, sum, mean), whose PyTorch nodes save nothing for them; a deferred value still checks them
  // (compute_value), and an in-place write computes it first. A node of several ops recomputes their values
  // from every operand in backward, so it checks them all.
  static constexpr bool gradient_reads_operands = [] {
    if constexpr (operation_count<E>() == 1)
      return E::op::needs != vjp_needs::none;
    else
      return true;
  }();
  void check_runnable() const override {
    if constexpr (is_view_of_tensor<E>() || !gradient_reads_operands) {
      if (this->released) [[unlikely]]
        throw_freed();
    } else {
      check_versions("its gradient");
    }
  }

  // A tensor that is the operand of a materialised node (a matmul's, an einsum's) may take that node's VJP in place.
  // So may a one-op node over several values: flat_op writes each operand's gradient whole.
  [[nodiscard]] bool takes_unfilled_grads() const noexcept override {
    if constexpr (single_op)
      return flat_op<E>::takes_unfilled(this->size);
    else
      return has_leaf_operands_v<E>;
  }

  // The engine called check_runnable() first.
  void backward(const T* grad_output, std::span<T* const> input_grads, std::uint64_t unfilled, T* value_out) override {
    tensor_sinks<T> sinks{grad_inputs(), input_grads};
    if constexpr (has_leaf_operands_v<E>) {
      if (unfilled) sinks.take_unfilled(expr_, unfilled);
    }
    if constexpr (single_op) {
      flat_op<E>::backward(expr_, this->size, grad_output, sinks, one_op_.output(), unfilled,
                           one_op_.slope());  // never deferred
    } else if constexpr (linear_root) {
      // One value upstream of a linear root (a sum or mean, or linear ops above such): each chain
      // is swept once, forward and reverse in one loop. A loss's backward() starts from 1: as a
      // constant it folds into the chain's coefficients, as in the static layer. A run-time seed
      // holds one more vector register all through the loop, and where there are only 16 (AVX2)
      // that one can push the gradients' accumulators onto the stack.
      const T seed = grad_output[0];
      const T value = seed == T(1) ? sweep_linear_root<true>(sinks, seed) : sweep_linear_root<false>(sinks, seed);
      if (value_out) *value_out = value;
    } else if constexpr (E::kind == node_kind::materialized) {
      // A matmul, einsum, reduction over some axes ...: its VJPs read the upstream as it is, and
      // its value (in the output tensor already) is computed again only if they read it.
      sweep_back_from_root(expr_, output_extents(), sinks, grad_output, &saved_);
    } else {
      // The root's values pass by on the way: kept only for a deferred value (one element).
      const auto& extents = output_extents();
      const Eigen::Map<const array_t<T>> upstream(grad_output, static_cast<Eigen::Index>(this->size));
      sweep_back(expr_, extents, sinks, upstream, extents, store_values_if_asked<T>{value_out});
    }
  }

  void release_saved() noexcept override {
    value_settled();
    if (this->released) return;
    saved_ = {};
    one_op_.release();
    std::destroy_at(&expr_);
    read_count_ = 0;
    this->released = released_after_backward;  // the engine marks a node that threw released_after_failure
  }

  // A deferrable node may have been settled by an in-place write on another thread; the
  // lock orders that thread's work on the node before its destruction here.
  ~fused_node() override {
    if constexpr (deferrable) {
      if (ever_deferred_) {  // set before the node was shared, never again: no lock needed to read it
        const graph_lock lock;
        value_settled();
      }
    }
    if (!this->released) std::destroy_at(&expr_);
  }

  // Registers this node with the storages its deferred value reads (see tensor_storage), and
  // marks the output's value pending. Under graph_lock, like every settling of a deferred
  // value: an in-place write on another thread finds the node in a storage's list at once.
  void defer_value(tensor_impl<T>& result) {
    const graph_lock lock;
    result.value_pending.store(true, std::memory_order_relaxed);
    deferred_ = true;  // first: if a registration throws, value_settled() undoes the others
    ever_deferred_ = true;
    try {
      for (tensor_impl<T>* leaf : read()) leaf->storage->add_deferred_reader(this);
    } catch (...) {
      result.value_pending.store(false, std::memory_order_relaxed);
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
  // A linear root's sweep, a function of its own for each kind of seed: inlined into backward() beside the node's
  // other paths, the loop would share that function's registers, and g++ keeps some of its accumulators in memory
  // then (benchmarks/results/linear-roots.md, "R3 on the tape").
  template <bool SeedIsOne>
  [[gnu::noinline]] T sweep_linear_root(tensor_sinks<T>& sinks, T seed) requires linear_root {
    return reduce_and_sweep(expr_, sinks, SeedIsOne ? T(1) : seed);
  }

  template <class L>
  std::string leaf_name(const L& leaf) const {
    if constexpr (is_tensor_v<L>) {
      return leaf_name_of(leaf.impl());
    } else if constexpr (std::is_same_v<typename L::static_shape, Shape<>>) {
      return number_text(leaf.data()[0]);
    } else {
      return "const" + leaf.extents().to_string();
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
  [[noreturn, gnu::cold, gnu::noinline]] void throw_freed() const { throw freed_graph_error(name(), this->released); }
  // Names the tensor by the letter expression() gives it, and by the name the user gave it, if any.
  [[noreturn, gnu::cold, gnu::noinline]] void throw_modified(const tensor_impl<T>* leaf, std::uint32_t version,
                                                             const char* what) const {
    const std::string node = name() + " = " + expression();
    const std::string given = leaf->named.load(std::memory_order_relaxed) ? tensor_names::get(leaf) : std::string();
    const std::string tensor = given.empty() ? "'" + leaf_name_of(leaf) + "' of " + node
                                             : "'" + given + "' ('" + leaf_name_of(leaf) + "' in " + node + ")";
    throw graph_error("fusegrad: tensor " + tensor + " was modified in place after it was recorded (version " +
                      std::to_string(version) + ", now " + std::to_string(leaf->storage->version) + "); " + what +
                      " would be wrong. Modify a copy, or record the operation after the change");
  }

  // The letter expression() gives a tensor the node reads.
  [[nodiscard]] std::string leaf_name_of(const tensor_impl<T>* leaf) const {
    const auto reads = read();
    const auto k = static_cast<std::size_t>(std::find(reads.begin(), reads.end(), leaf) - reads.begin());
    return leaf_letter(k);
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
  // What the root's op saved for its VJPs when the value was computed; the first backward takes it.
  [[no_unique_address]] saved_by_root_t<E> saved_;
  bool deferred_ = false;       // registered as a deferred reader of the leaves' storages
  bool ever_deferred_ = false;  // whether defer_value() ran: only then may another thread settle the value
  [[no_unique_address]] one_op_saved<E> one_op_;
#if !defined(_MSC_VER)  // which ignores [[no_unique_address]]
  static_assert(one_op_saved<E>::keeps_output || one_op_saved<E>::keeps_slope || std::is_empty_v<one_op_saved<E>>,
                "fused_node: one_op_saved takes no bytes where it keeps nothing");
#endif
  // The output's extents, which the sweep of a node of several ops reads on every call. A
  // one-op node, most of a taped graph, needs them only to broadcast (flat_op finds them
  // then): a retained taped op is 80 bytes smaller.
  struct no_extents {};
  [[no_unique_address]] std::conditional_t<single_op, no_extents, Extents> extents_;
  [[nodiscard]] const Extents& output_extents() const requires(!single_op) { return extents_; }
};

}  // namespace fusegrad::detail
