// Bump allocator for AST nodes and their strings: one free for the whole tree,
// no per-node heap traffic. Objects placed here must be trivially destructible.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tritonrl::pyast {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* Allocate(size_t size, size_t align) {
    size_t p = (used_ + align - 1) & ~(align - 1);
    if (cur_ == nullptr || p + size > cap_) {
      size_t block = size + align > kBlock ? size + align : kBlock;
      blocks_.push_back(std::make_unique<std::byte[]>(block));
      cur_ = blocks_.back().get();
      cap_ = block;
      used_ = 0;
      p = (reinterpret_cast<uintptr_t>(cur_) % align)
              ? align - reinterpret_cast<uintptr_t>(cur_) % align
              : 0;
    }
    used_ = p + size;
    total_ += size;
    return cur_ + p;
  }

  template <typename T>
  T* New() {
    static_assert(std::is_trivially_destructible_v<T>);
    return new (Allocate(sizeof(T), alignof(T))) T{};
  }

  template <typename T>
  T* NewArray(size_t n) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (n == 0) return nullptr;
    T* p = static_cast<T*>(Allocate(sizeof(T) * n, alignof(T)));
    for (size_t i = 0; i < n; ++i) new (p + i) T{};
    return p;
  }

  std::string_view CopyString(std::string_view s) {
    if (s.empty()) return std::string_view("", 0);
    char* p = static_cast<char*>(Allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }

  size_t bytes_allocated() const { return total_; }

 private:
  static constexpr size_t kBlock = 64 * 1024;
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::byte* cur_ = nullptr;
  size_t cap_ = 0;
  size_t used_ = 0;
  size_t total_ = 0;
};

}  // namespace tritonrl::pyast
