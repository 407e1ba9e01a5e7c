// ops/einsum.hpp -- einsum: subscripts checked at compile time or at run time, contractions on GEMM, and the
// vector-Jacobian product of every operand.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fusegrad/detail/einsum_backward.hpp>
#include <fusegrad/detail/einsum_engine.hpp>
#include <fusegrad/detail/einsum_label_extents.hpp>
#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/clone.hpp>
#include <fusegrad/shape/einsum_binding.hpp>
#include <fusegrad/shape/einsum_subscripts.hpp>

namespace fusegrad {

namespace detail {
// Never defined: the diagnostic of a static einsum (shape.hpp: how a shape rule reports). Its
// argument is the whole message: einsum("ij,jk->ik"): label j is 3 in operand 0 and 4 in operand 1.
template <fixed_text Message>
struct einsum_error;
// The same for clang, which prints a text argument as its first ten character codes but a pack of characters whole:
// einsum_error_characters<'e', 'i', 'n', 's', 'u', 'm', ...>.
template <char... Message>
struct einsum_error_characters;

template <ShapeLike S>
constexpr einsum_operand_shape einsum_shape_of() {
  einsum_operand_shape shape;
  if constexpr (std::same_as<S, AnyShape>) {
    shape.rank_known = false;
  } else {
    shape.rank = S::rank;
    for (std::size_t a = 0; a < S::rank; ++a) shape.extents[a] = S::extents[a];
  }
  return shape;
}

// Subscripts given as a template argument: parsed, bound to the operands' static shapes, and
// every mistake reported, at compile time.
template <fixed_string Text, ShapeLike... Ss>
struct static_einsum {
  static constexpr std::size_t n = sizeof...(Ss);
  static constexpr std::array<einsum_operand_shape, n> shapes{einsum_shape_of<Ss>()...};
  static constexpr einsum_binding<n> bind() {
    const einsum_parsed<n> parsed = parse_einsum<n>(Text.view());
    if (!parsed.error.empty()) {
      einsum_binding<n> failed;
      failed.error = parsed.error;
      return failed;
    }
    return bind_einsum<n>(Text.view(), parsed, std::span<const einsum_operand_shape, n>(shapes));
  }
  static constexpr std::size_t message_length = bind().error.size();
  static constexpr bool rank_known = bind().output_rank_known;
  static constexpr std::size_t rank = bind().output_rank;
  static constexpr auto extents = [] {
    std::array<std::size_t, rank> e{};
    const einsum_binding<n> b = bind();
    for (std::size_t a = 0; a < rank; ++a) e[a] = b.extent[b.output[a]];
    return e;
  }();
  struct ok {
    using type = std::conditional_t<rank_known, shape_from_array<extents>, AnyShape>;
  };
  template <class Characters = std::make_index_sequence<message_length>>
  struct failed;
  template <std::size_t... I>
  struct failed<std::index_sequence<I...>> {
    static constexpr auto message = [] {
      fixed_text<message_length + 1> text{};
      const message_text m = bind().error;
      for (std::size_t k = 0; k < message_length; ++k) text.chars[k] = m.view()[k];
      return text;
    }();
    // clang-format 14 would write the first enum's braces as an initializer's.
    // clang-format off
#if defined(__clang__)
    enum : std::size_t { report = sizeof(einsum_error_characters<message.chars[I]...>) };
#else
    enum : std::size_t { report = sizeof(einsum_error<message>) };
#endif
    // clang-format on
    using type = AnyShape;  // after the one error, a shape, so that nothing else fails
  };
  using shape = typename std::conditional_t<message_length == 0, ok, failed<>>::type;
};

// The subscripts of an einsum_op: a template argument, parsed at compile time...
template <fixed_string Text, std::size_t N>
struct einsum_static_text {
  [[nodiscard]] static constexpr std::string_view text() { return Text.view(); }
  static constexpr einsum_subscripts<N> subscripts_ = [] {
    return static_cast<einsum_subscripts<N>>(parse_einsum<N>(Text.view()));
  }();
  [[nodiscard]] static constexpr const einsum_subscripts<N>& subscripts() { return subscripts_; }
  template <ShapeLike... Ss>
  using shape = typename static_einsum<Text, Ss...>::shape;
};
// ... or a run-time string, parsed when the op is made (throwing value_error).
template <std::size_t N>
struct einsum_runtime_text {
  std::string text_;
  einsum_subscripts<N> subscripts_;
  // Default-constructible as every op spec is (std::tuple asks, for the expression that holds it);
  // an einsum is made from its subscripts.
  einsum_runtime_text() = default;
  explicit einsum_runtime_text(std::string_view text) : text_(text) {
    einsum_parsed<N> parsed = parse_einsum<N>(text);
    if (!parsed.error.empty()) throw value_error("fusegrad::" + parsed.error.str());
    subscripts_ = parsed;
  }
  [[nodiscard]] std::string_view text() const { return text_; }
  [[nodiscard]] const einsum_subscripts<N>& subscripts() const { return subscripts_; }
  template <ShapeLike... Ss>
  using shape = AnyShape;
};
}  // namespace detail

/// einsum over N operands, NumPy's and PyTorch's: `"ij,jk->ik"` is a matrix product, `"ii->i"`
/// a diagonal, `"ii"` a trace, `"bij,bjk->bik"` a batched product, `"...ij->...ji"` a transpose of
/// the last two axes. Without "->", the output holds the "..." axes, then the labels seen once in
/// ASCII order. A label's extents agree across operands or are 1 (broadcast, as in PyTorch);
/// repeated in one operand they are equal. Operands are contracted pairwise on Eigen's GEMM, in
/// the order of least cost (detail/einsum_engine.hpp, detail/einsum_backward.hpp).
///   value: y = sum over the labels not in the output of the product of the operands
///   vjp:   dx_k = the einsum of dy and the other operands onto x_k's labels: broadcast along
///          labels only x_k has, written along the diagonal where x_k repeats a label, summed
///          over its broadcast axes; with three operands or more, all of them at once, backward
///          through the pairwise contractions, which share their intermediate products
template <std::size_t N, class Text>
struct einsum_op : Text {
  static constexpr std::string_view name = "einsum";
  static constexpr std::string_view backward_name = "EinsumBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static constexpr std::size_t arity = N;
  static_assert(N <= detail::max_einsum_operands,
                "fusegrad::einsum takes at most 64 operands (its planner knows them as the bits of a word)");

