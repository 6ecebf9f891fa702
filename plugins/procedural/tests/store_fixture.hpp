#pragma once
// A fresh database file with the procedural migrations applied, for tests of the core
// library without a host.

#include <filesystem>
#include <random>
#include <string>

#include <SQLiteCpp/Database.h>

#include "kioku/sdk/db.hpp"
#include "schema.hpp"

namespace kioku::procedural::testing {

class TempDb {
 public:
  TempDb() {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() /
           ("kioku-procedural-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "kioku.db").string();
    db_ = std::make_unique<SQLite::Database>(sdk::OpenDatabase(path_));
    for (const auto& m : Migrations()) db_->exec(m.sql);
  }
  ~TempDb() {
    db_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  SQLite::Database& Db() { return *db_; }
  const std::string& Path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace kioku::procedural::testing
