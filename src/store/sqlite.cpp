#include "store/sqlite.h"

#include <sqlite3.h>

#include <string>
#include <utility>

namespace tritonrl::store::sql {

// ---- Stmt ------------------------------------------------------------------

Stmt::Stmt(Stmt&& o) noexcept
    : db_(o.db_), s_(std::exchange(o.s_, nullptr)), bind_error_(std::move(o.bind_error_)) {}

Stmt& Stmt::operator=(Stmt&& o) noexcept {
  if (this != &o) {
    if (s_) sqlite3_finalize(s_);
    db_ = o.db_;
    s_ = std::exchange(o.s_, nullptr);
    bind_error_ = std::move(o.bind_error_);
  }
  return *this;
}

Stmt::~Stmt() {
  if (s_) sqlite3_finalize(s_);
}

Stmt& Stmt::Bind(int i, std::string_view text) {
  // SQLITE_TRANSIENT: SQLite copies, so temporaries are safe to pass.
  int rc = sqlite3_bind_text64(s_, i, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && bind_error_.ok()) bind_error_ = db_->Error(rc, "bind");
  return *this;
}

Stmt& Stmt::Bind(int i, int64_t v) {
  int rc = sqlite3_bind_int64(s_, i, v);
  if (rc != SQLITE_OK && bind_error_.ok()) bind_error_ = db_->Error(rc, "bind");
  return *this;
}

Stmt& Stmt::Bind(int i, double v) {
  int rc = sqlite3_bind_double(s_, i, v);
  if (rc != SQLITE_OK && bind_error_.ok()) bind_error_ = db_->Error(rc, "bind");
  return *this;
}

Stmt& Stmt::Bind(int i, std::optional<double> v) {
  return v ? Bind(i, *v) : BindNull(i);
}

Stmt& Stmt::BindNull(int i) {
  int rc = sqlite3_bind_null(s_, i);
  if (rc != SQLITE_OK && bind_error_.ok()) bind_error_ = db_->Error(rc, "bind");
  return *this;
}

Result<bool> Stmt::Step() {
  if (!bind_error_.ok()) return bind_error_;
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc, sqlite3_sql(s_));
}

Status Stmt::Run() {
  for (;;) {
    auto r = Step();
    if (!r.ok()) return r.status();
    if (!*r) return Status::Ok();
  }
}

void Stmt::Reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
  bind_error_ = Status::Ok();
}

std::string Stmt::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(s_, col);
  if (!p) return {};
  int n = sqlite3_column_bytes(s_, col);
  return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
}

int64_t Stmt::Int(int col) const {
  return sqlite3_column_int64(s_, col);
}
double Stmt::Double(int col) const {
  return sqlite3_column_double(s_, col);
}
bool Stmt::IsNull(int col) const {
  return sqlite3_column_type(s_, col) == SQLITE_NULL;
}

// ---- Db --------------------------------------------------------------------

Db::Db(Db&& o) noexcept : db_(std::exchange(o.db_, nullptr)), path_(std::move(o.path_)) {}

Db& Db::operator=(Db&& o) noexcept {
  if (this != &o) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(o.db_, nullptr);
    path_ = std::move(o.path_);
  }
  return *this;
}

Db::~Db() {
  if (db_) sqlite3_close_v2(db_);
}

Result<Db> Db::Open(const std::string& path, int flags) {
  Db db;
  db.path_ = path;
  int rc = sqlite3_open_v2(path.c_str(), &db.db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db.db_ ? sqlite3_errmsg(db.db_) : sqlite3_errstr(rc);
    Status st = Status::IoError(path + ": cannot open database: " + msg);
    return st;
  }
  sqlite3_extended_result_codes(db.db_, 1);
  return db;
}

Status Db::Error(int rc, std::string_view what) const {
  std::string msg = path_ + ": " + std::string(what) + ": " +
                    (db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc)) + " (" + sqlite3_errstr(rc) +
                    ")";
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return Status::Corruption(msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(msg);
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
      return Status::InvalidArgument(msg);
    case SQLITE_READONLY:
      return Status::FailedPrecondition(msg);
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
      return Status::IoError(msg);
    default:
      return Status::Internal(msg);
  }
}

Result<Stmt> Db::Prepare(std::string_view sql) const {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &s, nullptr);
  if (rc != SQLITE_OK) {
    if (s) sqlite3_finalize(s);
    return Error(rc, "prepare " + std::string(sql.substr(0, 60)));
  }
  return Stmt(this, s);
}

Status Db::Exec(const std::string& sql) const {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (err) sqlite3_free(err);
  if (rc != SQLITE_OK) return Error(rc, sql.substr(0, 60));
  return Status::Ok();
}

Result<int64_t> Db::QueryInt(const std::string& sql) const {
  auto st = Prepare(sql);
  if (!st.ok()) return st.status();
  auto row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::NotFound(path_ + ": no row for " + sql);
  return st->Int(0);
}

Result<std::string> Db::QueryText(const std::string& sql) const {
  auto st = Prepare(sql);
  if (!st.ok()) return st.status();
  auto row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::NotFound(path_ + ": no row for " + sql);
  return st->Text(0);
}

int64_t Db::Changes() const {
  return sqlite3_changes64(db_);
}

// ---- Transaction -----------------------------------------------------------

Result<Transaction> Transaction::Begin(const Db& db) {
  // IMMEDIATE takes the write lock now, so the busy timeout applies here and a
  // read-then-write upgrade can never deadlock with another writer.
  TRITONRL_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  return Transaction(&db);
}

Transaction::Transaction(Transaction&& o) noexcept : db_(std::exchange(o.db_, nullptr)) {}

Transaction::~Transaction() {
  if (db_) (void)db_->Exec("ROLLBACK");
}

Status Transaction::Commit() {
  const Db* db = std::exchange(db_, nullptr);
  Status st = db->Exec("COMMIT");
  if (!st.ok()) (void)db->Exec("ROLLBACK");
  return st;
}

}  // namespace tritonrl::store::sql
