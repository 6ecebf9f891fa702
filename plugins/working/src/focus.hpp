#pragma once
/// @file focus.hpp
/// The focus document (dokoro's current.md, kept as rows): four sections, each with its own
/// version so agents editing different sections never conflict.

#include <array>
#include <string>
#include <string_view>

#include <SQLiteCpp/Database.h>

#include "versioned.hpp"

namespace kioku::working {

struct FocusSectionInfo {
  std::string_view id;     ///< Stored and sent name, e.g. "next_steps".
  std::string_view title;  ///< Heading shown in the document, e.g. "Next steps".
};

inline constexpr std::array<FocusSectionInfo, 4> kFocusSections{{
    {"active_task", "Active task"},
    {"in_progress", "In progress"},
    {"next_steps", "Next steps"},
    {"notes", "Notes"},
}};

/// Current state of one section (version 0, empty content when never written).
VersionedState LoadFocusSection(SQLite::Database& db, const std::string& project_id,
                                std::string_view section);

/// The whole document as Markdown ("## Active task\n...") with empty sections omitted;
/// empty string when every section is empty.
std::string FocusMarkdown(SQLite::Database& db, const std::string& project_id);

}  // namespace kioku::working
