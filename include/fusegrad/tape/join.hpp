// tape/join.hpp -- cat and stack of any number of tensors (one CatBackward node), split and chunk (slices).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <fusegrad/error.hpp>
#include <fusegrad/ops/cat.hpp>
#include <fusegrad/ops/reshape.hpp>
#include <fusegrad/ops/slice.hpp>
#include <fusegrad/tape/basic_tensor.hpp>
#include <fusegrad/tape/fused.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/record_node.hpp>
#include <fusegrad/tape/undefined_tensor.hpp>

namespace fusegrad {

namespace detail {
// An undefined tensor in the list of cat or stack (`who`), at index k: what it is and what to do.
[[noreturn]] inline void report_undefined_part(const char* who, std::size_t k) {
  throw value_error(std::string(who) + ": tensor " + std::to_string(k) + " of the list is undefined (" +
                    undefined_tensor_causes + "); give it values first, fg::Tensor::zeros(...) or from(...)");
}

// The recorded cat of a list of tensors: as many inputs as the list holds, which a static
// expression (a fixed arity) cannot have. Its value and VJP are cat_op's.
template <Scalar T>
class cat_node final : public node<T> {
 public:
  cat_node(std::span<const BasicTensor<T>> parts, std::int64_t axis, std::size_t output_size) : axis_(axis) {
    this->size = output_size;
    std::unordered_map<tensor_impl<T>*, std::ptrdiff_t> edge_of_tensor;  // the same tensor twice: one edge
    for (const BasicTensor<T>& p : parts) {
      tensor_impl<T>* impl = p.impl();
      extents_.push_back(impl->extents.get());
      std::ptrdiff_t edge = -1;
      if (impl->requires_grad) {
        const auto [at, added] = edge_of_tensor.emplace(impl, std::ptrdiff_t(inputs_.size()));
        if (added) inputs_.push_back(ref<tensor_impl<T>>(impl));
        edge = at->second;
      }
      edge_of_part_.push_back(edge);
    }
    for (const auto& input : inputs_) edges_.push_back({input->grad_fn, input.get()});
    this->input_edges = edges_.data();
    this->input_count = static_cast<std::uint32_t>(edges_.size());
  }

  [[nodiscard]] std::string name() const override { return "CatBackward"; }
  [[nodiscard]] std::string expression() const override {
    return "cat(" + std::to_string(extents_.size()) + " tensors, " + std::to_string(axis_) + ")";
  }
  [[nodiscard]] std::string_view non_analytic_op() const noexcept override { return {}; }
  // The value is computed at recording (tape/join.hpp), never deferred.
  void compute_value(T* /*out*/) override {}
  void settle_value() override {}
  // The VJP reads no values: an input changed in place since does not change it.
  void check_runnable() const override {
    if (this->released) throw freed_graph_error(name(), this->released);
  }
  void backward(const T* grad_output, std::span<T* const> input_grads, std::uint64_t /*unfilled*/,
                T* /*value_out*/) override {
    cat_op<1>::add_parts(grad_output, std::span<const Extents>(extents_), axis_, [&](std::size_t part) -> T* {
      return edge_of_part_[part] < 0 ? nullptr : input_grads[std::size_t(edge_of_part_[part])];
    });
  }
  void release_saved() noexcept override {
    inputs_.clear();
    this->released = released_after_backward;
  }

