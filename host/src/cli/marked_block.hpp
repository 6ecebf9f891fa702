#pragma once
/// @file marked_block.hpp
/// The block `kioku init` writes into AGENTS.md / CLAUDE.md / GEMINI.md, between two HTML
/// comment lines so that `kioku uninstall` finds and removes exactly it.

#include <string>

namespace kioku::host::cli {

/// The text of the block (markers included, ending with a newline).
std::string AgentInstructionsBlock();
/// True when `text` holds a block (its begin marker).
bool HasMarkedBlock(const std::string& text);
/// Replaces the block in `text`, or appends `block` after a blank line.
std::string SetMarkedBlock(const std::string& text, const std::string& block);
/// Removes the block and the blank line SetMarkedBlock put before it ("" when nothing else
/// is left). Unchanged when there is no block; a begin marker without an end marker is
/// left alone (std::runtime_error naming `label`).
std::string RemoveMarkedBlock(const std::string& text, const std::string& label);

}  // namespace kioku::host::cli
