// tape/basic_tensor.hpp -- BasicTensor (Tensor, FloatTensor): a value on the dynamic tape, PyTorch style.
//
// The class, with each member's contract. Members that make tensors are defined in tensor_factories.hpp, those that
// record or run backward in fused.hpp and tensor_backward.hpp, the in-place writes in tensor_in_place.hpp:
// tape/tensor.hpp includes them all.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <fusegrad/concepts.hpp>
#include <fusegrad/detail/always_false.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/shape/any_shape.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/resolve_axis.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/tensor_impl.hpp>
#include <fusegrad/tape/undefined_tensor.hpp>

namespace fusegrad {

/// Options of BasicTensor::backward: `loss.backward({.retain_graph = true})`.
struct BackwardOptions {
  bool retain_graph = false;  // keep what backward reads, so that it can run again
};

template <Scalar T>
class BasicTensor;

namespace detail {
// is_tensor_v<E>: E is a tensor handle: BasicTensor or a class derived from it (ScalarTensor,
// ConstTensor). One rule, so that a new subclass is a tensor without being registered.
template <class E>
inline constexpr bool is_tensor_v = false;
template <class E>
  requires Scalar<typename E::value_type>
inline constexpr bool is_tensor_v<E> = std::is_base_of_v<BasicTensor<typename E::value_type>, E>;

// tensor_data<D>: a std::vector, another range (but Extents) or an Eigen object handed to a Tensor's constructor, which
// takes none of them: the factories copy or borrow them.
template <class D>
concept tensor_data =
    !Differentiable<D> && !is_tensor_v<D> && !std::is_same_v<D, Extents> && (iterable<D> || eigen_object<D>);
}  // namespace detail

/// A tensor of the dynamic layer: a handle (copies share values, gradient and graph node)
/// to row-major values with a run-time shape of rank 0 to Extents::max_rank. Operations
/// on tensors build static expressions; assigning one to a Tensor records it on the tape
/// as ONE node whose backward is the fused static gradient (fusegrad::fused), or one node
/// per operation with fusegrad::taped. Only tensors that require grad, and what depends on
/// them, are recorded. Example: examples/demo.cpp.
template <Scalar T>
class BasicTensor {
 public:
  // As a leaf of static expressions:
  using value_type = T;
  using static_shape = AnyShape;
  static constexpr node_kind kind = node_kind::leaf;
  static constexpr bool takes_grad = true;  // decided per tensor at run time
  static constexpr bool is_handle = true;   // expressions hold it by value

  /// An undefined tensor (what grad() returns before any backward).
  BasicTensor() = default;

  /// Records an expression over tensors as one fused node (see fusegrad::fused).
  template <class E>
    requires(Differentiable<std::remove_cvref_t<E>> && !detail::is_tensor_v<std::remove_cvref_t<E>>)
  BasicTensor(E&& expr);  // NOLINT: implicit, so `Tensor loss = fg::mean(...)` reads naturally
  /// Data goes through a factory: one diagnostic that names them, where no constructor would match.
  template <class D>
    requires detail::tensor_data<std::remove_cvref_t<D>>
  explicit BasicTensor(D&&) {
    static_assert(detail::always_false<D>,
                  "fusegrad::Tensor: a tensor is not constructed from a std::vector, another range or an Eigen object; "
                  "copy the values: Tensor::from(v, {v.size()}), Tensor::from(eigen); or borrow them (no copy): "
                  "Tensor::from_blob(v.data(), {v.size()}) of a v that is not const");
  }

