// ops/matmul.hpp -- matrix products as NumPy's matmul: vectors, matrices and batches of them, through Eigen's GEMM.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <fusegrad/detail/make_node.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/ops/clone.hpp>
#include <fusegrad/ops/matrix_view.hpp>
#include <fusegrad/shape/broadcast_rule.hpp>

namespace fusegrad {

namespace detail {

// NumPy's (and PyTorch's) matmul rule, for static shapes and run-time extents alike: a vector
// a (k) is taken as the matrix (1, k) and b (k) as (k, 1), and the added axis is removed from
// the result; axes before the last two are batch axes, which broadcast. So (k)x(k) is a dot
// product (), (m,k)x(k) is (m), (k)x(k,n) is (n), and (B,m,k)x(k,n) is (B,m,n).
struct matmul_layout {
  enum class problem { none, scalar_operand, inner_extents, batch_extents };
  problem error = problem::none;
  std::size_t m = 1, k = 1, n = 1;  // dyn where a static extent is unknown
  std::array<std::size_t, Extents::max_rank> batch{};
  std::size_t batch_rank = 0;
  std::array<std::size_t, Extents::max_rank> result{};
  std::size_t result_rank = 0;

  // How many matrix products the batch holds.
  [[nodiscard]] constexpr std::size_t products() const noexcept {
    std::size_t count = 1;
    for (std::size_t axis = 0; axis < batch_rank; ++axis) count *= batch[axis];
    return count;
  }
};

constexpr matmul_layout matmul_rule(std::span<const std::size_t> a, std::span<const std::size_t> b) {
  matmul_layout out;
  if (a.empty() || b.empty()) {
    out.error = matmul_layout::problem::scalar_operand;
    return out;
  }
  const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
  out.m = a_vector ? 1 : a[a.size() - 2];
  out.k = a[a.size() - 1];
  const std::size_t b_rows = b_vector ? b[0] : b[b.size() - 2];
  out.n = b_vector ? 1 : b[b.size() - 1];
  if (out.k != b_rows && out.k != dyn && b_rows != dyn) {
    out.error = matmul_layout::problem::inner_extents;
    return out;
  }
  if (out.k == dyn) out.k = b_rows;
  const auto a_batch = a.first(a_vector ? 0 : a.size() - 2), b_batch = b.first(b_vector ? 0 : b.size() - 2);
  out.batch_rank = std::max(a_batch.size(), b_batch.size());
  if (broadcast_into(a_batch, b_batch, std::span<std::size_t>(out.batch.data(), out.batch_rank)) != no_axis) {
    out.error = matmul_layout::problem::batch_extents;
    return out;
  }
  for (std::size_t i = 0; i < out.batch_rank; ++i) out.result[out.result_rank++] = out.batch[i];
  if (!a_vector) out.result[out.result_rank++] = out.m;
  if (!b_vector) out.result[out.result_rank++] = out.n;
  return out;
}

// Never defined: the diagnostics of matmul's static shapes (shape.hpp: how a shape rule reports).
template <class A, class B, fixed_text Shapes>
struct matmul_inner_extents_differ;
template <class A, class B, fixed_text Shapes>
struct matmul_batch_extents_do_not_broadcast;
template <class A, class B, fixed_text Shapes>
struct matmul_of_a_scalar;

template <class A, class B>
struct matmul_shape {
  using type = AnyShape;
};
template <ShapeType A, ShapeType B>
struct matmul_shape<A, B> {
  static constexpr matmul_layout layout =
      matmul_rule(std::span<const std::size_t>(A::extents), std::span<const std::size_t>(B::extents));
  template <std::size_t... I>
  static Shape<layout.result[I]...> result(std::index_sequence<I...>);
  struct ok {
    using type = decltype(result(std::make_index_sequence<layout.result_rank>{}));
  };
  struct failed {
    using failure =
        std::conditional_t<layout.error == matmul_layout::problem::inner_extents,
                           matmul_inner_extents_differ<A, B, shapes_text<A, B>>,
                           std::conditional_t<layout.error == matmul_layout::problem::batch_extents,
                                              matmul_batch_extents_do_not_broadcast<A, B, shapes_text<A, B>>,
                                              matmul_of_a_scalar<A, B, shapes_text<A, B>>>>;
    enum : std::size_t { report = sizeof(failure) };  // a is (..., m, k), b must be (..., k, n)
    using type = AnyShape;                            // after the one error, a shape, so that nothing else fails
  };
  using type = typename std::conditional_t<layout.error == matmul_layout::problem::none, ok, failed>::type;
};

// The run-time layout, checked.
inline matmul_layout checked_matmul_layout(const Extents& a, const Extents& b) {
  const matmul_layout layout = matmul_rule(a.axes(), b.axes());
  const auto fail = [&](const std::string& why) {
    throw shape_error("fusegrad::matmul(a, b): " + why + ", " + a.to_string() + " x " + b.to_string() +
                      "; a must be (..., m, k) or (k), b (..., k, n) or (k)");
  };
  switch (layout.error) {
    case matmul_layout::problem::scalar_operand:
      fail("an operand is a scalar");
      break;
    case matmul_layout::problem::inner_extents:
      fail("inner extents differ");
      break;
    case matmul_layout::problem::batch_extents:
      fail("batch extents do not broadcast");
      break;
    case matmul_layout::problem::none:
      break;
  }
  return layout;
}

// Calls block(result_offset, a_offset, b_offset) for every matrix product of the batch: the
// offsets, in elements, of the (m,n), (m,k) and (k,n) blocks; an operand broadcast over a
// batch axis keeps its offset along it.
template <class Block>
void for_each_matmul_block(const matmul_layout& layout, const Extents& a, const Extents& b, Block&& block) {
  const std::size_t a_batch_rank = a.rank() <= 2 ? 0 : a.rank() - 2, b_batch_rank = b.rank() <= 2 ? 0 : b.rank() - 2;
  std::array<std::size_t, Extents::max_rank> a_stride{}, b_stride{}, index{};
  std::size_t a_step = layout.m * layout.k, b_step = layout.k * layout.n;
  for (std::size_t axis = layout.batch_rank; axis-- > 0;) {
    const std::size_t extent = layout.batch[axis];
    const std::size_t a_axis_extent = aligned_extent(a.axes().first(a_batch_rank), layout.batch_rank, axis);
    const std::size_t b_axis_extent = aligned_extent(b.axes().first(b_batch_rank), layout.batch_rank, axis);
    a_stride[axis] = a_axis_extent == 1 && extent != 1 ? 0 : a_step;
    b_stride[axis] = b_axis_extent == 1 && extent != 1 ? 0 : b_step;
    a_step *= a_axis_extent;
    b_step *= b_axis_extent;
  }
  const std::size_t count = layout.products();
  std::size_t a_offset = 0, b_offset = 0;
  for (std::size_t product = 0; product < count; ++product) {
    block(product * layout.m * layout.n, a_offset, b_offset);
    for (std::size_t axis = layout.batch_rank; axis-- > 0;) {  // the odometer over batch axes
      a_offset += a_stride[axis];
      b_offset += b_stride[axis];
      if (++index[axis] < layout.batch[axis]) break;
      a_offset -= a_stride[axis] * index[axis];
      b_offset -= b_stride[axis] * index[axis];
      index[axis] = 0;
    }
  }
}

}  // namespace detail

/// The matrix product, as NumPy's and PyTorch's matmul: (m,k)x(k,n) -> (m,n) through Eigen's
/// GEMM; a vector operand is a row (left) or column (right) whose axis the result drops, so
/// (k)x(k) is the dot product; axes before the last two are batches, broadcast.
///   value: Y = A B for each pair of matrices of the batch
///   vjp:   dA = dY B^T, dB = A^T dY, each summed over the batch axes its operand was broadcast along
struct matmul_op {
  static constexpr std::string_view name = "matmul";
  static constexpr std::string_view backward_name = "MmBackward";
  static constexpr vjp_needs needs = vjp_needs::input;
  static constexpr std::size_t arity = 2;

