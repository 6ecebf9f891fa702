#include "cli/json_edit.hpp"

#include <cstring>
#include <stdexcept>

namespace kioku::host::cli {

using nlohmann::json;

// One value of the document: its byte span, and for objects/arrays its children (an object
// child also carries its key and where the key starts).
struct JsonText::Node {
  char kind = 'v';  // '{', '[' or 'v' (any scalar)
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string key;
  std::size_t key_begin = 0;
  std::vector<Node> children;

  const Node* Child(const std::string& name) const {
    for (const auto& c : children) {
      if (c.key == name) return &c;
    }
    return nullptr;
  }
};

namespace {

// Walks text that nlohmann already accepted (comments allowed), so it needs no error paths:
// it only records where each value, key and member starts and ends.
class Scanner {
 public:
  explicit Scanner(const std::string& s) : s_(s) {}

  template <class Node>
  void Value(Node& n) {
    Skip();
    n.begin = i_;
    char c = s_[i_];
    if (c == '{' || c == '[') {
      n.kind = c;
      const char close = c == '{' ? '}' : ']';
      ++i_;
      Skip();
      while (s_[i_] != close) {
        Node child;
        if (c == '{') {
          child.key_begin = i_;
          std::size_t key_end = StringEnd(i_);
          child.key = json::parse(s_.substr(i_, key_end - i_)).template get<std::string>();
          i_ = key_end;
          Skip();
          ++i_;  // ':'
        }
        Value(child);
        n.children.push_back(std::move(child));
        Skip();
        if (s_[i_] == ',') {
          ++i_;
          Skip();
        }
      }
      ++i_;
    } else if (c == '"') {
      i_ = StringEnd(i_);
    } else {
      while (i_ < s_.size() && !std::strchr(",]} \t\r\n/", s_[i_])) ++i_;
    }
    n.end = i_;
  }

 private:
  void Skip() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++i_;
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
        i_ = s_.find('\n', i_);
        if (i_ == std::string::npos) i_ = s_.size();
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
        i_ = s_.find("*/", i_ + 2);
        i_ = i_ == std::string::npos ? s_.size() : i_ + 2;
      } else {
        return;
      }
    }
  }
  std::size_t StringEnd(std::size_t p) const {
    for (++p; s_[p] != '"'; ++p) {
      if (s_[p] == '\\') ++p;
    }
    return p + 1;
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

// Walks JSONC text as a reader sees it: `on_comment()` once per comment (// or /* */,
// an unterminated one ends the walk), `on_char(c)` for every other byte outside string
// literals, and `on_char('"')` once per string literal.
template <class OnChar, class OnComment>
void WalkJsonc(const std::string& t, OnChar&& on_char, OnComment&& on_comment) {
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"') {
      for (++i; i < t.size() && t[i] != '"'; ++i) {
        if (t[i] == '\\') ++i;
      }
      on_char('"');
    } else if (c == '/' && i + 1 < t.size() && (t[i + 1] == '/' || t[i + 1] == '*')) {
      on_comment();
      const std::size_t end = t[i + 1] == '/' ? t.find('\n', i) : t.find("*/", i + 2);
      if (end == std::string::npos) return;
      i = t[i + 1] == '/' ? end : end + 1;
    } else {
      on_char(c);
    }
  }
}

// Whether `t` has a comma with only whitespace and comments before a closing '}' or ']':
// JSONC as VS Code writes it allows one, nlohmann/json 3.11 does not.
bool HasTrailingComma(const std::string& t) {
  bool comma = false, found = false;
  WalkJsonc(
      t,
      [&](char c) {
        if (c == ',') {
          comma = true;
        } else if ((c == '}' || c == ']') && comma) {
          found = true;
        } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
          comma = false;
        }
      },
      [] {});
  return found;
}

// Comments (// and /* */) outside string literals of JSONC text.
std::size_t CountComments(const std::string& t) {
  std::size_t n = 0;
  WalkJsonc(t, [](char) {}, [&n] { ++n; });
  return n;
}

json ParseLenient(const std::string& text) { return json::parse(text, nullptr, true, /*ignore_comments=*/true); }

}  // namespace