  template <ShapeLike... Ss>
  using result_shape = typename Text::template shape<Ss...>;

  using Text::Text;
  einsum_op() = default;

  template <class... E>
  [[nodiscard]] Extents result_extents(const E&... e) const {
    std::optional<detail::einsum_binding<N>> own;
    const detail::einsum_binding<N>& b = bind_into(own, std::array<Extents, N>{e...});
    std::array<std::size_t, Extents::max_rank> out{};
    for (std::size_t a = 0; a < b.output_rank; ++a) out[a] = b.extent[b.output[a]];
    return Extents(std::span<const std::size_t>(out.data(), b.output_rank));
  }

  // What the forward evaluation keeps for the joint VJP (SavesForBackward): the subscripts bound to the operands'
  // extents and, with three operands or more, the terms, plan and intermediate products.
  template <class T>
  struct saved_type : detail::einsum_saved<T> {
    std::optional<detail::einsum_binding<N>> binding;
  };

  template <class T>
  void value(T* y, const operands<T, N>& in, saved_type<T>* saved = nullptr) const {
    std::optional<detail::einsum_binding<N>> own;
    const detail::einsum_binding<N>& b = bind_into(saved ? saved->binding : own, in.extents);
    const auto inputs = inputs_of(b, in);
    detail::einsum_evaluate<T>(std::span<const detail::einsum_input<T>>(inputs),
                               std::span<const detail::einsum_label>(b.output.data(), b.output_rank), b.extent, y,
                               N >= 3 ? saved : nullptr);  // with one or two operands, no product is intermediate
  }

  template <std::size_t I, class T>
  void vjp(T* dx, const T* dy, const operands<T, N>& in, const T* /*y*/) const {
    std::optional<detail::einsum_binding<N>> own;
    operand_vjp<I>(bind_into(own, in.extents), dx, dy, in);
  }

  // Every operand's gradient at once (JointVjp): with three operands or more, backward through the pairwise
  // contractions, which the operands' gradients share, reading those the forward evaluation kept in `saved`; with
  // one or two, each operand's vjp. Either way with the binding the forward evaluation kept, if it did.
  template <class T>
  void vjp_all(const std::array<T*, N>& dx, const T* dy, const operands<T, N>& in, const T* /*y*/,
               saved_type<T>* saved = nullptr) const {
    std::optional<detail::einsum_binding<N>> own;
    const detail::einsum_binding<N>& b = saved && saved->binding ? *saved->binding : bind_into(own, in.extents);
    if constexpr (N < 3) {
      [&]<std::size_t... I>(std::index_sequence<I...>) { ((dx[I] ? operand_vjp<I>(b, dx[I], dy, in) : void()), ...); }
      (std::make_index_sequence<N>{});
    } else {
      const auto inputs = inputs_of(b, in);
      detail::einsum_backward<T>(std::span<const detail::einsum_input<T>>(inputs),
                                 std::span<const detail::einsum_label>(b.output.data(), b.output_rank), b.extent, dy,
                                 std::span<T* const>(dx), saved);
    }
  }

