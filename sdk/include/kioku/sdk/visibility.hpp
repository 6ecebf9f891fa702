#pragma once
/// @file visibility.hpp
/// KIOKU_EXPORT: marks a type or function visible across the module boundary. Plugin modules
/// are built with -fvisibility=hidden (Boost.DLL's rule: export only what the host must see),
/// so types whose RTTI or vtable both sides use — Plugin, ToolError — carry it, as do the
/// two entry points KIOKU_PLUGIN writes (plugin_entry.hpp). A header on its own so that
/// tool.hpp and plugin.hpp need not include the ABI headers to get it.

#define KIOKU_EXPORT __attribute__((visibility("default")))