  template <ShapeLike A, ShapeLike B>
  using result_shape = typename detail::matmul_shape<A, B>::type;

  static Extents result_extents(const Extents& a, const Extents& b) {
    const detail::matmul_layout layout = detail::checked_matmul_layout(a, b);
    return Extents(std::span<const std::size_t>(layout.result.data(), layout.result_rank));
  }

  template <class T>
  static void value(T* y, const operands<T, 2>& in) {
    const detail::matmul_layout layout = detail::checked_matmul_layout(in.extents[0], in.extents[1]);
    detail::for_each_matmul_block(layout, in.extents[0], in.extents[1],
                                  [&](std::size_t out, std::size_t a, std::size_t b) {
                                    detail::matrix_view(y + out, layout.m, layout.n).noalias() =
                                        detail::matrix_view(in.values[0] + a, layout.m, layout.k) *
                                        detail::matrix_view(in.values[1] + b, layout.k, layout.n);
                                  });
  }
  template <std::size_t I, class T>
  static void vjp(T* dx, const T* dy, const operands<T, 2>& in, const T* /*y*/) {
    const detail::matmul_layout layout = detail::checked_matmul_layout(in.extents[0], in.extents[1]);
    // Each block of the operand's gradient is written by one product, or, where the operand
    // was broadcast over a batch axis, summed over several.
    const std::size_t block = I == 0 ? layout.m * layout.k : layout.k * layout.n;
    const bool summed = block != 0 && in.extents[I].size() / block != layout.products();
    if (summed) std::fill(dx, dx + in.extents[I].size(), T(0));
    detail::for_each_matmul_block(
        layout, in.extents[0], in.extents[1], [&](std::size_t out, std::size_t a, std::size_t b) {
          const auto g = detail::matrix_view(dy + out, layout.m, layout.n);
          if constexpr (I == 0) {
            auto da = detail::matrix_view(dx + a, layout.m, layout.k);
            const auto product = g * detail::matrix_view(in.values[1] + b, layout.k, layout.n).transpose();
            if (summed)
              da.noalias() += product;
            else
              da.noalias() = product;
          } else {
            auto db = detail::matrix_view(dx + b, layout.k, layout.n);
            const auto product = detail::matrix_view(in.values[0] + a, layout.m, layout.k).transpose() * g;
            if (summed)
              db.noalias() += product;
            else
              db.noalias() = product;
          }
        });
  }
};

/// Matrix product: `fg::matmul(W, X)` for W (m,k) and X (k,n); W (m,k) and a vector v (k) give
/// (m); vectors u, v (k) give their dot product, a scalar; (B,m,k) and (k,n) give (B,m,n).
template <Differentiable A, Differentiable B>
[[nodiscard]] constexpr auto matmul(A&& a, B&& b) {
  return detail::make_materialized<matmul_op>(std::forward<A>(a), std::forward<B>(b));
}

/// A number or data where matmul takes an expression (`fg::matmul(x, 2.0)`, `fg::matmul(x, eigen_matrix)`): one error
/// that says what to write instead, where no overload would match and the compiler would list every candidate. By
/// const reference: a program's own matmul of these types is the better match and keeps its calls.
template <class A, class B>
  requires detail::expressions_with_number_or_data<A, B>
[[nodiscard]] auto matmul(const A& /*a*/, const B& /*b*/) {
  static_assert(!Number<A> && !Number<B>,
                "fusegrad::matmul(a, b): an operand is a number, which has no axis to contract; scale by it with *: "
                "x * 2.0");
  if constexpr (!Number<A> && !Number<B>) detail::first_data_is_not_an_expression<A, B>();
  return clone(detail::placeholder_beside<A, B>());  // a node, as a product is, that a Tensor records
}

}  // namespace fusegrad
