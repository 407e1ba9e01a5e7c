// tape/record_node.hpp -- recording an operation: its node and output tensor in one block.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include <fusegrad/concepts.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/tape/node.hpp>
#include <fusegrad/tape/pool.hpp>
#include <fusegrad/tape/recorded_block.hpp>
#include <fusegrad/tape/tensor_impl.hpp>
#include <fusegrad/tape/tensor_storage.hpp>

namespace fusegrad::detail {

// Where the parts of a recorded operation sit in its block: the header, the node, the
// output's tensor state and storage, and the output's values when few.
template <Scalar T, class NodeType>
struct recorded_layout {
  static constexpr std::size_t align_up(std::size_t offset, std::size_t alignment) {
    return (offset + alignment - 1) / alignment * alignment;
  }
  static constexpr std::size_t node_at = align_up(sizeof(recorded_block), alignof(NodeType));
  static constexpr std::size_t impl_at = align_up(node_at + sizeof(NodeType), alignof(tensor_impl<T>));
  static constexpr std::size_t storage_at = align_up(impl_at + sizeof(tensor_impl<T>), alignof(tensor_storage<T>));
  // With n output values.
  static constexpr std::size_t bytes(std::size_t n) { return storage_at + tensor_storage<T>::bytes_in_block(n); }

  // Tensors and numbers need no more; a fixed-size Const that Eigen aligns for wide registers does.
  static_assert(std::max({alignof(NodeType), alignof(tensor_impl<T>), alignof(tensor_storage<T>)}) <=
                    __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                "fusegrad: a recorded expression holds a fixed-size Const that Eigen aligns beyond what operator new "
                "gives (4 doubles with AVX, for one), which no tape node can hold; make it a ConstTensor or a Const "
                "of dyn shape");
  static_assert(node_at <= UINT16_MAX && storage_at <= UINT32_MAX);
};

// The output's state, constructed at its place in the block at `memory` over `storage`, with the
// node `recorded` (constructed at its place) as its grad_fn: the parts now count references.
template <Scalar T, class NodeType>
ref<tensor_impl<T>> link_output(std::byte* memory, NodeType* recorded, stored_extents&& extents,
                                ref<tensor_storage<T>> storage) noexcept {
  using layout = recorded_layout<T, NodeType>;
  recorded->block_offset = layout::node_at;
  auto* impl = ::new (memory + layout::impl_at) tensor_impl<T>(std::move(extents), std::move(storage));
  impl->in_block = true;
  impl->grad_fn = ref<node<T>>::adopt_new(recorded);
  impl->requires_grad = true;
  recorded->output.store(impl, std::memory_order_relaxed);
  return ref<tensor_impl<T>>::adopt_new(impl);
}

// Constructs a NodeType (from args) and its output tensor (extents e, values not yet
// written) in one recorded_block; returns the output, whose grad_fn is the node.
template <Scalar T, class NodeType, class... Args>
ref<tensor_impl<T>> record_node(const Extents& e, Args&&... args) {
  using layout = recorded_layout<T, NodeType>;
  const std::size_t bytes = layout::bytes(e.size());
  auto* memory = static_cast<std::byte*>(object_pool::allocate(bytes));
  auto* block = ::new (memory) recorded_block(bytes);
  tensor_storage<T>* storage = nullptr;
  NodeType* recorded = nullptr;
  try {
    storage = tensor_storage<T>::in_block(memory + layout::storage_at, layout::storage_at, e.size());
    recorded = ::new (memory + layout::node_at) NodeType(std::forward<Args>(args)...);
    stored_extents extents(e);  // what may throw is done before the parts start counting references
    return link_output<T>(memory, recorded, std::move(extents), ref<tensor_storage<T>>::adopt_new(storage));
  } catch (...) {
    if (recorded) std::destroy_at(recorded);
    if (storage) std::destroy_at(storage);
    block->~recorded_block();
    object_pool::deallocate(memory, bytes);
    throw;
  }
}

// The same for an output that shares the values of `shared` (a view: a reshape of a
// tensor): the block holds the node and the output's state, one part fewer.
template <Scalar T, class NodeType, class... Args>
ref<tensor_impl<T>> record_node_over(const Extents& e, ref<tensor_storage<T>> shared, Args&&... args) {
  using layout = recorded_layout<T, NodeType>;
  constexpr std::size_t bytes = layout::impl_at + sizeof(tensor_impl<T>);
  auto* memory = static_cast<std::byte*>(object_pool::allocate(bytes));
  auto* block = ::new (memory) recorded_block(bytes);
  block->parts.store(1, std::memory_order_relaxed);  // the node; the output's state is destroyed before it
  NodeType* recorded = nullptr;
  try {
    recorded = ::new (memory + layout::node_at) NodeType(std::forward<Args>(args)...);
    stored_extents extents(e);
    return link_output<T>(memory, recorded, std::move(extents), std::move(shared));
  } catch (...) {
    if (recorded) std::destroy_at(recorded);
    block->~recorded_block();
    object_pool::deallocate(memory, bytes);
    throw;
  }
}

}  // namespace fusegrad::detail