JsonText::JsonText(std::string text, std::string label) : text_(std::move(text)), label_(std::move(label)) {
  if (text_.find_first_not_of(" \t\r\n") == std::string::npos) text_ = "{}\n";
  json doc;
  try {
    doc = ParseLenient(text_);
  } catch (const json::exception& e) {
    if (HasTrailingComma(text_)) {
      throw std::runtime_error(label_ + " has a comma before a closing '}' or ']' (JSONC allows it; kioku's editor "
                                        "does not yet): remove that comma and run again, or add the entry by hand");
    }
    throw std::runtime_error(label_ + " is not valid JSON (" + e.what() + "); fix it, or add the entry by hand");
  }
  if (!doc.is_object()) throw std::runtime_error(label_ + ": the top level is not a JSON object");
  Node root = Scan();
  if (!root.children.empty()) {
    const std::size_t first = root.children[0].key_begin;
    std::size_t line = text_.rfind('\n', first);
    if (line != std::string::npos && line > root.begin) {
      std::string indent = text_.substr(line + 1, first - line - 1);
      if (!indent.empty() && indent.find_first_not_of(" \t") == std::string::npos) unit_ = indent;
    }
  }
}

JsonText::Node JsonText::Scan() const {
  Node root;
  Scanner(text_).Value(root);
  return root;
}

std::optional<json> JsonText::Get(const JsonPath& path) const {
  json doc = ParseLenient(text_);
  const json* at = &doc;
  for (const auto& key : path) {
    if (!at->is_object() || !at->contains(key)) return std::nullopt;
    at = &(*at)[key];
  }
  return *at;
}

void JsonText::Replace(std::size_t begin, std::size_t end, const std::string& with) {
  text_.replace(begin, end - begin, with);
}

std::string JsonText::Render(const nlohmann::ordered_json& value, const std::string& indent) const {
  std::string out = value.dump(static_cast<int>(unit_.size()), unit_.empty() ? ' ' : unit_[0], false,
                               json::error_handler_t::replace);
  std::string shifted;
  for (char c : out) {
    shifted += c;
    if (c == '\n') shifted += indent;
  }
  return shifted;
}

namespace {

// The whitespace that starts the line holding `pos`.
std::string LineIndent(const std::string& text, std::size_t pos) {
  std::size_t start = text.rfind('\n', pos == 0 ? 0 : pos - 1);
  start = start == std::string::npos ? 0 : start + 1;
  std::size_t end = text.find_first_not_of(" \t", start);
  return text.substr(start, (end == std::string::npos ? text.size() : end) - start);
}

}  // namespace

void JsonText::Set(const JsonPath& path, const nlohmann::ordered_json& value) {
  Node root = Scan();
  const Node* node = &root;
  for (std::size_t depth = 0; depth < path.size(); ++depth) {
    const std::string& key = path[depth];
    const Node* child = node->Child(key);
    const bool last = depth + 1 == path.size();
    if (child != nullptr && last) {
      Replace(child->begin, child->end, Render(value, LineIndent(text_, child->key_begin)));
      return;
    }
    if (child != nullptr) {
      if (child->kind != '{') {
        throw std::runtime_error(label_ + ": \"" + key + "\" is not an object; fix it, or add the entry by hand");
      }
      node = child;
      continue;
    }
    // Missing from here on: add one member holding the rest of the path.
    nlohmann::ordered_json rest = value;
    for (std::size_t k = path.size() - 1; k > depth; --k) rest = nlohmann::ordered_json{{path[k], rest}};
    const std::string key_text = json(key).dump();
    if (node->children.empty()) {
      const std::string outer = LineIndent(text_, node->begin);
      const std::string inner = outer + unit_;
      Replace(node->begin, node->end, "{\n" + inner + key_text + ": " + Render(rest, inner) + "\n" + outer + "}");
    } else if (text_.substr(node->begin, node->children[0].key_begin - node->begin).find('\n') != std::string::npos) {
      const std::string inner = LineIndent(text_, node->children[0].key_begin);
      Replace(node->children.back().end, node->children.back().end, ",\n" + inner + key_text + ": " + Render(rest, inner));
    } else {
      Replace(node->children.back().end, node->children.back().end,
              ", " + key_text + ": " + rest.dump(-1, ' ', false, json::error_handler_t::replace));
    }
    return;
  }
}

