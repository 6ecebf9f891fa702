#pragma once
/// @file toml_edit.hpp
/// Adds, replaces or removes one `[a.b]` table of a TOML file as text, leaving every other
/// byte alone. toml++ parses the file (before and after), finds the table and the line of
/// each header; the table's lines run from its header to the last key line before the next
/// header that is not one of its own sub-tables.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kioku::host::cli {

class TomlText {
 public:
  /// Parses `text`. Throws std::runtime_error naming `label`, the line and toml++'s message.
  TomlText(std::string text, std::string label);

  const std::string& Text() const { return text_; }
  /// The table at `path` as JSON (strings, numbers, booleans, arrays, tables); nullopt when
  /// absent. A value that is not a table is returned as it is.
  std::optional<nlohmann::json> Get(const std::vector<std::string>& path) const;
  /// True when the table at `path` is written as its own `[...]` header (so its lines can be
  /// replaced); false for an inline table, a dotted key or an implicit parent.
  bool HasOwnHeader(const std::vector<std::string>& path) const;

  /// Writes the table `path` with `entries` (an object of strings, string arrays and
  /// objects of strings; objects become inline tables), in place of its current lines when
  /// it has its own header, else appended at the end after a blank line. The result is
  /// parsed again and must hold exactly `entries` there. Throws std::runtime_error when the
  /// table exists without its own header (inline/dotted: edit by hand).
  void SetTable(const std::vector<std::string>& path, const nlohmann::ordered_json& entries);
  /// Removes the table's lines (and the blank line SetTable put before it). No-op when absent.
  void RemoveTable(const std::vector<std::string>& path);

 private:
  struct Span {
    std::size_t first_line = 0;  // 0-based, header line
    std::size_t end_line = 0;    // one past the last line of the table
  };
  std::optional<Span> Locate(const std::vector<std::string>& path) const;
  std::vector<std::string> Lines() const;

  std::string text_;
  std::string label_;
};

}  // namespace kioku::host::cli