  // Factories (tape/tensor_factories.hpp).
  static BasicTensor zeros(const Extents& e);
  static BasicTensor ones(const Extents& e);
  static BasicTensor full(const Extents& e, T value);
  /// start, start + step, ... below stop.
  static BasicTensor arange(double start, double stop, double step = 1.0);
  static BasicTensor arange(double stop);
  /// `steps` values from start to end, both included, evenly spaced (PyTorch's linspace).
  static BasicTensor linspace(double start, double end, std::size_t steps);
  /// A new tensor of the same shape and scalar type, filled with zeros, ones, or `value`;
  /// it takes no gradient and shares nothing with `other`.
  static BasicTensor zeros_like(const BasicTensor& other);
  static BasicTensor ones_like(const BasicTensor& other);
  static BasicTensor full_like(const BasicTensor& other, T value);
  /// A copy of an Eigen object: a vector type gives rank 1, any other matrix or array rank 2,
  /// (rows, cols), stored row-major (eigen_extents: the rule Var and Const follow too).
  template <class Derived>
  static BasicTensor from(const Eigen::DenseBase<Derived>& eigen);
  /// A copy of an Eigen object's values, read in storage order, with the given extents.
  template <class Derived>
  static BasicTensor from(const Eigen::DenseBase<Derived>& eigen, const Extents& e);
  /// A copy of values listed row-major.
  static BasicTensor from(std::span<const T> values, const Extents& e);
  static BasicTensor from(const std::vector<T>& values, const Extents& e);
  static BasicTensor from(std::initializer_list<T> values, const Extents& e);
  /// A vector from its values in braces, as torch.tensor([1, 2, 3]): `Tensor::from({1.0, 2.0, 3.0})` has shape (3).
  /// Also a copy of a C array. Not for complex values, whose braces {re, im} would make {{1, 2}, {3, 4}} two values.
  template <std::size_t N>
  static BasicTensor from(const T (&values)[N]) requires std::floating_point<T>;
  /// A matrix from its rows in braces, as torch.tensor([[1, 2], [3, 4]]): `Tensor::from({{1.0, 2.0}, {3.0, 4.0}})` has
  /// shape (2, 2); the rows have one length. Not for complex values, which braces write as {re, im}.
  static BasicTensor from(std::initializer_list<std::initializer_list<T>> rows) requires std::floating_point<T>;
  /// A scalar tensor.
  static BasicTensor scalar(T value);
  /// A tensor over `e.size()` values at `data`, row-major, not copied (LibTorch's from_blob);
  /// the caller keeps them alive and must not change them while a recorded node still reads them.
  static BasicTensor from_blob(T* data, const Extents& e);
  /// Uniform values in [0, 1) from an explicit seed, by a generator fusegrad specifies
  /// (detail/random_numbers.hpp): the same values on every platform, unlike the standard
  /// library's distributions. Each is a multiple of 2^-p for T's p significand bits (24 for
  /// float), so none rounds up to 1.
  static BasicTensor rand(const Extents& e, std::uint64_t seed);
  /// Standard normal values from an explicit seed, by the same generator: the same values
  /// wherever log, sqrt, sin and cos round alike.
  static BasicTensor randn(const Extents& e, std::uint64_t seed);

