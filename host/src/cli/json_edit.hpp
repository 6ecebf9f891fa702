#pragma once
/// @file json_edit.hpp
/// Edits one spot of a JSON (or JSONC) document as text, so every other byte of the file
/// stays as it was: formatting, key order, comments. nlohmann/json validates the document
/// (comments allowed) and every result; a small scanner over the validated text finds the
/// byte spans of members and elements. New content is indented like its siblings.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kioku::host::cli {

/// A path of object keys from the root, e.g. {"hooks", "Stop"}.
using JsonPath = std::vector<std::string>;

class JsonText {
 public:
  /// Parses `text` ("" or only whitespace = an empty object). Throws std::runtime_error
  /// naming `label` and nlohmann's message when the text is not JSON, or its root is not an
  /// object.
  JsonText(std::string text, std::string label);

  const std::string& Text() const { return text_; }
  /// The value at `path` (nullopt when absent).
  std::optional<nlohmann::json> Get(const JsonPath& path) const;

  /// Sets `path` (its last key) to `value`: replaces the value span when the key exists,
  /// else adds the member at the end of its object, creating missing parent objects.
  /// Throws std::runtime_error when a parent on the path is not an object.
  void Set(const JsonPath& path, const nlohmann::ordered_json& value);
  /// Removes the member at `path` (no-op when absent). Then removes each parent that this
  /// left empty, up to (not including) the root, unless that would remove a comment.
  void Remove(const JsonPath& path);
  /// Appends `value` to the array at `path`, creating the array (and parents) when absent.
  void Append(const JsonPath& path, const nlohmann::ordered_json& value);
  /// Replaces element `index` of the array at `path` (no-op when absent).
  void SetElement(const JsonPath& path, std::size_t index, const nlohmann::ordered_json& value);
  /// Removes element `index` of the array at `path`; removes the array (and empty parents)
  /// when it becomes empty, unless that would remove a comment.
  void RemoveElement(const JsonPath& path, std::size_t index);

 private:
  struct Node;
  Node Scan() const;
  static const Node* FindArray(const Node& root, const JsonPath& path);
  void Replace(std::size_t begin, std::size_t end, const std::string& with);
  void PruneIfEmptied(const JsonPath& parent);
  std::string Render(const nlohmann::ordered_json& value, const std::string& indent) const;

  std::string text_;
  std::string label_;
  std::string unit_ = "  ";  // one indentation level, detected from the file
};

}  // namespace kioku::host::cli