 private:
  std::int64_t axis_;
  std::vector<Extents> extents_;              // of each part
  std::vector<std::ptrdiff_t> edge_of_part_;  // the edge of each part's tensor; -1 for one without gradient
  std::vector<ref<tensor_impl<T>>> inputs_;   // the distinct tensors that take a gradient, kept for their edges
  std::vector<edge<T>> edges_;
};
}  // namespace detail

/// Tensors joined along `axis` (negative counts from the end), PyTorch's cat: they agree on
/// every other axis. One CatBackward node, whatever their number. Throws shape_error naming the
/// tensor that does not fit, value_error for an empty list.
template <Scalar T>
[[nodiscard]] BasicTensor<T> cat(std::span<const BasicTensor<T>> parts, std::int64_t axis) {
  std::vector<Extents> extents;
  std::vector<const T*> values;
  bool needs_grad = false;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (!parts[k].defined()) detail::report_undefined_part("fusegrad::cat", k);
    extents.push_back(parts[k].shape());
    values.push_back(parts[k].data());  // settles a deferred value
    needs_grad = needs_grad || parts[k].requires_grad();
  }
  const Extents result = detail::joined_extents(extents, axis, "fusegrad::cat");
  if (!is_grad_enabled() || !needs_grad) {
    BasicTensor<T> out = BasicTensor<T>::empty(result);
    cat_op<1>::join(out.impl()->storage->data, std::span<const T* const>(values), std::span<const Extents>(extents),
                    axis);
    return out;
  }
  BasicTensor<T> out(detail::record_node<T, detail::cat_node<T>>(result, parts, axis, result.size()));
  cat_op<1>::join(out.impl()->storage->data, std::span<const T* const>(values), std::span<const Extents>(extents),
                  axis);
  return out;
}
template <Scalar T>
[[nodiscard]] BasicTensor<T> cat(std::initializer_list<BasicTensor<T>> parts, std::int64_t axis) {
  return cat(std::span<const BasicTensor<T>>(parts.begin(), parts.size()), axis);
}
template <Scalar T>
[[nodiscard]] BasicTensor<T> cat(const std::vector<BasicTensor<T>>& parts, std::int64_t axis) {
  return cat(std::span<const BasicTensor<T>>(parts), axis);
}

/// Tensors of one shape stacked along a new axis `axis` (PyTorch's stack): each is unsqueezed (a
/// view) and the views are joined.
template <Scalar T>
[[nodiscard]] BasicTensor<T> stack(std::span<const BasicTensor<T>> parts, std::int64_t axis) {
  if (parts.empty()) throw value_error("fusegrad::stack: nothing to stack; give at least one tensor");
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (!parts[k].defined()) detail::report_undefined_part("fusegrad::stack", k);
    if (!(parts[k].shape() == parts[0].shape()))
      throw shape_error("fusegrad::stack: tensor " + std::to_string(k) + " has shape " + parts[k].shape().to_string() +
                        ", tensor 0 " + parts[0].shape().to_string() + "; stacked tensors have one shape");
  }
  // Checked here, not by unsqueeze, so that the message names stack: the new axis is one of rank + 1 (PyTorch's range).
  const Extents& e = parts[0].shape();
  const auto a = std::int64_t(detail::resolve_axis(axis, e.rank() + 1, e, "fusegrad::stack"));
  if (e.rank() == Extents::max_rank)
    throw shape_error("fusegrad::stack: shape " + e.to_string() + " already has the most axes fusegrad holds (" +
                      std::to_string(Extents::max_rank) + "); stacking adds one");
  std::vector<BasicTensor<T>> unsqueezed;
  for (const BasicTensor<T>& part : parts) unsqueezed.push_back(fused(unsqueeze(part, a)));
  return cat(std::span<const BasicTensor<T>>(unsqueezed), a);
}
template <Scalar T>
[[nodiscard]] BasicTensor<T> stack(std::initializer_list<BasicTensor<T>> parts, std::int64_t axis) {
  return stack(std::span<const BasicTensor<T>>(parts.begin(), parts.size()), axis);
}
template <Scalar T>
[[nodiscard]] BasicTensor<T> stack(const std::vector<BasicTensor<T>>& parts, std::int64_t axis) {
  return stack(std::span<const BasicTensor<T>>(parts), axis);
}