  // Accessors.
  [[nodiscard]] bool defined() const noexcept { return bool(impl_); }
  [[nodiscard]] const Extents& shape() const { return checked().extents.get(); }
  [[nodiscard]] const Extents& extents() const { return checked().extents.get(); }
  [[nodiscard]] std::size_t dim() const { return checked().extents.rank(); }
  [[nodiscard]] std::size_t numel() const { return checked().extents.size(); }
  /// The value of a one-element tensor.
  [[nodiscard]] T item() const {
    if (numel() != 1)
      throw value_error("fusegrad::Tensor::item(): the tensor has shape " + shape().to_string() + " and " +
                        std::to_string(numel()) + " elements; item() needs exactly one (reduce it first)");
    return data()[0];
  }
  /// The element at `index` (one index per axis, negative ones counting from the end), read-only
  /// and outside the graph: `t.at({1, 2})`. Throws shape_error for a wrong count or a bad index.
  [[nodiscard]] T at(std::initializer_list<std::int64_t> index) const {
    const Extents& e = shape();
    if (index.size() != e.rank())
      throw shape_error("fusegrad::Tensor::at(): " + std::to_string(index.size()) + " indices for shape " +
                        e.to_string() + " of rank " + std::to_string(e.rank()) + "; give one per axis");
    std::size_t flat = 0, axis = 0;
    for (std::int64_t i : index) {
      flat = flat * e[axis] + detail::resolve_index(i, e[axis], axis, "fusegrad::Tensor::at()");
      ++axis;
    }
    return data()[flat];
  }
  /// Element i along axis 0, the axis removed, recorded (PyTorch's t[i]; tape/tensor_methods.hpp):
  /// a row of a matrix, an element of a vector. Negative i counts from the end.
  [[nodiscard]] BasicTensor operator[](std::int64_t i) const;
  /// A copy of the values, recorded: its gradient flows back to this tensor (PyTorch's clone).
  [[nodiscard]] BasicTensor clone() const;
  /// The tensor as scalar type U (float or double), recorded: its gradient is cast back
  /// (PyTorch's t.to(dtype); tape/cast.hpp). This tensor itself when it has type U already.
  template <Scalar U>
  [[nodiscard]] BasicTensor<U> to() const;
  /// The values, flat and row-major, read-only.
  [[nodiscard]] const T* data() const { return checked().data(); }
  [[nodiscard]] Eigen::Map<const detail::array_t<T>> eigen() const {
    return {data(), static_cast<Eigen::Index>(numel())};
  }
  /// A rank-2 tensor as a row-major Eigen matrix, read-only.
  [[nodiscard]] auto matrix() const {
    if (dim() != 2) throw shape_error("fusegrad::Tensor::matrix(): needs rank 2, the shape is " + shape().to_string());
    using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    return Eigen::Map<const M>(data(), static_cast<Eigen::Index>(shape()[0]), static_cast<Eigen::Index>(shape()[1]));
  }
  /// Writable values. Counts as an in-place write when called: nodes that saved this tensor
  /// until then will refuse to run backward. Write through the map at once and drop it: writes
  /// through a map kept past the recording of an op are not seen (as PyTorch's .numpy() view).
  /// (These members: tape/tensor_in_place.hpp.)
  [[nodiscard]] Eigen::Map<detail::array_t<T>> mutable_eigen();
  /// In-place updates, as optimisers make them (inside a NoGradGuard for parameters). `other` broadcasts to this
  /// tensor's shape, which stays as it is (PyTorch's add_ and sub_).
  BasicTensor& sub_(const BasicTensor& other, T alpha = T(1));
  BasicTensor& add_(const BasicTensor& other, T alpha = T(1));
  BasicTensor& mul_(T factor);
  BasicTensor& fill_(T value);

