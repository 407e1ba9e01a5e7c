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

// Constructs a NodeType (from args) and its output tensor (extents e, values not yet
// written) in one recorded_block; returns the output, whose grad_fn is the node.
template <Scalar T, class NodeType, class... Args>
ref<tensor_impl<T>> record_node(const Extents& e, Args&&... args) {
  constexpr auto align_up = [](std::size_t offset, std::size_t alignment) {
    return (offset + alignment - 1) / alignment * alignment;
  };
  constexpr std::size_t node_at = align_up(sizeof(recorded_block), alignof(NodeType));
  constexpr std::size_t impl_at = align_up(node_at + sizeof(NodeType), alignof(tensor_impl<T>));
  constexpr std::size_t storage_at = align_up(impl_at + sizeof(tensor_impl<T>), alignof(tensor_storage<T>));
  constexpr std::size_t bytes = storage_at + sizeof(tensor_storage<T>);
  static_assert(std::max({alignof(NodeType), alignof(tensor_impl<T>), alignof(tensor_storage<T>)}) <=
                    __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                "record_node: a part needs more alignment than operator new gives");
  auto* memory = static_cast<std::byte*>(object_pool::allocate(bytes));
  auto* block = ::new (memory) recorded_block(bytes);
  tensor_storage<T>* storage = nullptr;
  NodeType* recorded = nullptr;
  static_assert(bytes <= UINT32_MAX);
  try {
    storage = ::new (memory + storage_at) tensor_storage<T>(e.size());
    recorded = ::new (memory + node_at) NodeType(std::forward<Args>(args)...);
  } catch (...) {
    if (storage) std::destroy_at(storage);
    object_pool::deallocate(memory, bytes);
    throw;
  }
  storage->block = block;
  recorded->block = block;
  auto* impl = ::new (memory + impl_at) tensor_impl<T>(e, ref<tensor_storage<T>>::adopt_new(storage));
  impl->in_block = true;
  impl->grad_fn = ref<node<T>>::adopt_new(recorded);
  impl->requires_grad = true;
  recorded->output.store(impl, std::memory_order_relaxed);
  return ref<tensor_impl<T>>::adopt_new(impl);
}

}  // namespace fusegrad::detail