/// t cut along `axis` into parts of the given sizes, which add up to its extent (PyTorch's
/// split with a list): each part a recorded slice, so gradients flow back to t.
template <Scalar T>
[[nodiscard]] std::vector<BasicTensor<T>> split(const BasicTensor<T>& t, std::span<const std::size_t> sizes,
                                                std::int64_t axis) {
  const Extents& e = t.shape();
  const std::size_t a = detail::resolve_axis(axis, e.rank(), e, "fusegrad::split");
  const auto refuse = [&](const std::string& sum) {
    throw shape_error("fusegrad::split: sizes adding up to " + sum + " for axis " + std::to_string(a) + " of extent " +
                      std::to_string(e[a]) + " (shape " + e.to_string() + "); they must add up to the extent");
  };
  // Each size is checked against what is left of the extent before it is added: a sum in size_t could wrap around
  // to the extent ({SIZE_MAX, 4} for 3).
  std::size_t total = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] > e[a] - total)
      refuse("more than " + std::to_string(e[a]) + " (part " + std::to_string(k) + ", of size " +
             std::to_string(sizes[k]) + ", goes past it)");
    total += sizes[k];
  }
  if (total != e[a]) refuse(std::to_string(total));
  std::vector<BasicTensor<T>> parts;
  std::int64_t begin = 0;
  for (std::size_t s : sizes) {
    parts.push_back(fused(slice(t, std::int64_t(a), begin, begin + std::int64_t(s))));
    begin += std::int64_t(s);
  }
  return parts;
}
template <Scalar T>
[[nodiscard]] std::vector<BasicTensor<T>> split(const BasicTensor<T>& t, std::initializer_list<std::size_t> sizes,
                                                std::int64_t axis) {
  return split(t, std::span<const std::size_t>(sizes.begin(), sizes.size()), axis);
}
/// t cut along `axis` into parts of `size` elements, the last one smaller if the extent is not a
/// multiple (PyTorch's split with an int). A negative size is a value_error.
template <Scalar T>
[[nodiscard]] std::vector<BasicTensor<T>> split(const BasicTensor<T>& t, std::int64_t part_size, std::int64_t axis) {
  if (part_size < 0)
    throw value_error("fusegrad::split: a part size of " + std::to_string(part_size) +
                      "; give the number of elements of each part, at least 1");
  const auto size = static_cast<std::size_t>(part_size);
  const Extents& e = t.shape();
  const std::size_t extent = e[detail::resolve_axis(axis, e.rank(), e, "fusegrad::split")];
  if (size == 0 && extent != 0)  // PyTorch: a size of 0 splits only an empty axis
    throw value_error("fusegrad::split: a part size of 0 splits only an axis of extent 0, not " +
                      std::to_string(extent) + "; give at least 1");
  std::vector<std::size_t> sizes;
  for (std::size_t at = 0; at < extent; at += size) sizes.push_back(std::min(size, extent - at));
  if (extent == 0) sizes.push_back(0);  // PyTorch: one empty part
  return split(t, std::span<const std::size_t>(sizes), axis);
}
/// t cut along `axis` into `chunks` parts of ceil(extent / chunks) elements, the last smaller,
/// fewer parts when the extent runs out; an empty axis gives `chunks` empty parts (PyTorch's chunk).
/// Fewer than one chunk is a value_error.
template <Scalar T>
[[nodiscard]] std::vector<BasicTensor<T>> chunk(const BasicTensor<T>& t, std::int64_t chunk_count, std::int64_t axis) {
  if (chunk_count < 1)
    throw value_error("fusegrad::chunk: " + std::to_string(chunk_count) + " chunks; give at least 1");
  const auto chunks = static_cast<std::size_t>(chunk_count);
  const Extents& e = t.shape();
  const std::size_t extent = e[detail::resolve_axis(axis, e.rank(), e, "fusegrad::chunk")];
  if (extent == 0) {
    // One part per chunk: more than memory holds is a memory_error, not the standard library's.
    const auto no_memory = [&] {
      return memory_error("fusegrad::chunk: no memory for " + std::to_string(chunks) +
                          " empty parts of an axis of extent 0; ask for fewer chunks");
    };
    try {  // the parts' list, and split's list of as many tensors
      const std::vector<std::size_t> empty_parts(chunks, 0);
      return split(t, std::span<const std::size_t>(empty_parts), axis);
    } catch (const std::length_error&) {
      throw no_memory();
    } catch (const std::bad_alloc&) {
      throw no_memory();
    }
  }
  // ceil(extent / chunks), written so that a huge `chunks` cannot wrap around: chunks > extent gives parts of 1.
  return split(t, static_cast<std::int64_t>(extent / chunks + (extent % chunks != 0 ? 1 : 0)), axis);
}

}  // namespace fusegrad