 private:
  // The gradient of operand I: the einsum of dy with the other operands onto its term.
  template <std::size_t I, class T>
  void operand_vjp(const detail::einsum_binding<N>& b, T* dx, const T* dy, const operands<T, N>& in) const {
    const auto all = inputs_of(b, in);
    std::array<std::size_t, Extents::max_rank> output_extents{};
    for (std::size_t a = 0; a < b.output_rank; ++a) output_extents[a] = b.extent[b.output[a]];
    std::array<detail::einsum_input<T>, N> inputs;  // dy, then every operand but I
    inputs[0] = {dy, std::span<const detail::einsum_label>(b.output.data(), b.output_rank),
                 std::span<const std::size_t>(output_extents.data(), b.output_rank)};
    for (std::size_t k = 0, next = 1; k < N; ++k)
      if (k != I) inputs[next++] = all[k];
    const detail::einsum_label_extents extents(b.extent);
    detail::einsum_term_values<T> g;
    g.labels = extents.gradient_labels(all[I]);
    T* target = dx;  // when the term's labels are the operand's axes as they are
    if (!std::ranges::equal(g.labels, all[I].labels)) {
      g.owned.resize(extents.size_of(detail::labels_to_set(g.labels)));
      target = g.owned.data();
    }
    detail::einsum_evaluate<T>(std::span<const detail::einsum_input<T>>(inputs), g.labels, b.extent, target);
    g.data = target;
    extents.scatter_gradient(all[I], g, dx);
  }

  // The subscripts bound to run-time extents, made in `slot` (a binding is about a kilobyte: not copied); throws
  // shape_error for extents that do not fit.
  const detail::einsum_binding<N>& bind_into(std::optional<detail::einsum_binding<N>>& slot,
                                             const std::array<Extents, N>& extents) const {
    std::array<detail::einsum_operand_shape, N> shapes{};
    for (std::size_t k = 0; k < N; ++k) {
      shapes[k].rank = extents[k].rank();
      for (std::size_t a = 0; a < extents[k].rank(); ++a) shapes[k].extents[a] = extents[k][a];
    }
    detail::einsum_binding<N>& b = slot.emplace();
    detail::bind_einsum_into<N>(b, this->text(), this->subscripts(),
                                std::span<const detail::einsum_operand_shape, N>(shapes));
    if (!b.error.empty()) {
      const std::string message = "fusegrad::" + b.error.str();
      slot.reset();
      throw shape_error(message);
    }
    return b;
  }
  template <class T>
  static std::array<detail::einsum_input<T>, N> inputs_of(const detail::einsum_binding<N>& b,
                                                          const operands<T, N>& in) {
    std::array<detail::einsum_input<T>, N> inputs;
    for (std::size_t k = 0; k < N; ++k)
      inputs[k] = {in.values[k], std::span<const detail::einsum_label>(b.axis_labels[k].data(), b.ranks[k]),
                   in.extents[k].axes()};
    return inputs;
  }
};

/// einsum with the subscripts checked at compile time: `fg::einsum<"ij,jk->ik">(a, b)`. The
/// result's static shape follows from the operands' (dyn where an extent is known at run
/// time only); malformed subscripts, a wrong operand count, ranks or static extents that do not
/// fit are one compile error whose text says what is wrong.
template <fixed_string Subscripts, Differentiable... Xs>
  requires(sizeof...(Xs) >= 1)
[[nodiscard]] auto einsum(Xs&&... xs) {
  using op = einsum_op<sizeof...(Xs), detail::einsum_static_text<Subscripts, sizeof...(Xs)>>;
  return detail::make_materialized_with(op{}, std::forward<Xs>(xs)...);
}

/// einsum with the subscripts given at run time: `fg::einsum("ij,jk->ik", a, b)`, for tensors
/// above all. Throws value_error for malformed subscripts or a wrong operand count, and
/// shape_error (when the extents are known) for ranks or extents that do not fit, quoting the
/// subscripts and naming the label.
template <Differentiable... Xs>
  requires(sizeof...(Xs) >= 1)
[[nodiscard]] auto einsum(std::string_view subscripts, Xs&&... xs) {
  using op = einsum_op<sizeof...(Xs), detail::einsum_runtime_text<sizeof...(Xs)>>;
  return detail::make_materialized_with(op(subscripts), std::forward<Xs>(xs)...);
}

namespace detail {
// The error of a number or data among einsum's operands, either overload (see below), and the result after it.
template <class... Xs>
auto einsum_of_number_or_data() {
  static_assert(!(Number<Xs> || ...),
                "fusegrad::einsum: an operand is a number, not an expression; leave it out of the subscripts and "
                "multiply the result by it: fg::einsum<\"ij,jk->ik\">(a, b) * 2.0");
  if constexpr (!(Number<Xs> || ...)) first_data_is_not_an_expression<Xs...>();
  return clone(placeholder_beside<Xs...>());  // a node, as einsum's is, that a Tensor records
}
}  // namespace detail

/// A number or data where einsum takes an expression (`fg::einsum<"ij,->ij">(a, 2.0)`, an Eigen matrix as an
/// operand): one error that says what to write instead, where no overload would match and the compiler would list
/// every candidate, for either way of giving the subscripts.
template <fixed_string Subscripts, class... Xs>
  requires detail::expressions_with_number_or_data<Xs...>
[[nodiscard]] auto einsum(const Xs&... /*xs*/) { return detail::einsum_of_number_or_data<Xs...>(); }
template <class... Xs>
  requires detail::expressions_with_number_or_data<Xs...>
[[nodiscard]] auto einsum(std::string_view /*subscripts*/, const Xs&... /*xs*/) {
  return detail::einsum_of_number_or_data<Xs...>();
}

}  // namespace fusegrad
