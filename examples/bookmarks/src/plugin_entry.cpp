// The module's entry points (manifest + factory); only this file includes plugin_entry.hpp.
#include "bookmarks_plugin.hpp"
#include "kioku/sdk/plugin_entry.hpp"

KIOKU_PLUGIN("bookmarks", "0.1.0", "Example: per-project bookmarks", bookmarks::BookmarksPlugin)
