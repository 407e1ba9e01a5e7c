// tape/tensor_names.hpp -- the names users give tensors (`w.name("w")`), kept beside the tensors.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>

#include <fusegrad/tape/spin_lock.hpp>

namespace fusegrad::detail {

// Few tensors have a name (the parameters a picture labels); a taped graph holds a tensor per
// op. So a tensor spends one flag on a name (tensor_impl::named) and the names live here,
// keyed by the tensor's implementation, until it is destroyed. Default visibility: a program
// whose shared libraries are built with hidden symbols still has one table.
class [[gnu::visibility("default")]] tensor_names {
 public:
  static void set(const void* tensor, std::string name) {
    table& t = the_table();
    const spin_lock_guard lock(t.lock);
    t.names.insert_or_assign(tensor, std::move(name));
  }
  [[nodiscard]] static std::string get(const void* tensor) {
    table& t = the_table();
    const spin_lock_guard lock(t.lock);
    const auto it = t.names.find(tensor);
    return it == t.names.end() ? std::string() : it->second;
  }
  static void forget(const void* tensor) noexcept {
    table& t = the_table();
    const spin_lock_guard lock(t.lock);
    t.names.erase(tensor);
  }

 private:
  struct table {
    spin_lock lock;
    std::unordered_map<const void*, std::string> names;
  };
  // Never destroyed: a static tensor may be destroyed after any other static object.
  static table& the_table() {
    static table* const t = new table;
    return *t;
  }
};

}  // namespace fusegrad::detail