  // Autograd.
  [[nodiscard]] bool requires_grad() const { return checked().requires_grad; }
  /// Marks a leaf as a parameter whose gradient backward accumulates. On a computed tensor, which requires grad,
  /// requires_grad_(true) changes nothing and requires_grad_(false) throws, as in PyTorch.
  BasicTensor& requires_grad_(bool on = true) {
    if (!is_leaf()) {
      if (on) return *this;
      throw graph_error(
          "fusegrad::Tensor::requires_grad_(false): only leaves can change requires_grad; call detach() "
          "to get a leaf from a computed tensor");
    }
    if (on != impl_->counted_grad_leaf) on ? impl_->storage->join_grad_leaf() : impl_->storage->leave_grad_leaf();
    impl_->counted_grad_leaf = on;
    impl_->requires_grad = on;
    return *this;
  }
  /// The gradient accumulated by backward (an undefined tensor before the first one).
  [[nodiscard]] BasicTensor grad() const {
    if (!checked().grad) return {};
    return BasicTensor(detail::ref<impl_type>::make(impl_->extents, impl_->grad));
  }
  /// Forgets the accumulated gradient.
  void zero_grad() { checked().grad = {}; }
  [[nodiscard]] bool is_leaf() const { return !checked().grad_fn; }
  /// The same values (shared, not copied) as a leaf that does not require grad.
  [[nodiscard]] BasicTensor detach() const {
    checked().data();
    return BasicTensor(detail::ref<impl_type>::make(impl_->extents, impl_->storage));
  }
  /// Keeps the gradient of a non-leaf tensor too, in grad(), after backward. A tensor that does not require grad
  /// throws, as in PyTorch: no backward reaches it.
  BasicTensor& retain_grad() {
    if (!checked().requires_grad)
      throw graph_error(
          "fusegrad::Tensor::retain_grad(): this tensor does not require grad, so no backward reaches it; call "
          "requires_grad_() first on it (a leaf) or on a leaf it is computed from");
    impl_->retains_grad = true;
    return *this;
  }
  /// Names the tensor (this handle and every copy of it) in pictures of its graphs (fg::to_dot),
  /// as torchviz names parameters: `w.name("w")`. A detached tensor or a result has no name of its own.
  BasicTensor& name(std::string name) {
    detail::tensor_names::set(&checked(), std::move(name));
    impl_->named.store(true, std::memory_order_relaxed);
    return *this;
  }
  /// The name given with name(std::string); empty when none was.
  [[nodiscard]] std::string name() const {
    return checked().named.load(std::memory_order_relaxed) ? detail::tensor_names::get(impl_.get()) : std::string();
  }
  /// "MulBackward", "FusedBackward" ...; empty for leaves.
  [[nodiscard]] std::string grad_fn_name() const { return checked().grad_fn ? impl_->grad_fn->name() : std::string(); }

  /// Backpropagates from this scalar tensor: accumulates d(this)/d(leaf) into every leaf
  /// that requires grad. Frees what it traversed unless retain_graph is set.
  void backward(BackwardOptions options = {}) const;
  /// Backpropagates `gradient` (shaped like this tensor), as for a non-scalar output.
  void backward(const BasicTensor& gradient, BackwardOptions options = {}) const;

  // For the dynamic layer's own machinery.
  using impl_type = detail::tensor_impl<T>;
  using storage_type = detail::tensor_storage<T>;
  explicit BasicTensor(detail::ref<impl_type> impl) noexcept : impl_(std::move(impl)) {}
  [[nodiscard]] impl_type* impl() const noexcept { return impl_.get(); }
  static BasicTensor empty(const Extents& e) {
    return BasicTensor(detail::ref<impl_type>::make(e, storage_type::owning(e.size())));
  }

 private:
  impl_type& checked() const {
    if (!impl_) [[unlikely]]
      throw_undefined();
    return *impl_;
  }
  [[noreturn]] static void throw_undefined() {
    throw value_error(std::string("fusegrad::Tensor: this tensor is undefined (") + detail::undefined_tensor_causes +
                      "); assign it a tensor first, or test defined()");
  }
  // The rules of in-place writes (tape/tensor_in_place.hpp); errors name `what`, the member called.
  Eigen::Map<detail::array_t<T>> written_in_place(const char* what);
  void check_in_place(const char* what) const;
  void check_operand_in_place(const BasicTensor& other, const char* what) const;
  template <class Update>
  void update_with(const BasicTensor& other, const char* what, Update update);
  static void check_count(std::size_t n, const Extents& e, const char* what) {
    if (n != e.size())
      throw shape_error(std::string(what) + ": " + std::to_string(n) + " values given for shape " + e.to_string() +
                        ", which holds " + std::to_string(e.size()) + "; give extents whose product is " +
                        std::to_string(n) + ", or as many values as the shape holds");
  }
  template <class F>
  static BasicTensor generate(const Extents& e, F&& next) {
    BasicTensor t = empty(e);
    for (std::size_t i = 0; i < e.size(); ++i) t.impl_->storage->data[i] = next();
    return t;
  }

  detail::ref<impl_type> impl_;
};

/// The tensor of doubles, the default.
using Tensor = BasicTensor<double>;
/// The tensor of floats.
using FloatTensor = BasicTensor<float>;

}  // namespace fusegrad
