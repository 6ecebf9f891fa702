#pragma once
/// @file foreign_formats.hpp
/// Imports from what users already have (`kioku import --from NAME FILE`, sdk/export.hpp
/// ForeignFormat): parsers, pure and testable, and the importers over them.
///
///   claude-md, agents-md  Markdown (CLAUDE.md, AGENTS.md, GEMINI.md): every bullet (-, *, +)
///       and numbered item (1. / 1)) outside code fences, HTML comments, front matter and
///       the block `kioku init` writes becomes one PENDING memory (token-goat-mem seed,
///       `mem import --from-md`: advisory, confirmed in memory_review). The headings above
///       it become tags and hint the kind (KindFromHeadings). Indented lines continue the
///       item above. Source "derived", source_ref "<file>:<line>".
///   mcp-memory  The reference memory server's memory.jsonl
///       (@modelcontextprotocol/server-memory, one JSON object per line):
///         {"type":"entity","name":N,"entityType":T,"observations":[S,...]}
///         {"type":"relation","from":N,"to":N,"relationType":R}
///       Each entity becomes an entity of type T (normalized), each observation one ACTIVE
///       memory of kind observation, text "N: S", linked to the entity and tagged T; each
///       relation one open relation of the entity graph, valid from the import.
///   token-goat  token-goat-mem's `mem export` JSON. The seed names the envelope
///       {schemaVersion, exportedAt, facts} and the fields id, status, confidence, anchor,
///       subject, value, superseded_by; the rest is not specified, so this reads (each in
///       snake_case or camelCase):
///         id (string, required), text (string, required; also "fact"), kind (one of
///         kioku's kinds, default preference), status (pending | active | pinned | contested
///         | superseded, default active), confidence (0..1), subject + value, anchor (kept
///         when kioku accepts it, else dropped with a note), scope (global | project |
///         path), scope_root / scopeRoot (the folder, mapped with sdk::ProjectOfRecord),
///         path (scope path, relative), captured_at / capturedAt (RFC 3339 or Unix ms),
///         source_type / sourceType (user | derived), superseded_by / supersededBy.
///       Statuses are kept as exported (no supersession is re-run); source_ref is
///       "token-goat:<id>", which is also the identity a second import skips by.
///
/// Every format: nothing already stored is filed again (same normalized text in the
/// project or global, any status and kind; reported as a note), all in the host's one
/// transaction, every stored text screened for secrets first (a finding refuses the file
/// naming the line and the rule). Project: the request's; none → global scope.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kioku/sdk/export.hpp"
#include "settings.hpp"

namespace kioku::sdk {
class HostServices;
}

namespace kioku::semantic {

/// One bullet or numbered item of a Markdown file.
struct MarkdownItem {
  int line = 0;                       ///< 1-based line of the marker
  std::string text;                   ///< item text, continuation lines joined by a space
  std::vector<std::string> headings;  ///< enclosing headings, outermost first
};

/// Items of a Markdown file (rules in the file comment). Never throws.
std::vector<MarkdownItem> ParseMarkdownItems(std::string_view text);

/// Kind for an item under `headings` (innermost first wins): preference (prefer, style,
/// convention, rule, do/don't), decision, lesson (lesson, gotcha, pitfall, learned),
/// todo, correction, fact (command, build, test, setup, overview, structure, architecture,
/// layout, project, environment); else preference.
std::string KindFromHeadings(const std::vector<std::string>& headings);

struct GraphEntity {
  int line = 0;
  std::string name;
  std::string type;
  std::vector<std::string> observations;
};
struct GraphRelation {
  int line = 0;
  std::string from;
  std::string to;
  std::string type;
};
struct MemoryGraph {
  std::vector<GraphEntity> entities;
  std::vector<GraphRelation> relations;
};

/// Parses memory.jsonl; blank lines are skipped. Throws std::runtime_error "line N: …"
/// saying what the line should hold.
MemoryGraph ParseMemoryJsonl(std::string_view text);

struct TokenGoatFact {
  int line = 0;  ///< line of the fact's id in the file (0 when not found)
  std::string id, text, kind, status, subject, value, anchor, scope, scope_root, path, source, superseded_by;
  double confidence = 1.0;
  std::int64_t captured_at = 0;  ///< Unix ms, 0 = unknown
};

/// Parses a token-goat-mem export (fields in the file comment). Throws std::runtime_error
/// naming the line (JSON syntax) or "facts[i] (line N)" and the field at fault.
std::vector<TokenGoatFact> ParseTokenGoatExport(std::string_view text);

/// The formats for sdk::ExporterSpec::foreign_formats. `host` and `settings` must outlive them.
std::vector<sdk::ForeignFormat> SemanticForeignFormats(sdk::HostServices& host, const Settings& settings);

}  // namespace kioku::semantic
