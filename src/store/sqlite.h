// A small RAII layer over the SQLite3 C API (internal to the store module): a
// connection that owns its handle, statements that finalise themselves, and
// errors as Status values that name the database file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tritonrl::store::sql {

class Db;

// A prepared statement. Bind indices are 1-based as in SQLite.
class Stmt {
 public:
  Stmt() = default;
  Stmt(Stmt&& o) noexcept;
  Stmt& operator=(Stmt&& o) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt();

  Stmt& Bind(int i, std::string_view text);
  Stmt& Bind(int i, int64_t v);
  Stmt& Bind(int i, double v);
  Stmt& Bind(int i, std::optional<double> v);  // NULL if empty
  Stmt& BindNull(int i);

  // Steps once: true if a row is available, false when done; errors name the file.
  Result<bool> Step();
  // Steps to completion (for statements without rows).
  Status Run();
  void Reset();

  std::string Text(int col) const;  // "" for NULL
  int64_t Int(int col) const;
  double Double(int col) const;
  bool IsNull(int col) const;

 private:
  friend class Db;
  Stmt(const Db* db, sqlite3_stmt* s) : db_(db), s_(s) {}
  const Db* db_ = nullptr;
  sqlite3_stmt* s_ = nullptr;
  Status bind_error_;
};

class Db {
 public:
  Db() = default;
  Db(Db&& o) noexcept;
  Db& operator=(Db&& o) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  // flags: SQLITE_OPEN_* bits.
  static Result<Db> Open(const std::string& path, int flags);

  Result<Stmt> Prepare(std::string_view sql) const;
  // Runs one or more statements without results.
  Status Exec(const std::string& sql) const;
  // Runs a query returning one integer (first column of the first row).
  Result<int64_t> QueryInt(const std::string& sql) const;
  Result<std::string> QueryText(const std::string& sql) const;

  // An error Status for SQLite result code `rc` in `what`, naming the file.
  Status Error(int rc, std::string_view what) const;
  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_; }
  int64_t Changes() const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back in the destructor unless committed.
class Transaction {
 public:
  static Result<Transaction> Begin(const Db& db);
  Transaction(Transaction&& o) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  ~Transaction();
  Status Commit();

 private:
  explicit Transaction(const Db* db) : db_(db) {}
  const Db* db_ = nullptr;
};

}  // namespace tritonrl::store::sql