void JsonText::Append(const JsonPath& path, const nlohmann::ordered_json& value) {
  Node root = Scan();
  const Node* node = &root;
  for (const auto& key : path) {
    node = node ? node->Child(key) : nullptr;
  }
  if (node == nullptr) {
    Set(path, nlohmann::ordered_json::array({value}));
    return;
  }
  if (node->kind != '[') throw std::runtime_error(label_ + ": \"" + path.back() + "\" is not an array");
  if (node->children.empty()) {
    const std::string outer = LineIndent(text_, node->begin);
    const std::string inner = outer + unit_;
    Replace(node->begin, node->end, "[\n" + inner + Render(value, inner) + "\n" + outer + "]");
  } else if (text_.substr(node->begin, node->children[0].begin - node->begin).find('\n') != std::string::npos) {
    const std::string inner = LineIndent(text_, node->children[0].begin);
    Replace(node->children.back().end, node->children.back().end, ",\n" + inner + Render(value, inner));
  } else {
    Replace(node->children.back().end, node->children.back().end,
            ", " + value.dump(-1, ' ', false, json::error_handler_t::replace));
  }
}

namespace {

// Removes child `j` of `parent` so that removing what Set/Append added gives back the
// original bytes: the last child takes the separator before it, any other child the one
// after it.
template <class Node, class ReplaceFn>
void RemoveChild(const Node& parent, std::size_t j, ReplaceFn&& replace) {
  const auto& c = parent.children;
  if (c.size() == 1) {
    replace(parent.begin, parent.end, parent.kind == '{' ? "{}" : "[]");
  } else if (j + 1 == c.size()) {
    replace(c[j - 1].end, c[j].end, "");
  } else {
    auto start = [&](const Node& n) { return parent.kind == '{' ? n.key_begin : n.begin; };
    replace(start(c[j]), start(c[j + 1]), "");
  }
}

}  // namespace

void JsonText::PruneIfEmptied(const JsonPath& parent) {
  // An object or array left empty goes too (init made it), unless a comment would go with
  // it: then the person wrote around it, and it stays as they had it.
  const std::string kept = text_;
  Remove(parent);
  if (CountComments(text_) < CountComments(kept)) text_ = kept;
}

void JsonText::Remove(const JsonPath& path) {
  if (path.empty()) return;
  Node root = Scan();
  const Node* parent = &root;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    parent = parent->Child(path[i]);
    if (parent == nullptr || parent->kind != '{') return;
  }
  for (std::size_t j = 0; j < parent->children.size(); ++j) {
    if (parent->children[j].key != path.back()) continue;
    RemoveChild(*parent, j, [&](std::size_t b, std::size_t e, const std::string& w) { Replace(b, e, w); });
    if (path.size() > 1 && parent->children.size() == 1) PruneIfEmptied(JsonPath(path.begin(), path.end() - 1));
    return;
  }
}

// The array at `path` in `root`, or nullptr when the path is missing or not an array.
const JsonText::Node* JsonText::FindArray(const Node& root, const JsonPath& path) {
  const Node* node = &root;
  for (const auto& key : path) {
    node = node->Child(key);
    if (node == nullptr) return nullptr;
  }
  return node->kind == '[' ? node : nullptr;
}

void JsonText::SetElement(const JsonPath& path, std::size_t index, const nlohmann::ordered_json& value) {
  Node root = Scan();
  const Node* node = FindArray(root, path);
  if (node == nullptr || index >= node->children.size()) return;
  const Node& element = node->children[index];
  Replace(element.begin, element.end, Render(value, LineIndent(text_, element.begin)));
}

void JsonText::RemoveElement(const JsonPath& path, std::size_t index) {
  Node root = Scan();
  const Node* node = FindArray(root, path);
  if (node == nullptr || index >= node->children.size()) return;
  const bool emptied = node->children.size() == 1;
  RemoveChild(*node, index, [&](std::size_t b, std::size_t e, const std::string& w) { Replace(b, e, w); });
  if (emptied) PruneIfEmptied(path);
}

}  // namespace kioku::host::cli
