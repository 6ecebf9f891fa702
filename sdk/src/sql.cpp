#include "kioku/sdk/sql.hpp"

#include <utility>

namespace kioku::sdk {

void BindValue(SQLite::Statement& stmt, int index, const SqlValue& value) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) {
          stmt.bind(index);
        } else {
          stmt.bind(index, v);
        }
      },
      value);
}

void BindAll(SQLite::Statement& stmt, const std::vector<SqlValue>& values) {
  int index = 0;
  for (const SqlValue& v : values) BindValue(stmt, ++index, v);
}

std::string PrefixUpperBound(std::string_view prefix) {
  std::string upper(prefix);
  while (!upper.empty()) {
    auto& c = reinterpret_cast<unsigned char&>(upper.back());
    if (c != 0xff) {
      ++c;
      return upper;
    }
    upper.pop_back();
  }
  return upper;
}

std::string Placeholders(std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += i == 0 ? "?" : ", ?";
  return out;
}

SqlWhere& SqlWhere::In(std::string_view column, const std::vector<std::string>& values) {
  if (values.empty()) {
    conditions_.emplace_back("0");
    return *this;
  }
  conditions_.push_back(std::string(column) + " IN (" + Placeholders(values.size()) + ")");
  for (const auto& v : values) values_.emplace_back(v);
  return *this;
}

SqlWhere& SqlWhere::Prefix(std::string_view column, std::string_view prefix) {
  if (prefix.empty()) return *this;
  std::string condition = std::string(column) + " >= ?";
  values_.emplace_back(std::string(prefix));
  if (std::string upper = PrefixUpperBound(prefix); !upper.empty()) {
    condition += " AND " + std::string(column) + " < ?";
    values_.emplace_back(std::move(upper));
  }
  conditions_.push_back(std::move(condition));
  return *this;
}

SqlWhere& SqlWhere::Equal(std::string_view column, const std::optional<std::string>& value) {
  if (!value) return *this;
  conditions_.push_back(std::string(column) + " = ?");
  values_.emplace_back(*value);
  return *this;
}

SqlWhere& SqlWhere::Raw(std::string_view condition, std::vector<SqlValue> values) {
  conditions_.emplace_back(condition);
  for (auto& v : values) values_.push_back(std::move(v));
  return *this;
}

std::string SqlWhere::Sql() const {
  const std::string rest = AndSql();
  return rest.empty() ? rest : " WHERE " + rest.substr(5);
}

std::string SqlWhere::AndSql() const {
  std::string out;
  for (const auto& c : conditions_) out += " AND " + c;
  return out;
}

CachedStatement::CachedStatement(StatementCache* cache, const void* connection, StatementShelf::node_type node)
    : cache_(cache), connection_(connection), node_(std::move(node)) {}

CachedStatement::CachedStatement(CachedStatement&& other) noexcept
    : cache_(std::exchange(other.cache_, nullptr)), connection_(other.connection_), node_(std::move(other.node_)) {}

CachedStatement::~CachedStatement() {
  if (cache_ == nullptr || node_.empty()) return;
  try {
    node_.mapped()->reset();
    node_.mapped()->clearBindings();
  } catch (...) {
    return;  // a statement that cannot be reset is not worth keeping; the node frees it
  }
  cache_->Return(connection_, std::move(node_));
}

// A lease moves the shelf's node (SQL text and statement) out and back in: no allocation
// and no copy of the text per use, only for a statement prepared anew.
CachedStatement StatementCache::Get(SQLite::Database& db, const std::string& sql) {
  const void* connection = db.getHandle();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    StatementShelf& idle = idle_[connection];
    if (auto it = idle.find(sql); it != idle.end()) return CachedStatement(this, connection, idle.extract(it));
  }
  // Prepared outside the lock: it touches only this thread's connection.
  StatementShelf fresh;
  return CachedStatement(this, connection,
                         fresh.extract(fresh.emplace(sql, std::make_unique<SQLite::Statement>(db, sql))));
}

std::size_t StatementCache::IdleCount(SQLite::Database& db) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = idle_.find(db.getHandle());
  return it == idle_.end() ? 0 : it->second.size();
}

void StatementCache::Return(const void* connection, StatementShelf::node_type node) {
  std::lock_guard<std::mutex> lock(mutex_);
  StatementShelf& idle = idle_[connection];
  if (idle.size() >= max_idle_) return;  // the node (and statement) freed on return; the shelf stays bounded
  idle.insert(std::move(node));
}

}  // namespace kioku::sdk
