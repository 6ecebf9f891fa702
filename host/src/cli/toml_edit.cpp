#include "cli/toml_edit.hpp"

#include <regex>
#include <sstream>
#include <stdexcept>

#include <toml++/toml.h>

namespace kioku::host::cli {
namespace {

using nlohmann::json;
using Path = std::vector<std::string>;

toml::table Parse(const std::string& text, const std::string& label) {
  try {
    return toml::parse(std::string_view(text), std::string_view(label));
  } catch (const toml::parse_error& e) {
    throw std::runtime_error(label + ":" + std::to_string(e.source().begin.line) + ": not valid TOML (" +
                             std::string(e.description()) + "); fix it, or add the entry by hand");
  }
}

const toml::node* Find(const toml::table& doc, const Path& path) {
  const toml::node* at = &doc;
  for (const auto& key : path) {
    const auto* table = at->as_table();
    if (table == nullptr) return nullptr;
    at = table->get(key);
    if (at == nullptr) return nullptr;
  }
  return at;
}

json ToJson(const toml::node& node) {
  if (const auto* t = node.as_table()) {
    json out = json::object();
    for (const auto& [k, v] : *t) out[std::string(k.str())] = ToJson(v);
    return out;
  }
  if (const auto* a = node.as_array()) {
    json out = json::array();
    for (const auto& v : *a) out.push_back(ToJson(v));
    return out;
  }
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return i->get();
  if (const auto* f = node.as_floating_point()) return f->get();
  if (const auto* b = node.as_boolean()) return b->get();
  std::ostringstream text;  // dates and times
  node.visit([&](const auto& v) { text << v; });
  return text.str();
}

// Every `[...]` / `[[...]]` header toml++ saw: its 0-based line and the table's key path.
void CollectHeaders(const toml::table& table, Path& path, std::vector<std::pair<std::size_t, Path>>& out) {
  for (const auto& [key, value] : table) {
    path.emplace_back(key.str());
    if (const auto* t = value.as_table(); t && !t->is_inline()) {
      out.emplace_back(t->source().begin.line - 1, path);
      CollectHeaders(*t, path, out);
    } else if (const auto* a = value.as_array(); a && a->is_array_of_tables()) {
      for (const auto& element : *a) {
        const auto* et = element.as_table();
        if (et == nullptr || et->is_inline()) continue;
        out.emplace_back(et->source().begin.line - 1, path);
        CollectHeaders(*et, path, out);
      }
    }
    path.pop_back();
  }
}

std::string Quoted(const std::string& s) {
  std::ostringstream out;
  out << toml::value<std::string>(s);
  return out.str();
}

std::string Key(const std::string& key) {
  static const std::regex kBare("^[A-Za-z0-9_-]+$");
  return std::regex_match(key, kBare) ? key : Quoted(key);
}

// A TOML value for one entry: strings, arrays of strings, objects (inline tables) of them.
std::unique_ptr<toml::node> ToToml(const nlohmann::ordered_json& value) {
  if (value.is_string()) return std::make_unique<toml::value<std::string>>(value.get<std::string>());
  if (value.is_boolean()) return std::make_unique<toml::value<bool>>(value.get<bool>());
  if (value.is_number_integer()) return std::make_unique<toml::value<int64_t>>(value.get<int64_t>());
  if (value.is_array()) {
    auto out = std::make_unique<toml::array>();
    for (const auto& v : value) out->push_back(std::move(*ToToml(v)));
    return out;
  }
  if (value.is_object()) {
    auto out = std::make_unique<toml::table>();
    out->is_inline(true);
    for (const auto& [k, v] : value.items()) out->insert_or_assign(k, std::move(*ToToml(v)));
    return out;
  }
  throw std::logic_error("TomlText: unsupported value " + value.dump());
}

bool BlankOrComment(const std::string& line) {
  auto first = line.find_first_not_of(" \t\r\n");
  return first == std::string::npos || line[first] == '#';
}

}  // namespace

TomlText::TomlText(std::string text, std::string label) : text_(std::move(text)), label_(std::move(label)) {
  Parse(text_, label_);
}

std::vector<std::string> TomlText::Lines() const {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text_.size()) {
    std::size_t nl = text_.find('\n', start);
    std::size_t end = nl == std::string::npos ? text_.size() : nl + 1;
    lines.push_back(text_.substr(start, end - start));
    start = end;
  }
  return lines;
}

std::optional<json> TomlText::Get(const Path& path) const {
  auto doc = Parse(text_, label_);
  const toml::node* node = Find(doc, path);
  if (node == nullptr) return std::nullopt;
  return ToJson(*node);
}

bool TomlText::HasOwnHeader(const Path& path) const { return Locate(path).has_value(); }

std::optional<TomlText::Span> TomlText::Locate(const Path& path) const {
  auto doc = Parse(text_, label_);
  const toml::node* node = Find(doc, path);
  if (node == nullptr || !node->is_table() || node->as_table()->is_inline()) return std::nullopt;
  const auto lines = Lines();
  const std::size_t header = node->source().begin.line - 1;
  auto is_header = [&](std::size_t line) {
    if (line >= lines.size()) return false;
    auto first = lines[line].find_first_not_of(" \t");
    return first != std::string::npos && lines[line][first] == '[';
  };
  // A dotted key or an implicit parent has no header line of its own.
  if (!is_header(header)) return std::nullopt;
  std::vector<std::pair<std::size_t, Path>> headers;
  Path walk;
  CollectHeaders(doc, walk, headers);
  std::size_t end = lines.size();
  for (const auto& [line, p] : headers) {
    const bool own = p.size() > path.size() && std::equal(path.begin(), path.end(), p.begin());
    if (line > header && line < end && !own && is_header(line)) end = line;
  }
  while (end > header + 1 && BlankOrComment(lines[end - 1])) --end;
  return Span{header, end};
}

void TomlText::SetTable(const Path& path, const nlohmann::ordered_json& entries) {
  std::string block = "[";
  for (std::size_t i = 0; i < path.size(); ++i) block += (i ? "." : "") + Key(path[i]);
  block += "]\n";
  for (const auto& [key, value] : entries.items()) {
    std::ostringstream text;
    ToToml(value)->visit([&](const auto& v) { text << v; });
    block += Key(key) + " = " + text.str() + "\n";
  }
  const auto lines = Lines();
  if (auto span = Locate(path)) {
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i == span->first_line) out += block;
      if (i < span->first_line || i >= span->end_line) out += lines[i];
    }
    // The table's last line may have lacked a newline at the end of the file.
    if (span->end_line == lines.size() && !text_.empty() && text_.back() != '\n') out.pop_back();
    text_ = out;
  } else if (Get(path)) {
    throw std::runtime_error(label_ + ": " + path.back() +
                             " is written as an inline table or dotted keys; edit it by hand");
  } else if (text_.find_first_not_of(" \t\r\n") == std::string::npos) {
    text_ = block;
  } else {
    text_ += (text_.back() == '\n' ? "\n" : "\n\n") + block;
  }
  auto written = Get(path);
  if (!written || *written != json(entries)) {
    throw std::runtime_error(label_ + ": writing [" + path.back() + "] did not give the expected table");
  }
}

void TomlText::RemoveTable(const Path& path) {
  auto span = Locate(path);
  if (!span) return;
  const auto lines = Lines();
  std::size_t first = span->first_line;
  if (first > 0 && lines[first - 1].find_first_not_of(" \t\r\n") == std::string::npos) --first;
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i < first || i >= span->end_line) out += lines[i];
  }
  text_ = out;
  Parse(text_, label_);
}

}  // namespace kioku::host::cli
