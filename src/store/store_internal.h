// Internal to the store module: the connection behind a Store, shared by
// store.cpp, merge.cpp and writer.cpp.
#pragma once

#include "store/sqlite.h"
#include "store/store.h"

namespace tritonrl::store {

struct Store::Impl {
  sql::Db db;
  OpenOptions options;
};

struct StoreAccess {
  static const sql::Db& Db(const Store& s) { return s.impl_->db; }
  static const OpenOptions& Options(const Store& s) { return s.impl_->options; }
};

// Application id in the SQLite header ("TRL1"): tells our stores from other SQLite files.
inline constexpr int kApplicationId = 0x54524C31;

// Canonical JSON text (sorted keys) if `text` parses, else `text` unchanged.
std::string CanonicalJson(const std::string& text);

}  // namespace tritonrl::store
